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
    fit_atoms,
    fit_centred,
    fit_smooth,
    fit_strengths,
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


def _class_field(seed: int, se: float = 0.05) -> tuple[list[float], list[float], list[float]]:
    """Six tiers 0.08 apart, each entered twice, every score measured with standard error ``se``."""
    rng = Random(seed)
    truth = [0.08 * t for t in range(6) for _ in range(2)]
    return truth, [m + rng.gauss(0, se) for m in truth], [se] * len(truth)


def test_the_smooth_prior_tells_neighbouring_tiers_apart_where_the_atoms_merge_them() -> None:
    """Over 40 seeded class fields (six tiers 1.6 standard errors apart, two of each), P that the better of
    two neighbouring-tier entrants is above is about 1/2 under the NPMLE (it merges the tiers into fewer
    atoms) but well above it under the smooth prior: the calibration gap docs/ranking.md measures."""
    atoms_p, smooth_p = [], []
    for seed in range(40):
        truth, s, e = _class_field(seed)
        cov = np.diag(np.square(e))
        for fit, out in ((fit_atoms, atoms_p), (fit_smooth, smooth_p)):
            p, _ = pair_probabilities(fit(s, e), np.asarray(s), cov)
            out += [
                p[i, j] for i in range(12) for j in range(12) if truth[i] - truth[j] == pytest.approx(0.08)
            ]
    assert np.mean(smooth_p) > np.mean(atoms_p) + 0.03
    assert np.mean(smooth_p) > 0.6


def test_the_smooth_prior_is_a_distribution_on_the_grid_and_deterministic() -> None:
    _, s, e = _class_field(7)
    prior = fit_smooth(s, e)
    assert sum(prior.weights) == pytest.approx(1.0)
    assert min(prior.atoms) >= min(s) - 2 * 0.05 - 1e-12 and max(prior.atoms) <= max(s) + 2 * 0.05 + 1e-12
    assert fit_smooth(s, e) == prior
    mean = sum(a * w for a, w in zip(prior.atoms, prior.weights, strict=True))
    assert mean == pytest.approx(float(np.mean(s)), abs=0.02)


def test_on_a_field_of_copies_the_chosen_prior_is_the_point_mass() -> None:
    """Five copies: the smooth prior spreads and would make far-apart copies look different; the BIC keeps
    the NPMLE, whose atoms say 1/2 for the top and bottom copy alike."""
    rng = Random(3)
    s = [rng.gauss(0.5, 0.05) for _ in range(5)]
    e = [0.05] * 5
    chosen = fit_strengths(s, e)
    assert chosen == fit_atoms(s, e)
    order = np.argsort(s)
    p, _ = pair_probabilities(chosen, np.asarray(s), np.diag(np.square(e)))
    assert abs(p[order[-1], order[0]] - 0.5) < 0.1
    p_smooth, _ = pair_probabilities(fit_smooth(s, e), np.asarray(s), np.diag(np.square(e)))
    assert p_smooth[order[-1], order[0]] > p[order[-1], order[0]]


def test_on_a_spread_class_field_the_chosen_prior_is_the_smooth_one() -> None:
    """Ten tiers entered three times, 1.6 standard errors apart: the scores spread far wider than their
    errors, and the BIC takes the smooth prior."""
    rng = Random(5)
    s = [0.08 * t + rng.gauss(0, 0.05) for t in range(10) for _ in range(3)]
    e = [0.05] * 30
    assert fit_strengths(s, e) == fit_smooth(s, e)


def test_the_smooth_prior_follows_where_the_scores_are() -> None:
    """Nine entrants near 0 and three near 1 (standard error 0.05): about three quarters of the smooth
    prior's mass lies below 1/2, not the half of a flat prior on the grid."""
    rng = Random(11)
    s = [rng.gauss(0.0, 0.05) for _ in range(9)] + [rng.gauss(1.0, 0.05) for _ in range(3)]
    prior = fit_smooth(s, [0.05] * 12)
    low = sum(w for a, w in zip(prior.atoms, prior.weights, strict=True) if a < 0.5)
    assert low == pytest.approx(0.75, abs=0.08)
