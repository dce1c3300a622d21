"""Train the champion's learned bidding (``sample_bots/learned``): data from real deals, then a ridge fit.

    python bench/train_bidding.py [--variants five-handed,call-ace,classic] [--deals 4000] [--seed 1]
                                  [--out ~/.cache/euchre-arena/train-bidding] [--chunk 200] [--ridge 1.0]
                                  [--ship] [--continuation rules|champion]

Data. Each deal (``GameState(config, seed=s, single_hand=True)``, s = seed, seed + 1, ...) is bid by
rules players; at each bidding decision with a choice (round 1: accept the up-card or pass; round 2: name
each legal suit or pass; the maker's call: ALONE or the rules player's call), every option is applied to
a copy of the real deal and the hand is played out by rules players (``policy.rollout``, deterministic).
One row per option is the decision's ``features.inputs`` for the option's trump and the option's
*advantage* over passing (over the non-alone call, for ALONE) in the champion's utility (``hand_utility``
with ``objective="points"``). The hidden cards are the real ones, so they follow what the earlier bids
really imply, and the two options share the deal (their difference has far less noise than either).
Rows are written in chunks of ``--chunk`` deals under ``--out`` (outside the repository); a run that is
stopped and started again with the same arguments skips the chunks it has (resumable), and the data are
a function of the seed and the deal count only.

``--continuation champion`` plays the deciding seat's cards after each option by the champion's card play
(``champion_player``: PIMC with every guess solved, at fixed work so that it is a function of the deal)
instead of the rules player's, the other seats and every later bid still the rules player's, and keeps
the rules play-out's advantage beside each row (``y_rules``). It costs some 7 to 10 s of CPU per
Five-handed deal instead of 4 ms, so its rows are few; no model is fitted from them here:
``bench/bidding_continuation.py`` compares the two targets and fits the play's correction to the shipped
model.

Fit. Per variant and decision kind, ridge regression of the advantage on the standardised inputs
(``--ridge``: the penalty per row, times the row count), closed form, then the model is written to
``OUT/bidding.npz`` (and, with ``--ship``, to ``sample_bots/learned/bidding.npz``). It prints each model's
rows, the held-out R² (the last tenth of the deals) and what the rules player's choice and the model's
would be worth on those held-out decisions.

The shipped weights were made by ``--deals 20000,10000,8000 --seed 1 --ship --evaluate 2000`` (38,000
deals, about 160 s of CPU for the data); their figures, held out and against the champion's rollout
bidding on the same deals (``bench/hands.py``), are in ``sample_bots/learned/bidding.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Protocol

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.engine import GameConfig, GameState
from arena.engine import actions as A
from arena.engine.cards import NO_TRUMP
from arena.engine.state import P_BID1, P_BID2, P_CALL, P_OVER, P_PLAY
from bench.strength import VARIANTS
from sample_bots.learned import NO_ALONE, WEIGHTS, Bidder, Model, config_key
from sample_bots.learned.features import KINDS, NUM_INPUTS, inputs
from sample_bots.montecarlo import hand_utility
from sample_bots.policy import Seen, choose, choose_state, rollout, seen_from_state
from sample_bots.policy.bidding import call

TRAIN_VARIANTS = ("five-handed", "call-ace", "classic")
EVAL_SEED = 10_000_000
"""Held-out deals for ``--evaluate`` start here, far from any training run's seeds."""
DEFAULT_OUT = Path.home() / ".cache" / "euchre-arena" / "train-bidding"


CONTINUATIONS = ("rules", "champion")
"""Who plays ``seat``'s cards after the decision (``--continuation``): the rules player (the shipped
weights), or the champion's card play (``champion_player``); every other seat, and every later bid, is the
rules player's either way."""


CHAMPION_SETTINGS: dict[str, float] = {"budget_s": 10.0}
"""``champion_player``'s settings over the champion's defaults (the tests' tiny run makes it cheaper)."""


class Player(Protocol):
    def __call__(self, state: GameState, seat: int) -> int: ...


class Decider(Protocol):
    """A bidder ``learned_hand`` and ``evaluate`` can play: the ridge model (``Bidder``) or the CFR table
    (``sample_bots.learned.cfr.CfrBidder``)."""

    def decide(self, k: Seen) -> int | None: ...


def champion_player(deal: int) -> Player:
    """The champion's card play (PIMC, every guess solved) at fixed work (``budget_s`` 10 s of CPU, so the
    guess count and the work budget stop each search and the card is a function of the deal alone)."""
    from arena.engine import build_view
    from arena.engine.actions import encode
    from sample_bots.champion import ChampionBot

    bot = ChampionBot.configured(**CHAMPION_SETTINGS)(seed=deal)

    def play(state: GameState, seat: int) -> int:
        return encode(bot.act(build_view(state, seat)))

    return play


def value(state: GameState, action: int, seat: int, player: Player | None = None) -> float:
    """What ``action`` at ``state`` gives ``seat`` on this very deal, rules players doing the rest (and
    ``player``, if given, ``seat``'s cards)."""
    sim = state.clone()
    sim.apply_unchecked(action)
    if player is None:
        rollout(sim)
    else:
        while sim.phase != P_OVER:
            legal = sim.legal_actions()
            who = sim.to_act
            if len(legal) == 1:
                act = legal[0]
            elif who == seat and sim.phase == P_PLAY:
                act = player(sim, seat)
            else:
                act = choose_state(sim, who)
            sim.apply_unchecked(act)
    return hand_utility(sim, seat, "points")


Row = tuple[list[float], float, float, float]
"""One option of one decision: (inputs, advantage with the continuation, 1.0 if it is the rules player's
choice else 0.0, advantage with rules players' continuation)."""


def deal_rows(config: GameConfig, deal: int, continuation: str = "rules") -> dict[str, list[Row]]:
    """The rows of one deal per decision kind (``Row``)."""
    rows: dict[str, list[Row]] = {kind: [] for kind in KINDS}
    player = champion_player(deal) if continuation == "champion" else None
    state = GameState(config, seed=deal, single_hand=True)
    while state.phase != P_OVER and state.phase != P_PLAY:  # up to the first lead
        legal = state.legal_actions()
        seat = state.to_act
        k = seen_from_state(state, seat)
        default = legal[0] if len(legal) == 1 else choose(k)
        if len(legal) > 1 and state.phase in (P_BID1, P_BID2, P_CALL):
            record(state, k, legal, default, rows, player)
        state.apply_unchecked(default)
    return rows


def record(
    state: GameState,
    k: Seen,
    legal: list[int],
    default: int,
    rows: dict[str, list[Row]],
    player: Player | None = None,
) -> None:
    """Append the rows of one decision (see the module's docstring); with a ``player``, each row's
    advantage is with ``player`` playing the seat's cards, and the rules players' is kept beside it."""
    seat = state.to_act
    cache: dict[int, tuple[float, float]] = {}

    def worth(action: int) -> tuple[float, float]:
        if action not in cache:
            rules = value(state, action, seat)
            cache[action] = (rules if player is None else value(state, action, seat, player), rules)
        return cache[action]

    def gain(action: int, base: int) -> tuple[float, float]:
        (a, ar), (b, br) = worth(action), worth(base)
        return a - b, ar - br

    if state.phase == P_BID1:
        accept = A.TAKE_UP if A.TAKE_UP in legal else A.ORDER_UP
        if accept in legal and A.PASS in legal:
            g, gr = gain(accept, A.PASS)
            rows["bid1"].append((inputs(k, k.proposed), g, float(default == accept), gr))
    elif state.phase == P_BID2:
        if A.PASS not in legal or A.NAME_BASE + NO_TRUMP in legal:
            return
        for a in legal:
            if A.NAME_BASE <= a < A.NAME_BASE + 4:
                g, gr = gain(a, A.PASS)
                rows["bid2"].append((inputs(k, a - A.NAME_BASE), g, float(default == a), gr))
    elif A.ALONE in legal:
        other = call(k, NO_ALONE)
        if other != A.ALONE and other in legal:
            g, gr = gain(A.ALONE, other)
            rows["alone"].append((inputs(k, k.trump), g, float(default == A.ALONE), gr))


def learned_hand(config: GameConfig, deal: int, bidder: Decider | None, seat: int) -> float:
    """``seat``'s utility on ``deal`` with the learned bidder's bids at ``seat`` (``None``: the rules
    player's), rules players doing everything else."""
    state = GameState(config, seed=deal, single_hand=True)
    while state.phase != P_OVER:
        if state.phase == P_PLAY:
            rollout(state)
            break
        legal = state.legal_actions()
        who = state.to_act
        k = seen_from_state(state, who)
        action = legal[0] if len(legal) == 1 else choose(k)
        if bidder is not None and who == seat and len(legal) > 1:
            learned = bidder.decide(k)
            action = action if learned is None else learned
        state.apply_unchecked(action)
    return hand_utility(state, seat, "points")


def evaluate(config: GameConfig, bidder: Decider, deals: range) -> tuple[float, float, int]:
    """The learned bidder's edge over the rules player's bidding, points per hand: mean and 95% half-width
    over deals (every seat of each deal, the same cards both ways), and the hands that changed."""
    blocks, changed = [], 0
    for deal in deals:
        edges = []
        for seat in range(config.num_players):
            edge = learned_hand(config, deal, bidder, seat) - learned_hand(config, deal, None, seat)
            edges.append(edge)
            changed += edge != 0
        blocks.append(sum(edges) / len(edges))
    arr = np.array(blocks)
    half = 1.96 * float(arr.std(ddof=1)) / len(arr) ** 0.5 if len(arr) > 1 else float("inf")
    return float(arr.mean()), half, changed


def chunk_path(
    out: Path, variant: str, seed: int, start: int, size: int, continuation: str = "rules"
) -> Path:
    folder = variant if continuation == "rules" else f"{variant}-{continuation}"
    return out / "data" / folder / f"seed{seed}-{start:07d}-{size}.npz"


def make_chunk(config: GameConfig, first: int, size: int, path: Path, continuation: str = "rules") -> None:
    """Rows of deals ``first .. first + size - 1``, written atomically to ``path``."""
    rows: dict[str, list[Row]] = {kind: [] for kind in KINDS}
    deal_ids: dict[str, list[int]] = {kind: [] for kind in KINDS}
    for deal in range(first, first + size):
        for kind, found in deal_rows(config, deal, continuation).items():
            rows[kind].extend(found)
            deal_ids[kind].extend([deal] * len(found))
    arrays = {}
    for kind in KINDS:
        got = rows[kind]
        arrays[f"{kind}_x"] = np.array([r[0] for r in got], dtype=np.float64).reshape(-1, NUM_INPUTS)
        arrays[f"{kind}_y"] = np.array([r[1] for r in got], dtype=np.float64)
        arrays[f"{kind}_rules"] = np.array([r[2] for r in got], dtype=np.float64)
        arrays[f"{kind}_deal"] = np.array(deal_ids[kind], dtype=np.int64)
        if continuation != "rules":
            arrays[f"{kind}_y_rules"] = np.array([r[3] for r in got], dtype=np.float64)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)


def fit(x: np.ndarray, y: np.ndarray, ridge: float) -> Model:
    """Ridge regression on standardised inputs (the constant column is left unscaled and unpenalised)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    constant = scale < 1e-12
    mean[constant], scale[constant] = 0.0, 1.0
    mean[0], scale[0] = 0.0, 1.0
    z = (x - mean) / scale
    penalty = np.full(x.shape[1], ridge * len(y))
    penalty[0] = 0.0
    w = np.linalg.solve(z.T @ z + np.diag(penalty), z.T @ y)
    return Model(w, mean, scale)


def load_rows(paths: list[Path], kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    xs, ys, rs, ds = [], [], [], []
    for p in paths:
        with np.load(p) as d:
            xs.append(d[f"{kind}_x"])
            ys.append(d[f"{kind}_y"])
            rs.append(d[f"{kind}_rules"])
            ds.append(d[f"{kind}_deal"])
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(rs), np.concatenate(ds)


def held_out_report(kind: str, model: Model, x: np.ndarray, y: np.ndarray, rules: np.ndarray) -> str:
    """R² and, per decision row, the advantage the rules player's choice and the model's realise."""
    pred = ((x - model.mean) / model.scale) @ model.w
    r2 = 1.0 - float(np.mean((y - pred) ** 2) / max(np.var(y), 1e-12))
    if kind == "bid2":  # several suits per decision: only the sign per row is comparable
        return f"R² {r2:.3f}"
    model_gain = float(np.mean(np.where(pred > 0, y, 0.0)))
    rules_gain = float(np.mean(np.where(rules > 0, y, 0.0)))
    gains = f"rules {rules_gain:+.4f}, model {model_gain:+.4f}"
    return f"R² {r2:.3f}; mean gain per decision over the alternative: {gains}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default=",".join(TRAIN_VARIANTS))
    parser.add_argument(
        "--deals",
        default="4000",
        help="deals per variant: one number, or one per --variants (comma-separated)",
    )
    parser.add_argument("--seed", type=int, default=1, help="the first deal's seed")
    parser.add_argument("--chunk", type=int, default=200, help="deals per data file (the resume unit)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="data and model (outside the repo)")
    parser.add_argument("--ridge", type=float, default=1e-3)
    parser.add_argument(
        "--continuation",
        choices=CONTINUATIONS,
        default="rules",
        help="who plays the deciding seat's cards after each option (champion: about 7 s of CPU per "
        "Five-handed deal, some 1,700 times the rules play-out's 4 ms)",
    )
    parser.add_argument("--ship", action="store_true", help=f"also write the model to {WEIGHTS}")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--evaluate",
        type=int,
        default=0,
        metavar="N",
        help="then play N held-out deals per variant (seeds from 10,000,000) with the new model's bids at "
        "each seat in turn against the rules player's, rules players elsewhere (paired, same deals)",
    )
    args = parser.parse_args(argv)
    variants = args.variants.split(",")
    bad = [v for v in variants if v not in VARIANTS]
    try:
        counts = [int(n) for n in args.deals.split(",")]
    except ValueError:
        counts = [0]
    if len(counts) == 1:
        counts *= len(variants)
    if bad or len(counts) != len(variants) or min(counts) < 1 or args.chunk < 1:
        print(
            f"bad arguments: variants {bad} (known: {', '.join(VARIANTS)}); deals (one, or one per variant) "
            "and chunk >= 1",
            file=sys.stderr,
        )
        return 2
    from rich.progress import Progress

    started = time.process_time()
    plan = []
    deals = dict(zip(variants, counts, strict=True))
    for variant in variants:
        for start in range(0, deals[variant], args.chunk):
            size = min(args.chunk, deals[variant] - start)
            path = chunk_path(args.out, variant, args.seed, start, size, args.continuation)
            plan.append((variant, start, size, path))
    todo = [p for p in plan if not p[3].exists()]
    with Progress(disable=args.quiet) as progress:
        task = progress.add_task(
            "deals", total=sum(p[2] for p in plan), completed=sum(p[2] for p in plan if p[3].exists())
        )
        for variant, start, size, path in todo:
            config = GameConfig.from_dict(VARIANTS[variant])
            make_chunk(config, args.seed + start, size, path, args.continuation)
            progress.advance(task, size)
    print(
        f"data: {len(plan) - len(todo)} chunks found, {len(todo)} made, "
        f"{time.process_time() - started:.0f} s CPU"
    )
    if args.continuation != "rules":  # too few rows for a model of their own: a correction of the shipped one
        print(
            "the champion-continuation rows are read by bench/bidding_continuation.py (no model fitted here)"
        )
        return 0
    models: dict[tuple[str, str], Model] = {}
    for variant in variants:
        config = GameConfig.from_dict(VARIANTS[variant])
        paths = [p[3] for p in plan if p[0] == variant]
        cut = args.seed + deals[variant] - max(1, deals[variant] // 10)
        for kind in KINDS:
            x, y, rules, deal = load_rows(paths, kind)
            train, test = deal < cut, deal >= cut
            if not len(y):
                print(f"  {variant} {kind}: no rows, no model (more deals)")
                continue
            report = "none"
            if train.sum() > 1 and test.any():
                held = fit(x[train], y[train], args.ridge)
                report = held_out_report(kind, held, x[test], y[test], rules[test])
            models[(config_key(config), kind)] = fit(x, y, args.ridge)
            print(
                f"  {variant} {kind}: {len(y)} rows; held out ({int(test.sum())} rows): {report}", flush=True
            )
    bidder = Bidder(models)
    args.out.mkdir(parents=True, exist_ok=True)
    bidder.save(args.out / "bidding.npz")
    if args.ship:
        bidder.save(WEIGHTS)
    for variant in variants if args.evaluate else ():
        config = GameConfig.from_dict(VARIANTS[variant])
        mean, half, changed = evaluate(config, bidder, range(EVAL_SEED, EVAL_SEED + args.evaluate))
        print(
            f"  {variant}: learned bids - rules bids {mean:+.4f} ± {half:.4f} pts/hand "
            f"({args.evaluate} deals, {changed} hands changed)",
            flush=True,
        )
    print(
        f"model: {args.out / 'bidding.npz'}{' and ' + str(WEIGHTS) if args.ship else ''}; "
        f"{time.process_time() - started:.0f} s CPU in all"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
