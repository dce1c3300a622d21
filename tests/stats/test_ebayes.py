"""The priors of arena.stats.ebayes against hand-computed cases: the posterior of a prior with components
away from zero, the symmetric non-parametric fit, and what each prior makes of a field of copies and of a
ladder (docs/ranking.md, "Calibration of the stated P")."""

from __future__ import annotations

import math
from random import Random
from statistics import NormalDist

import pytest

from arena.stats.ebayes import Prior, fit_centred, fit_symmetric, posterior


def test_the_posterior_of_components_away_from_zero_by_hand() -> None:
    """Half "equal", a quarter each exactly at +1 and -1; gap 0.5 ± 1: the evidence is N(0.5; c, 1) for
    c = 0, 1, -1, so P(+1) = 0.25 φ(0.5) / (0.5 φ(0.5) + 0.25 φ(0.5) + 0.25 φ(1.5)); no component lies
    strictly within ±0.5 but the point mass."""
    prior = Prior((0.0, 0.0, 0.0), (0.5, 0.25, 0.25), (0.0, 1.0, -1.0))
    phi = NormalDist().pdf
    total = 0.5 * phi(0.5) + 0.25 * phi(0.5) + 0.25 * phi(1.5)
    post = posterior(prior, 0.5, 1.0, margin=0.5)
    assert post.equal == pytest.approx(0.5 * phi(0.5) / total)
    assert post.above == pytest.approx(0.25 * phi(0.5) / total)
    assert post.within == pytest.approx(post.equal)
    assert post.finishes_above == pytest.approx(post.above + post.equal / 2)
    assert prior.null == 0.5


def test_a_prior_far_from_the_gap_still_gives_a_probability() -> None:
    """Every prior mass at ±g with a narrow width w: P(above) / P(below) = exp(2 g d / (w² + se²)) for an
    observed gap d, however small the likelihood of both (computed in logs, never 0 / 0)."""
    prior = Prior((0.1, 0.1), (0.5, 0.5), (3.0, -3.0))
    p = posterior(prior, 0.05, 0.05).finishes_above
    assert p / (1 - p) == pytest.approx(math.exp(2 * 3.0 * 0.05 / (0.1**2 + 0.05**2)), rel=1e-6)
    fitted = fit_symmetric([3.0, 3.0, 3.0], [0.01] * 3)
    assert fitted.null == 0.0
    assert posterior(fitted, 0.05, 0.05).finishes_above == pytest.approx(1.0)
    assert posterior(fitted, 0.0, 0.05).finishes_above == pytest.approx(0.5)


def test_the_symmetric_fit_does_not_care_which_entrant_is_named_first() -> None:
    """Mirrored gaps give the same prior, and the weights of +g and -g are equal."""
    rng = Random(4)
    gaps = [rng.gauss(0.1, 0.05) for _ in range(10)]
    ses = [0.03] * 10
    prior, mirror = fit_symmetric(gaps, ses), fit_symmetric([-g for g in gaps], ses)
    assert prior.weights == pytest.approx(mirror.weights) and prior.locs == mirror.locs
    half = (len(prior.locs) - 1) // 2
    assert prior.weights[1 : 1 + half] == pytest.approx(prior.weights[1 + half :])
    assert sum(prior.weights) == pytest.approx(1.0)


def test_copies_stay_a_coin_and_a_ladder_sharpens() -> None:
    """Fifteen gaps within noise: the symmetric prior puts most weight on "equal" and a gap of two standard
    errors stays near a coin; fifteen gaps of 0.1 to 0.5: a gap of
    two standard errors is believed by both, most by the symmetric prior, whose mass is away from zero."""
    rng = Random(2)
    same = [rng.gauss(0, 0.02) for _ in range(15)]
    ladder = [0.1 * k + rng.gauss(0, 0.02) for k in (1, 2, 3, 4, 5) * 3]
    sym_same = fit_symmetric(same, [0.02] * 15)
    assert sym_same.null > 0.5
    assert posterior(sym_same, 0.04, 0.02).finishes_above < 0.6
    sym_ladder, cen_ladder = fit_symmetric(ladder, [0.02] * 15), fit_centred(ladder, [0.02] * 15)
    assert sym_ladder.null < 0.01 and cen_ladder.null < 0.1
    sym, cen = (posterior(p, 0.04, 0.02).finishes_above for p in (sym_ladder, cen_ladder))
    assert sym > 0.99 and 0.9 < cen < sym
