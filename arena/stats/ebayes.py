"""Empirical Bayes for the gaps between entrants: how likely one really is above another, in *this* field.

Why not the bootstrap's Φ(gap / sd) as it stands, nor sharpened: Φ(z) treats every gap as equally likely a
priori, which is conservative on a ladder (real gaps are rarely near zero) and far too confident on a field
of equal entrants (there every gap *is* zero, and the printed, upper entrant of a pair has z ≈ |N(0, 1)|).
A fixed sharpening fits one kind of field only. So the prior on a gap is estimated from the field itself, as
in adaptive shrinkage (Stephens, "False discovery rates: a new deal", Biostatistics 2017): a mixture of a
point mass at zero (equal entrants) and centred normals of a grid of widths, its weights fitted by maximum
likelihood (EM) to every pair's observed gap and standard error. A ladder puts its weight on wide
components and a pair's P sharpens; a field of copies puts it on zero and no P does. The pairs share
entrants, so the likelihood is a composite one (pairs taken as if independent): it estimates the spread of
the field's gaps, not their joint law.

Pure and deterministic (no randomness): the same gaps give the same prior and the same probabilities.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NULL_PENALTY = 0.0
"""Dirichlet pseudo-count added to the weight at zero beyond the plain likelihood (0: plain maximum
likelihood). Adaptive shrinkage uses 10 to lean towards "no difference"; on the benchmark even 1 made the
ladder's and the near-tie's P clearly too low (docs/ranking.md), so none."""
SE_FLOOR = 1e-9
"""A gap measured with no spread (identical deterministic bots) still gets a finite likelihood."""


_ERFC = np.frompyfunc(math.erfc, 1, 1)


def ndtr(x: np.ndarray | float) -> np.ndarray:
    """The standard normal CDF, elementwise (numpy has no erf; the arrays here are a few dozen long)."""
    return np.asarray(_ERFC(-np.asarray(x, dtype=float) / math.sqrt(2)), dtype=float) / 2


@dataclass(frozen=True, slots=True)
class Prior:
    """The fitted prior on a gap: ``weights[k]`` on N(0, ``scales[k]``²); ``scales[0] == 0`` is "equal"."""

    scales: tuple[float, ...]
    weights: tuple[float, ...]

    @property
    def null(self) -> float:
        """The prior weight on "exactly equal"."""
        return self.weights[0]


FLAT = Prior((0.0, math.inf), (0.0, 1.0))
"""No field to learn from (fewer than two measured pairs): a flat prior, P = Φ(gap / se)."""


def grid(gaps: np.ndarray, ses: np.ndarray) -> np.ndarray:
    """The widths: 0, then from a tenth of the smallest standard error up to twice the widest gap the data
    suggest, in steps of √2 (the grid of adaptive shrinkage)."""
    lo = max(float(ses.min()) / 10, SE_FLOOR)
    wide = float(np.max(gaps**2 - ses**2))
    hi = 2 * math.sqrt(wide) if wide > 0 else 8 * lo
    hi = max(hi, 8 * lo)
    count = math.ceil(math.log(hi / lo) / math.log(math.sqrt(2))) + 1
    return np.concatenate([[0.0], lo * np.sqrt(2.0) ** np.arange(count)])


def fit_prior(
    gaps: Sequence[float], ses: Sequence[float], null_penalty: float = NULL_PENALTY, iterations: int = 300
) -> Prior:
    """Fit the mixture weights to the observed ``gaps`` with standard errors ``ses`` (EM, from even weights).

    Pairs with no measured gap (NaN) are left out; a gap with no spread counts with ``SE_FLOOR``.
    """
    d = np.asarray(gaps, dtype=float)
    s = np.asarray(ses, dtype=float)
    keep = np.isfinite(d) & np.isfinite(s)
    d, s = d[keep], np.maximum(s[keep], SE_FLOOR)
    if d.size < 2:
        return FLAT
    scales = grid(d, s)
    like = _likelihood(d, s, scales)  # pairs x components
    w = np.full(scales.size, 1.0 / scales.size)
    extra = np.zeros(scales.size)
    extra[0] = null_penalty
    for _ in range(iterations):
        mix = like * w
        resp = mix / mix.sum(axis=1, keepdims=True)
        new = resp.sum(axis=0) + extra
        new /= new.sum()
        done = float(np.max(np.abs(new - w))) < 1e-6
        w = new
        if done:
            break
    return Prior(tuple(float(x) for x in scales), tuple(float(x) for x in w))


def _likelihood(d: np.ndarray, s: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """N(d; 0, scale² + s²) for every pair and component, scaled per pair (only ratios matter) so that a
    tiny ``s`` does not overflow."""
    var = scales[None, :] ** 2 + s[:, None] ** 2
    log = -0.5 * d[:, None] ** 2 / var - 0.5 * np.log(var)
    return np.exp(log - log.max(axis=1, keepdims=True))


@dataclass(frozen=True, slots=True)
class Posterior:
    """What the prior and one pair's gap say: P(gap > 0), P(gap exactly 0), P(|gap| < margin)."""

    above: float
    equal: float
    within: float

    @property
    def finishes_above(self) -> float:
        """P(above), an exact tie counting half: the chance of finishing above with ties split by a coin."""
        return self.above + self.equal / 2


def posterior(prior: Prior, gap: float, se: float, margin: float = 0.0) -> Posterior:
    """The posterior of one pair's true gap given its observed ``gap`` and standard error ``se``.

    Within each normal component the posterior is normal (mean shrunk by scale²/(scale² + se²)); the point
    mass keeps its share of the evidence. A flat prior gives P(above) = Φ(gap / se).
    """
    if gap != gap:
        return Posterior(0.5, 0.0, 0.0)
    se = max(se, SE_FLOOR) if se == se else math.inf
    scales = np.asarray(prior.scales)
    w = np.asarray(prior.weights)
    if math.isinf(scales[-1]):  # the flat prior
        z = gap / se
        within = float(ndtr((margin - gap) / se) - ndtr((-margin - gap) / se))
        return Posterior(float(ndtr(z)), 0.0, within)
    post = w * _likelihood(np.array([gap]), np.array([se]), scales)[0]
    post /= post.sum()
    wide = scales[1:]
    shrink = wide**2 / (wide**2 + se**2)
    mean = gap * shrink
    sd = np.sqrt(shrink) * se
    above = float(np.sum(post[1:] * ndtr(mean / sd)))
    inside = ndtr((margin - mean) / sd) - ndtr((-margin - mean) / sd)
    within = float(post[0] + np.sum(post[1:] * inside)) if margin > 0 else float(post[0])
    return Posterior(above, float(post[0]), within)
