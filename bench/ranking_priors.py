"""The priors of the stated P(A above B) compared on exactly the looks of bench/ranking.py, fast.

Usage::

    python bench/ranking_priors.py --load ladder.pkl [--load ties10.pkl ...] [--cache looks.pkl]
                                   [--priors NAME,...]

Each saved event (bench/ranking.py --save) is read through one running tally, a look every ``--step`` games
from 50 (as bench/ranking.py's calibration); at each look the printed order, every entrant's score and the
scores' covariance are kept (``--cache``: stored, so the next run skips the tally). Every prior of
``CANDIDATES`` then states the adjacent pairs' P(upper above lower) on those looks, and the calibration is
judged as bench/ranking.py judges it (bench/ranking.py ``calibration``: ok / noise / OFF bins, Brier), with
the CPU time per look of each prior (``time.process_time``, so it is not the machine's load that is timed).

``ORACLES`` know the truth (the true adjacent gaps of each field, from the mean final scores): the field's
own true gaps (calibrated by construction: a check of the binning); the four fields' gaps pooled into one
prior; and the Bayes answer when the field is one of the four, equally likely, weighed by the evidence of
the look's gaps. If the last is OFF somewhere, no method that states P from the adjacent gaps can be within
the tolerance on every field of this benchmark (docs/ranking.md, "Calibrated on every field: the bound").
"""

from __future__ import annotations

import argparse
import itertools
import math
import pickle
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing
sys.path.append(str(Path(__file__).resolve().parent))

from ranking import calibration
from ranking_fields import FIELDS, names

from arena.stats.confidence import ranking_order, resolve_method
from arena.stats.ebayes import Prior, atoms, fit_symmetric, posterior
from arena.stats.tally import Tally


@dataclass
class Look:
    """One look: the printed order, the scores and their covariance in that order."""

    games: int
    order: tuple[str, ...]
    scores: np.ndarray
    cov: np.ndarray


@dataclass
class Event:
    field: str
    mode: str
    seed: int
    looks: list[Look]
    final: dict[str, float]


def read(path: Path, step: int) -> list[Event]:
    saved = pickle.loads(path.read_bytes())
    played = saved["played"] if isinstance(saved, dict) else saved
    out = []
    for event in played:
        tally = Tally(names(event.field))
        looks: list[Look] = []
        last = 0
        for b in range(step, len(event.games) + 1, step):
            tally.add(event.games[last:b]).close()
            last = b
            totals = tally.totals[resolve_method("auto", tally.duplicate)]
            s, cov = totals.scores(), totals.covariance()
            order = ranking_order(dict(zip(tally.names, (float(v) for v in s), strict=True)))
            col = [tally.names.index(n) for n in order]
            if b >= 50:
                looks.append(Look(b, tuple(order), s[col], cov[np.ix_(col, col)]))
        final = dict(zip(looks[-1].order, (float(v) for v in looks[-1].scores), strict=True))
        out.append(Event(event.field, event.mode, event.seed, looks, final))
    return out


def adjacent_gaps(look: Look) -> tuple[np.ndarray, np.ndarray]:
    s, c = look.scores, look.cov
    gaps = s[:-1] - s[1:]
    var = np.diag(c)[:-1] + np.diag(c)[1:] - 2 * np.diag(c, 1)
    return gaps, np.sqrt(np.maximum(var, 0.0))


def _per_pair(fit: Callable[[np.ndarray, np.ndarray], object]) -> Callable[[Look], list[float]]:
    def stated(look: Look) -> list[float]:
        gaps, ses = adjacent_gaps(look)
        prior = fit(gaps, ses)
        return [posterior(prior, float(g), float(s)).finishes_above for g, s in zip(gaps, ses, strict=True)]  # type: ignore[arg-type]

    return stated


def _leave_one_out(look: Look) -> list[float]:
    gaps, ses = adjacent_gaps(look)
    out = []
    for i in range(gaps.size):
        keep = np.arange(gaps.size) != i
        prior = fit_symmetric(gaps[keep], ses[keep])
        out.append(posterior(prior, float(gaps[i]), float(ses[i])).finishes_above)
    return out


def _null_integrated(look: Look, grid_size: int = 21, iterations: int = 300) -> list[float]:
    """The zero weight integrated over its uncertainty: for each π0 on a grid (uniform prior), the other
    weights fitted by EM with π0 held (profiled), each π0 weighed by the marginal likelihood of the gaps,
    and P averaged over that posterior of π0."""
    gaps, ses = adjacent_gaps(look)
    d, s = gaps, np.maximum(ses, 1e-9)
    g, width = atoms(d, s)
    var = width**2 + s[:, None] ** 2
    log_pos = -0.5 * (d[:, None] - g[None, :]) ** 2 / var - 0.5 * np.log(var)
    log_neg = -0.5 * (d[:, None] + g[None, :]) ** 2 / var - 0.5 * np.log(var)
    f_rest = np.exp(np.logaddexp(log_pos, log_neg) - math.log(2))
    f_null = np.exp(-0.5 * d**2 / s**2 - np.log(s))
    locs = np.concatenate([[0.0], g, -g])
    scales = np.concatenate([[0.0], np.full(g.size, width), np.full(g.size, width)])
    log_marg, stated = [], []
    for pi0 in np.linspace(0.0, 1.0, grid_size):
        w = np.full(g.size, 1.0 / g.size)
        for _ in range(iterations):
            mix = f_rest * w[None, :] * (1 - pi0)
            total = pi0 * f_null + mix.sum(axis=1)
            resp = mix / total[:, None]
            new_w = resp.sum(axis=0)
            new_w = new_w / new_w.sum() if new_w.sum() > 0 else w
            if np.max(np.abs(new_w - w)) < 1e-7:
                w = new_w
                break
            w = new_w
        total = pi0 * f_null + (f_rest * w[None, :] * (1 - pi0)).sum(axis=1)
        log_marg.append(float(np.sum(np.log(np.maximum(total, 1e-300)))))
        weights = np.concatenate([[pi0], (1 - pi0) * w / 2, (1 - pi0) * w / 2])
        prior = Prior(tuple(scales.tolist()), tuple(weights.tolist()), tuple(locs.tolist()))
        stated.append(
            [posterior(prior, float(a), float(b)).finishes_above for a, b in zip(gaps, ses, strict=True)]
        )
    lm = np.asarray(log_marg)
    post = np.exp(lm - lm.max())
    post /= post.sum()
    return [float(v) for v in post @ np.asarray(stated)]


def true_adjacent_gaps(events: list[Event]) -> list[float]:
    """The field's true adjacent gaps, in points per hand: the mean final scores over the events (1,000
    games each), in the true order (by ε); entrants of equal ε are exactly tied (gap 0)."""
    fld = events[0].field
    order = sorted(FIELDS[fld], key=lambda x: -x[1])
    mean = {n: sum(e.final[n] for e in events) / len(events) for n, _ in order}
    out = []
    for (a, ea), (b, eb) in itertools.pairwise(order):
        out.append(0.0 if ea == eb else abs(mean[a] - mean[b]))
    return out


def field_gaps(own: dict[tuple[str, str], list[float]]) -> dict[str, list[float]]:
    """Each field's true adjacent gaps: the mean of its modes' (the modes measure the same bots)."""
    out = {}
    for fld in sorted({f for f, _ in own}):
        modes = [own[fld, m] for m in ("plain", "duplicate") if (fld, m) in own]
        out[fld] = [float(np.mean(column)) for column in zip(*modes, strict=True)]
    return out


def oracle_prior(gap_sets: list[list[float]], width: float = 0.002) -> Prior:
    """Atoms at the true adjacent gaps (±, halves of equal weight) and at 0 for the true ties; each set
    (a field) weighs the same."""
    locs, scales, weights = [], [], []
    for gaps in gap_sets:
        for gap in gaps:
            w = 1.0 / (len(gap_sets) * len(gaps))
            if gap == 0.0:
                locs.append(0.0), scales.append(0.0), weights.append(w)
            else:
                locs += [gap, -gap]
                scales += [width, width]
                weights += [w / 2, w / 2]
    return Prior(tuple(scales), tuple(weights), tuple(locs))


def _with_prior(prior: Prior) -> Callable[[Look], list[float]]:
    def stated(look: Look) -> list[float]:
        gaps, ses = adjacent_gaps(look)
        return [posterior(prior, float(g), float(s)).finishes_above for g, s in zip(gaps, ses, strict=True)]

    return stated


def _marginal_log(prior: Prior, gaps: np.ndarray, ses: np.ndarray) -> float:
    """log of the gaps' likelihood under ``prior``, each pair's gap independent (their correlation left
    out): the evidence for one field's prior against another's."""
    centres, scales, w = prior.centres(), np.asarray(prior.scales), np.asarray(prior.weights)
    var = scales[None, :] ** 2 + np.maximum(ses, 1e-9)[:, None] ** 2
    log = (
        np.log(w)[None, :]
        - 0.5 * (gaps[:, None] - centres[None, :]) ** 2 / var
        - 0.5 * np.log(2 * np.pi * var)
    )
    top = log.max(axis=1, keepdims=True)
    return float(np.sum(top[:, 0] + np.log(np.exp(log - top).sum(axis=1))))


def _hierarchical(priors: list[Prior]) -> Callable[[Look], list[float]]:
    """The Bayes answer when the field is one of ``priors``' fields, equally likely, unknown: each field
    weighed by the evidence of all the look's gaps, P mixed accordingly (the best any method can state
    from the adjacent gaps, if these are the fields it meets)."""

    def stated(look: Look) -> list[float]:
        gaps, ses = adjacent_gaps(look)
        logs = np.asarray([_marginal_log(p, gaps, ses) for p in priors])
        weight = np.exp(logs - logs.max())
        weight /= weight.sum()
        each = np.asarray(
            [
                [posterior(p, float(g), float(s)).finishes_above for g, s in zip(gaps, ses, strict=True)]
                for p in priors
            ]
        )
        return [float(v) for v in weight @ each]

    return stated


CANDIDATES: dict[str, Callable[[Look], list[float]]] = {
    "symmetric NPMLE, adjacent (old default)": _per_pair(fit_symmetric),
    "leave-one-out symmetric": _leave_one_out,
    "zero weight integrated (grid of 21)": _null_integrated,
}
ORACLES = (
    "oracle: the field's own true gaps",
    "oracle: the four fields' true gaps pooled",
    "oracle: which of the four fields, from the look's gaps",
)
"""Priors that know the truth, built per field: calibrated there by construction (the first checks the
binning), and the best any prior on the adjacent gaps can do without knowing the field (the second)."""


def truth_of(events: list[Event]) -> dict[tuple[str, str], float]:
    fld = events[0].field
    eps = dict(FIELDS[fld])
    mean = {n: sum(e.final[n] for e in events) / len(events) for n in names(fld)}
    return {
        (a, b): 0.5 if eps[a] == eps[b] else float(mean[a] > mean[b])
        for a, b in itertools.permutations(names(fld), 2)
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=Path, action="append", default=[])
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--step", type=int, default=25)
    parser.add_argument(
        "--priors", default="", help="names of CANDIDATES or ORACLES, separated by ; (default all)"
    )
    args = parser.parse_args(argv)
    if args.cache and args.cache.exists():
        events = pickle.loads(args.cache.read_bytes())
    else:
        events = [e for path in args.load for e in read(path, args.step)]
        if args.cache:
            args.cache.write_bytes(pickle.dumps(events))
    wanted = [p for p in args.priors.split(";") if p] or [*CANDIDATES, *ORACLES]
    groups: dict[tuple[str, str], list[Event]] = defaultdict(list)
    for e in events:
        groups[e.field, e.mode].append(e)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    own = {key: true_adjacent_gaps(group) for key, group in groups.items()}
    gaps = field_gaps(own)
    pooled = oracle_prior(list(gaps.values()))
    # The fields an event could be, as far as its number of pairs tells: those with as many entrants.
    same_size = {f: [oracle_prior([g]) for g in gaps.values() if len(g) == len(gaps[f])] for f in gaps}
    for (fld, mode), group in groups.items():
        truth = truth_of(group)
        print(
            f"\n=== {fld}, {mode}: {len(group)} events; true adjacent gaps "
            f"{', '.join(f'{g:.3f}' for g in own[fld, mode])} ==="
        )
        oracles = {
            ORACLES[0]: _with_prior(oracle_prior([own[fld, mode]])),
            ORACLES[1]: _with_prior(pooled),
            ORACLES[2]: _hierarchical(same_size[fld]),
        }
        for name in wanted:
            stated = oracles[name] if name in oracles else CANDIDATES[name]
            points = []
            started = time.process_time()
            count = 0
            for e in group:
                for look in e.looks:
                    ps = stated(look)
                    count += 1
                    points += [
                        (p, truth[a, b]) for p, a, b in zip(ps, look.order, look.order[1:], strict=False)
                    ]
            cpu = (time.process_time() - started) / max(count, 1)
            rows = calibration(points)
            print(f"  {name} ({cpu * 1000:.2f} ms CPU per look):")
            print("\n".join(rows))
            last = rows[-1]
            for i, key in enumerate(("ok", "noise", "OFF")):
                totals[name][i] += int(last.split(f" {key}")[0].split()[-1])
    print("\n=== bins over all fields: ok / noise / OFF ===")
    for name in wanted:
        print(f"  {name}: {'/'.join(str(v) for v in totals[name])}")


if __name__ == "__main__":
    main()
