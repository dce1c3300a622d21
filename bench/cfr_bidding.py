"""Train the champion's CFR bidding (``sample_bots/learned/cfr.py``): Monte-Carlo CFR over the abstraction
of the bidding information sets there, each hand played out by rules players on the real deal.

    python bench/cfr_bidding.py [--deals 200000] [--seed 1] [--field self|rules] [--every 10000]
                                [--abstraction coarse|fine] [--out ~/.cache/euchre-arena/cfr-bidding]
                                [--evaluate 1000] [--min-visits 50] [--top 40] [--ship]
    python bench/cfr_bidding.py --compare TABLE[,TABLE...] --evaluate 2000 [--mode argmax|sample]
    python bench/cfr_bidding.py --tabular DIR      # DIR: bench/train_bidding.py's --out

**Sampling: chance sampling** (one deal per iteration, then the whole bidding tree of that deal walked
exactly, every seat's regrets updated on the way). External sampling would sample the other seats' actions
too and walk only the traverser's; it pays where a deal's tree is large. Here it is not: every decision is
a choice of two, bidding ends at the first bid, so a Five-handed deal has at most 9 round-1 and round-2
decisions (the stuck dealer's suit is the rules player's), 10 calls and 20 leaves (each seat's bid in
either round, with or without ALONE; 19.4 play-outs per deal measured), and a leaf is one rules play-out
of about 0.4 ms. Walking all of them for all seats at once costs about
what external sampling would spend on its five traversers, without the variance of the sampled actions.
The leaves of one deal are cached by contract (round, maker, trump, ALONE); the same contract on the same
deal is the same hand, since the discard, the card called and the card play are the rules player's.

**Updates.** Regret matching+ (cumulative regrets floored at zero) and the average strategy weighted by
the iteration (CFR+'s linear averaging), so the strategy of the first, noisy deals fades from the
average. A deal's regrets are weighted by the other seats' reach (the counterfactual reach; the deal is
the sampled chance outcome).

**Field.** ``--field self`` (what CFR is): every seat bids by the current strategy, and the table is
shared by the seats (an information set names its position after the dealer). ``--field rules``: one seat
at a time learns (each of the five in turn on every deal) and the other four bid like the rules player,
so regret matching converges to a best response to rules players within the abstraction, the seat's own
later decisions (round 2 after a round-1 pass, ALONE after a bid) its own. The benchmark field is rules
players, so that is what ``bench/hands.py`` rewards; ``sample_bots/learned``'s ridge model approximates
it too, with its own later decisions the rules player's.

Every ``--every`` deals a checkpoint (the tables, the deals done, the CPU spent) is written under
``--out/FIELD-seedS``, with the average strategy beside it (``avg-DEALS.npz``) and the bidder's table
(``cfr.npz``); a stopped run started again with the same arguments resumes from the checkpoint, and the
tables are a function of the seed and deal count only. Each checkpoint prints the average strategy's
change since the previous one (visit-weighted mean absolute change of the probability of acting, and the
information sets whose argmax flipped), and with ``--evaluate N`` the average strategy's bids (argmax)
against the rules player's on N held-out deals (seeds from 10,000,000; every seat in turn, rules players
elsewhere, the same deals both ways).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.engine import GameConfig, GameState
from arena.engine.state import P_BID1, P_BID2, P_CALL, P_OVER, P_PLAY
from bench.strength import VARIANTS
from bench.train_bidding import EVAL_SEED, Decider, evaluate, fit, learned_hand, load_rows
from sample_bots.learned import config_key, shipped
from sample_bots.learned.cfr import (
    BUCKETS,
    CFR_WEIGHTS,
    POSITIONS,
    SPLITS,
    STEP,
    WAIT_MARGIN,
    CfrBidder,
    describe,
    infoset,
    layout,
)
from sample_bots.learned.features import BASE_NAMES
from sample_bots.montecarlo import hand_utility
from sample_bots.policy import choose, rollout, seen_from_state

DEFAULT_OUT = Path.home() / ".cache" / "euchre-arena" / "cfr-bidding"
FIELDS = ("self", "rules")


class Tables:
    """Cumulative regrets and average-strategy sums per information set and action (0 pass or decline, 1
    act), and how often each information set was reached (on the deal's tree, any reach)."""

    def __init__(self, abstraction: str = "coarse") -> None:
        size = layout(abstraction)[1]
        self.abstraction = abstraction
        self.regret = np.zeros((size, 2))
        self.strategy_sum = np.zeros((size, 2))
        self.visits = np.zeros(size, dtype=np.int64)
        self.done = 0
        self.cpu = 0.0

    def current(self, index: int) -> np.ndarray:
        """Regret matching: the positive regrets normalised, or even odds where none is positive."""
        positive = np.maximum(self.regret[index], 0.0)
        total = positive.sum()
        return positive / total if total > 0 else np.array([0.5, 0.5])

    def average(self) -> np.ndarray:
        """The average strategy's probability of acting per information set (one half where unvisited)."""
        total = self.strategy_sum.sum(axis=1)
        out = np.full(len(total), 0.5)
        seen = total > 0
        out[seen] = self.strategy_sum[seen, 1] / total[seen]
        return out

    def save(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp.npz")
        np.savez(
            tmp,
            regret=self.regret,
            strategy_sum=self.strategy_sum,
            visits=self.visits,
            done=np.array(self.done),
            cpu=np.array(self.cpu),
        )
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, abstraction: str = "coarse") -> Tables:
        out = cls(abstraction)
        with np.load(path) as data:
            out.regret, out.strategy_sum = data["regret"], data["strategy_sum"]
            out.visits, out.done, out.cpu = data["visits"], int(data["done"]), float(data["cpu"])
        return out


class Walk:
    """One deal's tree walk: the tables to update, the iteration's weight, who learns (``None``: every
    seat, self-play; a seat: that seat alone, the others bidding like the rules player) and the deal's
    leaf cache."""

    def __init__(
        self, tables: Tables, weight: float, learner: int | None, cache: dict[tuple, np.ndarray]
    ) -> None:
        self.tables, self.weight, self.learner, self.cache = tables, weight, learner, cache
        self.leaves = 0

    def value(self, state: GameState, reach: np.ndarray) -> np.ndarray:
        """Every seat's utility at ``state`` (consumed) under the current strategies; updates the regrets
        and average-strategy sums of the information sets below it."""
        while state.phase != P_PLAY and state.phase != P_OVER:
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_unchecked(legal[0])
                continue
            seat = state.to_act
            k = seen_from_state(state, seat)
            found = infoset(k, self.tables.abstraction) if state.phase in (P_BID1, P_BID2, P_CALL) else None
            if found is None or (self.learner is not None and seat != self.learner):
                state.apply_unchecked(choose(k))
                continue
            return self.decide(state, reach, seat, *found)
        return self.leaf(state)

    def decide(
        self, state: GameState, reach: np.ndarray, seat: int, index: int, actions: tuple[int, int]
    ) -> np.ndarray:
        t = self.tables
        sigma = t.current(index)
        values = []
        for a, action in enumerate(actions):
            child = state.clone()
            child.apply_unchecked(action)
            below = reach.copy()
            below[seat] *= sigma[a]
            values.append(self.value(child, below))
        node = sigma[0] * values[0] + sigma[1] * values[1]
        others = float(np.prod(np.delete(reach, seat)))  # the counterfactual reach
        gains = np.array([values[0][seat], values[1][seat]]) - node[seat]
        t.regret[index] = np.maximum(t.regret[index] + others * gains, 0.0)
        t.strategy_sum[index] += self.weight * reach[seat] * sigma
        t.visits[index] += 1
        return node

    def leaf(self, state: GameState) -> np.ndarray:
        key = (state.maker, state.trump, state.alone, state.turned_down)
        found = self.cache.get(key)
        if found is None:
            if state.phase != P_OVER:
                rollout(state)
            found = np.array([hand_utility(state, s, "points") for s in range(state.n)])
            self.cache[key] = found
            self.leaves += 1
        return found


def train_deal(tables: Tables, config: GameConfig, deal: int, field: str) -> int:
    """One CFR iteration on ``deal``; the leaves played out (the rest came from the deal's cache)."""
    tables.done += 1
    weight = float(tables.done)
    cache: dict[tuple, np.ndarray] = {}
    learners: list[int | None] = [None] if field == "self" else list(range(config.num_players))
    leaves = 0
    for learner in learners:
        walk = Walk(tables, weight, learner, cache)
        walk.value(GameState(config, seed=deal, single_hand=True), np.ones(config.num_players))
        leaves += walk.leaves
    return leaves


def bidder_of(tables: Tables, config: GameConfig, min_visits: int) -> CfrBidder:
    average, visits = tables.average(), tables.visits.copy()
    return CfrBidder(config_key(config), average, visits, min_visits, abstraction=tables.abstraction)


def stability(before: np.ndarray, after: np.ndarray, visits: np.ndarray) -> tuple[float, int]:
    """The visit-weighted mean absolute change of the probability of acting, and the argmax flips (among
    visited information sets)."""
    seen = visits > 0
    if not seen.any():
        return 0.0, 0
    change = float(np.average(np.abs(after - before)[seen], weights=visits[seen]))
    flips = int(np.sum((after > 0.5) != (before > 0.5), where=seen))
    return change, flips


def compare(config: GameConfig, tables: list[Path], deals: range, mode: str = "argmax") -> None:
    """Each CFR table's bids (argmax) and the shipped ridge model's against the rules player's on the same
    held-out deals (every seat in turn, rules players elsewhere), then each table's paired difference to
    the ridge model; points per hand, 95% intervals over deals. ``mode="sample"``: the tables' actions
    drawn from the average strategy (seeded) instead of its argmax."""
    bidders: dict[str, Decider] = {str(path): CfrBidder.load(path, mode, seed=0) for path in tables}
    bidders["ridge (shipped)"] = shipped()
    per: dict[str, np.ndarray] = {}
    for name, bidder in bidders.items():
        blocks = []
        for deal in deals:
            edges = [
                learned_hand(config, deal, bidder, seat) - learned_hand(config, deal, None, seat)
                for seat in range(config.num_players)
            ]
            blocks.append(sum(edges) / len(edges))
        per[name] = np.array(blocks)
        print(f"  {name}: bids - rules bids {interval(per[name])} pts/hand", flush=True)
    for name in bidders:
        if name != "ridge (shipped)":
            print(f"  {name} - ridge: {interval(per[name] - per['ridge (shipped)'])} pts/hand")


def tabular(data: Path, min_rows: int) -> None:
    """How much of the ridge model's information the abstraction keeps, on ``bench/train_bidding.py``'s
    rows (``--out DIR``: its ``data/five-handed`` chunks): per decision kind, the rows' information sets,
    each one's mean advantage on the first nine tenths of the deals, then on the last tenth the advantage
    realised per decision by the rules player's choices, by the table's (act where its mean advantage is
    positive; the rules player's choice below ``min_rows`` rows) and by a ridge model fitted to the same
    rows (``train_bidding.fit``). The table is then the best response to rules players in the abstraction,
    estimated without CFR. Round 1 and the call only (a round-2 row is one suit of a decision, and the rows
    do not say which suit is the best); the call's rows do not say the round, so its two rounds are pooled.
    """
    paths = sorted((data / "data" / "five-handed").glob("*.npz"))
    place_at = 1 + len(BASE_NAMES) + len(BASE_NAMES) * (len(BASE_NAMES) + 1) // 2
    for kind in ("bid1", "alone"):
        x, y, rules, deal = load_rows(paths, kind)
        place = np.argmax(x[:, place_at : place_at + 3 * POSITIONS : 3], axis=1)
        strength = np.minimum(np.maximum((x[:, 2] / STEP).astype(int), 0), BUCKETS - 1)
        if kind == "bid1":
            wait = (place != POSITIONS - 1) & (x[:, 10] >= x[:, 2] + WAIT_MARGIN)
            index = (place * 2 + wait) * BUCKETS + strength
        else:
            index = place * BUCKETS + strength
        cut = deal.min() + int(0.9 * (deal.max() - deal.min() + 1))
        train, test = deal < cut, deal >= cut
        model = fit(x[train], y[train], 1e-3)
        ridge = ((x - model.mean) / model.scale) @ model.w > 0
        print(
            f"  {kind}: {int(train.sum())} rows to fit, {int(test.sum())} held out; advantage realised per "
            f"held-out decision (points): rules {interval(y[test] * (rules[test] > 0))}, "
            f"ridge {interval(y[test] * ridge[test])}",
            flush=True,
        )
        keys = {"the abstraction": index}
        if kind == "bid1":  # finer ones, not trained: what another split of round 1 would keep
            trumps = np.clip(x[:, 3] - 1, 0, 2).astype(int)
            bowers = np.clip(x[:, 4] + x[:, 5], 0, 2).astype(int)
            gift = np.digitize(x[:, 11], [-0.5, 0.5])
            keys["x trumps (<=1, 2, 3+)"] = index * 3 + trumps
            keys["x bowers (0, 1, 2)"] = index * 3 + bowers
            keys["x up-card gift (3 levels)"] = index * 3 + gift
            keys["x trumps x bowers"] = index * 9 + trumps * 3 + bowers
        for name, key in keys.items():
            total = np.bincount(key[train], weights=y[train], minlength=int(key.max()) + 1)
            rows = np.bincount(key[train], minlength=int(key.max()) + 1)
            mean = np.where(rows > 0, total / np.maximum(rows, 1), 0.0)
            table = np.where(rows[key] >= min_rows, mean[key] > 0, rules > 0)
            gain = y[test] * table[test]
            print(
                f"    {name}: {int((rows >= min_rows).sum())} information sets with >= {min_rows} rows; "
                f"table {interval(gain)}, table - ridge {interval(gain - y[test] * ridge[test])}",
                flush=True,
            )


def interval(values: np.ndarray) -> str:
    half = 1.96 * float(values.std(ddof=1)) / len(values) ** 0.5 if len(values) > 1 else float("inf")
    return f"{float(values.mean()):+.4f} ± {half:.4f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="five-handed", help="five-handed only (five seats)")
    parser.add_argument("--deals", type=int, default=200_000, help="iterations (one deal each)")
    parser.add_argument("--seed", type=int, default=1, help="the first deal's seed")
    parser.add_argument("--field", choices=FIELDS, default="self")
    parser.add_argument("--abstraction", choices=tuple(SPLITS), default="coarse", help="cfr.py's SPLITS")
    parser.add_argument("--every", type=int, default=10_000, help="deals per checkpoint")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="checkpoints (outside the repo)")
    parser.add_argument("--min-visits", type=int, default=50, help="fewer: the rules player's action")
    parser.add_argument("--evaluate", type=int, default=0, metavar="N", help="held-out deals per checkpoint")
    parser.add_argument("--ship", action="store_true", help=f"also write the table to {CFR_WEIGHTS}")
    parser.add_argument("--top", type=int, default=0, help="print the N most visited information sets")
    parser.add_argument(
        "--compare",
        metavar="TABLE,...",
        help="no training: these tables' bids and the shipped ridge model's against the rules player's on "
        "--evaluate held-out deals (seeds from 10,000,000), paired",
    )
    parser.add_argument(
        "--tabular",
        type=Path,
        metavar="DIR",
        help="no training: the abstraction's best response to rules players, estimated from "
        "bench/train_bidding.py's rows under DIR, against a ridge model of the same rows (held out)",
    )
    parser.add_argument("--mode", choices=("argmax", "sample"), default="argmax", help="--compare's play")
    args = parser.parse_args(argv)
    if args.tabular:
        tabular(args.tabular, args.min_visits)
        return 0
    if args.variant != "five-handed" or args.deals < 1 or args.every < 1:
        print("bad arguments: --variant five-handed only; --deals and --every >= 1", file=sys.stderr)
        return 2
    config = GameConfig.from_dict(VARIANTS[args.variant])
    if args.compare:
        paths = [Path(p) for p in args.compare.split(",")]
        compare(config, paths, range(EVAL_SEED, EVAL_SEED + args.evaluate), args.mode)
        return 0
    run = (
        args.out
        / f"{args.field}-seed{args.seed}{'' if args.abstraction == 'coarse' else '-' + args.abstraction}"
    )
    run.mkdir(parents=True, exist_ok=True)
    checkpoint = run / "checkpoint.npz"
    tables = Tables.load(checkpoint, args.abstraction) if checkpoint.exists() else Tables(args.abstraction)
    if tables.done:
        print(f"resumed at {tables.done} deals ({tables.cpu:.0f} s CPU so far)", flush=True)
    previous = tables.average()
    while tables.done < args.deals:
        started, leaves, first = time.process_time(), 0, tables.done
        stop = min(args.deals, (tables.done // args.every + 1) * args.every)
        while tables.done < stop:
            leaves += train_deal(tables, config, args.seed + tables.done, args.field)
        tables.cpu += time.process_time() - started
        tables.save(checkpoint)
        average = tables.average()
        np.savez_compressed(run / f"avg-{tables.done:08d}.npz", act=average, visits=tables.visits)
        bidder_of(tables, config, args.min_visits).save(run / "cfr.npz")
        change, flips = stability(previous, average, tables.visits)
        previous = average
        deals = tables.done - first
        line = (
            f"{tables.done} deals ({tables.cpu:.0f} s CPU, "
            f"{1000 * (time.process_time() - started) / deals:.1f} ms/deal, "
            f"{leaves / deals:.1f} play-outs/deal); information sets visited "
            f"{int((tables.visits > 0).sum())}, >= {args.min_visits} visits "
            f"{int((tables.visits >= args.min_visits).sum())}; average strategy change {change:.4f}, "
            f"argmax flips {flips}"
        )
        if args.evaluate:
            mean, half, changed = evaluate(
                config,
                bidder_of(tables, config, args.min_visits),
                range(EVAL_SEED, EVAL_SEED + args.evaluate),
            )
            line += f"; CFR bids - rules bids {mean:+.4f} ± {half:.4f} pts/hand ({changed} hands changed)"
        print(line, flush=True)
    for index in np.argsort(-tables.visits)[: args.top]:
        print(
            f"  {describe(int(index), args.abstraction)}: visits {tables.visits[index]}, "
            f"act {previous[index]:.3f}"
        )
    if args.ship:
        bidder_of(tables, config, args.min_visits).save(CFR_WEIGHTS)
        print(f"shipped to {CFR_WEIGHTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
