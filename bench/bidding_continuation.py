"""Do the learned bids change when the champion, not the rules player, plays the cards after them?

    python bench/bidding_continuation.py [--variant five-handed] [--data ~/.cache/euchre-arena/train-bidding]
                                          [--seed 1] [--deals 480] [--chunk 20] [--ridge 0.1]
                                          [--features const|linear|full] [--write OUT.npz]

The data are ``bench/train_bidding.py --continuation champion``'s chunks (the same ``--seed``, ``--chunk``
and deal count): every row carries two advantages of one option on one real deal, one with the champion's
card play at the deciding seat after the bid (``y``), one with the rules player's (``y_rules``), every
other seat and every later bid the rules player's in both. The shipped model was fitted to ``y_rules``
on 20,000 deals; ``y`` costs some 1,700 times as much, so only a few hundred deals are affordable.

It prints, per decision kind: the rows, the correlation of the two advantages, their mean difference (95%
interval over deals), how often their signs differ; and what the shipped model's choices realise under
each. Then the *delta*: a ridge fit of ``y - y_rules`` (the play's correction, whose noise is far smaller
than either advantage's, the deal being the same) on the shipped model's standardised inputs, ``const``
(a shift of the threshold), ``linear`` (the constant and the 12 hand features) or ``full`` (all inputs),
scored by 5-fold cross-validation over deals: the mean advantage, under the champion's play, realised by
the choices of shipped + delta against those of the shipped model alone (round 2's rows are scored one by
one, as if each suit were the only one). With ``--write``, the shipped weights plus the delta fitted on
all rows, in the shipped format (``bidding_weights=OUT.npz`` of the champion).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.engine import GameConfig, GameState
from arena.engine.state import P_OVER, P_PLAY
from bench.strength import VARIANTS
from bench.train_bidding import DEFAULT_OUT, Player, champion_player, chunk_path
from sample_bots.learned import WEIGHTS, Bidder, Model, config_key
from sample_bots.learned.features import BASE_NAMES, KINDS
from sample_bots.montecarlo import hand_utility
from sample_bots.policy import choose, choose_state, seen_from_state

FEATURES = {"const": 1, "linear": 1 + len(BASE_NAMES), "full": None}
"""How many of the leading inputs the delta may use (the constant first, then the base features)."""


def load(paths: list[Path], kind: str) -> dict[str, np.ndarray]:
    parts: dict[str, list[np.ndarray]] = {}
    for p in paths:
        with np.load(p) as d:
            for name in ("x", "y", "y_rules", "rules", "deal"):
                parts.setdefault(name, []).append(d[f"{kind}_{name}"])
    return {name: np.concatenate(arrays) for name, arrays in parts.items()}


def ci(values: np.ndarray, groups: np.ndarray) -> tuple[float, float]:
    """Mean per row and 95% half-width with the deal as the unit (rows of one deal summed)."""
    deals = np.unique(groups)
    sums = np.array([values[groups == d].sum() for d in deals])
    counts = np.array([(groups == d).sum() for d in deals])
    mean = sums.sum() / counts.sum()
    resid = sums - mean * counts  # ratio estimator's linearisation
    half = 1.96 * float(np.sqrt(len(deals) * np.sum(resid**2) / (len(deals) - 1))) / counts.sum()
    return float(mean), half


def delta_fit(z: np.ndarray, d: np.ndarray, width: int | None, ridge: float) -> np.ndarray:
    """Ridge weights of the delta on the first ``width`` standardised inputs (all: ``None``), padded to
    the full width; the constant unpenalised."""
    cols = z.shape[1] if width is None else width
    zz = z[:, :cols]
    penalty = np.full(cols, ridge * len(d))
    penalty[0] = 0.0
    w = np.zeros(z.shape[1])
    w[:cols] = np.linalg.solve(zz.T @ zz + np.diag(penalty), zz.T @ d)
    return w


def bid(config: GameConfig, deal: int, bidder: Bidder, seat: int) -> tuple[list[int], GameState]:
    """The bidding of ``deal`` with ``bidder``'s bids at ``seat`` (rules players' everywhere else, and
    theirs at ``seat`` where the model does not decide): the actions, and the state at the first lead (or
    the end of a hand that ended in the bidding)."""
    state = GameState(config, seed=deal, single_hand=True)
    bids = []
    while state.phase != P_OVER and state.phase != P_PLAY:
        legal = state.legal_actions()
        who = state.to_act
        k = seen_from_state(state, who)
        action = legal[0] if len(legal) == 1 else choose(k)
        if who == seat and len(legal) > 1:
            learned = bidder.decide(k)
            action = action if learned is None else learned
        bids.append(action)
        state.apply_unchecked(action)
    return bids, state


def finish(state: GameState, seat: int, player: Player | None) -> float:
    """``seat``'s utility once the hand is played from ``state`` (a copy), ``player`` at ``seat`` (``None``:
    the rules player) and rules players elsewhere."""
    sim = state.clone()
    while sim.phase != P_OVER:
        legal = sim.legal_actions()
        who = sim.to_act
        if len(legal) == 1:
            act = legal[0]
        elif who == seat and player is not None:
            act = player(sim, seat)
        else:
            act = choose_state(sim, who)
        sim.apply_unchecked(act)
    return hand_utility(sim, seat, "points")


def evaluate(config: GameConfig, new: Bidder, old: Bidder, deals: range, every: int) -> None:
    """Print new bids - old bids per hand, every seat of ``deals``, with the champion's card play at the
    seat after the bids (and, beside it, the rules player's): hands where the two bid alike count 0 without
    being played (both card plays are functions of the deal, so they would score alike)."""
    blocks: dict[str, list[float]] = {"champion": [], "rules": []}
    changed = 0
    for i, deal in enumerate(deals, 1):
        edges: dict[str, list[float]] = {"champion": [], "rules": []}
        champion = champion_player(deal)
        for seat in range(config.num_players):
            a, after_a = bid(config, deal, new, seat)
            b, after_b = bid(config, deal, old, seat)
            changed += a != b
            for play, player in (("champion", champion), ("rules", None)):
                edge = 0.0 if a == b else finish(after_a, seat, player) - finish(after_b, seat, player)
                edges[play].append(edge)
        for play in blocks:
            blocks[play].append(sum(edges[play]) / len(edges[play]))
        if i % every == 0 or i == len(deals):
            parts = []
            for play, values in blocks.items():
                arr = np.array(values)
                half = 1.96 * float(arr.std(ddof=1)) / len(arr) ** 0.5 if len(arr) > 1 else float("inf")
                parts.append(f"{play} play {arr.mean():+.4f} ± {half:.4f}")
            print(
                f"  {i} deals from {deals.start}: new - shipped bids, pts/hand: {'; '.join(parts)} "
                f"({changed} hands bid differently)",
                flush=True,
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="five-handed")
    parser.add_argument("--data", type=Path, default=DEFAULT_OUT, help="train_bidding.py's --out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deals", type=int, default=480)
    parser.add_argument("--chunk", type=int, default=20)
    parser.add_argument("--ridge", type=float, default=0.1, help="the delta's penalty per row")
    parser.add_argument("--features", choices=tuple(FEATURES), default="linear")
    parser.add_argument("--write", type=Path, help="the shipped weights plus the delta, to this file")
    parser.add_argument(
        "--evaluate",
        type=int,
        default=0,
        metavar="N",
        help="then play N held-out deals (from --eval-seed) with shipped + delta's bids against the "
        "shipped model's, at each seat in turn, the champion's card play after the bids",
    )
    parser.add_argument("--eval-seed", type=int, default=500_000)
    parser.add_argument("--every", type=int, default=100, help="print the evaluation every N deals")
    args = parser.parse_args(argv)
    config = GameConfig.from_dict(VARIANTS[args.variant])
    key = config_key(config)
    paths = []
    for start in range(0, args.deals, args.chunk):
        size = min(args.chunk, args.deals - start)
        path = chunk_path(args.data, args.variant, args.seed, start, size, "champion")
        if path.exists():
            paths.append(path)
    if not paths:
        parser.exit(
            2, "no champion-continuation chunks found (bench/train_bidding.py --continuation champion)\n"
        )
    print(f"{args.variant}: {len(paths)} chunks of {args.chunk} deals (champion continuation)")
    shipped = Bidder.load(WEIGHTS)
    models = dict(shipped.models)
    for kind in KINDS:
        rows = load(paths, kind)
        x, y, yr, deal = rows["x"], rows["y"], rows["y_rules"], rows["deal"]
        if len(np.unique(deal)) < 5:  # the cross-validation's folds are deals
            print(f"  {kind}: {len(y)} rows of {len(np.unique(deal))} deals, too few")
            continue
        base = shipped.models[(key, kind)]
        z = (x - base.mean) / base.scale
        pred = z @ base.w
        diff = y - yr
        corr = float(np.corrcoef(y, yr)[0, 1])
        shift, shift_half = ci(diff, deal)
        flips = float(np.mean(np.sign(y) != np.sign(yr)))
        gain_c, half_c = ci(np.where(pred > 0, y, 0.0), deal)
        gain_r, half_r = ci(np.where(pred > 0, yr, 0.0), deal)
        print(
            f"  {kind}: {len(y)} rows of {len(np.unique(deal))} deals; corr(y, y_rules) {corr:.3f}; "
            f"y - y_rules {shift:+.3f} ± {shift_half:.3f} (sd {diff.std():.2f}, y's sd {y.std():.2f}); "
            f"signs differ {flips:.1%}; shipped model's choices realise {gain_c:+.3f} ± {half_c:.3f} "
            f"(champion play), {gain_r:+.3f} ± {half_r:.3f} (rules play)"
        )
        width = FEATURES[args.features]
        folds = np.unique(deal) % 5
        fold_of = {d: f for d, f in zip(np.unique(deal), folds, strict=True)}
        fold = np.array([fold_of[d] for d in deal])
        better = np.zeros(len(y))
        changed = 0
        for f in range(5):
            tr, te = fold != f, fold == f
            w = delta_fit(z[tr], diff[tr], width, args.ridge)
            new = pred[te] + z[te] @ w
            better[te] = np.where(new > 0, y[te], 0.0) - np.where(pred[te] > 0, y[te], 0.0)
            changed += int(np.sum((new > 0) != (pred[te] > 0)))
        gain, half = ci(better, deal)
        w_all = delta_fit(z, diff, width, args.ridge)
        print(
            f"    delta ({args.features}, ridge {args.ridge}): cross-validated gain of shipped + delta over "
            f"shipped {gain:+.4f} ± {half:.4f} per row (champion play; {changed} of {len(y)} choices "
            f"changed); delta's constant on all rows {w_all[0]:+.3f}"
        )
        models[(key, kind)] = Model(base.w + w_all, base.mean, base.scale)
    if args.write:
        Bidder(models).save(args.write)
        print(f"written: {args.write} (the shipped weights, {args.variant}'s plus the delta)")
    if args.evaluate:
        deals = range(args.eval_seed, args.eval_seed + args.evaluate)
        evaluate(config, Bidder(models), shipped, deals, args.every)
    return 0


if __name__ == "__main__":
    sys.exit(main())
