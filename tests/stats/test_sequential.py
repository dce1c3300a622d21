"""The planned looks' boundary (arena.stats.sequential.LookPlan): hand-checked constants, its promise on
null walks looked at on the plan, and what it does to identical entrants."""

from __future__ import annotations

import math
from random import Random

import numpy as np
import pytest

from arena.stats.confidence import look
from arena.stats.sequential import (
    LookPlan,
    Verdict,
    crossing_probability,
    decide,
    mixture_boundary,
    planned_scale,
    scale_at,
)
from arena.stats.tally import Tally
from tests.stats.test_identical_entrants import synthetic


@pytest.mark.parametrize(
    ("looks", "pocock"), [(1, 1.960), (2, 2.178), (3, 2.289), (4, 2.361), (5, 2.413), (10, 2.555)]
)
def test_a_constant_boundary_over_equally_spaced_looks_is_pococks(looks: int, pocock: float) -> None:
    """Pocock's published constants (two-sided 0.05, K equally spaced looks; Pocock 1977, table 1)."""
    times = tuple(float(k) for k in range(1, looks + 1))
    assert planned_scale(times, (1.0,) * looks, 0.95) == pytest.approx(pocock, abs=2e-3)


def test_the_planned_scale_is_the_bisection_s_root_at_a_handful_of_crossings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The root of crossing = α on the default plan's shape, at the usual α and at a pair's small share of
    it: equal to plain bisection's to 1e-6, at a cost of at most 12 crossing probabilities each (bisection
    took 30, and a leaderboard's first look in a process paid for 13 such roots)."""
    import arena.stats.sequential as sequential

    plan = LookPlan(100, 1.5, 1000, 200.0)
    looks = plan.looks()
    for alpha in (0.05, 1e-4):
        shape = tuple(plan.shape(n, 1 - alpha) for n in looks)
        lo, hi = 0.3, 3.0
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (
                (mid, hi) if crossing_probability(looks, tuple(mid * b for b in shape)) > alpha else (lo, mid)
            )
        calls = 0
        real = sequential.crossing_probability

        def counted(*args: object, real: object = real) -> float:
            nonlocal calls
            calls += 1
            return real(*args)  # type: ignore[operator, no-any-return]

        monkeypatch.setattr(sequential, "crossing_probability", counted)
        planned_scale.cache_clear()
        assert planned_scale(looks, shape, 1 - alpha) == pytest.approx(hi, abs=1e-6)
        assert calls <= 12, calls
        monkeypatch.undo()
    scale_at.cache_clear()


def test_crossing_probability_by_hand() -> None:
    """One look: 2(1 - Φ(c)); two looks at n and 4n (correlation 1/2) with c = 1.96: 0.05 + P(|Z2| >= c,
    |Z1| < c), which the bivariate normal gives as 0.0831 (computed by quadrature, below)."""
    assert crossing_probability((7.0,), (1.96,)) == pytest.approx(0.049996, abs=1e-5)
    z = np.linspace(-1.96, 1.96, 4001)
    phi = np.exp(-(z**2) / 2) / math.sqrt(2 * math.pi)
    inside = np.array([math.erf((1.96 - 0.5 * x) / math.sqrt(2 * 0.75)) for x in z])
    inside = (inside + np.array([math.erf((1.96 + 0.5 * x) / math.sqrt(2 * 0.75)) for x in z])) / 2
    stay = float(np.trapezoid(phi * inside, z))
    assert crossing_probability((1.0, 4.0), (1.96, 1.96)) == pytest.approx(1 - stay, abs=1e-4)


def test_the_plan_and_its_points() -> None:
    plan = LookPlan(50, 1.5, 1000)
    assert plan.looks() == (50.0, 75.0, 112.5, 168.75, 253.125, 379.6875, 569.53125, 854.296875, 1000.0)
    assert plan.points(1) == [50, 75, 113, 169, 254, 380, 570, 855, 1000]
    assert plan.points(5) == [50, 75, 115, 170, 255, 380, 570, 855, 1000]
    assert plan.points(6) == [54, 78, 114, 174, 258, 384, 570, 858, 996]
    shaped = LookPlan(50, 1.5, 1000, 200.0)
    ratio = shaped.boundary(50, 0.95) / shaped.boundary(1000, 0.95)
    assert ratio == pytest.approx(mixture_boundary(50, 0.95, 200) / mixture_boundary(1000, 0.95, 200))
    assert shaped.boundary(10, 0.95) == shaped.boundary(50, 0.95)  # before the plan: its first look's


def test_a_null_walk_looked_at_on_the_plan_crosses_in_alpha_of_walks() -> None:
    """The promise, by simulation: 20,000 seeded normal walks, looked at on the default plan's looks,
    cross the planned boundary in 5% of walks (± 0.5%); looked at every 25 steps instead, more often (the
    boundary covers the planned looks only)."""
    plan = LookPlan(50, 1.5, 1000, 200.0)
    rng = np.random.default_rng(11)
    walks = np.cumsum(rng.standard_normal((20000, 1000), dtype=np.float32), axis=1)
    points = plan.points(1)
    z = walks[:, [p - 1 for p in points]] / np.sqrt(points)
    edge = np.array([plan.boundary(p, 0.95) for p in points])
    crossed = float(np.mean(np.any(np.abs(z) >= edge, axis=1)))
    assert crossed == pytest.approx(0.05, abs=0.005)
    every = list(range(50, 1001, 25))
    z = walks[:, [p - 1 for p in every]] / np.sqrt(every)
    edge = np.array([plan.boundary(p, 0.95) for p in every])
    assert float(np.mean(np.any(np.abs(z) >= edge, axis=1))) > 0.06


def test_decide_with_a_planned_bound_by_hand() -> None:
    assert decide(0.26, 0.1, 100, 0.95, 0.08, 40.0, bound=2.5) == (Verdict.ABOVE, 0.26 - 0.25, 0.26 + 0.25)
    assert decide(0.24, 0.1, 100, 0.95, 0.08, 40.0, bound=2.5)[0] is Verdict.OPEN
    verdict, lo, hi = decide(0.01, 0.025, 100, 0.95, 0.08, 40.0, bound=2.5)
    assert verdict is Verdict.TIED and (lo, hi) == pytest.approx((-0.0525, 0.0725))
    assert decide(0.01, 0.025, 100, 0.95, 0.08, 40.0)[0] is Verdict.OPEN  # b(100) = 3.18: 0.0895 > 0.08


def test_equal_entrants_on_the_plan_end_tied_or_at_the_budget_never_ordered() -> None:
    """Seeded events of equal entrants (synthetic games, every score from the same law), replayed as
    ``--until-settled`` does under the default plan: at every look it takes, no pair is ordered in more
    than 5% of events plus slack; every event ends with its pairs tied or open at the budget."""
    plan = LookPlan(50, 1.5, 600, 200.0)
    names = [f"e{i}" for i in range(4)]
    ordered = 0
    for event in range(40):
        rng = Random(900 + event)
        games = synthetic(rng, names, 600, 12, 10)
        tally = Tally(names)
        done = 0
        for point in plan.points(1):
            tally.add(games[done:point]).close()
            done = point
            seen = look(tally, "points", 0.95, event, margin=0.3, plan=plan)
            if any(p.verdict is Verdict.ABOVE for p in seen.adjacent):
                ordered += 1
                break
            if seen.settled:
                assert all(p.verdict is Verdict.TIED for p in seen.adjacent)
                break
    assert ordered <= 4
