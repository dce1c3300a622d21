"""The sequential probability ratio test (arena.stats.sprt) against the textbook formula and Wald's bounds."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from arena.stats.sprt import SprtResult, SprtSettings, llr, run_sprt

DIFFS = [0.12, -0.05, 0.3, 0.08, 0.0, 0.21, -0.11, 0.17, 0.09, 0.26, 0.04, 0.15]


def test_llr_equals_the_sum_of_normal_log_density_ratios() -> None:
    """Textbook: LLR = Σ ln N(x; h1, s²) - ln N(x; h0, s²), s the sample sd of the differences."""
    n = len(DIFFS)
    mean = sum(DIFFS) / n
    s = math.sqrt(sum((x - mean) ** 2 for x in DIFFS) / (n - 1))
    h0, h1 = 0.0, 0.1
    expected = sum(math.log(NormalDist(h1, s).pdf(x)) - math.log(NormalDist(h0, s).pdf(x)) for x in DIFFS)
    assert llr(DIFFS, h0, h1) == pytest.approx(expected, rel=1e-9)
    assert llr(DIFFS[:1], h0, h1) == 0.0  # no variance from one deal


def test_wald_bounds_and_the_first_crossing_decides() -> None:
    settings = SprtSettings(0.0, 0.1, alpha=0.05, beta=0.1, min_deals=3)
    assert settings.lower == pytest.approx(math.log(0.1 / 0.95))
    assert settings.upper == pytest.approx(math.log(0.9 / 0.05))
    state = run_sprt(DIFFS, settings)
    crossing = next(n for n in range(3, len(DIFFS) + 1) if llr(DIFFS[:n], 0.0, 0.1) >= settings.upper)
    assert state.result is SprtResult.H1 and state.deals == crossing and state.llr >= settings.upper
    against = run_sprt([-x for x in DIFFS], settings)
    assert against.result is SprtResult.H0 and against.llr <= settings.lower
    undecided = SprtResult.UNDECIDED
    assert run_sprt([0.05] * 30, settings).result is undecided  # identical differences midway: LLR 0
    assert run_sprt(DIFFS[:2], settings).result is undecided  # too few deals to look


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"h0": 0.1, "h1": 0.1}, "h1=0.1 must be greater than h0=0.1"),
        ({"alpha": 0.0}, "alpha=0.0: expected a probability in (0, 0.5)"),
        ({"beta": 0.5}, "beta=0.5: expected a probability in (0, 0.5)"),
        ({"min_deals": 1}, "min_deals=1: expected at least 2 (a variance needs two)"),
    ],
    ids=["h1-not-above-h0", "alpha-zero", "beta-half", "min-deals-one"],
)
def test_bad_sprt_settings_are_refused(kwargs: dict[str, float], message: str) -> None:
    """Each bad setting is refused with its own message (a ``ValueError``, or the arena's ``ConfigError``,
    which is one): a stray ``ValueError`` from elsewhere does not pass for the check."""
    with pytest.raises(ValueError) as error:
        SprtSettings(**kwargs)  # type: ignore[arg-type]
    assert str(error.value) == message
