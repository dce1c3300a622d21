"""How sure an order by TrueSkill is: rank ranges, tiers and P of the skill, for the server's open ladder.

An event orders its fixed field by points per hand and states how sure that order is from the games
(arena.stats.confidence). A ladder cannot: versions come and go, a new one has played a few games against
whoever was there, and points per hand compare bots that met in different fields. So the ladder orders
by TrueSkill's conservative skill, mu − 3σ (a skill the version has very probably reached: a newcomer starts
low and climbs as its games show its level), and what it says of that order is read from the same ratings,
never from points:

* **P(A above B)** is the chance that A's skill is higher than B's under TrueSkill's own estimate of each,
  skill ~ N(mu, σ²) independently: Φ((mu_A − mu_B) / √(σ_A² + σ_B²)). Ordered by mu − 3σ, an upper row
  may have the lower mu (its σ is smaller), and then its P is below one half: that is the truth of it.
* **Rank ranges and tiers** are arena.stats.ranks' step-down (Holm's, over every ordered pair) on those
  standardised gaps, at ``level`` for every entrant at once; a version that has hardly played has a σ near
  8.3 and a range that spans the field. The tiers and the winner follow from the ranges as in an event.
* **No pair is called tied**: "tied" means shown within a margin of points per hand, which TrueSkill has
  not; its verdicts are "above" (shown better, the step-down's pairs) or "open".

These are statements about TrueSkill's model of the games, as good as its assumptions (finishing places
alone, drift τ per game), not a frequentist guarantee over repeated looks like an event's verdicts; the
page says so. Pure: ratings in, a ``Confidence`` out, so that arena.stats.wording words it as it words an
event's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from arena.stats.confidence import AdjacentPair, Confidence, EntrantFigures, whole_order_probability
from arena.stats.ranks import rank_ranges, step_down
from arena.stats.rating import conservative
from arena.stats.sequential import Verdict

_NORMAL = NormalDist()
METHOD = "trueskill"


@dataclass(frozen=True, slots=True)
class Rated:
    """One entrant of a TrueSkill order: its rating, its games, and its points per hand (NaN: no hand)."""

    name: str
    mu: float
    sigma: float
    games: int
    points_per_hand: float = math.nan


def skill_order(entrants: Sequence[Rated]) -> list[Rated]:
    """Best first by mu − 3σ, ties by name, so the order is always the same."""
    return sorted(entrants, key=lambda e: (-round(conservative(e.mu, e.sigma), 9), e.name))


def skill_confidence(entrants: Sequence[Rated], level: float, seed: int, games: int) -> Confidence:
    """The order of ``entrants`` by mu − 3σ and how sure it is (see the module's docstring); ``games``: the
    rated games the ratings rest on (the unit is a game), ``seed`` seeds the whole-order figure."""
    order = skill_order(entrants)
    k = len(order)
    mu = np.array([e.mu for e in order], dtype=float)
    var = np.array([e.sigma**2 for e in order], dtype=float)
    gaps = (mu[:, None] - mu[None, :]).reshape(k, k)
    ses = np.sqrt(var[:, None] + var[None, :]).reshape(k, k)
    alpha = 1 - level
    rated = list(range(k))
    shown = step_down(gaps, ses, rated, lambda share: _NORMAL.inv_cdf(1 - alpha * share)) if games else set()
    ranks = rank_ranges(k, rated, shown)
    prob = np.full((k, k), 0.5)
    for i in range(k):
        for j in range(k):
            if i != j and ses[i, j] > 0:
                prob[i, j] = _NORMAL.cdf(float(gaps[i, j] / ses[i, j]))
    pairwise = tuple(tuple(float(prob[i, j]) for j in range(k)) for i in range(k))
    z = _NORMAL.inv_cdf(1 - alpha / 2)
    adjacent = tuple(
        AdjacentPair(
            order[i].name,
            order[i + 1].name,
            pairwise[i][i + 1],
            Verdict.ABOVE if (i, i + 1) in shown else Verdict.OPEN,
            float(gaps[i, i + 1]),
            (float(gaps[i, i + 1] - z * ses[i, i + 1]), float(gaps[i, i + 1] + z * ses[i, i + 1])),
            0.0,
            None,
        )
        for i in range(k - 1)
    )
    whole = whole_order_probability(np.diag(var), adjacent, (), seed)
    none = (math.nan, math.nan)
    figures = tuple(
        EntrantFigures(
            e.name, e.games, conservative(e.mu, e.sigma), none, e.points_per_hand, none, math.nan, none
        )
        for e in order
    )
    return Confidence(
        METHOD,
        level,
        0.0,
        "game",
        games,
        games,
        0,
        seed,
        tuple(e.name for e in order),
        figures,
        pairwise,
        adjacent,
        whole,
        z,
        math.nan,
        (),
        ranks,
    )
