"""The model behind the collusion check (``arena.stats.collusion``): the seated rows of an event, the additive
fit with its strength interaction held, and each pair's score tests against it.

``arena.stats.collusion`` decides which pairs to flag (p-values valid at every look, Holm's step-down) and
says so in words; this module only measures. Per seated entrant and game, points per hand weighted by the
game's hands are fitted by θ_i + Σ φ_j over i's table-mates (plus λ Σ_j s_ij s_ji, the strength interaction:
``Design``), and for every pair the two directed columns (a's rows with b, b's with a) are tested by the score
on the fit's residuals, with a variance clustered by the independent unit (``PairEffect``'s figures).
docs/ranking.md, "Collusion", says why this design and what it measured.

A pure function of arrays; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from arena.stats.collusion_sides import LazySides, SidedTest

SILENT = 1e-9
"""A standard error below this (points per hand) is rounding, not variation: the points fit the model
exactly, and a z-score would be noise divided by noise."""
LAMBDA_MAX = 2.0
"""The most λ may be (points per hand per (point per hand)²): honest graded call-ace fields measured -0.1
to 1.3; a larger λ is noise (among equal bots, where every product s_ij s_ji is near 0, λ is anything) or
a pair's gain being read as an interaction."""
COLLINEAR = 0.25
"""A pair whose joint column keeps less than this share of its information once λ is fitted is one that λ
rests on (``Design.effects``): its test holds λ at ``Design.lambda_bound``."""
LAMBDA_SCALE = 0.5
"""The prior scale of the strength interaction λ (per point per hand) where the bound on it is measured:
λ ~ N(0, LAMBDA_SCALE²), the ridge σ²/LAMBDA_SCALE² with σ² the variance of one hand's points."""
LAMBDA_SDS = 1.0
"""The bound on λ is the other rows' posterior mean plus this many posterior standard deviations."""


@dataclass(frozen=True, slots=True)
class PairEffect:
    """One pair's figures. ``a_gain``: the change of ``a``'s points per hand with ``b`` at its table, adjusted
    for ``a``'s strength and the rest of its table (``b_gain`` likewise); ``joint_gain`` their mean, the
    pair's change per hand each. ``p``: the Holm-adjusted p-value of the pair's three one-sided tests taken
    as one hypothesis (``arena.stats.collusion.pair_p``; None: untestable, ``why`` says why)."""

    a: str
    b: str
    together: int
    a_apart: int
    b_apart: int
    a_gain: float | None = None
    a_se: float | None = None
    b_gain: float | None = None
    b_se: float | None = None
    joint_gain: float | None = None
    joint_se: float | None = None
    z: tuple[float, float, float] | None = None  # a with b, b with a, joint
    p: float | None = None
    flagged: bool = False
    why: str = ""
    sided: SidedTest | None = None  # the test on the hands' sides (``arena.stats.collusion_sides``), if asked

    @property
    def testable(self) -> bool:
        return self.p is not None

    def to_dict(self) -> dict[str, Any]:
        def r(value: float | None) -> float | None:
            return None if value is None or value != value else round(value, 4)

        return {
            "a": self.a,
            "b": self.b,
            "together": self.together,
            "a_apart": self.a_apart,
            "b_apart": self.b_apart,
            "a_gain": r(self.a_gain),
            "a_se": r(self.a_se),
            "b_gain": r(self.b_gain),
            "b_se": r(self.b_se),
            "joint_gain": r(self.joint_gain),
            "joint_se": r(self.joint_se),
            "z": None if self.z is None else [r(v) for v in self.z],
            "p": r(self.p) if self.p is None or self.p >= 1e-4 else float(f"{self.p:.2g}"),
            "flagged": self.flagged,
            "untestable": self.why or None,
            "sided": None
            if self.sided is None
            else {
                "gain": [r(v) for v in self.sided.gain],
                "se": [r(v) for v in self.sided.se],
                "z": [r(v) for v in self.sided.z],
                "hands": self.sided.hands,
            },
        }


@dataclass(frozen=True, slots=True)
class Directed:
    """The score test of one ordered pair's column z: its score, information, the per-cluster sums V_c over
    the clusters it shared, Σ_c V_c G_c, b = (X'WX)⁺ S and S = X'Wz."""

    score: float
    info: float
    v: np.ndarray
    vg: np.ndarray
    b: np.ndarray
    s: np.ndarray

    def variance(self, other: Directed, h: np.ndarray) -> float:
        """Σ_c u_c u'_c of this column and ``other`` (itself: the variance), the two sharing clusters."""
        return float(self.v @ other.v - self.vg @ other.b - other.vg @ self.b + self.b @ h @ other.b)


class Design:
    """The seated rows of an event and the additive model's fixed parts, fitted with any flagged pairs'
    columns (``effects``).

    With ``interaction``, one more column: ``λ Σ_j s_ij s_ji`` over i's table-mates j, where ``s_ij`` is i's
    strength measured in its games without j (its points less its tables' φ, centred). An honest field of
    graded strengths is not additive: like gains with like (the two strongest, and the two weakest, score
    more together than θ + Σφ predicts; strongest with weakest less), which the additive model can only
    read as pairs gaining together (docs/ranking.md, Collusion). Each strength is measured without the
    other of the pair so that a pair that gains only together is not made "strong" by that gain, which
    would let λ explain it away.

    λ is fitted on every row and held within [0, ``LAMBDA_MAX``] (unlike gaining with like is not what
    honest fields show; below 0 the additive model is used). A pair that λ rests on (its joint column keeps
    less than ``COLLINEAR`` of its information once λ is fitted: among equal bots, a pair weak apart and
    strong together is the only place λ can be measured, and λ would explain it away) is tested with λ
    held at no more than what the other entrants' rows allow (``lambda_bound``).
    """

    def __init__(
        self,
        n: int,
        entrant: np.ndarray,
        mates: list[list[int]],
        y: np.ndarray,
        w: np.ndarray,
        cluster: np.ndarray,
        n_clusters: int,
        interaction: bool = False,
    ) -> None:
        self.n, self.entrant, self.mates, self.y, self.w = n, entrant, mates, y, w
        self.cluster, self.n_clusters = cluster, n_clusters
        self.noise = self.ridge = 0.0
        self.rows = len(entrant)
        self.mate_of = np.zeros((self.rows, n), dtype=bool)
        for r, m in enumerate(mates):
            self.mate_of[r, m] = True
        self.pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
        self.cross: np.ndarray | None = None  # None: the additive model alone
        self.cross_row = np.zeros(self.rows)  # each row's Σ_j s_ij s_ji over its table-mates
        if interaction:
            beta = self._solve([], True, y)[0]
            phi = beta[n : 2 * n]
            own = y - self.mate_of.astype(float) @ phi  # each row's points less its table's φ: θ_i + noise
            onehot = np.zeros((self.rows, n))
            onehot[np.arange(self.rows), entrant] = 1.0
            total, weight = onehot.T @ (w * own), onehot.T @ w
            with_j = onehot.T @ (self.mate_of * (w * own)[:, None])  # [i, j]: over i's rows with j
            weight_j = onehot.T @ (self.mate_of * w[:, None])
            apart = weight[:, None] - weight_j
            theta = beta[:n]
            strength = np.where(
                apart > 0, (total[:, None] - with_j) / np.where(apart > 0, apart, 1.0), theta[:, None]
            )
            centre = float(weight @ theta) / float(weight.sum())
            strength -= centre  # [i, j]: i's strength measured in its games without j
            self.cross = strength * strength.T
            self.cross_row = (self.mate_of * self.cross[entrant]).sum(axis=1)
            residual = y - self.mate_of.astype(float) @ phi - theta[entrant]
            noise = float(w @ residual**2) / max(self.rows - 2 * n, 1)  # σ² of a hand's points
            self.noise, self.ridge = noise, noise / LAMBDA_SCALE**2

    def pair_of(self, k: int) -> tuple[int, int]:
        return self.pairs[k]

    def columns(self, extra: list[tuple[int, int]], free: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Each row's nonzero columns and their values: its entrant (θ), its table-mates (φ, offset n), for
        each pair (a, b) of ``extra`` the pair's two columns (a's rows with b, b's with a), all ones; and
        the strength interaction ``Σ_j s_ij s_ji`` (last, unless ``free`` is False: λ then held fixed by
        ``fit``); -1 pads."""
        n, rows = self.n, self.rows
        own: list[list[int]] = [[] for _ in range(rows)]
        for e, (a, b) in enumerate(extra):
            for i, j, col in ((a, b, 2 * n + 2 * e), (b, a, 2 * n + 2 * e + 1)):
                for row in np.flatnonzero((self.entrant == i) & self.mate_of[:, j]).tolist():
                    own[row].append(col)
        width = 1 + max(len(m) for m in self.mates) + max((len(o) for o in own), default=0)
        cols = np.full((rows, width), -1, dtype=np.int64)
        cols[:, 0] = self.entrant
        for r, m in enumerate(self.mates):
            cols[r, 1 : 1 + len(m)] = np.asarray(m, dtype=np.int64) + n
            cols[r, 1 + len(m) : 1 + len(m) + len(own[r])] = own[r]
        vals = (cols >= 0).astype(float)
        if self.cross is not None and free:
            last = 2 * n + 2 * len(extra)
            cols = np.concatenate([cols, np.full((rows, 1), last, dtype=np.int64)], axis=1)
            vals = np.concatenate([vals, self.cross_row[:, None]], axis=1)
        return cols, vals

    def fit(
        self, extra: list[tuple[int, int]], offset: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The weighted least-squares fit: β, (X'WX)⁺, the rows' columns and values (``columns``), and the
        offset the points were fitted beside (given: the interaction with λ held, not a column; else 0)."""
        if offset is None:
            return (*self._solve(extra, True, self.y), np.zeros(self.rows))
        return (*self._solve(extra, False, self.y - offset), offset)

    def lambda_bound(self, a: int, b: int, extra: list[tuple[int, int]]) -> float:
        """The most λ may be in the test of the pair (a, b): the upper end (``LAMBDA_SDS`` posterior
        standard deviations) of what every other entrant's rows say of it (a and b still count as their
        table-mates), with a prior of 0 ± ``LAMBDA_SCALE``: the pair's own rows may not make λ larger.

        Measured with the pair's own rows, λ can explain a colluding pair away: in a field of equals plus a
        pair that is weak apart and strong together, the pair's rows are the only ones where the interaction
        differs from the additive model, so λ is fitted to the pair's gain and the pair's columns are left
        collinear with it (docs/ranking.md, Collusion, has the figures). The other rows say how much like
        gains with like in this field; where they cannot say (their interaction is additive, as among equal
        bots), the prior keeps λ small."""
        keep = (self.entrant != a) & (self.entrant != b)
        beta, pinv, *_ = self._solve(extra, True, self.y, keep, self.ridge)
        return float(beta[-1]) + LAMBDA_SDS * math.sqrt(max(float(pinv[-1, -1]) * self.noise, 0.0))

    def _solve(
        self,
        extra: list[tuple[int, int]],
        free: bool,
        y: np.ndarray,
        keep: np.ndarray | None = None,
        ridge: float = 0.0,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        cols, vals = self.columns(extra, free)
        valid = cols >= 0
        p = 2 * self.n + 2 * len(extra) + (self.cross is not None and free)
        w = self.w if keep is None else self.w * keep
        wv = w[:, None] * vals
        xtwx = np.zeros((p, p))
        xtwy = np.zeros(p)
        for c in range(cols.shape[1]):
            ok = valid[:, c]
            np.add.at(xtwy, cols[ok, c], (wv[:, c] * y)[ok])
            for d in range(cols.shape[1]):
                both = ok & valid[:, d]
                np.add.at(xtwx, (cols[both, c], cols[both, d]), (wv[:, c] * vals[:, d])[both])
        if ridge:
            xtwx[-1, -1] += ridge
        pinv = np.linalg.pinv(xtwx, rcond=1e-10, hermitian=True)
        return pinv @ xtwy, pinv, cols, vals, valid

    def _directed(
        self, fitted: tuple[np.ndarray, ...], ordered: Iterable[tuple[int, int]]
    ) -> tuple[dict[tuple[int, int], Directed], np.ndarray]:
        """The score test of each ordered pair (i, j) of ``ordered`` against the fit ``fitted``, and H.

        Per ordered pair (i, j), the rows of i whose table held j: the pair's column z. Its score: Σ w z e;
        its information z'Wz - S'(X'WX)⁺S with S = X'Wz, and its clustered variance Σ_c u_c² with
        u_c = V_c - G_c·b (V_c: the cluster's Σ w z e; b = (X'WX)⁺S), expanded so that only the clusters
        the pair shared are visited. (i, j) and (j, i) share those clusters: their covariance is as cheap."""
        w, y, cluster, entrant = self.w, self.y, self.cluster, self.entrant
        beta, pinv, cols, vals, valid, offset = fitted
        width, p = cols.shape[1], len(beta)
        fit = offset + np.where(valid, beta[np.where(valid, cols, 0)] * vals, 0.0).sum(axis=1)
        we = w * (y - fit)  # weighted residual of each row
        # Per cluster: Σ w e x over its rows (G), and H = Σ_c G_c G_cᵀ, for the sandwich.
        g_sum = np.zeros((self.n_clusters, p))
        for c in range(width):
            ok = valid[:, c]
            np.add.at(g_sum, (cluster[ok], cols[ok, c]), (we * vals[:, c])[ok])
        directed: dict[tuple[int, int], Directed] = {}
        for i, j in ordered:
            sel = np.flatnonzero((entrant == i) & self.mate_of[:, j])
            if len(sel) == 0:
                continue
            s_vec = np.zeros(p)
            for c in range(width):
                ok = valid[sel, c]
                np.add.at(s_vec, cols[sel[ok], c], (w * vals[:, c])[sel[ok]])
            visited, where = np.unique(cluster[sel], return_inverse=True)
            v = np.bincount(where, weights=we[sel], minlength=len(visited))
            coef = pinv @ s_vec
            directed[i, j] = Directed(
                float(v.sum()), float(w[sel].sum() - s_vec @ coef), v, v @ g_sum[visited], coef, s_vec
            )
        return directed, g_sum.T @ g_sum

    def effects(
        self,
        names: Sequence[str],
        extra: list[tuple[int, int]],
        min_games: int,
        sided: LazySides | None = None,
    ) -> list[PairEffect]:
        """Every pair's figures against the model plus ``extra``'s columns (z unadjusted): with the
        interaction, each pair against its own fit, λ held at ``held_lambda``. A pair that λ rests on
        (weak apart and strong together, or two honest bots far weaker than the rest: from the scores
        alone the same shape) also gets the test on its hands' sides where ``sided`` has them."""
        n = self.n
        games_of = np.bincount(self.entrant, minlength=n)
        together = (self.mate_of[:, :, None] & (self.entrant[:, None, None] == np.arange(n))).sum(axis=0).T
        ordered = [(i, j) for i in range(n) for j in range(n) if i != j]
        lam = 0.0
        held: dict[tuple[int, int], Directed] = {}
        if self.cross is None:
            shared_fit = self._directed(self.fit(extra), ordered)
        else:
            free = self.fit(extra)
            lam = float(free[0][-1])
            if not 0 <= lam <= LAMBDA_MAX:  # held at the bound, as an offset (λ 0: the additive model)
                lam = min(max(lam, 0.0), LAMBDA_MAX)
                shared_fit = self._directed(self.fit(extra, lam * self.cross_row), ordered)
                held = shared_fit[0]
            else:
                shared_fit = self._directed(free, ordered)
                held = self._directed(self.fit(extra, lam * self.cross_row), ordered)[0]
        small = self.n_clusters / max(self.n_clusters - 1, 1)  # the usual factor of a clustered variance
        effects: list[PairEffect] = []
        for a, b in self.pairs:
            shared = int(together[a, b])
            a_apart, b_apart = int(games_of[a] - shared), int(games_of[b] - together[b, a])
            effect = PairEffect(names[a], names[b], shared, a_apart, b_apart)
            fewest = min(a_apart, b_apart)
            if shared < min_games:
                effect = replace(effect, why=f"shared a table in {shared} games (fewer than {min_games})")
            elif max(a_apart, b_apart) == 0:
                effect = replace(effect, why="always at the same table")
            elif fewest < min_games:
                effect = replace(effect, why=f"apart in only {fewest} games (fewer than {min_games})")
            else:
                directed, h = shared_fit
                rests = lam > 0 and joint_info(directed, a, b) < COLLINEAR * joint_info(held, a, b)
                if rests:
                    bound = max(self.lambda_bound(a, b, extra), 0.0)
                    if lam > bound:
                        offset = bound * self.cross_row
                        directed, h = self._directed(self.fit(extra, offset), [(a, b), (b, a)])
                effect = pair_effect(effect, directed[a, b], directed[b, a], h, small, float(self.w.max()))
                if rests and sided is not None and effect.z is not None:
                    effect = replace(effect, sided=sided.test(a, b))
            effects.append(effect)
        return effects


def joint_info(directed: dict[tuple[int, int], Directed], a: int, b: int) -> float:
    """The information of the pair's joint column (one column for both)."""
    da, db = directed[a, b], directed[b, a]
    return da.info + db.info - 2 * float(da.s @ db.b)


def pair_effect(
    effect: PairEffect, da: Directed, db: Directed, h: np.ndarray, small: float, w_max: float
) -> PairEffect:
    """The pair's gains, standard errors and z-scores from its two directed columns.

    The two gains are fitted together (each adjusted for the other: a pair where only ``a`` gains shows
    ``b`` gaining nothing), from the two scores U and their information J: γ = J⁻¹U, Cov γ = J⁻¹VJ⁻¹ with V
    the clustered covariance of U. The joint test is the score of one column common to both.
    """
    cross = -float(da.s @ db.b)  # z_a'W M z_b: the columns share no row, so only the fit couples them
    info = np.array([[da.info, cross], [cross, db.info]])
    v = small * np.array([[da.variance(da, h), da.variance(db, h)], [da.variance(db, h), db.variance(db, h)]])
    joint_info, joint_var = da.info + db.info + 2 * cross, float(v.sum())
    det = da.info * db.info - cross * cross
    if min(da.info, db.info, joint_info) <= 1e-9 * w_max * effect.together or det <= 1e-9 * da.info * db.info:
        return replace(effect, why="no contrast left once strengths are fitted")
    inverse = np.linalg.inv(info)
    gain = inverse @ np.array([da.score, db.score])
    cov = inverse @ v @ inverse
    effect = replace(
        effect,
        a_gain=float(gain[0]),
        a_se=math.sqrt(max(float(cov[0, 0]), 0.0)),
        b_gain=float(gain[1]),
        b_se=math.sqrt(max(float(cov[1, 1]), 0.0)),
        joint_gain=(da.score + db.score) / joint_info,
        joint_se=math.sqrt(max(joint_var, 0.0)) / joint_info,
    )
    if min(effect.a_se or 0.0, effect.b_se or 0.0, effect.joint_se or 0.0) < SILENT:
        return replace(effect, why="their points did not vary beyond the model: nothing to test against")
    assert effect.a_gain is not None and effect.a_se and effect.b_gain is not None and effect.b_se
    z = (
        effect.a_gain / effect.a_se,
        effect.b_gain / effect.b_se,
        (da.score + db.score) / math.sqrt(joint_var),
    )
    return replace(effect, z=z)
