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

A pair that is weak apart and strong together has the shape of two honest bots far weaker than the rest
(they gain at the same table too), and the strength interaction the model fits cannot tell them apart;
given each game's hand records (``hands``), such a pair is flagged only if a second test, on the sides of
each hand, flags it too (``arena.stats.collusion_sides``: the honest pair's gain lives in the sides).

The model's fit and each pair's score tests are in ``arena.stats.collusion_model``; this module builds its
rows from the games, decides the flags and words them. A pure function of stored games (``RatedGame``); no
I/O.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from arena.stats.collusion_model import Design, PairEffect
from arena.stats.collusion_sides import HandSides, LazySides
from arena.stats.rating import RatedGame

__all__ = [
    "ALPHA",
    "MIN_GAMES",
    "TAU",
    "WEIGHTS",
    "Collusion",
    "HandSides",
    "PairEffect",
    "anytime_p",
    "collusion",
    "describe",
    "entrant_effects",
    "flag_heading",
    "flag_lines",
    "holm",
    "log_ratio",
    "pair_p",
    "upper_tail",
]

ALPHA = 0.05
"""The family-wise error rate: the chance that an honest event shows any flagged pair."""
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
    hands: Mapping[str, Sequence[HandSides]] | Callable[[], Mapping[str, Sequence[HandSides]]] | None = None,
) -> Collusion:
    """Every pair of ``names``: its effects and whether it is flagged at family-wise level ``alpha``.

    ``interaction``: fit the strength interaction (``_Design``; docs/ranking.md, "Collusion", says what it
    fixes on graded fields and how a pair that is weak apart and strong together is kept from being
    explained away by it); False: the additive model alone. ``anytime``: each test's p-value holds however
    often the growing event is looked at (``anytime_p``: the leaderboard after every round, the server's
    organiser page after every game); False: the p-value of one look, valid only if it is the only one.
    ``hands``: each game's hands by game id (who made trump, the partner, who sat out, each seat's points:
    what the store's hand records hold); a pair that the strength interaction rests on is then flagged only
    if the test on its hands' sides flags it too (``arena.stats.collusion_sides``: two honest bots far
    weaker than the rest gain together, as a colluding pair weak apart does, and only the sides tell them
    apart). Without them, or for games without them, the games' test alone decides. A function that
    returns them is called only if such a pair is found (most events have none: nothing is read).

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
    seated_games: list[tuple[str, list[tuple[int, int]], int]] = []  # for the sided test
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
        cluster = clusters.setdefault(g.block or g.game_id, len(clusters))
        if hands is not None:
            seats = [
                (s, index[name]) for s, name in enumerate(g.seats) if name in index and name not in g.excluded
            ]
            seated_games.append((g.game_id, seats, cluster))
        used += 1
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
    design = Design(
        n,
        np.array(rows_entrant),
        rows_mates,
        np.array(rows_y),
        np.array(rows_w),
        np.array(rows_cluster),
        len(clusters),
        interaction,
    )
    sided = None if hands is None else LazySides(seated_games, hands, n)
    return _step_down(design, names, used, alpha, min_games, anytime, sided)


def _pair_p(effect: PairEffect, anytime: bool) -> float:
    """The pair's p-value: valid at every look (``pair_p``: its three tests as one hypothesis), or of one
    look (the smallest of the three one-sided tails, times three for the three tests). With the test on
    its hands' sides, the larger of the two p-values: the pair is flagged only if both say so (an
    intersection-union test, valid whenever either test is)."""
    assert effect.z is not None
    ses = (effect.a_se or 0.0, effect.b_se or 0.0, effect.joint_se or 0.0)
    tests = [(effect.z, ses)] + ([(effect.sided.z, effect.sided.se)] if effect.sided is not None else [])
    if not anytime:
        return max(min(1.0, 3 * min(upper_tail(z) for z in zs)) for zs, _ in tests)
    return max(pair_p(zs, se) for zs, se in tests)


def _step_down(
    design: Design,
    names: Sequence[str],
    used: int,
    alpha: float,
    min_games: int,
    anytime: bool,
    sided: LazySides | None = None,
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
        effects = design.effects(names, list(flagged), min_games, sided)
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
