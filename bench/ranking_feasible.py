"""What the class fields allow: the boundary at which the top tier's ranges lie above the bottom tier's, and
how sure P may be of copies when the prior is the true one.

Usage (the games come from ``bench/ranking.py --fields class12 --save F --play-only``)::

    python bench/ranking_feasible.py --load F [--games 200,250,300] [--oracle]

*Boundary*: at each length, every pair whose standardised gap (the look's gap over its standard error)
exceeds a constant c is shown, the ranges follow (``arena.stats.ranks.rank_ranges``), and the share of
events whose top tier lies above the bottom tier is printed against c: the largest c with a share of at
least 0.95 is what a simultaneous procedure would have to reach (docs/ranking.md, "Class fields: measured",
compares it with the smallest critical value a step-down over the pairs can have).

*Oracle* (``--oracle``): P of every pair under the prior the field truly has (the tiers' means pooled over
the file's events at their full length, equal weights), with and without Student's t: the share of copy
pair-looks at P ≥ 0.95 and the calibration of every pair as printed, every 50 games.
"""

from __future__ import annotations

import argparse
import itertools
import math
import pickle
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))

from ranking import calibration
from ranking_fields import FIELDS, names

from arena.stats.confidence import resolve_method
from arena.stats.ebayes import StrengthPrior, pair_probabilities
from arena.stats.ranks import rank_ranges
from arena.stats.tally import Tally

STEP = 50
BOUNDARIES = [round(1.6 + 0.1 * i, 1) for i in range(25)]


def looks(path: Path) -> list[dict]:
    saved = pickle.loads(path.read_bytes())
    played = saved["played"] if isinstance(saved, dict) else saved
    out = []
    for event in played:
        tally = Tally(names(event.field))
        last = 0
        for b in range(STEP, len(event.games) + 1, STEP):
            tally.add(event.games[last:b]).close()
            last = b
            totals = tally.totals[resolve_method("auto", tally.duplicate)]
            eps = dict(FIELDS[event.field])
            out.append(
                {
                    "field": event.field,
                    "mode": event.mode,
                    "games": b,
                    "last": b + STEP > len(event.games),
                    "eps": np.array([eps[n] for n in tally.names]),
                    "s": totals.scores().copy(),
                    "cov": totals.covariance().copy(),
                    "units": tally.count,
                }
            )
    return out


def separated(look: dict, c: float) -> bool:
    s, cov, eps = look["s"], look["cov"], look["eps"]
    order = np.argsort(-s, kind="stable")
    s, eps, cov = s[order], eps[order], cov[np.ix_(order, order)]
    k = s.size
    shown = set()
    for i, j in itertools.permutations(range(k), 2):
        se = math.sqrt(max(cov[i, i] + cov[j, j] - 2 * cov[i, j], 1e-30))
        if (s[i] - s[j]) / se > c:
            shown.add((i, j))
    ranges = rank_ranges(k, list(range(k)), shown).ranges
    top = [i for i in range(k) if eps[i] == eps.min()]
    bottom = [i for i in range(k) if eps[i] == eps.max()]
    return max(ranges[i][1] for i in top) < min(ranges[j][0] for j in bottom)


def boundary(all_looks: list[dict], lengths: list[int]) -> None:
    for games in lengths:
        for key in sorted({(lk["field"], lk["mode"]) for lk in all_looks}):
            at = [lk for lk in all_looks if (lk["field"], lk["mode"]) == key and lk["games"] == games]
            if not at:
                continue
            shares = {c: sum(separated(lk, c) for lk in at) / len(at) for c in BOUNDARIES}
            best = max((c for c, f in shares.items() if f >= 0.95), default=None)
            row = "  ".join(f"{c}:{shares[c]:.2f}" for c in (2.7, 3.0, 3.2, 3.3, 3.5))
            print(
                f"{key[0]}, {key[1]}, {games} games ({len(at)} events): largest c with >= 0.95 top above "
                f"bottom: {best}; share at c = {row}"
            )


def oracle(all_looks: list[dict]) -> None:
    pooled: dict[tuple[str, str], dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    for lk in all_looks:
        if lk["last"]:
            for e, v in zip(lk["eps"], lk["s"], strict=True):
                pooled[lk["field"], lk["mode"]][float(e)].append(float(v))
    for use_t in (False, True):
        groups: dict[tuple[str, str], dict] = defaultdict(lambda: {"pts": [], "sure": 0, "copies": 0})
        for lk in all_looks:
            key = (lk["field"], lk["mode"])
            atoms = sorted(float(np.mean(v)) for v in pooled[key].values())
            prior = StrengthPrior(tuple(atoms), tuple(1 / len(atoms) for _ in atoms))
            k = lk["s"].size
            df = np.full((k, k), lk["units"] - 1.0) if use_t else None
            p, _ = pair_probabilities(prior, lk["s"], lk["cov"], 0.08, df)
            eps = lk["eps"]
            g = groups[key]
            for x, y in itertools.combinations(np.argsort(-lk["s"], kind="stable"), 2):
                truth = 1.0 if eps[x] < eps[y] else 0.0 if eps[x] > eps[y] else 0.5
                g["pts"].append((float(p[x, y]), truth))
                if eps[x] == eps[y]:
                    g["copies"] += 1
                    g["sure"] += max(p[x, y], 1 - p[x, y]) >= 0.95
        for key, g in sorted(groups.items()):
            print(
                f"\n{key[0]}, {key[1]}, oracle prior, {'Student t' if use_t else 'normal'}: copies at "
                f"P >= 0.95 {g['sure']}/{g['copies']} = {g['sure'] / max(g['copies'], 1):.3f}"
            )
            print("\n".join(calibration(g["pts"])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=Path, action="append", required=True)
    parser.add_argument("--games", default="200,250,300")
    parser.add_argument("--oracle", action="store_true")
    args = parser.parse_args()
    all_looks = [lk for path in args.load for lk in looks(path)]
    boundary(all_looks, [int(g) for g in args.games.split(",")])
    if args.oracle:
        oracle(all_looks)


if __name__ == "__main__":
    main()
