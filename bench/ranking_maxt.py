"""A prototype, not the leaderboard's code: the max-t step-down for the rank ranges (Romano and Wolf 2005;
Mogstad, Romano, Shaikh and Wilhelm 2024) against Holm's, on saved class events.

Usage::

    python bench/ranking_maxt.py --load class12.pkl [--games 200] [--draws 4000]

Each event is cut to ``--games`` games with the planned looks of an event whose ``max_games`` is that
length (100 × 1.5, as ``bench/ranking_class.py --games``). At each planned look both step-downs run on the
pairs of the look's order (each pair's gap, standard error and shared units less one, as
``arena.stats.confidence.look``). Holm's tests each remaining pair at α/m; the max-t step finds, from
``--draws`` seeded draws of the entrants' scores from their estimated covariance (seed: the event's), the
one-look critical value c of the largest standardised gap among the remaining pairs at level α, and tests
each pair at the group-sequential boundary of the per-pair level 1 − Φ(c) (at least α/m), moved to
Student's t as Holm's is. Printed per mode: the share of events whose top tier lies above the bottom tier at
the last look, and of events with no pair shown wrongly at any planned look (coverage), for each procedure.

Caveat: the repeated looks are handled as Holm's are, each pair's sequential boundary at its per-pair level;
for the max-t form that is an approximation (the maximum over correlated pairs is not a single pair's
random walk), not a proof.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import defaultdict
from pathlib import Path
from statistics import NormalDist

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))

from ranking import per_round
from ranking_fields import FIELDS, names

from arena.stats.confidence import resolve_method
from arena.stats.leaderboard import PLANNED_RHO
from arena.stats.ranks import MIN_DF, rank_ranges, t_boundaries
from arena.stats.sequential import LookPlan
from arena.stats.tally import Tally

ALPHA = 0.05
_N = NormalDist()


def shown_by(stat: np.ndarray, df: np.ndarray, level_of: object, plan: LookPlan, games: int) -> np.ndarray:
    """Step-down: ``level_of(remaining)`` is each remaining pair's one-sided level at this step."""
    k = stat.shape[0]
    remaining = ~np.eye(k, dtype=bool)
    shown = np.zeros_like(remaining)
    while remaining.any():
        a = level_of(remaining)  # type: ignore[operator]
        c = plan.boundary_at(games, 2 * a)
        new = remaining & (stat > t_boundaries(c, df)) & (df >= MIN_DF)
        if not new.any():
            break
        shown |= new
        remaining &= ~new
    return shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=Path, action="append", required=True)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--draws", type=int, default=4000)
    args = parser.parse_args()
    result: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for path in args.load:
        saved = pickle.loads(path.read_bytes())
        for event in saved["played"] if isinstance(saved, dict) else saved:
            games = event.games[: args.games]
            plan = LookPlan(100, 1.5, args.games, PLANNED_RHO)
            eps_of = dict(FIELDS[event.field])
            tally = Tally(names(event.field))
            last = 0
            ok = {"holm": True, "max-t": True}
            sep = {"holm": False, "max-t": False}
            for b in plan.points(per_round(event.field, event.mode, event.seed)):
                tally.add(games[last:b]).close()
                last = b
                totals = tally.totals[resolve_method("auto", tally.duplicate)]
                s, cov = totals.scores(), totals.covariance()
                order = np.argsort(-s, kind="stable")
                s, cov = s[order], cov[np.ix_(order, order)]
                eps = np.array([eps_of[tally.names[i]] for i in order])
                unit = tally.unit_sum[order]
                k = s.size
                var = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov
                se = np.sqrt(np.maximum(var, 1e-30))
                stat = np.where(np.eye(k, dtype=bool), -np.inf, (s[:, None] - s[None, :]) / se)
                df = np.minimum(unit[:, None], unit[None, :]) - 1.0
                rng = np.random.default_rng(event.seed)
                z = rng.multivariate_normal(np.zeros(k), cov, size=args.draws, method="eigh")
                t = (z[:, :, None] - z[:, None, :]) / se[None]

                def holm(remaining: np.ndarray) -> float:
                    return ALPHA / int(remaining.sum())

                def max_t(remaining: np.ndarray, t: np.ndarray = t) -> float:
                    m = t[:, remaining].max(axis=1)
                    c = float(np.quantile(m, 1 - ALPHA))
                    return max(1 - _N.cdf(c), ALPHA / int(remaining.sum()))

                for name, level in (("holm", holm), ("max-t", max_t)):
                    shown = shown_by(stat, df, level, plan, b)
                    pairs = {(int(i), int(j)) for i, j in zip(*np.nonzero(shown), strict=True)}
                    ok[name] &= all(eps[i] < eps[j] for i, j in pairs)
                    ranges = rank_ranges(k, list(range(k)), pairs).ranges
                    top = [i for i in range(k) if eps[i] == eps.min()]
                    bottom = [i for i in range(k) if eps[i] == eps.max()]
                    sep[name] = max(ranges[i][1] for i in top) < min(ranges[j][0] for j in bottom)
            for name in ("holm", "max-t"):
                row = result[f"{event.field}, {event.mode}"][name]
                row[0] += 1
                row[1] += sep[name]
                row[2] += ok[name]
    for key, rows in sorted(result.items()):
        for name, (n, sep_n, ok_n) in rows.items():
            print(
                f"{key}, {name}, {args.games} games: top above bottom {sep_n}/{n} = {sep_n / n:.2f}; "
                f"no pair shown wrongly at any planned look {ok_n}/{n}"
            )


if __name__ == "__main__":
    main()
