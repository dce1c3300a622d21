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
"""

from __future__ import annotations

import argparse
import itertools
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
from arena.stats.ebayes import fit_symmetric, posterior
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


CANDIDATES: dict[str, Callable[[Look], list[float]]] = {
    "symmetric NPMLE, adjacent (old default)": _per_pair(fit_symmetric),
    "leave-one-out symmetric": _leave_one_out,
}


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
    parser.add_argument("--priors", default="", help="comma-separated names of CANDIDATES (default all)")
    args = parser.parse_args(argv)
    if args.cache and args.cache.exists():
        events = pickle.loads(args.cache.read_bytes())
    else:
        events = [e for path in args.load for e in read(path, args.step)]
        if args.cache:
            args.cache.write_bytes(pickle.dumps(events))
    wanted = [p for p in args.priors.split(",") if p] or list(CANDIDATES)
    groups: dict[tuple[str, str], list[Event]] = defaultdict(list)
    for e in events:
        groups[e.field, e.mode].append(e)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for (fld, mode), group in groups.items():
        truth = truth_of(group)
        print(f"\n=== {fld}, {mode}: {len(group)} events ===")
        for name in wanted:
            stated = CANDIDATES[name]
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
