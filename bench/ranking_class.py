"""Class fields: do the rank ranges hold, how wide are they, when is the top tier told from the bottom,
is P calibrated, and what does each ``[ranking] settle`` question cost?

Usage (the games come from ``bench/ranking.py --fields class12 --save F --play-only``)::

    python bench/ranking_class.py --load F [--load G ...] [--games N]

``--games N``: every event cut to its first N games, its planned looks ending there (``max_games`` = N).

Per field and mode (bench/ranking_fields.py: ``class12``, six graded tiers entered twice; ``class30``, ten
graded tiers entered three times), at each look (the planned looks of a ``max_games`` = the event's length
event, and every 50 games): *coverage*, the share of events in which no pair is shown in the wrong order
(i above j while i is truly not better: entrants of equal ε are truly tied), which is the event "every true
rank lies in its range" with ties broken either way; the mean width of the ranges (hi − lo + 1); the share
of events whose top tier's ranges all lie above the bottom tier's; P(upper above lower) of every pair as
printed, binned against the truth (1, 0, or 1/2 for copies); the share of copy pair-looks with P ≥ 0.95;
a tied pair (copies) ordered at some planned look (by the rank ranges or a neighbour verdict); and
``--until-settled`` replayed under each ``settle`` question. CPU per look is ``time.process_time``.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))

from ranking import calibration, per_round
from ranking_fields import FIELDS, PlayedEvent, names

from arena.stats.confidence import TIE_MARGIN, Confidence, look
from arena.stats.leaderboard import PLANNED_RHO, SETTLES, answered
from arena.stats.sequential import LookPlan, Verdict
from arena.stats.tally import Tally

LEVEL = 0.95
STEP = 50


@dataclass
class Seen:
    games: int
    planned: bool
    covered: bool
    width: float
    top_above_bottom: bool
    tie_ordered: bool
    p_points: list[tuple[float, float]]
    copies_sure: int
    copies: int
    answered: dict[str, bool]
    cpu_ms: float


@dataclass
class EventRun:
    field: str
    mode: str
    looks: list[Seen] = field(default_factory=list)


def eps(fld: str) -> dict[str, float]:
    return dict(FIELDS[fld])


def judge(conf: Confidence, fld: str, b: int, planned: bool, cpu_ms: float) -> Seen:
    e = eps(fld)
    order = conf.order
    ranks = conf.ranks
    assert ranks is not None
    shown = {(order[i], order[j]) for i, j in ranks.shown}
    covered = all(e[a] < e[c] for a, c in shown)  # shown above: truly better (smaller ε)
    ranges = conf.rank_ranges()
    width = sum(hi - lo + 1 for lo, hi in ranges) / len(ranges)
    best, worst = min(e.values()), max(e.values())
    top = [i for i, n in enumerate(order) if e[n] == best]
    bottom = [i for i, n in enumerate(order) if e[n] == worst]
    separated = max(ranges[i][1] for i in top) < min(ranges[j][0] for j in bottom)
    adjacent_above = {(p.upper, p.lower) for p in conf.adjacent if p.verdict is Verdict.ABOVE}
    tie_ordered = any(e[a] == e[c] for a, c in shown | adjacent_above)
    points = []
    sure = copies = 0
    for i, j in itertools.combinations(range(len(order)), 2):
        p = conf.pairwise[i][j]
        a, c = order[i], order[j]
        truth = 1.0 if e[a] < e[c] else 0.0 if e[a] > e[c] else 0.5
        points.append((p, truth))
        if e[a] == e[c]:
            copies += 1
            sure += max(p, 1 - p) >= 0.95
    settled = {s: answered(conf, s, 3) for s in SETTLES}
    return Seen(b, planned, covered, width, separated, tie_ordered, points, sure, copies, settled, cpu_ms)


def analyse(event: PlayedEvent) -> EventRun:
    entrants = names(event.field)
    games = len(event.games)
    rg = per_round(event.field, event.mode, event.seed)
    plan = LookPlan(100, 1.5, games, PLANNED_RHO)
    planned = set(plan.points(rg))
    marks = sorted(planned | set(range(STEP, games + 1, STEP)))
    tally = Tally(entrants)
    run = EventRun(event.field, event.mode)
    last = 0
    for b in marks:
        tally.add(event.games[last:b]).close()
        last = b
        started = time.process_time()
        conf = look(tally, "auto", LEVEL, event.seed, TIE_MARGIN, plan=plan, round_games=rg)
        cpu = (time.process_time() - started) * 1000
        run.looks.append(judge(conf, event.field, b, b in planned, cpu))
    return run


def report(runs: list[EventRun]) -> None:
    fld, mode = runs[0].field, runs[0].mode
    n = len(runs)
    print(f"\n=== {fld}, {mode}: {n} events, {len(FIELDS[fld])} entrants ===")
    by_games: dict[int, list[Seen]] = defaultdict(list)
    for r in runs:
        for s in r.looks:
            by_games[s.games].append(s)
    print("  games  planned  coverage  mean width  top above bottom  copies P>=0.95  ms/look (median)")
    for b in sorted(by_games):
        seen = by_games[b]
        cov = sum(s.covered for s in seen) / len(seen)
        width = sum(s.width for s in seen) / len(seen)
        sep = sum(s.top_above_bottom for s in seen) / len(seen)
        sure = sum(s.copies_sure for s in seen) / max(sum(s.copies for s in seen), 1)
        ms = sorted(s.cpu_ms for s in seen)[len(seen) // 2]
        mark = "yes" if seen[0].planned else ""
        print(f"  {b:5d}  {mark:>7}  {cov:8.3f}  {width:10.2f}  {sep:16.2f}  {sure:14.3f}  {ms:8.1f}")
    planned = [[s for s in r.looks if s.planned] for r in runs]
    ever_wrong = sum(not all(s.covered for s in p) for p in planned)
    tie_runs = sum(1 for _ in runs) * sum(
        1 for a, c in itertools.combinations(names(fld), 2) if eps(fld)[a] == eps(fld)[c]
    )
    ordered = sum(any(s.tie_ordered for s in p) for p in planned)
    print(
        f"  over the planned looks: some pair shown wrongly in {ever_wrong}/{n} events; a tied pair (copies) "
        f"ordered at some planned look in {ordered}/{n} events ({tie_runs} tie-pair runs)"
    )
    firsts = [next((s.games for s in r.looks if s.top_above_bottom), None) for r in runs]
    got = [g for g in firsts if g is not None]
    if got:
        print(
            f"  games until the top tier's ranges lie above the bottom tier's: median "
            f"{sorted(got)[len(got) // 2]}, reached in {len(got)}/{n}"
        )
    for settle in SETTLES:
        stops = [next((s.games for s in p if s.answered[settle]), None) for p in planned]
        done = [g for g in stops if g is not None]
        mean = sum(done) / len(done) if done else float("nan")
        print(
            f"  --until-settled, settle = {settle!r}: answered in {len(done)}/{n} events within the budget, "
            f"mean {mean:.0f} games when answered"
        )
    print("  calibration of P(upper above lower), every pair as printed, every look:")
    print("\n".join(calibration([pt for r in runs for s in r.looks for pt in s.p_points])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=Path, action="append", required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--games", type=int, help="cut every event to its first GAMES games (an event planned to end there)"
    )
    args = parser.parse_args()
    played: list[PlayedEvent] = []
    for path in args.load:
        saved = pickle.loads(path.read_bytes())
        played += saved["played"] if isinstance(saved, dict) else saved
    if args.games:
        played = [replace(e, games=e.games[: args.games]) for e in played]
    started = time.monotonic()
    if args.workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.workers) as pool:
            runs = list(pool.map(analyse, played))
    else:
        runs = [analyse(e) for e in played]
    groups: dict[tuple[str, str], list[EventRun]] = defaultdict(list)
    for r in runs:
        groups[r.field, r.mode].append(r)
    for key in sorted(groups):
        report(groups[key])
    print(f"\nanalysed {len(runs)} events in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
