"""Collusion shown: for every pair of entrants, how each one's points per hand change when they share a table.

Timing and contention channels between sandboxes cannot be closed on one machine, so two bots may learn each
other's cards and play as a secret team (in Call-Ace and Five-handed the partner is secret and changes every
hand, so a standing team is exactly the cheat the rules forbid). What they cannot hide is what it earns them:
a colluding pair scores more *when they sit at the same table*. With more entrants than seats the schedule
seats every pair together in some games and apart in others, independently of how anyone plays, so every
pair is a designed experiment.

The statistic (docs/ranking.md, "Collusion", says why this one and what it measured). Each seated entrant's
points per hand in each game, weighted by the game's hands, is fitted by the additive model

    points per hand of i at table T = θ_i + Σ_{j in T, j ≠ i} φ_j

(θ: i's own strength; φ_j: what j at the table does to everyone else's points: "table strength"). For the
pair (A, B) the *gain* of A with B is the least-squares coefficient of one more column, 1 on A's rows in
games where B shares the table, fitted beside B's likewise: how much more A scores per hand with B at the
table than the model predicts from A's strength and its table, i.e. A's change with B against every other
entrant's change with B. The pair's *joint* gain is that of one column common to both. Each rests on the
residuals of the additive fit (a score test of "no pair effect": valid under the null without refitting per
pair), its variance a sandwich clustered by the independent unit (the game, or the duplicate block, whose
games share cards).

Three one-sided tests per pair (A gains with B, B gains with A, both together: the joint test has the power
against a pair that helps each other, the directed ones catch a feeder that only gives), combined into one
p-value per pair (``pair_p``), and Holm's step-down over every pair: the chance that an honest field shows
*any* flagged pair is at most ``alpha`` whatever the dependence between the tests (they share entrants and
games), which is the promise an organiser needs ("an honest event is flagged in at most 5% of events");
Benjamini–Hochberg would bound only the share of false flags among the flags. A pair that always (or never,
or too rarely) shares a table has no contrast: it is reported untestable and left out of the family, a
choice made from the seating alone, never from the scores.

A pure function of stored games (``RatedGame``); no I/O.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from arena.stats.rating import RatedGame

ALPHA = 0.05
"""The family-wise error rate: the chance that an honest event shows any flagged pair."""
SILENT = 1e-9
"""A standard error below this (points per hand) is rounding, not variation: the points fit the model
exactly, and a z-score would be noise divided by noise."""
LAMBDA_MAX = 2.0
"""The most λ may be (points per hand per (point per hand)²): honest graded call-ace fields measured -0.1
to 1.3; a larger λ is noise (among equal bots, where every product s_ij s_ji is near 0, λ is anything) or
a pair's gain being read as an interaction."""
COLLINEAR = 0.25
"""A pair whose joint column keeps less than this share of its information once λ is fitted is one that λ
rests on (``_Design.effects``): its test holds λ at ``_Design.lambda_bound``."""
LAMBDA_SCALE = 0.5
"""The prior scale of the strength interaction λ (per point per hand) where the bound on it is measured:
λ ~ N(0, LAMBDA_SCALE²), the ridge σ²/LAMBDA_SCALE² with σ² the variance of one hand's points."""
LAMBDA_SDS = 1.0
"""The bound on λ is the other rows' posterior mean plus this many posterior standard deviations."""
TAU = 0.1
"""The scale (points per hand) of the gains a flag is for: each test's likelihood ratio is mixed over gains
drawn from a normal of this scale restricted to gains above zero (``anytime_p``), the size the organiser's
question is about (docs/security.md: a pair that gives each other 0.1 points per hand)."""
WEIGHTS = (1 / 6, 1 / 6, 2 / 3)
"""The shares of a pair's evidence (``pair_p``) given to its three tests: a gains with b, b with a, both
together. The joint test is the one with the power against a pair that helps each other (the goal's pair);
the directed ones are kept for a feeder that only gives, whose one-sided gain has √2 times the joint's z."""
MIN_GAMES = 20
"""Games a pair must have shared, and each must have played without the other, to be tested: below that
the clustered variance is itself too noisy for a tail probability of 1 in 1,000."""


@dataclass(frozen=True, slots=True)
class PairEffect:
    """One pair's figures. ``a_gain``: the change of ``a``'s points per hand with ``b`` at its table, adjusted
    for ``a``'s strength and the rest of its table (``b_gain`` likewise); ``joint_gain`` their mean, the
    pair's change per hand each. ``p``: the Holm-adjusted p-value of the pair's three one-sided tests taken
    as one hypothesis (``pair_p``; None: untestable, ``why`` says why)."""

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
        }


@dataclass(frozen=True, slots=True)
class Collusion:
    """Every pair's effect, the family the correction ran over, and the level."""

    pairs: tuple[PairEffect, ...]
    alpha: float
    tests: int  # hypotheses in Holm's family (one per testable pair)
    games: int  # games used (rated, with hands)

    @property
    def flagged(self) -> tuple[PairEffect, ...]:
        """The flagged pairs, most significant first."""
        return tuple(sorted((p for p in self.pairs if p.flagged), key=lambda p: (p.p, p.a, p.b)))

    @property
    def testable(self) -> int:
        return sum(p.testable for p in self.pairs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "tests": self.tests,
            "games": self.games,
            "testable_pairs": self.testable,
            "flagged": [[p.a, p.b] for p in self.flagged],
            "pairs": [p.to_dict() for p in self.pairs],
        }


@dataclass(frozen=True, slots=True)
class _Directed:
    """The score test of one ordered pair's column z: its score, information, the per-cluster sums V_c over
    the clusters it shared, Σ_c V_c G_c, b = (X'WX)⁺ S and S = X'Wz."""

    score: float
    info: float
    v: np.ndarray
    vg: np.ndarray
    b: np.ndarray
    s: np.ndarray

    def variance(self, other: _Directed, h: np.ndarray) -> float:
        """Σ_c u_c u'_c of this column and ``other`` (itself: the variance), the two sharing clusters."""
        return float(self.v @ other.v - self.vg @ other.b - other.vg @ self.b + self.b @ h @ other.b)


def upper_tail(z: float) -> float:
    """P(Z ≥ z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def anytime_p(z: float, se: float, tau: float = TAU) -> float:
    """A p-value for "no gain" that stays valid however often the games are looked at as they come in.

    The one-look tail ``upper_tail(z)`` is what the flag would promise if the leaderboard were read once; an
    organiser reads it after every round and the server's organiser page after every game, and the chance
    that an honest pair's z crosses a fixed line at *some* look grows without bound. The mixture of the
    likelihood ratios exp(θ·z/se − θ²/(2·se²)) over gains θ ≥ 0 drawn from a half-normal of scale ``tau`` is a
    non-negative martingale under no gain (the score's information 1/se² grows with the games), so by
    Ville's inequality its reciprocal is below α at any look with probability at most α.
    """
    return min(1.0, math.exp(-log_ratio(z, se, tau)))


def log_ratio(z: float, se: float, tau: float = TAU) -> float:
    """The log of ``anytime_p``'s mixture of likelihood ratios (0 where there is no information), in closed
    form: Λ = 2·r·exp(z²τ²/(2(τ² + se²)))·Φ(zτ/√(τ² + se²)), r = √(se²/(se² + τ²))."""
    if se <= 0:
        return 0.0
    total = tau * tau + se * se
    return (
        math.log(2.0)
        + 0.5 * math.log(se * se / total)
        + z * z * tau * tau / (2 * total)
        + math.log(max(1e-300, 1.0 - upper_tail(z * tau / math.sqrt(total))))
    )


def pair_p(z: Sequence[float], se: Sequence[float], weights: Sequence[float] = WEIGHTS) -> float:
    """One p-value for the pair's three tests (a with b, b with a, joint), valid at every look.

    Each test's mixture Λ is a martingale under "no gain" on the same games, so their weighted mean (weights
    summing to 1) is one too, and Ville's inequality holds for it as for each: p = 1/Σ wₖΛₖ. Against taking
    the smallest of three p-values and counting three tests per pair in Holm's family, the pair is one
    hypothesis, and the joint test, the one with the power against a pair that helps each other, pays a
    factor 1/w (1.5) instead of 3: its z needs about 0.2 less for the same flag."""
    logs = [math.log(w) + log_ratio(zk, sk) for w, zk, sk in zip(weights, z, se, strict=True) if w > 0]
    top = max(logs)
    total = top + math.log(sum(math.exp(v - top) for v in logs))
    return 1.0 if total <= 0 else math.exp(-total)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (reject where adjusted ≤ α): family-wise error ≤ α under any
    dependence."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def collusion(
    games: Iterable[RatedGame],
    names: Sequence[str],
    alpha: float = ALPHA,
    min_games: int = MIN_GAMES,
    interaction: bool = True,
    anytime: bool = True,
) -> Collusion:
    """Every pair of ``names``: its effects and whether it is flagged at family-wise level ``alpha``.

    ``interaction``: fit the strength interaction (``_Design``; docs/ranking.md, "Collusion", says what it
    fixes on graded fields and how a pair that is weak apart and strong together is kept from being
    explained away by it); False: the additive model alone. ``anytime``: each test's p-value holds however
    often the growing event is looked at (``anytime_p``: the leaderboard after every round, the server's
    organiser page after every game); False: the p-value of one look, valid only if it is the only one.

    Void games and games without hands are left out; a seat played by the autopilot for a disqualified
    entrant (``excluded``) is neither a row nor a table-mate (its points are not the entrant's).
    """
    index = {name: k for k, name in enumerate(names)}
    n = len(names)
    rows_entrant: list[int] = []
    rows_mates: list[list[int]] = []
    rows_y: list[float] = []
    rows_w: list[float] = []
    rows_cluster: list[int] = []
    clusters: dict[str, int] = {}
    used = 0
    for g in games:
        if not g.rated or g.hands <= 0:
            continue
        seated = [
            (index[name], score)
            for name, score in zip(g.seats, g.scores, strict=True)
            if name in index and name not in g.excluded
        ]
        if len(seated) < 2:
            continue
        used += 1
        cluster = clusters.setdefault(g.block or g.game_id, len(clusters))
        at_table = [k for k, _ in seated]
        for k, score in seated:
            rows_entrant.append(k)
            rows_mates.append([m for m in at_table if m != k])
            rows_y.append(score / g.hands)
            rows_w.append(float(g.hands))
            rows_cluster.append(cluster)
    pairs_named = [(names[a], names[b]) for a in range(n) for b in range(a + 1, n)]
    if not rows_entrant:
        empty = tuple(PairEffect(a, b, 0, 0, 0, why="no games") for a, b in pairs_named)
        return Collusion(empty, alpha, 0, 0)
    design = _Design(
        n,
        np.array(rows_entrant),
        rows_mates,
        np.array(rows_y),
        np.array(rows_w),
        np.array(rows_cluster),
        len(clusters),
        interaction,
    )
    return _step_down(design, names, used, alpha, min_games, anytime)


def _pair_p(effect: PairEffect, anytime: bool) -> float:
    """The pair's p-value: valid at every look (``pair_p``: its three tests as one hypothesis), or of one
    look (the smallest of the three one-sided tails, times three for the three tests)."""
    assert effect.z is not None
    if not anytime:
        return min(1.0, 3 * min(upper_tail(z) for z in effect.z))
    ses = (effect.a_se or 0.0, effect.b_se or 0.0, effect.joint_se or 0.0)
    return pair_p(effect.z, ses)


def _step_down(
    design: _Design, names: Sequence[str], used: int, alpha: float, min_games: int, anytime: bool
) -> Collusion:
    """Holm's procedure, one pair at a time, each flagged pair's two columns then joining the model.

    The first step is Holm's (and Bonferroni's): the smallest of the m p-values against α/m, so an honest
    field is flagged with probability at most α. A colluding pair, until it is in the model, shows in
    every pair around it (who sits with whom is tied to who sits out: with six entrants at five seats,
    two honest entrants together are more often at a table without the colluders), so once flagged its
    effect is fitted, and the remaining pairs are tested against that model with the next threshold,
    α/(m - k) after k flagged pairs (one hypothesis per pair: ``_pair_p``)."""
    flagged: dict[tuple[int, int], PairEffect] = {}
    running = 0.0
    m = -1
    while True:
        effects = design.effects(names, list(flagged), min_games)
        if m < 0:
            m = sum(e.z is not None for e in effects)  # the family: one hypothesis per testable pair
        left = max(m - len(flagged), 1)
        candidates = [(_pair_p(e, anytime), k) for k, e in enumerate(effects) if e.z is not None]
        candidates = [c for c in candidates if design.pair_of(c[1]) not in flagged]
        if not candidates:
            break
        best, k = min(candidates)
        adjusted = max(running, min(1.0, left * best))
        if adjusted > alpha:
            break
        running = adjusted
        flagged[design.pair_of(k)] = replace(effects[k], p=adjusted, flagged=True)
    out = []
    for k, effect in enumerate(effects):
        pair = design.pair_of(k)
        if pair in flagged:
            out.append(flagged[pair])
        elif effect.z is not None:
            q = max(running, min(1.0, left * _pair_p(effect, anytime)))
            out.append(replace(effect, p=q))
        else:
            out.append(effect)
    return Collusion(tuple(out), alpha, m, used)


class _Design:
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
    ) -> tuple[dict[tuple[int, int], _Directed], np.ndarray]:
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
        directed: dict[tuple[int, int], _Directed] = {}
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
            directed[i, j] = _Directed(
                float(v.sum()), float(w[sel].sum() - s_vec @ coef), v, v @ g_sum[visited], coef, s_vec
            )
        return directed, g_sum.T @ g_sum

    def effects(self, names: Sequence[str], extra: list[tuple[int, int]], min_games: int) -> list[PairEffect]:
        """Every pair's figures against the model plus ``extra``'s columns (z unadjusted): with the
        interaction, each pair against its own fit, λ held at ``held_lambda``."""
        n = self.n
        games_of = np.bincount(self.entrant, minlength=n)
        together = (self.mate_of[:, :, None] & (self.entrant[:, None, None] == np.arange(n))).sum(axis=0).T
        ordered = [(i, j) for i in range(n) for j in range(n) if i != j]
        lam = 0.0
        held: dict[tuple[int, int], _Directed] = {}
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
                if lam > 0 and _joint_info(directed, a, b) < COLLINEAR * _joint_info(held, a, b):
                    bound = max(self.lambda_bound(a, b, extra), 0.0)
                    if lam > bound:
                        offset = bound * self.cross_row
                        directed, h = self._directed(self.fit(extra, offset), [(a, b), (b, a)])
                effect = _effect(effect, directed[a, b], directed[b, a], h, small, float(self.w.max()))
            effects.append(effect)
        return effects


def _joint_info(directed: dict[tuple[int, int], _Directed], a: int, b: int) -> float:
    """The information of the pair's joint column (one column for both)."""
    da, db = directed[a, b], directed[b, a]
    return da.info + db.info - 2 * float(da.s @ db.b)


def _effect(
    effect: PairEffect, da: _Directed, db: _Directed, h: np.ndarray, small: float, w_max: float
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


def entrant_effects(result: Collusion, name: str) -> dict[str, dict[str, Any]]:
    """``name``'s side of every pair, by the other entrant: its change in points per hand with the other at
    the table (``gain``, ``se``), the games together and apart, the pair's adjusted p and flag (what
    ``arena leaderboard --json`` puts in each entrant's ``pairs``)."""
    out: dict[str, dict[str, Any]] = {}
    for pair in result.pairs:
        if name not in (pair.a, pair.b):
            continue
        mine = pair.a == name
        figures = pair.to_dict()
        side, other = ("a", pair.b) if mine else ("b", pair.a)
        out[other] = {
            "gain": figures[f"{side}_gain"],
            "se": figures[f"{side}_se"],
            "together": pair.together,
            "apart": pair.a_apart if mine else pair.b_apart,
            "p": figures["p"],
            "flagged": pair.flagged,
            "untestable": figures["untestable"],
        }
    return out


def describe(pair: PairEffect, result: Collusion) -> str:
    """One flagged pair in words, true whatever the signs (a feeder gains nothing itself)."""
    assert pair.a_gain is not None and pair.b_gain is not None and pair.p is not None
    p = f"{pair.p:.4f}" if pair.p >= 1e-4 else "< 0.0001"
    return (
        f"{pair.a} and {pair.b}: {pair.a} {pair.a_gain:+.2f} points per hand with {pair.b} at the table, "
        f"{pair.b} {pair.b_gain:+.2f} with {pair.a} ({pair.together} games together; p {p} after Holm over "
        f"{result.tests} pairs)"
    )


def flag_heading(result: Collusion) -> str:
    """The sentence above the flagged pairs (the leaderboard's, the report's and the server's organiser
    page's): how many pairs, and what a flag promises."""
    many = len(result.flagged) > 1
    return (
        f"Collusion? {len(result.flagged)} pair{'s' if many else ''} score{'' if many else 's'}"
        f" differently at the same table than their strengths predict (an honest field of bots alike shows"
        f" any such pair in at most {result.alpha:.0%} of events, however often it is looked at; two honest"
        f" bots far weaker than the rest may gain together too; docs/ranking.md, Collusion):"
    )


def flag_lines(result: Collusion, width: int = 80) -> list[str]:
    """What the leaderboard prints: nothing unless a pair is flagged, then a heading and a paragraph per
    pair, wrapped to ``width``."""
    flagged = result.flagged
    if not flagged:
        return []
    lines = textwrap.wrap(flag_heading(result), width)
    for pair in flagged:
        lines += textwrap.wrap(describe(pair, result), width, initial_indent="  ", subsequent_indent="    ")
    return lines
