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

**Planned looks** (``LookPlan``, ``[ranking] look_growth`` > 1): when the looks are fixed in advance, a
few of them on a geometric schedule (50, 75, 113, ... games), the chance of ever crossing a *constant*
boundary ``c`` at one of them can be computed exactly instead of bounded for every n at once: the
standardised gaps at the looks are a Gaussian process with correlation sqrt(n_i / n_j), and ``c`` is the
constant at which it leaves [-c, c] at some look with probability α (Pocock's group-sequential design,
computed by recursive numerical integration, Armitage, McPherson and Rowe 1969; no randomness). The
boundary may also take the confidence sequence's shape, scaled down until the planned looks cross it with
probability exactly α: high at the first looks, low at the late ones where events stop. The default
(``[ranking]``: looks at 100, 150, 225, ... 1,000 games, shape ρ = 200) is 3.3 at 100 games, 2.5 at 338 and
2.3 at 1,000, where the confidence sequence needs 3.0-3.2 (docs/ranking.md has what it saves).
The guarantee then covers the planned looks (and any subset of them: skipping a look only lowers the
chance); a single unplanned look at c is stricter than a fixed-sample test, but many unplanned looks are
not covered, which is why ``--until-settled`` looks only at the planned ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from statistics import NormalDist

import numpy as np

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


GRID = 401
"""Points of the grid on [-c, c] that the planned boundary's integration runs on (Pocock's published
constants to three decimals; tests/stats/test_sequential.py)."""


@dataclass(frozen=True, slots=True)
class LookPlan:
    """Looks fixed in advance: the first after ``first`` games, each next after ``growth`` times the games
    of the one before, and a last one at ``last`` (the budget), in games. The boundary at look ``n`` is
    λ·b(n), the shape of the confidence sequence with ρ = ``rho`` games (``rho`` 0: a constant, Pocock's),
    scaled down by the λ at which the planned looks cross it with probability exactly α."""

    first: int
    growth: float
    last: int
    rho: float = 0.0

    def looks(self) -> tuple[float, ...]:
        """The planned looks, in games (before rounding up to whole rounds)."""
        out: list[float] = []
        n = float(max(self.first, 1))
        while n < self.last and len(out) < 200:
            out.append(n)
            n *= self.growth
        return (*out, float(self.last))

    def points(self, round_games: int) -> list[int]:
        """The games at which ``--until-settled`` looks: each planned look rounded up to whole rounds of
        ``round_games`` games, the last (the budget) rounded down."""
        budget = self.last // round_games * round_games
        up = {min(budget, math.ceil(n / round_games) * round_games) for n in self.looks()[:-1]}
        return sorted((up | {budget}) - {0})

    def shape(self, games: float, level: float) -> float:
        if self.rho <= 0:
            return 1.0
        return mixture_boundary(games, level, self.rho)

    def scale(self, level: float) -> float:
        looks = self.looks()
        return planned_scale(looks, tuple(self.shape(n, level) for n in looks), level)

    def boundary(self, games: float, level: float) -> float:
        """The half-width, in standard errors, at a look after ``games`` games."""
        return self.scale(level) * self.shape(max(games, self.first), level)

    def boundary_at(self, games: float, alpha: float) -> float:
        """``boundary`` at level 1 − ``alpha`` for any small ``alpha`` (a pair's share of the rank ranges'
        α), its scale interpolated in log α between the two exact ones around it (``scale_at``): the scale
        changes by under 10% from α = 0.05 to 10⁻⁶, and each exact one costs a few crossing probabilities,
        so a leaderboard computes only the ones its pairs' α fall between."""
        alpha = min(max(alpha, ALPHAS[-1]), ALPHAS[0])
        logs = [math.log(a) for a in ALPHAS]
        x = math.log(alpha)
        for k in range(len(ALPHAS) - 1):
            if logs[k + 1] <= x <= logs[k]:
                t = (x - logs[k]) / (logs[k + 1] - logs[k])
                low, high = scale_at(self, k), scale_at(self, k + 1)
                scale = low + t * (high - low)
                break
        else:
            scale = scale_at(self, len(ALPHAS) - 1)
        # the shape was scaled at level 0.95 in ``boundary``; here it is the shape at this α
        return scale * self.shape(max(games, self.first), 1 - alpha)


ALPHAS = (0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5, 1e-6, 1e-7)
"""The α at which ``scale_table`` computes the planned scale exactly (two-sided, per pair)."""


@lru_cache(maxsize=256)
def scale_at(plan: LookPlan, k: int) -> float:
    """The planned scale at ``ALPHAS[k]``, computed once per plan, α and process."""
    return plan.scale(1 - ALPHAS[k])


def scale_table(plan: LookPlan) -> tuple[float, ...]:
    """The planned scale at every α of ``ALPHAS``."""
    return tuple(scale_at(plan, k) for k in range(len(ALPHAS)))


def crossing_probability(looks: tuple[float, ...], bounds: tuple[float, ...], grid: int = GRID) -> float:
    """P(|Z_k| >= bounds[k] at some look k) for a standardised random walk looked at after ``looks``
    units (any common scale: only their ratios matter).

    Z at look k+1 given Z at look k is normal with mean z·sqrt(n_k / n_{k+1}) and variance
    1 - n_k / n_{k+1}; the density of the paths still inside the boundary is carried from look to look on a
    grid (trapezoid weights), and what it loses is the crossing probability."""

    def nodes(c: float) -> tuple[np.ndarray, np.ndarray]:
        z = np.linspace(-c, c, grid)
        w = np.full(grid, z[1] - z[0])
        w[0] = w[-1] = w[0] / 2
        return z, w

    z, w = nodes(bounds[0])
    density = np.exp(-(z**2) / 2) / math.sqrt(2 * math.pi)
    for k in range(1, len(looks)):
        r = looks[k - 1] / looks[k]
        sd = math.sqrt(1 - r)
        z_next, w_next = nodes(bounds[k])
        kernel = np.exp(-((z_next[None, :] - math.sqrt(r) * z[:, None]) ** 2) / (2 * sd * sd))
        density = (density * w) @ kernel / (sd * math.sqrt(2 * math.pi))
        z, w = z_next, w_next
    return 1.0 - float(np.sum(density * w))


@lru_cache(maxsize=64)
def planned_scale(looks: tuple[float, ...], shape: tuple[float, ...], level: float) -> float:
    """The λ with ``crossing_probability(looks, λ·shape) = 1 - level``, bracketed by the one-look and the
    union-bound (Šidák) values of a constant boundary, relative to the shape's smallest value.

    The root is found on log P(cross), nearly linear in λ (a normal tail's logarithm is close to a
    parabola, and the bracket is narrow), by regula falsi with the Illinois step (Dowell and Jarratt 1971):
    a handful of crossing probabilities where bisection to the same width needs thirty, which is what a
    leaderboard's first look in a process costs."""
    alpha = 1 - level
    target = math.log(alpha)

    def excess(scale: float) -> float:
        crossed = crossing_probability(looks, tuple(scale * b for b in shape))
        return math.log(max(crossed, 1e-300)) - target

    lo = NormalDist().inv_cdf(1 - alpha / 2) / max(shape)
    hi = NormalDist().inv_cdf(1 - alpha / (2 * len(looks))) / min(shape)
    f_lo, f_hi = excess(lo), excess(hi)
    if f_lo <= 0:  # one look: the one-look value is exact
        return lo
    if f_hi >= 0:  # cannot happen for a valid bracket; keep the bound that holds α
        return hi
    side = 0
    for _ in range(60):
        if hi - lo < SCALE_TOLERANCE:
            break
        mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        f_mid = excess(mid)
        if f_mid > 0:  # still crossed more often than α: the root is above
            lo, f_lo = mid, f_mid
            if side == -1:
                f_hi /= 2
            side = -1
        else:
            hi, f_hi = mid, f_mid
            if side == 1:
                f_lo /= 2
            side = 1
    return hi


SCALE_TOLERANCE = 1e-7
"""The width at which the planned scale's root is taken (its upper end, which holds α): far below the
third decimal that any printed boundary shows."""


def mixture_boundary(games: float, level: float, rho: float) -> float:
    """The confidence sequence's b(n) with n and ρ in the same unit."""
    alpha = 1 - level
    return math.sqrt((games + rho) / games * math.log((games + rho) / (rho * alpha**2)))


def mixture_units(games_per_unit: float) -> float:
    """ρ in units of this event (games, or blocks of ``games_per_unit`` games)."""
    return MIXTURE_GAMES / max(games_per_unit, 1.0)


def boundary(
    units: int, level: float, rho: float, plan: LookPlan | None = None, games_per_unit: float = 1.0
) -> float:
    """Half-width of the confidence sequence after ``units`` units, in standard errors of the gap; with a
    ``plan``, its constant planned boundary."""
    if units < 1:
        return math.inf
    if plan is not None:
        return plan.boundary(units * games_per_unit, level)
    return mixture_boundary(units, level, rho)


def decide(
    gap: float,
    se: float,
    units: int,
    level: float,
    margin: float,
    rho: float,
    bound: float | None = None,
) -> tuple[Verdict, float, float]:
    """The verdict on a pair whose gap (upper minus lower) is ``gap`` ± ``se``, and the interval it rests
    on (NaN when the gap is not measured). ``bound``: the half-width in standard errors, when not the
    confidence sequence's (a planned look's)."""
    if gap != gap or se != se:
        return Verdict.OPEN, math.nan, math.nan
    half = (boundary(units, level, rho) if bound is None else bound) * se
    lo, hi = gap - half, gap + half
    if units < MIN_UNITS:
        return Verdict.OPEN, lo, hi
    if lo > 0:
        return Verdict.ABOVE, lo, hi
    if -margin < lo and hi < margin:
        return Verdict.TIED, lo, hi
    return Verdict.OPEN, lo, hi


def more_games(
    gap: float,
    se: float,
    units: int,
    games: int,
    level: float,
    margin: float,
    rho: float,
    bound: float | None = None,
) -> int | None:
    """Rough extra games for an open pair to be decided, if its gap stays as seen and its standard error
    shrinks as 1/sqrt(games): the sooner of "above" and "tied". None when neither can be foreseen (no gap
    visible and no margin wider than the gap)."""
    if gap != gap or se != se or se <= 0 or units < 1:
        return None
    b = boundary(max(units, MIN_UNITS), level, rho) if bound is None else bound
    options = []
    if abs(gap) >= 0.1 * se:  # a visible gap: games until b·se(n') <= gap
        options.append(games * ((b * se / abs(gap)) ** 2 - 1))
    if margin > abs(gap):  # games until |gap| + b·se(n') < margin
        options.append(games * ((b * se / (margin - abs(gap))) ** 2 - 1))
    if not options:
        return None
    return max(1, math.ceil(min(options)))
