"""Which prior on the entrants' strengths gives a calibrated P: the candidates of arena.stats.ebayes (and
two more) side by side on saved events, with the oracle (the tiers' true means) beside them.

Usage (the games come from ``bench/ranking.py --fields F --save FILE --play-only``)::

    python bench/ranking_strength.py --load FILE [--load FILE ...] [--variants atoms,smooth,chosen,oracle]
                                     [--bins]

Every event is looked at every 50 games: the scores and their covariance as the leaderboard computes them,
P of every pair by ``pair_probabilities`` with each pair's shared units less one as Student's t degrees of
freedom (as ``arena.stats.confidence.look``), under each candidate prior. Printed per field and mode: the
share of copy pair-looks at P >= 0.95 (either way), the calibration of P(upper above lower) over every pair
as printed (bins off ±0.05 beyond noise), its Brier score, and the CPU of the prior's fit and the pairs' P
(median and largest per look). Variants:

* ``atoms``: the NPMLE on 60 grid points (``fit_atoms``; the leaderboard's prior before);
* ``smooth``: Efron's log-polynomial g-model (``fit_smooth``);
* ``chosen``: whichever of the two has the smaller BIC (``fit_strengths``, the leaderboard's);
* ``cluster``: the NPMLE when it has one cluster of atoms, else the smooth prior (measured, not kept);
* ``bagged``: the NPMLE averaged over 10 seeded parametric resamples of the scores (not kept);
* ``oracle``: the tiers' true means, equal weights (each tier's mean over the file's events at their
  last look; not available to a leaderboard).
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))

from ranking import calibration
from ranking_fields import FIELDS, names

from arena.stats.confidence import resolve_method
from arena.stats.ebayes import (
    StrengthPrior,
    _clusters,
    _em,
    _grid,
    fit_atoms,
    fit_smooth,
    fit_strengths,
    pair_probabilities,
)
from arena.stats.tally import Tally

STEP = 50
Fit = Callable[[np.ndarray, np.ndarray, dict], StrengthPrior]


def looks(path: Path) -> list[dict]:
    saved = pickle.loads(path.read_bytes())
    played = saved["played"] if isinstance(saved, dict) else saved
    out = []
    for event in played:
        tally = Tally(names(event.field))
        eps = dict(FIELDS[event.field])
        last = 0
        for b in range(STEP, len(event.games) + 1, STEP):
            tally.add(event.games[last:b]).close()
            last = b
            totals = tally.totals[resolve_method("auto", tally.duplicate)]
            out.append(
                {
                    "field": event.field,
                    "mode": event.mode,
                    "last": b + STEP > len(event.games),
                    "eps": np.array([eps[n] for n in tally.names]),
                    "s": totals.scores().copy(),
                    "cov": totals.covariance().copy(),
                    "unit": tally.unit_sum.copy(),
                }
            )
    return out


def bagged(s: np.ndarray, e: np.ndarray, look: dict, draws: int = 10) -> StrengthPrior:
    grid = _grid(s, e, 60)
    rng = np.random.default_rng(0)
    total = np.zeros(grid.size)
    for d in s + e * rng.standard_normal((draws, s.size)):
        log = -0.5 * ((d[:, None] - grid[None, :]) / e[:, None]) ** 2
        total += _em(np.exp(log - log.max(axis=1, keepdims=True)), np.zeros(grid.size), 300, 1e-8)
    keep = total > 1e-6
    return StrengthPrior(tuple(grid[keep]), tuple(total[keep] / total[keep].sum()))


def cluster(s: np.ndarray, e: np.ndarray, look: dict) -> StrengthPrior:
    atoms = fit_atoms(list(s), list(e))
    return atoms if _clusters(atoms) == 1 else fit_smooth(list(s), list(e))


def variants(all_looks: list[dict]) -> dict[str, Fit]:
    pooled: dict[tuple[str, str], dict[float, list[float]]] = {}
    for lk in all_looks:
        if lk["last"]:
            for eps, v in zip(lk["eps"], lk["s"], strict=True):
                pooled.setdefault((lk["field"], lk["mode"]), {}).setdefault(float(eps), []).append(float(v))
    means = {k: sorted(float(np.mean(v)) for v in d.values()) for k, d in pooled.items()}

    def oracle(s: np.ndarray, e: np.ndarray, look: dict) -> StrengthPrior:
        atoms = means[look["field"], look["mode"]]
        return StrengthPrior(tuple(atoms), tuple(1 / len(atoms) for _ in atoms))

    return {
        "atoms": lambda s, e, lk: fit_atoms(list(s), list(e)),
        "smooth": lambda s, e, lk: fit_smooth(list(s), list(e)),
        "chosen": lambda s, e, lk: fit_strengths(list(s), list(e)),
        "cluster": cluster,
        "bagged": bagged,
        "oracle": oracle,
    }


def evaluate(name: str, fit: Fit, all_looks: list[dict], bins: bool) -> None:
    groups: dict[tuple[str, str], dict] = {}
    cpu = []
    for lk in all_looks:
        s, cov, eps, unit = lk["s"], lk["cov"], lk["eps"], lk["unit"]
        keep = np.isfinite(np.diag(cov)) & (np.diag(cov) > 0)
        e = np.sqrt(np.where(keep, np.diag(cov), np.nan))
        started = time.process_time()
        p, _ = pair_probabilities(fit(s, e, lk), s, cov, 0.08, np.minimum(unit[:, None], unit[None, :]) - 1)
        cpu.append(time.process_time() - started)
        g = groups.setdefault((lk["field"], lk["mode"]), {"pts": [], "sure": 0, "copies": 0})
        for x, y in itertools.combinations(np.argsort(-s, kind="stable"), 2):
            truth = 1.0 if eps[x] < eps[y] else 0.0 if eps[x] > eps[y] else 0.5
            g["pts"].append((float(p[x, y]), truth))
            if eps[x] == eps[y]:
                g["copies"] += 1
                g["sure"] += max(p[x, y], 1 - p[x, y]) >= 0.95
    cpu.sort()
    print(
        f"\n=== {name}: fit + P per look, CPU median {cpu[len(cpu) // 2] * 1000:.1f} ms, "
        f"max {cpu[-1] * 1000:.1f}"
    )
    for key, g in sorted(groups.items()):
        cal = calibration(g["pts"])
        tail = cal[-1].split("; bins with n >= 50: ")
        print(
            f"  {key[0]:8s} {key[1]:9s} copies P>=0.95 {g['sure'] / max(g['copies'], 1):.3f} "
            f"of {g['copies']:5d}"
            f"  {tail[0].strip().split(' over')[0]}  bins: {tail[1].split(' (')[0]}"
        )
        if bins:
            print("\n".join(cal[:-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=Path, action="append", required=True)
    parser.add_argument("--variants", default="atoms,smooth,chosen,cluster,bagged,oracle")
    parser.add_argument("--bins", action="store_true", help="print every calibration bin")
    args = parser.parse_args()
    all_looks = [lk for path in args.load for lk in looks(path)]
    table = variants(all_looks)
    for name in args.variants.split(","):
        evaluate(name, table[name], all_looks, args.bins)


if __name__ == "__main__":
    main()
