"""Ranking benchmark: how many games each ranking needs to get a ladder of known order right, whether the
stated confidence is true, and whether ``arena match``'s SPRT keeps its error rates.

Usage::

    python bench/ranking.py [--events E] [--games G] [--step S] [--matches M] [--workers W] [--save F]
    python bench/ranking.py --load F     # the statistics again on the games a --save stored

The ladder: six in-process rules bots that play a uniformly random legal action with probability
ε = 0, 0.2, ..., 1.0 (sample_bots/noisy.py), call-ace with 5 players, so six entrants share one table of
five per round (plain) or one duplicate block of five games per round. ``--events`` seeded events per mode,
each played once to ``--games`` games; a budget of ``b`` games is the event cut after its first ``b``
games in schedule order (exactly what an event of that length would have played: schedules grow as
prefixes). Per mode and method it prints P(exact order) and P(top-1 right) against games, the games needed
for P(exact) >= 0.9, and for the default ranking the calibration of the stated whole-order and adjacent-pair
confidence (binned stated against observed, Brier score) at several sharpening factors, and what
``--until-settled`` would have done (stop when every adjacent pair is settled, look every ``--step`` games).
The pooled games of all events verify the ladder's order and gaps.

SPRT: ``--matches`` A/B matches per case with the ``arena match`` design (each deal played by the candidate
and by the baseline at a table of four rules bots, every rotation), H0: 0 vs H1: +0.1 points per hand,
alpha = beta = 0.05: ε=0.2 against itself (true difference 0, at H0: accepting H1 is an alpha error) and ε=0
against ε=0.2 (true difference about +0.1, at H1: accepting H0 is a beta error).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import os
import pickle
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from arena.conductor.match import BASELINE, CANDIDATE, deal_differences, match_schedule
from arena.engine import GameConfig
from arena.event.schedule import make_schedule
from arena.event.table import TableSpec, play_table
from arena.players.inprocess import InProcessPlayer
from arena.results.record import ScheduledGame
from arena.stats.confidence import (
    MIN_UNITS,
    collect,
    confidence,
    effective_sharpen,
    ranking_order,
    resolve_method,
    scores,
)
from arena.stats.rating import DRIFT_TAU, RatedGame, environment
from arena.stats.sprt import SprtResult, SprtSettings, run_sprt
from sample_bots.noisy import noisy
from sample_bots.rules import RulesBot

EPSILONS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
NAMES = tuple(f"eps{round(e * 100):03d}" for e in EPSILONS)  # the true order, best first
CONFIG = GameConfig.from_dict({"variant": "call-ace"})
SHARPENS = (1.0, 1.5, 1.75, 2.0)
LEVELS = (0.8, 0.95)
SPRT = SprtSettings(h0=0.0, h1=0.1, alpha=0.05, beta=0.05, min_deals=10)


async def play(schedule: Sequence[ScheduledGame], classes: dict[str, type]) -> list[RatedGame]:
    out = []
    for g in schedule:
        players = [InProcessPlayer(classes[n], n) for n in g.seats]
        r = await play_table(TableSpec(g.game_id, CONFIG, g.seed, g.seats), players)
        out.append(
            RatedGame(g.seq, g.game_id, g.seats, r.ranks, r.scores, (), True, (), g.block, len(r.hands))
        )
    return out


@dataclass(frozen=True)
class EventTask:
    mode: str
    seed: int
    games: int
    step: int


@dataclass
class EventResult:
    mode: str
    games: list[RatedGame]
    exact: dict[tuple[str, int], bool]  # (method, budget)
    top1: dict[tuple[str, int], bool]
    z: dict[int, list[tuple[float, bool]]]  # budget -> adjacent pairs: (gap / sd, pair in the true order)
    whole: dict[tuple[float, int], float] | None = None  # (sharpen, budget) -> stated whole-order figure
    seed: int = -1


def budgets(games: int, step: int) -> list[int]:
    return list(range(step, games + 1, step))


def run_event(task: EventTask) -> EventResult:
    """Play one event to its full length, then rank every prefix that is a budget."""
    duplicate = task.mode == "duplicate"
    classes: dict[str, type] = {n: noisy(e) for n, e in zip(NAMES, EPSILONS, strict=True)}
    per_round = 5 if duplicate else 1
    schedule = make_schedule(
        list(NAMES), 5, math.ceil(task.games / per_round), task.seed, duplicate=duplicate
    )
    games = asyncio.run(play(schedule[: task.games], classes))
    return analyse(EventResult(task.mode, games, {}, {}, {}, None, task.seed), task.step)


def analyse(result: EventResult, step: int) -> EventResult:
    """Rank every budget-long prefix of a played event by every method, and state the confidence."""
    games, duplicate = result.games, result.mode == "duplicate"
    exact: dict[tuple[str, int], bool] = {}
    top1: dict[tuple[str, int], bool] = {}
    zs: dict[int, list[tuple[float, bool]]] = {}
    whole: dict[tuple[float, int], float] = {}
    marks = set(budgets(len(games), step))
    for tau, method in ((DRIFT_TAU, "trueskill-drift"), (0.0, "trueskill")):
        env = environment(tau)
        ratings = {n: env.create_rating() for n in NAMES}
        for i, g in enumerate(games, start=1):
            new = env.rate([(ratings[n],) for n in g.seats], ranks=[r - 1 for r in g.ranks])
            for n, (rating,) in zip(g.seats, new, strict=True):
                ratings[n] = rating
            if i in marks:
                order = sorted(NAMES, key=lambda n: -(ratings[n].mu - 3 * ratings[n].sigma))
                exact[method, i] = tuple(order) == NAMES
                top1[method, i] = order[0] == NAMES[0]
    methods = ("points", "centred", "paired") if duplicate else ("points", "centred")
    for b in sorted(marks):
        units = collect(games[:b], NAMES)
        for method in methods:
            order = ranking_order(scores(units, method))
            exact[method, b] = tuple(order) == NAMES
            top1[method, b] = order[0] == NAMES[0]
        # The pair probabilities at sharpen 1 are Φ(gap / sd): keep gap / sd, so any sharpening of a pair
        # can be judged afterwards without another bootstrap. The whole-order figure is joint over the
        # replicates, so it is kept for each sharpening.
        for k in SHARPENS:
            conf = confidence(units, "auto", 0.95, result.seed, replicates=500, sharpen=k)
            whole[k, b] = conf.whole
            if k == 1.0:
                zs[b] = [
                    (_z(p.probability), NAMES.index(p.upper) < NAMES.index(p.lower)) for p in conf.adjacent
                ]
    return EventResult(result.mode, games, exact, top1, zs, whole, result.seed)


def _z(p: float) -> float:
    return NormalDist().inv_cdf(min(max(p, 1e-12), 1 - 1e-12))


def stated(r: EventResult, b: int, k: float) -> tuple[float, list[tuple[float, bool]]]:
    """The whole-order figure and the adjacent pairs' probabilities at sharpening ``k`` after ``b`` games."""
    applied = effective_sharpen(k, b)  # what confidence() applies after b games
    pairs = [(NormalDist().cdf(applied * z), right) for z, right in r.z[b]]
    return (r.whole or {})[k, b], pairs


@dataclass(frozen=True)
class MatchTask:
    case: str
    candidate: float
    baseline: float
    seed: int
    max_deals: int


def run_match(task: MatchTask) -> tuple[str, list[float], str, int]:
    """One A/B match in-process, deal by deal; returns the case, the per-deal differences, result, deals."""
    field = ["field-1", "field-2", "field-3", "field-4"]
    classes: dict[str, type] = {CANDIDATE: noisy(task.candidate), BASELINE: noisy(task.baseline)}
    classes |= {f: RulesBot for f in field}
    diffs: list[float] = []
    batch = 10
    deals = 0
    while deals < task.max_deals:
        more = min(task.max_deals, deals + batch)
        schedule = match_schedule(task.seed, 5, field, more)[deals * 10 :]
        games = asyncio.run(play(schedule, classes))
        diffs += deal_differences(games, 5)
        deals = more
        state = run_sprt(diffs, SPRT)
        if state.result is not SprtResult.UNDECIDED:
            return task.case, diffs, state.result, state.deals
    state = run_sprt(diffs, SPRT)
    return task.case, diffs, state.result, state.deals


def fmt_row(label: str, values: Sequence[str], width: int = 6) -> str:
    return f"{label:<18}" + "".join(f"{v:>{width}}" for v in values)


TOLERANCE = 0.05
"""The goal: stated within this much of observed in every bin with enough events (ENOUGH)."""
ENOUGH = 50


def calibration(points: list[tuple[float, bool]], bins: int = 10) -> list[str]:
    """Binned stated against observed. A bin of n events observes its true rate only to within a sampling
    error ``se = sqrt(p (1 - p) / n)`` (about 0.04 at n = 130), so even a perfectly calibrated figure lands
    outside +-TOLERANCE in some bins by chance. Each bin with ENOUGH events is flagged ``ok`` (within the
    tolerance), ``noise`` (outside it by less than 2 se: cannot be told from a calibrated figure) or ``OFF``
    (outside it by 2 se or more); the last line counts them beside the number of bins a perfectly calibrated
    figure would put outside the tolerance by chance alone."""
    rows = []
    judged = {"ok": 0, "noise": 0, "OFF": 0}
    by_chance = 0.0
    for i in range(bins):
        lo, hi = i / bins, (i + 1) / bins
        inside = [(p, ok) for p, ok in points if lo <= p < hi or (i == bins - 1 and p == 1.0)]
        if inside:
            n = len(inside)
            stated = sum(p for p, _ in inside) / n
            observed = sum(ok for _, ok in inside) / n
            se = math.sqrt(max(stated * (1 - stated), 1e-9) / n)
            flag = ""
            if n >= ENOUGH:
                miss = abs(stated - observed) - TOLERANCE
                verdict = "ok" if miss <= 0 else "noise" if miss < 2 * se else "OFF"
                judged[verdict] += 1
                flag = f"  {verdict}"
                # chance that a calibrated bin's observed share lands beyond the tolerance
                by_chance += 2 * (1 - NormalDist().cdf(TOLERANCE / se))
            where = f"    [{lo:.1f}, {hi:.1f}): n={n:4d}"
            rows.append(f"{where} stated {stated:.3f} observed {observed:.3f}{flag}")
    brier = sum((p - ok) ** 2 for p, ok in points) / len(points)
    rows.append(
        f"    Brier {brier:.4f} over {len(points)}; bins with n >= {ENOUGH}: {judged['ok']} ok, "
        f"{judged['noise']} beyond +-{TOLERANCE} within sampling error, {judged['OFF']} OFF "
        f"(a calibrated figure would put {by_chance:.1f} beyond +-{TOLERANCE} by chance)"
    )
    return rows


def report_mode(mode: str, results: list[EventResult], marks: list[int], step: int) -> None:
    print(f"\n=== {mode}: {len(results)} events, P(exact order) by games ===")
    print(fmt_row("method \\ games", [str(b) for b in marks]))
    methods = sorted({m for r in results for m, _ in r.exact}, key=lambda m: (m.startswith("trueskill"), m))
    need: dict[str, str] = {}
    for m in methods:
        ps = [sum(r.exact[m, b] for r in results) / len(results) for b in marks]
        print(fmt_row(m, [f"{p:.2f}" for p in ps]))
        need[m] = next((str(b) for b, p in zip(marks, ps, strict=True) if p >= 0.9), f">{marks[-1]}")
    print(f"--- {mode}: P(top-1 right) by games ---")
    for m in methods:
        print(fmt_row(m, [f"{sum(r.top1[m, b] for r in results) / len(results):.2f}" for b in marks]))
    print(f"--- {mode}: games for P(exact) >= 0.9 ---")
    for m in methods:
        print(f"    {m:<18} {need[m]}")
    default = resolve_method("auto", mode == "duplicate")
    for k in SHARPENS:
        whole = [(stated(r, b, k)[0], r.exact[default, b]) for r in results for b in marks]
        pairs = [pair for r in results for b in marks for pair in stated(r, b, k)[1]]
        print(f"--- {mode}: calibration of the stated confidence ({default}, sharpen {k}) ---")
        print("  whole order:")
        print("\n".join(calibration(whole)))
        print("  adjacent pairs:")
        print("\n".join(calibration(pairs)))
    for k in SHARPENS:
        for level in LEVELS:
            spent, right, capped = [], 0, 0
            for r in results:
                stop = next(
                    (
                        b
                        for b in marks
                        if all(p >= level for p, _ in stated(r, b, k)[1])
                        and b // (5 if mode == "duplicate" else 1) >= MIN_UNITS
                    ),
                    None,
                )
                capped += stop is None
                stop = stop or marks[-1]
                spent.append(stop)
                right += r.exact[default, stop]
            print(
                f"--- {mode}: until-settled (sharpen {k}, level {level}, look every {step} games): mean "
                f"{sum(spent) / len(spent):.0f} games, exact order {right / len(results):.2f}, "
                f"budget reached {capped}/{len(results)}"
            )


def report_ladder(results: list[EventResult]) -> None:
    for mode in ("plain", "duplicate"):
        games = [  # game ids and blocks repeat between events: make them unique before pooling
            RatedGame(
                g.seq,
                f"e{e}/{g.game_id}",
                g.seats,
                g.ranks,
                g.scores,
                (),
                True,
                (),
                f"e{e}/{g.block}",
                g.hands,
            )
            for e, r in enumerate(x for x in results if x.mode == mode)
            for g in r.games
        ]
        if not games:
            continue
        conf = confidence(collect(games, NAMES), "auto", 0.95, 0)
        print(f"\n=== ladder check, {mode}: {len(games)} games pooled ({conf.method}) ===")
        for f in sorted(conf.entrants, key=lambda f: NAMES.index(f.name)):
            print(
                f"    {f.name}: {conf.method} {f.score:+.3f} [{f.score_ci[0]:+.3f}, {f.score_ci[1]:+.3f}]"
                f"  pts/hand {f.points_per_hand:.3f}  mean rank {f.mean_rank:.2f}"
            )
        est = {f.name: f.score for f in conf.entrants}
        gaps = [est[a] - est[b] for a, b in itertools.pairwise(NAMES)]
        print(
            f"    adjacent gaps: {', '.join(f'{g:+.3f}' for g in gaps)}; "
            f"pooled order {' > '.join(conf.order)}"
        )


def report_sprt(outcomes: list[tuple[str, list[float], str, int]]) -> None:
    print(
        f"\n=== SPRT: H0 {SPRT.h0:+g} vs H1 {SPRT.h1:+g} pts/hand, alpha {SPRT.alpha}, beta {SPRT.beta}, "
        "field of four rules bots ==="
    )
    for case in sorted({c for c, *_ in outcomes}):
        rows = [o for o in outcomes if o[0] == case]
        diffs = [d for o in rows for d in o[1]]
        mean = sum(diffs) / len(diffs)
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
        h1 = sum(o[2] == SprtResult.H1 for o in rows)
        h0 = sum(o[2] == SprtResult.H0 for o in rows)
        deals = sum(o[3] for o in rows) / len(rows)
        print(
            f"    {case}: {len(rows)} matches; true diff (all deals pooled) {mean:+.3f} ± "
            f"{1.96 * sd / math.sqrt(len(diffs)):.3f}, per-deal sd {sd:.3f}; accepted H1 {h1}, H0 {h0}, "
            f"undecided {len(rows) - h1 - h0}; mean deals {deals:.1f} ({deals * 10:.0f} games)"
        )


def _reanalyse(item: tuple[EventResult, int]) -> EventResult:
    return analyse(*item)


def analyse_saved(path: Path, step: int, workers: int, started: float) -> None:
    """Rank and state the confidence again on stored games: a change to the statistics is judged on the same
    events in minutes, without playing them again."""
    saved = pickle.loads(path.read_bytes())
    results: list[EventResult] = saved["results"]
    for mode in ("plain", "duplicate"):  # saves made before the seed was kept: the seeds main() gives
        for e, r in enumerate(x for x in results if x.mode == mode):
            if getattr(r, "seed", -1) < 0:
                r.seed = 1000 * (mode == "duplicate") + e
            if not hasattr(r, "whole"):
                r.whole = None
    games = len(results[0].games)
    print(f"ranking bench: analysing {len(results)} stored events of {games} games from {path}", flush=True)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_reanalyse, [(r, step) for r in results], chunksize=4))
    marks = budgets(games, step)
    report_ladder(results)
    for mode in ("plain", "duplicate"):
        report_mode(mode, [r for r in results if r.mode == mode], marks, step)
    report_sprt(saved["outcomes"])
    print(f"\ntotal wall time {time.monotonic() - started:.0f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=40, help="seeded events per mode (default 40)")
    parser.add_argument("--games", type=int, default=300, help="games per event (default 300)")
    parser.add_argument("--step", type=int, default=25, help="budget step in games (default 25)")
    parser.add_argument("--matches", type=int, default=60, help="SPRT matches per case (default 60)")
    parser.add_argument("--max-deals", type=int, default=200, help="SPRT budget in deals (default 200)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--save", type=Path, help="also pickle the raw results here (to study them later)")
    parser.add_argument(
        "--load", type=Path, help="analyse the games and SPRT outcomes a --save stored instead of playing"
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    if args.load:
        analyse_saved(args.load, args.step, args.workers, started)
        return
    tasks = [
        EventTask(mode, 1000 * (mode == "duplicate") + e, args.games, args.step)
        for mode in ("plain", "duplicate")
        for e in range(args.events)
    ]
    matches = [
        MatchTask(case, c, b, 5000 + i + 1000 * j, args.max_deals)
        for j, (case, c, b) in enumerate((("eps020 vs eps020", 0.2, 0.2), ("eps000 vs eps020", 0.0, 0.2)))
        for i in range(args.matches)
    ]
    print(
        f"ranking bench: {args.events} events per mode x {args.games} games (call-ace 5p, 6-bot ladder), "
        f"budgets every {args.step}; {args.matches} SPRT matches per case; {args.workers} workers",
        flush=True,
    )
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        sprt_jobs = [pool.submit(run_match, m) for m in matches]
        results = list(pool.map(run_event, tasks, chunksize=1))
        outcomes = [job.result() for job in sprt_jobs]
    if args.save:
        args.save.write_bytes(pickle.dumps({"results": results, "outcomes": outcomes, "args": vars(args)}))
    marks = budgets(args.games, args.step)
    report_ladder(results)
    for mode in ("plain", "duplicate"):
        report_mode(mode, [r for r in results if r.mode == mode], marks, args.step)
    report_sprt(outcomes)
    print(f"\ntotal wall time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
