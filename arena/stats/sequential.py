"""Verdicts on a pair of entrants that stay true however often the order is looked at: above, tied or open.

``--until-settled`` looks at the order again and again and stops at the first look where every adjacent
pair is decided; an organiser may open the leaderboard of a running event as often as they like. A
fixed-sample interval (gap ± 1.96 se) is wrong 5% of the time *at each look*, so a rule that stops at the
first good-looking look declares far more than 5% of tied pairs settled. Here each pair's gap gets a
*confidence sequence* instead: an interval that holds at every number of games at once, with probability at
least ``level`` (Robbins' normal mixture, as in Howard, Ramdas, McAuliffe and Sekhon, "Time-uniform,
nonparametric, nonasymptotic confidence sequences", Ann. Statist. 2021; with the variance estimated as it
goes, the asymptotic version of Waudby-Smith et al. 2021). Its half-width in standard errors is

    b(n) = sqrt((n + ρ) / n · ln((n + ρ) / (ρ α²))),     α = 1 − level,

for ``n`` units, tightest near n ≈ 10 ρ and widening only as sqrt(ln n) after, so stopping at any look is
honest: P(this pair is ever declared in the wrong order, or ordered when it is tied) ≤ α, and P(ever declared
tied when it differs by the margin or more) ≤ α / 2.

* **above**: the whole interval is above zero;
* **tied**: the whole interval lies within ± ``margin`` (``[ranking] tie_margin``), an equivalence test;
* **open**: neither yet.
"""

from __future__ import annotations

import math
from enum import StrEnum

MIXTURE_GAMES = 40.0
"""ρ of the boundary, in games (so that a duplicate block of five games counts as 8 of its units): the
boundary is tightest at about ten times this, where the benchmark's events stop (docs/ranking.md)."""
MIN_UNITS = 10
"""No pair is decided on fewer units: a variance estimated from a handful of games is itself too rough
(a normal boundary with a variance from 5 units would be a t-test with 4 degrees of freedom)."""


class Verdict(StrEnum):
    ABOVE = "above"
    TIED = "tied"
    OPEN = "open"


def mixture_units(games_per_unit: float) -> float:
    """ρ in units of this event (games, or blocks of ``games_per_unit`` games)."""
    return MIXTURE_GAMES / max(games_per_unit, 1.0)


def boundary(units: int, level: float, rho: float) -> float:
    """Half-width of the confidence sequence after ``units`` units, in standard errors of the gap."""
    if units < 1:
        return math.inf
    alpha = 1 - level
    return math.sqrt((units + rho) / units * math.log((units + rho) / (rho * alpha**2)))


def decide(
    gap: float, se: float, units: int, level: float, margin: float, rho: float
) -> tuple[Verdict, float, float]:
    """The verdict on a pair whose gap (upper minus lower) is ``gap`` ± ``se``, and the interval it rests
    on (NaN when the gap is not measured)."""
    if gap != gap or se != se:
        return Verdict.OPEN, math.nan, math.nan
    half = boundary(units, level, rho) * se
    lo, hi = gap - half, gap + half
    if units < MIN_UNITS:
        return Verdict.OPEN, lo, hi
    if lo > 0:
        return Verdict.ABOVE, lo, hi
    if -margin < lo and hi < margin:
        return Verdict.TIED, lo, hi
    return Verdict.OPEN, lo, hi


def more_games(
    gap: float, se: float, units: int, games: int, level: float, margin: float, rho: float
) -> int | None:
    """Rough extra games for an open pair to be decided, if its gap stays as seen and its standard error
    shrinks as 1/sqrt(games): the sooner of "above" and "tied". None when neither can be foreseen (no gap
    visible and no margin wider than the gap)."""
    if gap != gap or se != se or se <= 0 or units < 1:
        return None
    b = boundary(max(units, MIN_UNITS), level, rho)
    options = []
    if abs(gap) >= 0.1 * se:  # a visible gap: games until b·se(n') <= gap
        options.append(games * ((b * se / abs(gap)) ** 2 - 1))
    if margin > abs(gap):  # games until |gap| + b·se(n') < margin
        options.append(games * ((b * se / (margin - abs(gap))) ** 2 - 1))
    if not options:
        return None
    return max(1, math.ceil(min(options)))
