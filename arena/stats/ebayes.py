"""Empirical Bayes for the gaps between entrants: how likely one really is above another, in *this* field.

Why not the bootstrap's Φ(gap / sd) as it stands, nor sharpened: Φ(z) treats every gap as equally likely a
priori, which is conservative on a ladder (real gaps are rarely near zero) and far too confident on a field
of equal entrants (there every gap *is* zero, and the printed, upper entrant of a pair has z ≈ |N(0, 1)|).
A fixed sharpening fits one kind of field only. So the prior on a gap is estimated from the field itself
and the stated P is that prior's posterior.

Two priors are here; ``fit_prior`` (the leaderboard's) is ``fit_symmetric``, fitted to the gaps of the
*adjacent pairs of the printed order* (docs/ranking.md, "Calibration of the stated P and a seat model:
measured": chosen by measurement on the benchmark's fields):

* ``fit_symmetric``: a symmetric non-parametric prior (an NPMLE, Kiefer and Wolfowitz 1956, on a grid):
  a point mass at "exactly equal" plus pairs of narrow components at ±g for g on a grid up to the widest
  gap seen, weights by EM. Its mass may sit *away* from zero, where a ladder's gaps are (all about ±0.1),
  so a modest adjacent gap is believed; on a field of copies it goes to zero and no P sharpens.
* ``fit_centred``: the prior of adaptive shrinkage (Stephens, Biostatistics 2017): a point mass at zero and
  *centred* normals of a grid of widths. Every component has its mode at zero, so a ladder's small gaps
  are shrunk towards "equal" (kept for the benchmark's comparison; the default before).

Why the adjacent pairs and not every pair: the P that is read, judged and acted on is that of the printed
neighbours, and those are a selected population (the sorted order's spacings: on a field of copies much
smaller than a random pair's gap). A prior fitted to every pair describes a random pair, so on a tied field
it finds spread that the neighbours do not have and states 0.65-0.95 where 1/2 holds; fitted to the
neighbours it describes exactly the pairs it is applied to. The pairs share entrants, so the likelihood is
a composite one (pairs taken as if independent): it estimates the spread of the gaps, not their joint law.
The same prior also gives the P of non-adjacent pairs (the matrix), whose gaps are wider than any atom:
those P come out near 0 or 1, as the data say, but their calibration is not measured.

The leaderboard's P itself comes from a prior on the entrants' *strengths* (``fit_strengths``, below): the
NPMLE's atoms or Efron's smooth g-model, whichever has the smaller BIC; the gap priors above are the ones
it replaced, kept for the benchmark's comparison (bench/ranking.py, bench/ranking_priors.py).

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
ATOMS = 40
"""Grid points of the symmetric prior on (0, widest gap]: fine enough that no gap the data can tell apart
falls between two of them, few enough that a look stays cheap (pairs × ATOMS per EM step)."""


_ERFC = np.frompyfunc(math.erfc, 1, 1)


def ndtr(x: np.ndarray | float) -> np.ndarray:
    """The standard normal CDF, elementwise (numpy has no erf; the arrays here are a few dozen long)."""
    return np.asarray(_ERFC(-np.asarray(x, dtype=float) / math.sqrt(2)), dtype=float) / 2


@dataclass(frozen=True, slots=True)
class Prior:
    """The fitted prior on a gap: ``weights[k]`` on N(``locs[k]``, ``scales[k]``²) (``locs`` empty: every
    component centred at zero); the component at zero with no width is "exactly equal"."""

    scales: tuple[float, ...]
    weights: tuple[float, ...]
    locs: tuple[float, ...] = ()

    def centres(self) -> np.ndarray:
        return np.asarray(self.locs, dtype=float) if self.locs else np.zeros(len(self.scales))

    @property
    def null(self) -> float:
        """The prior weight on "exactly equal"."""
        centres = self.centres()
        return float(
            sum(w for c, s, w in zip(centres, self.scales, self.weights, strict=True) if c == s == 0)
        )


FLAT = Prior((0.0, math.inf), (0.0, 1.0))
"""No field to learn from (fewer than two measured pairs): a flat prior, P = Φ(gap / se)."""


def _clean(gaps: Sequence[float], ses: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Pairs with no measured gap (NaN) are left out; a gap with no spread counts with ``SE_FLOOR``."""
    d = np.asarray(gaps, dtype=float)
    s = np.asarray(ses, dtype=float)
    keep = np.isfinite(d) & np.isfinite(s)
    return d[keep], np.maximum(s[keep], SE_FLOOR)


def grid(gaps: np.ndarray, ses: np.ndarray) -> np.ndarray:
    """The widths: 0, then from a tenth of the smallest standard error up to twice the widest gap the data
    suggest, in steps of √2 (the grid of adaptive shrinkage)."""
    lo = max(float(ses.min()) / 10, SE_FLOOR)
    wide = float(np.max(gaps**2 - ses**2))
    hi = 2 * math.sqrt(wide) if wide > 0 else 8 * lo
    hi = max(hi, 8 * lo)
    count = math.ceil(math.log(hi / lo) / math.log(math.sqrt(2))) + 1
    return np.concatenate([[0.0], lo * np.sqrt(2.0) ** np.arange(count)])


def _em(like: np.ndarray, extra: np.ndarray, iterations: int, tol: float = 1e-6) -> np.ndarray:
    """Mixture weights maximising the (composite) likelihood, EM from even weights; ``extra`` adds
    pseudo-counts per component; stops when no weight moves by ``tol`` in a step (checked every
    ``CHECK_EVERY`` steps) or after ``iterations``.

    One EM step is w ← (w · Lᵀ(1 / Lw) + extra) / (n + Σ extra): two matrix-vector products, the same
    iterates as the responsibilities' sums at a few microseconds a step."""
    n = like.shape[0]
    w = np.full(like.shape[1], 1.0 / like.shape[1])
    total = n + float(extra.sum())
    scaled = like.T / total
    share = extra / total
    plain = not extra.any()
    for step in range(iterations):
        new = w * (scaled @ (1.0 / (like @ w)))
        if not plain:
            new += share
        if step % CHECK_EVERY == CHECK_EVERY - 1 or step == iterations - 1:
            new /= new.sum()  # rounding only: the weights of an EM step already sum to one
            if float(np.max(np.abs(new - w))) < tol:
                return new
        w = new
    return w


CHECK_EVERY = 20
"""EM steps between convergence checks (a check costs as much as a step)."""


def fit_prior(gaps: Sequence[float], ses: Sequence[float]) -> Prior:
    """The leaderboard's prior on the gaps of this field, fitted to the printed neighbours' gaps
    (arena.stats.confidence.look; the choice is measured in docs/ranking.md)."""
    return fit_symmetric(gaps, ses)


def fit_centred(
    gaps: Sequence[float], ses: Sequence[float], null_penalty: float = NULL_PENALTY, iterations: int = 300
) -> Prior:
    """Adaptive shrinkage's prior (a point mass and centred normals) fitted to ``gaps`` with standard errors
    ``ses``."""
    d, s = _clean(gaps, ses)
    if d.size < 2:
        return FLAT
    scales = grid(d, s)
    extra = np.zeros(scales.size)
    extra[0] = null_penalty
    w = _em(_likelihood(d, s, scales), extra, iterations)
    return Prior(tuple(float(x) for x in scales), tuple(float(x) for x in w))


def atoms(
    gaps: np.ndarray, ses: np.ndarray, count: int = ATOMS, spread: float = 0.5
) -> tuple[np.ndarray, float]:
    """The symmetric prior's grid: ``count`` evenly spaced g on (0, top], top the widest |gap| plus two of
    its standard errors, and the width of each component, ``spread`` times the spacing (half: neighbours
    overlap and the mixture can be as smooth as the data allow, yet separate gaps stay separate)."""
    top = float(np.max(np.abs(gaps) + 2 * ses))
    step = top / count
    return step * np.arange(1, count + 1), step * spread


def fit_symmetric(
    gaps: Sequence[float],
    ses: Sequence[float],
    count: int = ATOMS,
    spread: float = 0.5,
    iterations: int = 1000,
) -> Prior:
    """The symmetric non-parametric prior: "exactly equal" plus N(±g, width²) pairs, each pair's two halves
    of equal weight (which entrant of a pair is named first is arbitrary), fitted to ``gaps`` with standard
    errors ``ses`` by EM."""
    d, s = _clean(gaps, ses)
    if d.size < 2:
        return FLAT
    g, width = atoms(d, s, count, spread)
    var = width**2 + s[:, None] ** 2
    log_pos = -0.5 * (d[:, None] - g[None, :]) ** 2 / var - 0.5 * np.log(var)
    log_neg = -0.5 * (d[:, None] + g[None, :]) ** 2 / var - 0.5 * np.log(var)
    log_null = (-0.5 * d**2 / s**2 - np.log(s))[:, None]
    log = np.concatenate([log_null, np.logaddexp(log_pos, log_neg) - math.log(2)], axis=1)
    like = np.exp(log - log.max(axis=1, keepdims=True))
    w = _em(like, np.zeros(like.shape[1]), iterations)
    locs = np.concatenate([[0.0], g, -g])
    scales = np.concatenate([[0.0], np.full(g.size, width), np.full(g.size, width)])
    weights = np.concatenate([w[:1], w[1:] / 2, w[1:] / 2])
    return Prior(
        tuple(float(x) for x in scales), tuple(float(x) for x in weights), tuple(float(x) for x in locs)
    )


def _likelihood(
    d: np.ndarray, s: np.ndarray, scales: np.ndarray, locs: np.ndarray | None = None
) -> np.ndarray:
    """N(d; loc, scale² + s²) for every pair and component, scaled per pair (only ratios matter) so that a
    tiny ``s`` does not overflow."""
    centre = np.zeros(scales.size) if locs is None else locs
    var = scales[None, :] ** 2 + s[:, None] ** 2
    log = -0.5 * (d[:, None] - centre[None, :]) ** 2 / var - 0.5 * np.log(var)
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

    Within each normal component the posterior is normal (its mean moved from the observed gap towards the
    component's centre by se²/(scale² + se²)); the point mass keeps its share of the evidence. A flat prior
    gives P(above) = Φ(gap / se).
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
    centres = prior.centres()
    var = scales**2 + se**2
    with np.errstate(divide="ignore"):  # a component of no weight: log 0, no posterior
        log = np.log(w) - 0.5 * (gap - centres) ** 2 / var - 0.5 * np.log(var)
    post = np.exp(log - log.max())  # in logs: the evidence may favour only components far from the gap
    post /= post.sum()
    null = (centres == 0) & (scales == 0)
    c, sc, p = centres[~null], scales[~null], post[~null]
    shrink = sc**2 / (sc**2 + se**2)
    mean = c + (gap - c) * shrink
    sd = np.sqrt(shrink) * se
    with np.errstate(divide="ignore", invalid="ignore"):  # a component of no width: its centre exactly
        above_k = np.where(sd > 0, ndtr(mean / np.where(sd > 0, sd, 1.0)), (mean > 0) + 0.5 * (mean == 0))
        inside = np.where(
            sd > 0,
            ndtr((margin - mean) / np.where(sd > 0, sd, 1.0))
            - ndtr((-margin - mean) / np.where(sd > 0, sd, 1.0)),
            np.abs(mean) < margin,
        )
    equal = float(post[null].sum())
    above = float(np.sum(p * above_k))
    within = equal + float(np.sum(p * inside)) if margin > 0 else equal
    return Posterior(above, equal, within)


STRENGTH_ATOMS = 60
"""Grid points of the prior on entrants' strengths, over the range of the scores ± two standard errors:
finer than any gap the data can tell apart at the leaderboard's lengths."""
PRUNE = 1e-6
"""Atoms of the fitted strength prior below this weight are dropped before the pairs' posteriors (the
NPMLE is sparse: a handful of atoms carry the weight), so a look over 30 entrants stays cheap."""


@dataclass(frozen=True, slots=True)
class StrengthPrior:
    """The fitted prior on an entrant's true score: ``weights[k]`` at exactly ``atoms[k]``."""

    atoms: tuple[float, ...]
    weights: tuple[float, ...]


SMOOTH_DEGREE = 5
"""Degree of the log-polynomial of the smooth strength prior (Efron's g-modelling uses a spline of five
degrees of freedom): enough for six or ten evenly spaced tiers to come out as a broad, lumpy density,
few enough to estimate from 12 scores."""
SMOOTHING = 1.0
"""Ridge penalty on the smooth prior's coefficients (Efron's c0, on standardised columns)."""
SMOOTH_ATOMS = 24
"""Grid points of the smooth prior: a smooth density needs fewer than the NPMLE's atoms, and each pair's
posterior costs atoms² (60 made a look of 30 entrants cost 80-120 ms of CPU, 24 keeps it under 50)."""
NEWTON_STEPS = 40
"""Newton steps of the smooth prior's penalised likelihood (it converges in 5-15 on the benchmark)."""


def fit_strengths(
    scores: Sequence[float], ses: Sequence[float], count: int = STRENGTH_ATOMS
) -> StrengthPrior:
    """The leaderboard's prior on the entrants' true scores: the discrete NPMLE (``fit_atoms``) or the
    smooth log-polynomial prior (``fit_smooth``), whichever has the smaller BIC (its maximised
    log-likelihood less half the log of the entrants per parameter: the NPMLE's atoms, clusters of the
    grid counted as one, two parameters each less one; the smooth prior's ``SMOOTH_DEGREE``).

    Why two: the NPMLE is sparse by nature, and from 12 or 30 noisy scores it merges neighbouring tiers
    into one atom, so P of a pair from two neighbouring tiers came out near 1/2 where 0.7-0.86 held
    (docs/ranking.md, "Class fields: measured"); the smooth prior keeps mass between the tiers and is
    calibrated there. But a smooth density cannot be a point, so on a field of copies (every entrant the
    same) it spreads and puts P 0.8 on far-apart copies, where the NPMLE's single atom rightly says 1/2.
    The BIC picks the point mass when the scores are consistent with few values and the smooth prior when
    they spread (chosen by measurement over the class, ladder, twin, same5 and near fields)."""
    s, e = _clean(scores, ses)
    atoms_ = fit_atoms(scores, ses, count)
    if s.size < 3:
        return atoms_
    smooth = fit_smooth(scores, ses)
    n = math.log(s.size)
    bic_atoms = -2 * log_likelihood(atoms_, s, e) + (2 * _clusters(atoms_) - 1) * n
    bic_smooth = -2 * log_likelihood(smooth, s, e) + SMOOTH_DEGREE * n
    return atoms_ if bic_atoms <= bic_smooth else smooth


def _grid(s: np.ndarray, e: np.ndarray, count: int) -> np.ndarray:
    """The strength priors' grid: ``count`` points over the range of the scores ± two standard errors."""
    lo, hi = float(np.min(s - 2 * e)), float(np.max(s + 2 * e))
    return np.linspace(lo, hi, count) if hi > lo else np.array([lo])


def fit_atoms(scores: Sequence[float], ses: Sequence[float], count: int = STRENGTH_ATOMS) -> StrengthPrior:
    """The prior on the entrants' true scores, fitted to the whole field: a discrete distribution on a grid
    (the NPMLE, Kiefer and Wolfowitz 1956; Koenker and Mizera 2014), weights by EM on the likelihood of
    each entrant's score with its own standard error. Copies share an atom; distinct tiers get their own
    when the scores tell them apart."""
    s, e = _clean(scores, ses)
    if s.size == 0:
        return StrengthPrior((0.0,), (1.0,))
    grid_ = _grid(s, e, count)
    log = -0.5 * ((s[:, None] - grid_[None, :]) / e[:, None]) ** 2
    like = np.exp(log - log.max(axis=1, keepdims=True))
    w = _em(like, np.zeros(grid_.size), 2000, tol=1e-8)
    keep = w > PRUNE
    w = w[keep] / w[keep].sum()
    return StrengthPrior(tuple(float(x) for x in grid_[keep]), tuple(float(x) for x in w))


def fit_smooth(
    scores: Sequence[float],
    ses: Sequence[float],
    degree: int = SMOOTH_DEGREE,
    penalty: float = SMOOTHING,
    count: int = SMOOTH_ATOMS,
) -> StrengthPrior:
    """A smooth prior on the entrants' true scores: Efron's g-modelling ("Empirical Bayes deconvolution
    estimates", Biometrika 2016): on the grid, g ∝ exp(Qα) with Q the Legendre polynomials of degrees 1 to
    ``degree`` (standardised columns), α maximising the log-likelihood of the scores less
    ``penalty`` · |α|² / 2, by Newton's method with step halving (the Hessian is exact for this
    exponential family: the posterior's covariance of Q less the prior's)."""
    s, e = _clean(scores, ses)
    if s.size == 0:
        return StrengthPrior((0.0,), (1.0,))
    grid_ = _grid(s, e, count)
    if grid_.size < degree + 2:
        return fit_atoms(scores, ses, count)
    x = 2 * (grid_ - grid_[0]) / (grid_[-1] - grid_[0]) - 1
    q = np.polynomial.legendre.legvander(x, degree)[:, 1:]
    q = (q - q.mean(axis=0)) / q.std(axis=0)
    log = -0.5 * ((s[:, None] - grid_[None, :]) / e[:, None]) ** 2
    like = np.exp(log - log.max(axis=1, keepdims=True))
    n = s.size
    ridge = penalty * np.eye(degree)

    def objective(a: np.ndarray) -> tuple[float, np.ndarray]:
        eta = q @ a
        g = np.exp(eta - eta.max())
        g /= g.sum()
        return float(np.sum(np.log(like @ g)) - 0.5 * penalty * (a @ a)), g

    a = np.zeros(degree)
    f, g = objective(a)
    for _ in range(NEWTON_STEPS):
        post = like * g[None, :] / (like @ g)[:, None]  # entrant x grid: each entrant's posterior
        seen = post.sum(axis=0)
        grad = q.T @ (seen - n * g) - penalty * a
        mean_post = post @ q
        mean_prior = q.T @ g
        hess = (
            q.T @ (seen[:, None] * q)
            - mean_post.T @ mean_post
            - n * (q.T @ (g[:, None] * q) - np.outer(mean_prior, mean_prior))
            - ridge
        )
        try:
            step = np.linalg.solve(hess, -grad)
        except np.linalg.LinAlgError:
            step = grad / (n + penalty)
        if grad @ step <= 0:  # not an ascent direction (the Hessian is not negative definite here)
            step = grad / (n + penalty)
        t = 1.0
        for _ in range(20):
            f_new, g_new = objective(a + t * step)
            if f_new >= f:
                break
            t /= 2
        else:
            break
        a = a + t * step
        moved = f_new - f
        f, g = f_new, g_new
        if moved < 1e-9:
            break
    keep = g > PRUNE
    w = g[keep] / g[keep].sum()
    return StrengthPrior(tuple(float(v) for v in grid_[keep]), tuple(float(v) for v in w))


def log_likelihood(prior: StrengthPrior, s: np.ndarray, e: np.ndarray) -> float:
    """The log-likelihood of the scores ``s`` (standard errors ``e``) under ``prior`` (the constant of the
    normal left out: only differences between priors matter)."""
    a, w = np.asarray(prior.atoms), np.asarray(prior.weights)
    like = np.exp(-0.5 * ((s[:, None] - a[None, :]) / e[:, None]) ** 2) / e[:, None]
    return float(np.sum(np.log(np.maximum(like @ w, 1e-300))))


def _clusters(prior: StrengthPrior, floor: float = 1e-3) -> int:
    """The NPMLE's components: its atoms of weight at least ``floor``, neighbouring grid points counted as
    one (the EM spreads one support point over two or three)."""
    a = np.asarray(prior.atoms)[np.asarray(prior.weights) >= floor]
    if a.size < 2:
        return 1
    step = float(np.min(np.diff(np.asarray(prior.atoms)))) if len(prior.atoms) > 1 else 0.0
    return 1 + int(np.sum(np.diff(np.sort(a)) > 1.5 * step))


def pair_probabilities(
    prior: StrengthPrior,
    scores: np.ndarray,
    cov: np.ndarray,
    margin: float = 0.0,
    df: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """P(i's true score above j's) for every pair, an exact tie (the same atom) counting half: the posterior
    of the two strengths under the field's prior, given both scores with their joint (2 × 2) covariance,
    so the pair's own correlation is kept. ``scores``, ``cov``: the entrants to compare (finite). Also
    returned: P(the two true scores are within ``margin`` of each other).

    ``df[i, j]``: the degrees of freedom of the pair's covariance, estimated from that many units plus one.
    The two scores' likelihood is then the bivariate Student t of that many degrees of freedom, not the
    normal: a covariance estimated from a few duplicate blocks is often too small, and the normal would
    take a gap of three such standard errors as decisive (two copies at P 0.99). None: the normal."""
    a = np.asarray(prior.atoms)
    w = np.asarray(prior.weights)
    k = scores.size
    out = np.full((k, k), 0.5)
    near = np.ones((k, k))
    if a.size < 2:
        return out, near
    lw = np.log(w)
    da = scores[:, None] - a[None, :]  # entrant x atom
    higher = (a[:, None] > a[None, :]).astype(float) + 0.5 * (a[:, None] == a[None, :])
    close = (np.abs(a[:, None] - a[None, :]) < margin).astype(float) + (a[:, None] == a[None, :]) * (
        margin <= 0
    )
    ii, jj = np.triu_indices(k, 1)
    vi, vj, c = cov[ii, ii].copy(), cov[jj, jj].copy(), cov[ii, jj].copy()
    det = vi * vj - c * c
    flat = ~((det > 1e-300) & (vi > 0) & (vj > 0))  # no joint spread (one unit, rounding): variances alone
    vi[flat] = np.maximum(vi[flat], SE_FLOOR**2)
    vj[flat] = np.maximum(vj[flat], SE_FLOOR**2)
    c[flat] = 0.0
    det = vi * vj - c * c
    x, y = da[ii][:, :, None], da[jj][:, None, :]  # pair x atom of i x atom of j
    q = (vj[:, None, None] * x * x - 2 * c[:, None, None] * x * y + vi[:, None, None] * y * y) / det[
        :, None, None
    ]
    if df is None:
        kernel = -0.5 * q
    else:
        nu = np.maximum(np.asarray(df, dtype=float)[ii, jj], 1.0)[:, None, None]
        kernel = -(nu + 2) / 2 * np.log1p(q / nu)
    log = lw[None, :, None] + lw[None, None, :] + kernel
    post = np.exp(log - log.max(axis=(1, 2), keepdims=True))
    total = post.sum(axis=(1, 2))
    p = (post * higher).sum(axis=(1, 2)) / total
    out[ii, jj], out[jj, ii] = p, 1 - p
    near[ii, jj] = near[jj, ii] = (post * close).sum(axis=(1, 2)) / total
    return out, near
