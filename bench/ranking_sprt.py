"""``--until-settled`` replayed under an SPRT per adjacent pair, against the default planned looks.

Usage::

    python bench/ranking_sprt.py --load F [--load F2 ...] [--games 1000] [--step 25]

The issue named three stopping rules that stay honest under repeated looks: a confidence sequence per pair,
an SPRT per adjacent pair (as ``arena match`` uses), and a group-sequential (alpha-spending) plan. The first
and the last are measured in bench/ranking.py; this is the second. The tie margin ``m`` gives the SPRT its
natural alternatives: each direction of a pair is a likelihood ratio of "gap = +m" against "gap = 0" on
the pair's gap and standard error (the sufficient statistic), ``LLR = m (gap - m/2) / se²``. That ratio is
a non-negative martingale under gap = 0 (and a supermartingale under gap < 0), so by Ville's inequality it
ever exceeds 2/α with probability at most α/2: *above* when it does, at any look, however many. *Tied* when
the reciprocal ratio of both directions exceeds 2/α (a supermartingale under |gap| >= m: called tied while
apart by the margin at most α/2). ``--mix`` also replays the mixture of several alternatives
(multiples of m, equal weights) for *above*.

The events are the games a ``bench/ranking.py --save`` stored; each look reads a running tally (as
``arena run --until-settled`` does), the order and the adjacent pairs' gaps and standard errors, nothing
fitted.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing
sys.path.append(str(Path(__file__).resolve().parent))

from ranking import pair_gaps, per_round
from ranking_fields import FIELDS, PlayedEvent, names, saved_events

from arena.stats.confidence import TIE_MARGIN, ranking_order, resolve_method
from arena.stats.sequential import MIN_UNITS, LookPlan, Verdict, decide
from arena.stats.tally import Tally

LEVEL = 0.95
Pair = tuple[str, str, float, float]  # upper, lower, gap (upper - lower), se
Rule = Callable[[float, float, int], Verdict]  # gap, se, games -> verdict


def looks(event: PlayedEvent, marks: Sequence[int]) -> dict[int, tuple[int, list[Pair], dict[str, float]]]:
    """At each look: the units, the adjacent pairs of the printed order and every entrant's score."""
    tally = Tally(list(names(event.field)))
    method = resolve_method("auto", event.mode == "duplicate")
    out: dict[int, tuple[int, list[Pair], dict[str, float]]] = {}
    last = 0
    for b in marks:
        tally.add(event.games[last:b]).close()
        last = b
        totals = tally.totals[method]
        score = dict(zip(tally.names, (float(v) for v in totals.scores()), strict=True))
        order = ranking_order(score)
        _, _, gaps, ses = pair_gaps(tally, order)
        pairs = [(u, v, g, e) for (u, v), g, e in zip(itertools.pairwise(order), gaps, ses, strict=True)]
        out[b] = (tally.count, pairs, score)
    return out


def sprt_rule(margin: float, level: float, multiples: Sequence[float] = (1.0,)) -> Rule:
    """The SPRT verdict: α/2 per direction, so that a truly tied pair is ever ordered with chance α at most,
    as the leaderboard promises; the mixture of ``multiples`` for *above* hedges against gaps well past m."""
    threshold = math.log(2 / (1 - level))

    def rule(gap: float, se: float, games: int) -> Verdict:
        se = max(se, 1e-9)
        ups = [k * margin * (gap - k * margin / 2) / se**2 for k in multiples]
        top = max(ups)
        mix = top + math.log(sum(math.exp(u - top) for u in ups) / len(ups))
        if mix >= threshold:
            return Verdict.ABOVE
        up = margin * (gap - margin / 2) / se**2
        down = margin * (-gap - margin / 2) / se**2
        if -up >= threshold and -down >= threshold:
            return Verdict.TIED
        return Verdict.OPEN

    return rule


def plan_rule(plan: LookPlan, margin: float, level: float) -> Rule:
    """The leaderboard's own verdict at a planned look, for the comparison on the same looks."""

    def rule(gap: float, se: float, games: int) -> Verdict:
        return decide(gap, se, MIN_UNITS, level, margin, 0.0, plan.boundary(games, level))[0]

    return rule


def replay(
    events: list[PlayedEvent], rule: Rule, marks_of: Callable[[PlayedEvent], list[int]], margin: float
) -> str:
    fld = events[0].field
    eps = dict(FIELDS[fld])
    finals = [looks(e, [len(e.games)])[len(e.games)][2] for e in events]
    mean = {n: sum(f[n] for f in finals) / len(finals) for n in names(fld)}

    def wrong_verdict(a: str, c: str, v: Verdict) -> bool:
        """Above while tied or worse; tied while the pooled gap is the margin or more."""
        true_gap = 0.0 if eps[a] == eps[c] else mean[a] - mean[c]
        return (v is Verdict.ABOVE and true_gap <= 0) or (v is Verdict.TIED and abs(true_gap) >= margin)

    stops, budget, wrong, exact, tied = [], 0, 0, 0, 0
    order = list(names(fld))
    for e in events:
        marks = marks_of(e)
        seen = looks(e, marks)
        stop = None
        ever_wrong = False
        for b in marks:
            units, pairs, _ = seen[b]
            verdicts = [Verdict.OPEN if units < MIN_UNITS else rule(gap, se, b) for _, _, gap, se in pairs]
            ever_wrong |= any(wrong_verdict(a, c, v) for (a, c, _, _), v in zip(pairs, verdicts, strict=True))
            if all(v is not Verdict.OPEN for v in verdicts):
                stop = b
                break
        budget += stop is None
        stop = stop or marks[-1]
        stops.append(stop)
        wrong += ever_wrong
        units, pairs, _ = seen[stop]
        printed = [pairs[0][0]] + [p[1] for p in pairs]
        exact += printed == order
        expected = sum(eps[a] == eps[c] for a, c in itertools.pairwise(order))
        printed_ties = [
            rule(gap, se, stop) if units >= MIN_UNITS else Verdict.OPEN
            for a, c, gap, se in pairs
            if eps[a] == eps[c]
        ]  # every truly tied pair adjacent in the printed order and called tied (as bench/ranking.py)
        tied += (
            bool(expected) and len(printed_ties) >= expected and all(v is Verdict.TIED for v in printed_ties)
        )
    n = len(events)
    has_tie = any(eps[a] == eps[c] for a, c in itertools.pairwise(order))
    extra = f"every tie called tied {tied}/{n}" if has_tie else f"exact order at the stop {exact}/{n}"
    return (
        f"mean {sum(stops) / n:.0f} games, budget reached {budget}/{n}, a wrong verdict at any look "
        f"{wrong}/{n}, {extra}"
    )


def fixed_look(events: list[PlayedEvent], step: int, games: int, z: float) -> str:
    """One fixed look, honest at that look only (every pair above when gap >= z se): the share of events
    in the exact order with every pair above, by games. The cheapest honest design decides at one look, so
    a sequential rule whose mean stop is far below the games this needs for 19 events in 20 would have to
    win that back by stopping early."""
    order = list(names(events[0].field))
    marks = list(range(step * 4, games + 1, step * 4))
    seen = [looks(e, marks) for e in events]
    cells = []
    for b in marks:
        good = sum(
            [s[b][1][0][0]] + [p[1] for p in s[b][1]] == order and all(p[2] >= z * p[3] for p in s[b][1])
            for s in seen
        )
        cells.append(f"{b}: {good}/{len(events)}")
    return ", ".join(cells)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=Path, action="append", required=True)
    parser.add_argument("--games", type=int, default=1000, help="the budget, max_games (default 1000)")
    parser.add_argument("--events", type=int, default=20, help="events per field and mode (default 20)")
    parser.add_argument("--step", type=int, default=25, help="games between the SPRT's looks (default 25)")
    parser.add_argument("--margin", type=float, default=TIE_MARGIN)
    parser.add_argument("--mix", default="1;1,2;1.5;1,1.5,2,3", help="alternatives as multiples of m")
    args = parser.parse_args(argv)
    plan = LookPlan(100, 1.5, args.games, 200.0)
    for path in args.load:
        for (fld, mode), events in saved_events(path, args.games, args.events).items():
            rounds = per_round(fld, mode, events[0].seed)
            every = list(range(args.step, args.games + 1, args.step))
            print(f"\n=== {fld}, {mode}: {len(events)} events, budget {args.games}, margin {args.margin} ===")
            planned = lambda e, r=rounds: plan.points(r)  # noqa: E731
            print(
                "  default plan (100 x 1.5, rho 200):  "
                + replay(events, plan_rule(plan, args.margin, LEVEL), planned, args.margin),
                flush=True,
            )
            if all(eps_a != eps_c for eps_a, eps_c in itertools.pairwise(dict(FIELDS[fld]).values())):
                print(
                    "  one fixed look at 1.96 se, exact order with every pair above: "
                    + fixed_look(events, args.step, args.games, 1.96),
                    flush=True,
                )
            for spec in args.mix.split(";"):
                mult = [float(x) for x in spec.split(",")]
                rule = sprt_rule(args.margin, LEVEL, mult)
                label = "SPRT, alternatives " + "/".join(f"{k:g}m" for k in mult)
                print(
                    f"  {label}, look every {args.step}: "
                    + replay(events, rule, lambda e, every=every: every, args.margin),
                    flush=True,
                )
                print(
                    f"  {label}, at the planned looks: " + replay(events, rule, planned, args.margin),
                    flush=True,
                )


if __name__ == "__main__":
    main()
