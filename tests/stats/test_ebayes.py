"""The priors of arena.stats.ebayes against hand-computed cases: the posterior of a prior with components
away from zero, the symmetric non-parametric fit, and what each prior makes of a field of copies and of a
ladder (docs/ranking.md, "Calibration of the stated P")."""

from __future__ import annotations

import math
from random import Random
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest

from arena.stats.ebayes import (
    Prior,
    StrengthPrior,
    fit_centred,
    fit_symmetric,
    pair_probabilities,
    posterior,
)


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


def _kernel_p(q: dict[tuple[int, int], float], kernel: Any) -> float:
    """P(i above j) over the four atom pairs (θi, θj) of a prior at 0 and 1 of equal weight."""
    k = {pair: kernel(value) for pair, value in q.items()}
    return (k[1, 0] + 0.5 * (k[0, 0] + k[1, 1])) / sum(k.values())


def test_pair_probabilities_with_few_units_use_students_t_by_hand() -> None:
    """Atoms 0 and 1 of weight 1/2; scores 1 and 0, each with variance 0.25, independent: the squared
    distances q to the four atom pairs are 4, 8, 0, 4. Normal: P = (k(0) + k(4)) / (k(0) + k(8) + 2 k(4))
    with k(q) = exp(-q/2); on a covariance from four units (3 degrees of freedom) the bivariate t's
    k(q) = (1 + q/3)^(-5/2) instead: a less sure P, and the normal's again as the units grow."""
    prior = StrengthPrior((0.0, 1.0), (0.5, 0.5))
    scores = np.array([1.0, 0.0])
    cov = np.diag([0.25, 0.25])
    q = {(0, 0): 4.0, (0, 1): 8.0, (1, 0): 0.0, (1, 1): 4.0}
    normal = _kernel_p(q, lambda x: math.exp(-x / 2))
    three = _kernel_p(q, lambda x: (1 + x / 3) ** -2.5)
    assert pair_probabilities(prior, scores, cov)[0][0, 1] == pytest.approx(normal)
    assert pair_probabilities(prior, scores, cov, df=np.full((2, 2), 3.0))[0][0, 1] == pytest.approx(three)
    assert three < normal
    many = pair_probabilities(prior, scores, cov, df=np.full((2, 2), 1e7))[0][0, 1]
    assert many == pytest.approx(normal, abs=1e-5)


def test_an_entrant_of_one_unit_still_gets_a_probability() -> None:
    """One unit gives a variance of zero, or a rounding's negative: no NaN, with or without the t."""
    prior = StrengthPrior((0.0, 0.5, 1.0), (0.3, 0.4, 0.3))
    scores = np.array([0.9, 0.2, 0.5])
    cov = np.array([[-8e-19, 0.0, 0.0], [0.0, -2.7e-18, 0.0], [0.0, 0.0, 0.01]])
    for df in (None, np.zeros((3, 3)), np.full((3, 3), 9.0)):
        p, near = pair_probabilities(prior, scores, cov, 0.08, df)
        assert np.all(np.isfinite(p)) and np.all(np.isfinite(near))
        assert np.allclose(p + p.T, 1.0)


def test_under_the_true_prior_a_sure_p_from_eight_units_is_right_as_often_as_it_says() -> None:
    """10,000 seeded pairs, each strength drawn from the prior (0 or 1, equal chance), each score the mean
    of eight units of unit noise, the covariance estimated from those eight: of the pairs stated at 0.95 or
    more (about 1,150), the share truly above (a tie counting half) is within 0.012 of the mean stated P.
    (With the normal likelihood on the same covariance it is not: 0.964 observed for 0.988 stated.)"""
    prior = StrengthPrior((0.0, 1.0), (0.5, 0.5))
    units = 8
    df = np.full((2, 2), units - 1.0)
    stated, right = [], []
    for seed in range(10_000):
        rng = np.random.default_rng(seed)
        theta = rng.choice([0.0, 1.0], size=2)
        x = theta + rng.normal(0, 1, size=(units, 2))
        p = pair_probabilities(prior, x.mean(axis=0), np.cov(x.T) / units, 0.0, df)[0][0, 1]
        if p >= 0.95:
            stated.append(p)
            right.append(1.0 if theta[0] > theta[1] else 0.5 if theta[0] == theta[1] else 0.0)
    assert len(stated) > 1000
    assert abs(float(np.mean(stated)) - float(np.mean(right))) < 0.012
