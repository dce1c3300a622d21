"""Ranking benchmark: is the leaderboard's confidence honest on every kind of field, and what does it cost?

Usage::

    python bench/ranking.py [--events E] [--games G] [--step S] [--matches M] [--workers W] [--save F]
                            [--fields F,...] [--plans FIRST:GROWTH:RHO,...]
    python bench/ranking.py --load F     # the statistics again on the games a --save stored

Fields (bench/ranking_fields.py), each in plain and duplicate mode, ``--events`` seeded in-process events
of ``--games`` games: ``ladder`` (six rules bots of noise ε = 0, 0.2, ..., 1: distinct strengths),
``twin`` (the ladder with ε = 0.4 entered twice: one true tie), ``same5`` (five copies of ε = 0.2: all
tied) and ``near`` (ε 0 against 0.05: a near-tie of about 0.02 points per hand, among three distinct).
A look after ``b`` games is the event's first ``b`` games, read through the same running tally and the
same ``look`` as ``arena run --until-settled`` (arena.stats.confidence).

Per field it prints, against games: P(exact order), how often a truly tied pair is called ordered at that
single look, how often every pair is decided; the calibration of the stated P(above) of every adjacent pair
(as the leaderboard states it; the empirical-Bayes priors of PRIORS refitted on the same looks: symmetric or
centred, on every pair or the adjacent ones; the plain Φ(gap/se) and the old Φ(1.75 gap/se)) and of the
whole-order figure, binned with the ok / noise / OFF judgement; what ``--until-settled`` does (a look every
``--step`` games, stop when every adjacent pair is above or tied, or at the budget): false discoveries at
the stop and over the whole run, mean games at stop, share stopped by the budget, ties called tied, for
several tie margins, and at the planned looks of each ``--plans`` design (arena.stats.sequential.LookPlan,
first look, growth, shape ρ, budget ``--games``) under its boundary, with the share of events ending in the
exact order; and the variance of each score (points, centred, paired) as effective games.

SPRT (``--matches`` per case, 0 to skip): the ``arena match`` design, H0 0 vs H1 +0.1 points per hand,
α = β = 0.05, ε=0.2 against itself and ε=0 against ε=0.2.
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
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import NormalDist

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing
sys.path.append(str(Path(__file__).resolve().parent))

from ranking_fields import FIELDS, SEATS, EventTask, PlayedEvent, names, play, play_event

from arena.conductor.match import BASELINE, CANDIDATE, deal_differences, match_schedule
from arena.event.schedule import make_schedule
from arena.stats.confidence import TIE_MARGIN, look, resolve_method
from arena.stats.ebayes import fit_centred, fit_symmetric, posterior
from arena.stats.sequential import MIN_UNITS, LookPlan, Verdict
from arena.stats.sprt import SprtResult, SprtSettings, run_sprt
from arena.stats.tally import Tally
from sample_bots.noisy import noisy
from sample_bots.rules import RulesBot

LEVEL = 0.95
PLANS: list[LookPlan] = []
"""The planned-look designs replayed beside the look every --step games (--plans)."""
MARGINS = (0.03, 0.05, 0.08)
SHOWN = (50, 100, 200, 300, 500, 700, 1000)
SPRT = SprtSettings(h0=0.0, h1=0.1, alpha=0.05, beta=0.05, min_deals=10)
TOLERANCE = 0.05
"""The goal: stated within this much of observed in every bin with enough events (ENOUGH)."""
ENOUGH = 50
_N = NormalDist()


@dataclass
class PairLook:
    upper: str
    lower: str
    p: float  # empirical Bayes P(upper above lower)
    gap: float
    se: float
    verdict: Verdict


@dataclass
class EventLooks:
    field: str
    mode: str
    seed: int
    looks: dict[int, list[PairLook]] = field(default_factory=dict)  # games -> adjacent pairs
    whole: dict[int, float] = field(default_factory=dict)
    units: dict[int, int] = field(default_factory=dict)
    boundary: dict[int, float] = field(default_factory=dict)
    var: dict[str, list[float]] = field(
        default_factory=dict
    )  # score -> adjacent (true order) variance x games
    final: dict[str, float] = field(default_factory=dict)  # entrant -> score at the last look
    cpu_s: float = 0.0
    games: int = 0
    grid: list[int] = field(default_factory=list)  # the looks every --step games (the rest: planned looks)
    pairs: dict[int, tuple[list[float], list[float], list[float], list[float]]] = field(default_factory=dict)
    """games -> every pair's gap and se (printed order, upper minus lower), then the adjacent pairs' own,
    so that other priors can be fitted to the same looks (PRIORS)."""
    per_round: int = 1


def per_round(fld: str, mode: str, seed: int) -> int:
    """Games in one round of this field's schedule (looks fall on whole rounds)."""
    return len(make_schedule(list(names(fld)), SEATS, 1, seed, duplicate=mode == "duplicate"))


def planned_points(plan: LookPlan, round_games: int, games: int) -> list[int]:
    """The games at which ``--until-settled`` looks under ``plan`` (as arena.conductor.tournament)."""
    return [b for b in replace(plan, last=min(plan.last, games)).points(round_games)]


def analyse(event: PlayedEvent, step: int, plans: Sequence[LookPlan] = ()) -> EventLooks:
    """Every look of one event, through one running tally (as --until-settled makes them): every ``step``
    games, and at every planned look of ``plans``."""
    entrants = names(event.field)
    tally = Tally(entrants)
    out = EventLooks(event.field, event.mode, event.seed, cpu_s=event.cpu_s, games=len(event.games))
    out.per_round = per_round(event.field, event.mode, event.seed)
    out.grid = list(range(step, len(event.games) + 1, step))
    marks = set(out.grid)
    for plan in plans:
        marks.update(planned_points(plan, out.per_round, len(event.games)))
    last = 0
    for b in sorted(marks):
        tally.add(event.games[last:b]).close()
        last = b
        conf = look(tally, "auto", LEVEL, event.seed, TIE_MARGIN)
        out.looks[b] = [
            PairLook(
                p.upper,
                p.lower,
                p.probability,
                p.gap,
                (p.interval[1] - p.interval[0]) / (2 * conf.boundary)
                if conf.boundary < math.inf
                else math.nan,
                p.verdict,
            )
            for p in conf.adjacent
        ]
        out.whole[b] = conf.whole
        out.pairs[b] = pair_gaps(tally, conf.order)
        out.units[b] = conf.units
        out.boundary[b] = conf.boundary
        out.final = {f.name: f.score for f in conf.entrants}
    for method, totals in tally.totals.items():
        if method == "paired" and not tally.duplicate:
            continue
        cov = totals.covariance()
        out.var[method] = [
            float(cov[i, i] + cov[i + 1, i + 1] - 2 * cov[i, i + 1]) * tally.n_games
            for i in range(len(entrants) - 1)
        ]
    return out


def pair_gaps(
    tally: Tally, order: Sequence[str]
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Every pair's gap and standard error in the printed ``order`` (as arena.stats.confidence.look makes
    them), and the adjacent pairs' alone."""
    totals = tally.totals[resolve_method("auto", tally.duplicate)]
    s, cov = totals.scores(), totals.covariance()
    col = [tally.names.index(n) for n in order]
    gaps, ses, adj_gaps, adj_ses = [], [], [], []
    for i, a in enumerate(col):
        for j in range(i + 1, len(col)):
            c = col[j]
            gap = float(s[a] - s[c])
            se = math.sqrt(max(float(cov[a, a] + cov[c, c] - 2 * cov[a, c]), 0.0))
            gaps.append(gap)
            ses.append(se)
            if j == i + 1:
                adj_gaps.append(gap)
                adj_ses.append(se)
    return gaps, ses, adj_gaps, adj_ses


PRIORS = {
    "symmetric NPMLE, all pairs": (fit_symmetric, False),
    "symmetric NPMLE, adjacent pairs (the default)": (fit_symmetric, True),
    "symmetric, 10 wide atoms (width 2 steps), all pairs": (lambda g, s: fit_symmetric(g, s, 10, 2.0), False),
    "centred normals, all pairs (the old default)": (fit_centred, False),
    "centred normals, adjacent pairs": (fit_centred, True),
}
"""The priors the calibration compares: (fit, fitted on the adjacent pairs only rather than all pairs)."""


def prior_p(r: EventLooks, b: int, fit: object, adjacent: bool) -> list[float]:
    """The adjacent pairs' P(upper above lower) at look ``b`` under another prior, fitted as ``adjacent``."""
    gaps, ses, adj_gaps, adj_ses = r.pairs[b]
    prior = fit(adj_gaps, adj_ses) if adjacent else fit(gaps, ses)  # type: ignore[operator]
    return [posterior(prior, g, s).finishes_above for g, s in zip(adj_gaps, adj_ses, strict=True)]


# ------------------------------------------------------------------ truth and verdicts


def epsilon(fld: str, name: str) -> float:
    return dict(FIELDS[fld])[name]


def true_gaps(results: list[EventLooks]) -> dict[tuple[str, str], float]:
    """Each pair's true gap: 0 for equal ε, else the mean over all events of the final scores' gap."""
    fld = results[0].field
    mean = {n: sum(r.final[n] for r in results) / len(results) for n in names(fld)}
    return {
        (a, b): 0.0 if epsilon(fld, a) == epsilon(fld, b) else mean[a] - mean[b]
        for a in names(fld)
        for b in names(fld)
    }


def verdict_at(p: PairLook, margin: float, boundary: float, bound: float | None = None) -> Verdict:
    """The pair's verdict at another tie margin (being ordered does not depend on the margin), or under
    another boundary ``bound`` (a planned look's)."""
    if bound is not None:
        half = p.se * bound
        if half == half and p.gap - half > 0:
            return Verdict.ABOVE
        if half == half and -margin < p.gap - half and p.gap + half < margin:
            return Verdict.TIED
        return Verdict.OPEN
    if p.verdict is Verdict.ABOVE:
        return p.verdict
    half = p.se * boundary
    if half == half and -margin < p.gap - half and p.gap + half < margin:
        return Verdict.TIED
    return Verdict.OPEN


def verdicts(r: EventLooks, b: int, margin: float, plan: LookPlan | None = None) -> list[Verdict]:
    if r.units[b] < MIN_UNITS:
        return [Verdict.OPEN for _ in r.looks[b]]
    bound = None if plan is None else plan.boundary(b, LEVEL)
    return [verdict_at(p, margin, r.boundary[b], bound) for p in r.looks[b]]


def tied_pair(fld: str, p: PairLook) -> bool:
    return epsilon(fld, p.upper) == epsilon(fld, p.lower)


# ------------------------------------------------------------------ reports


def calibration(points: list[tuple[float, float]], bins: int = 10) -> list[str]:
    """Binned stated against observed; a bin with ENOUGH events is ``ok`` (within TOLERANCE), ``noise``
    (outside by less than 2 sampling errors sqrt(p(1-p)/n)) or ``OFF``; the last line counts them beside
    the number of bins a calibrated figure would put outside the tolerance by chance alone."""
    rows = []
    judged = {"ok": 0, "noise": 0, "OFF": 0}
    by_chance = 0.0
    for i in range(bins):
        lo, hi = i / bins, (i + 1) / bins
        inside = [(p, ok) for p, ok in points if lo <= p < hi or (i == bins - 1 and p == 1.0)]
        if not inside:
            continue
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
            by_chance += 2 * (1 - _N.cdf(TOLERANCE / se))
        rows.append(f"    [{lo:.1f}, {hi:.1f}): n={n:5d} stated {stated:.3f} observed {observed:.3f}{flag}")
    brier = sum((p - ok) ** 2 for p, ok in points) / max(len(points), 1)
    rows.append(
        f"    Brier {brier:.4f} over {len(points)}; bins with n >= {ENOUGH}: {judged['ok']} ok, "
        f"{judged['noise']} noise, {judged['OFF']} OFF (by chance alone: {by_chance:.1f} beyond "
        f"+-{TOLERANCE})"
    )
    return rows


def row(label: str, values: Sequence[str], width: int = 7) -> str:
    return f"    {label:<34}" + "".join(f"{v:>{width}}" for v in values)


def report_field(results: list[EventLooks], step: int) -> None:
    fld, mode = results[0].field, results[0].mode
    truth = true_gaps(results)
    order = names(fld)
    marks = [b for b in SHOWN if b in results[0].looks]
    n = len(results)
    print(f"\n=== {fld}, {mode}: {n} events x {results[0].games} games ===")
    gaps = ", ".join(f"{a}-{b} {truth[a, b]:+.3f}" for a, b in itertools.pairwise(order))
    print(f"    true adjacent gaps (pooled, equal eps = 0): {gaps}")
    print(row("games", [str(b) for b in marks]))
    has_order = all(epsilon(fld, a) != epsilon(fld, b) for a, b in itertools.pairwise(order))
    if has_order:
        exact = [sum(_exact(r, b, order) for r in results) / n for b in marks]
        print(row("P(exact order printed)", [f"{x:.2f}" for x in exact]))
    ties = any(epsilon(fld, a) == epsilon(fld, b) for a, b in itertools.pairwise(order))
    if ties:
        called = [sum(_tie_ordered(r, b) for r in results) / n for b in marks]
        print(row("P(a tied pair called ordered)", [f"{x:.3f}" for x in called]))
        tied = [sum(_ties_tied(r, b) for r in results) / n for b in marks]
        print(row("P(every tied pair called tied)", [f"{x:.2f}" for x in tied]))
    false = [sum(any(_wrong_at(r, b, truth, TIE_MARGIN)) for r in results) / n for b in marks]
    print(row("P(any wrong verdict at this look)", [f"{x:.3f}" for x in false]))
    decided = [
        sum(all(v is not Verdict.OPEN for v in verdicts(r, b, TIE_MARGIN)) for r in results) / n
        for b in marks
    ]
    print(row("P(every pair decided)", [f"{x:.2f}" for x in decided]))
    print(row("boundary (se)", [f"{results[0].boundary[b]:.2f}" for b in marks]))
    every = results[0].grid
    print(f"  calibration of P(upper above lower), adjacent pairs as printed, looks every {step} from 50:")
    print("  as the leaderboard states it (arena.stats.confidence.look):")
    print(
        "\n".join(
            calibration(
                [(p.p, _truth(truth, p)) for r in results for b in every if b >= 50 for p in r.looks[b]]
            )
        )
    )
    for label, (fit, adjacent) in PRIORS.items():
        points = [
            (q, _truth(truth, p))
            for r in results
            for b in every
            if b >= 50
            for p, q in zip(r.looks[b], prior_p(r, b, fit, adjacent), strict=True)
        ]
        print(f"  empirical Bayes, {label}:")
        print("\n".join(calibration(points)))
    for label, stated in (
        ("plain Φ(gap/se)", lambda p: _N.cdf(p.gap / p.se) if p.se > 0 else 0.5),
        ("old Φ(1.75 gap/se)", lambda p: _N.cdf(1.75 * p.gap / p.se) if p.se > 0 else 0.5),
    ):
        points = [
            (stated(p), _truth(truth, p)) for r in results for b in every if b >= 50 for p in r.looks[b]
        ]
        print(f"  calibration of P(upper above lower), adjacent pairs, {label}:")
        print("\n".join(calibration(points)))
    if has_order:
        points = [(r.whole[b], _exact(r, b, order)) for r in results for b in every if b >= 50]
        print("  calibration of the whole-order figure:")
        print("\n".join(calibration(points)))
    for margin in MARGINS:
        until_settled(results, truth, margin, step)
    for plan in PLANS:
        until_settled(results, truth, TIE_MARGIN, step, plan)
    for method in sorted(results[0].var):
        per = [sum(r.var[method][i] for r in results) / n for i in range(len(order) - 1)]
        base = [sum(r.var["points"][i] for r in results) / n for i in range(len(order) - 1)]
        gain = sum(base) / sum(per)
        print(
            f"  variance of the adjacent gaps (true order) x games, {method}: "
            f"{', '.join(f'{v:.3f}' for v in per)}; effective games x{gain:.2f} against points"
        )
    cpu = sum(r.cpu_s for r in results) / sum(r.games for r in results)
    print(f"  CPU per game (playing): {cpu * 1000:.1f} ms")


def _truth(truth: dict[tuple[str, str], float], p: PairLook) -> float:
    """1 when the upper one is truly better, 0 when worse, 1/2 when they are equal (a tie splits)."""
    delta = truth[p.upper, p.lower]
    return 1.0 if delta > 0 else 0.0 if delta < 0 else 0.5


def _exact(r: EventLooks, b: int, order: Sequence[str]) -> bool:
    printed = [r.looks[b][0].upper] + [p.lower for p in r.looks[b]]
    return printed == list(order)


def _tie_ordered(r: EventLooks, b: int) -> bool:
    return any(
        tied_pair(r.field, p) and v is Verdict.ABOVE
        for p, v in zip(r.looks[b], verdicts(r, b, TIE_MARGIN), strict=True)
    )


def _ties_tied(r: EventLooks, b: int, margin: float = TIE_MARGIN, plan: LookPlan | None = None) -> bool:
    """Every truly tied pair of the field is adjacent in the printed order and called tied."""
    pairs = [
        (p, v) for p, v in zip(r.looks[b], verdicts(r, b, margin, plan), strict=True) if tied_pair(r.field, p)
    ]
    expected = sum(
        1
        for a, c in zip(names(r.field), names(r.field)[1:], strict=False)
        if epsilon(r.field, a) == epsilon(r.field, c)
    )
    return len(pairs) >= expected and all(v is Verdict.TIED for _, v in pairs)


def until_settled(
    results: list[EventLooks],
    truth: dict[tuple[str, str], float],
    margin: float,
    step: int,
    plan: LookPlan | None = None,
) -> None:
    """``--until-settled`` replayed: a look every ``step`` games under the confidence sequence, or (``plan``)
    at the planned looks under their boundary."""
    stops, budget, wrong_stop, wrong_ever, tie_tied, exact = [], 0, 0, 0, 0, 0
    order = names(results[0].field)
    for r in results:
        marks = r.grid if plan is None else planned_points(plan, r.per_round, r.games)
        stop = next(
            (b for b in marks if all(v is not Verdict.OPEN for v in verdicts(r, b, margin, plan))), None
        )
        budget += stop is None
        stop = stop or marks[-1]
        stops.append(stop)
        seen = [b for b in marks if b <= stop]
        wrong_stop += any(_wrong_at(r, stop, truth, margin, plan))
        wrong_ever += any(any(_wrong_at(r, b, truth, margin, plan)) for b in seen)
        tie_tied += _ties_tied(r, stop, margin, plan)
        exact += _exact(r, stop, order)
    n = len(results)
    ties = any(
        epsilon(results[0].field, a) == epsilon(results[0].field, c)
        for a, c in zip(names(results[0].field), names(results[0].field)[1:], strict=False)
    )
    extra = f", every tie called tied {tie_tied}/{n}" if ties else f", exact order at the stop {exact}/{n}"
    how = (
        f"look every {step} games"
        if plan is None
        else f"planned looks from {plan.first} x{plan.growth:g}, rho {plan.rho:g}, "
        f"boundary {plan.boundary(plan.first, LEVEL):.2f}..{plan.boundary(plan.last, LEVEL):.2f}"
    )
    print(
        f"  until-settled (tie margin {margin:g}, {how}, level {LEVEL}): mean "
        f"{sum(stops) / n:.0f} games, budget reached {budget}/{n}, a wrong verdict at the stop "
        f"{wrong_stop}/{n}, at any look "
        f"{wrong_ever}/{n}{extra}"
    )


def _wrong_at(
    r: EventLooks,
    b: int,
    truth: dict[tuple[str, str], float],
    margin: float,
    plan: LookPlan | None = None,
) -> list[bool]:
    out = []
    for p, v in zip(r.looks[b], verdicts(r, b, margin, plan), strict=True):
        delta = truth[p.upper, p.lower]
        out.append((v is Verdict.ABOVE and delta <= 0) or (v is Verdict.TIED and abs(delta) >= margin))
    return out


# ------------------------------------------------------------------ SPRT


@dataclass(frozen=True)
class MatchTask:
    case: str
    candidate: float
    baseline: float
    seed: int
    max_deals: int


def run_match(task: MatchTask) -> tuple[str, list[float], str, int]:
    """One A/B match in-process, deal by deal; returns the case, the per-deal differences, result, deals."""
    fld = ["field-1", "field-2", "field-3", "field-4"]
    classes: dict[str, type] = {CANDIDATE: noisy(task.candidate), BASELINE: noisy(task.baseline)}
    classes |= {f: RulesBot for f in fld}
    diffs: list[float] = []
    deals = 0
    while deals < task.max_deals:
        more = min(task.max_deals, deals + 10)
        schedule = match_schedule(task.seed, 5, fld, more)[deals * 10 :]
        diffs += deal_differences(asyncio.run(play(schedule, classes)), 5)
        deals = more
        state = run_sprt(diffs, SPRT)
        if state.result is not SprtResult.UNDECIDED:
            return task.case, diffs, state.result, state.deals
    state = run_sprt(diffs, SPRT)
    return task.case, diffs, state.result, state.deals


def report_sprt(outcomes: list[tuple[str, list[float], str, int]]) -> None:
    if not outcomes:
        return
    print(
        f"\n=== SPRT: H0 {SPRT.h0:+g} vs H1 {SPRT.h1:+g} pts/hand, alpha {SPRT.alpha}, beta {SPRT.beta} ==="
    )
    for case in sorted({c for c, *_ in outcomes}):
        rows = [o for o in outcomes if o[0] == case]
        diffs = [d for o in rows for d in o[1]]
        mean = sum(diffs) / len(diffs)
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
        h1 = sum(o[2] == SprtResult.H1 for o in rows)
        h0 = sum(o[2] == SprtResult.H0 for o in rows)
        at_min = sum(o[3] == SPRT.min_deals for o in rows)
        deals = sum(o[3] for o in rows) / len(rows)
        print(
            f"    {case}: {len(rows)} matches; true diff {mean:+.3f} ± "
            f"{1.96 * sd / math.sqrt(len(diffs)):.3f}, per-deal sd {sd:.3f}; H1 {h1}, H0 {h0}, undecided "
            f"{len(rows) - h1 - h0}; mean deals {deals:.1f}; decided at the minimum ({SPRT.min_deals} deals) "
            f"{at_min}/{len(rows)}"
        )


# ------------------------------------------------------------------ main


def _analyse(item: tuple[PlayedEvent, int, list[LookPlan]]) -> EventLooks:
    return analyse(*item)


def report(played: list[PlayedEvent], outcomes: list, step: int, workers: int, started: float) -> None:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_analyse, [(e, step, PLANS) for e in played], chunksize=2))
    print(f"analysed {len(results)} events in {time.monotonic() - started:.0f} s", flush=True)
    groups: dict[tuple[str, str], list[EventLooks]] = defaultdict(list)
    for r in results:
        groups[r.field, r.mode].append(r)
    for fld in FIELDS:
        for mode in ("plain", "duplicate"):
            if groups.get((fld, mode)):
                report_field(groups[fld, mode], step)
    report_sprt(outcomes)
    print(f"\ntotal wall time {time.monotonic() - started:.0f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--events", type=int, default=20, help="seeded events per field and mode (default 20)"
    )
    parser.add_argument("--games", type=int, default=1000, help="games per event (default 1000: max_games)")
    parser.add_argument("--step", type=int, default=25, help="games between looks (default 25: check_every)")
    parser.add_argument("--matches", type=int, default=0, help="SPRT matches per case (default 0: none)")
    parser.add_argument("--max-deals", type=int, default=200, help="SPRT budget in deals (default 200)")
    parser.add_argument("--fields", default=",".join(FIELDS), help="comma-separated fields (default all)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--save", type=Path, help="also pickle the played games here")
    parser.add_argument("--load", type=Path, help="analyse the games a --save stored instead of playing")
    parser.add_argument("--play-only", action="store_true", help="with --save: play and store, no report")
    parser.add_argument(
        "--plans",
        default="50:1.5:0,100:2:0,50:1.5:200,100:1.5:200,50:2:200,100:1.5:400",
        help="planned-look designs to replay, FIRST:GROWTH:RHO comma-separated (games; rho 0: constant)",
    )
    args = parser.parse_args(argv)
    for spec in filter(None, args.plans.split(",")):
        first, growth, rho = spec.split(":")
        PLANS.append(LookPlan(int(first), float(growth), args.games, float(rho)))
    started = time.monotonic()
    wanted = args.fields.split(",")
    if args.load:
        saved = pickle.loads(args.load.read_bytes())
        saved = saved if isinstance(saved, dict) else {"played": saved}
        played = [e for e in saved["played"] if e.field in wanted]
        report(played, saved.get("outcomes", []), args.step, args.workers, started)
        return
    tasks = [
        EventTask(fld, mode, 10000 * i + 1000 * (mode == "duplicate") + e, args.games)
        for i, fld in enumerate(FIELDS)
        if fld in wanted
        for mode in ("plain", "duplicate")
        for e in range(args.events)
    ]
    matches = [
        MatchTask(case, c, b, 5000 + i + 1000 * j, args.max_deals)
        for j, (case, c, b) in enumerate((("eps020 vs eps020", 0.2, 0.2), ("eps000 vs eps020", 0.0, 0.2)))
        for i in range(args.matches)
    ]
    print(
        f"ranking bench: {len(tasks)} events x {args.games} games, {len(matches)} SPRT matches, "
        f"{args.workers} workers",
        flush=True,
    )
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        sprt_jobs = [pool.submit(run_match, m) for m in matches]
        played = list(pool.map(play_event, tasks, chunksize=1))
        outcomes = [job.result() for job in sprt_jobs]
    print(f"played in {time.monotonic() - started:.0f} s", flush=True)
    if args.save:
        args.save.write_bytes(pickle.dumps({"played": played, "outcomes": outcomes, "args": vars(args)}))
    if args.play_only:
        return
    report(played, outcomes, args.step, args.workers, started)


if __name__ == "__main__":
    main()
