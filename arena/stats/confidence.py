"""The leaderboard's order and how sure it is: per-entrant scores, bootstrap intervals, P(A above B).

Pure: stored games in, figures out. Why these statistics (the numbers are in docs/ranking.md):

* **The order** is by points per hand (``points``); in a duplicate event by *paired* points per hand
  (``paired``): each score minus the mean score of the same seat on the same deals (the other rotations of
  the block), so the luck of the cards cancels and what is left is the play. TrueSkill stays on the board
  as a rating, but a ranked-only, game-by-game update wastes the margins that points keep, and in duplicate
  mode it cannot pair the plays of one deal at all. ``centred`` (score minus the table's mean) is offered
  for comparison; it measured no better than plain points.
* **The unit of resampling** is the game, or the duplicate block (its games share deals, so they are not
  independent): games are played independently of each other, so resampling them with replacement
  mimics running the event again. The bootstrap is seeded from the event seed: the same stored games
  always print the same figures.
* **P(A above B)** is read from the bootstrap as a normal probability, ``Φ(k·d/sd)``, with ``d`` the
  observed gap between the two scores and ``sd`` its bootstrap standard deviation; ``k = SHARPEN``
  corrects the bootstrap's known conservatism (an event's order is right more often than the spread of
  its own resamples suggests; measured in bench/ranking.py). An adjacent pair is *settled* at level ``c``
  when that probability is at least ``c`` (and the event has ``MIN_UNITS`` units). The order is exactly
  right if and only if every adjacent pair is; the whole-order figure is the share of (equally sharpened)
  replicates in which every adjacent gap holds, because neighbouring pairs share an entrant and their
  errors are not independent (``whole_order_probability``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from arena.stats.rating import RatedGame

METHODS = ("points", "paired", "centred")
SHARPEN = 1.75
"""Probit scale applied to every bootstrap pair probability (``[ranking] sharpen``). At 1.75 the stated
adjacent-pair probabilities match the observed frequencies within 0.05 in every bin, in both modes, on 160
benchmark events per mode (2.0 missed one duplicate bin, 1.5 several; docs/ranking.md). On a field of truly
equal entrants any sharpening overstates: use 1.0 there."""
FULL_SHARPEN_GAMES = 50
"""Below this many games the sharpening is reduced in proportion (``effective_sharpen``)."""
REPLICATES = 1000
MIN_UNITS = 10
"""No pair is settled on fewer units: a bootstrap of a handful of games has too few distinct resamples to
show the spread (two duplicate blocks once 'settled' a five-bot order)."""
BOOTSTRAP_DOMAIN = "euchre-arena/bootstrap/v1"
_NORMAL = NormalDist()


@dataclass(frozen=True, slots=True)
class Units:
    """The event cut into independent units (games, or duplicate blocks), one row per unit, one column per
    entrant: the sums each statistic needs, so a bootstrap replicate is one weighted sum of rows."""

    names: tuple[str, ...]
    duplicate: bool
    points: np.ndarray
    hands: np.ndarray
    ranks: np.ndarray
    games: np.ndarray
    paired: np.ndarray  # score minus the mean of the same seat over the block's games (duplicate)
    paired_hands: np.ndarray  # hands of the games that have a pair in their block
    centred: np.ndarray  # score minus the mean score of its table
    n_games: int = 0

    @property
    def count(self) -> int:
        return int(self.points.shape[0])


def collect(games: Iterable[RatedGame], names: Sequence[str]) -> Units:
    """Sum the rated games, in schedule order, into units. A block with more than one game makes the event
    duplicate (a block's games are consecutive in schedule order, so one block is held at a time and a long
    event streams through).

    Void games and the seats the autopilot played for a disqualified entrant count for nobody. A forfeit
    counts as a game played for no points (what the autopilot scored after it is not the entrant's), so
    forfeiting costs in points as it costs in rank.
    """
    index = {name: i for i, name in enumerate(names)}
    keys = ("points", "hands", "ranks", "games", "paired", "paired_hands", "centred")
    rows: dict[str, list[list[float]]] = {k: [] for k in keys}
    n_games = 0
    duplicate = False
    group: list[RatedGame] = []

    def flush() -> None:
        nonlocal n_games, duplicate
        if not group:
            return
        row = {k: [0.0] * len(names) for k in keys}
        n_seats = len(group[0].seats)
        effective = [
            [0 if name in g.forfeited else score for name, score in zip(g.seats, g.scores, strict=True)]
            for g in group
        ]
        seat_mean = [sum(scores[s] for scores in effective) / len(group) for s in range(n_seats)]
        for game, scores in zip(group, effective, strict=True):
            table_mean = sum(scores) / len(scores)
            for seat, name in enumerate(game.seats):
                if name in game.excluded or name not in index:
                    continue
                e = index[name]
                row["points"][e] += scores[seat]
                row["hands"][e] += game.hands
                row["ranks"][e] += game.ranks[seat]
                row["games"][e] += 1
                row["centred"][e] += scores[seat] - table_mean
                if len(group) > 1:
                    row["paired"][e] += scores[seat] - seat_mean[seat]
                    row["paired_hands"][e] += game.hands
        for k in keys:
            rows[k].append(row[k])
        n_games += len(group)
        duplicate = duplicate or len(group) > 1
        group.clear()

    for game in games:
        if not game.rated:
            continue
        if group and (game.block or game.game_id) != (group[0].block or group[0].game_id):
            flush()
        group.append(game)
    flush()
    arrays = {k: np.array(v, dtype=float).reshape(len(v), len(names)) for k, v in rows.items()}
    return Units(tuple(names), duplicate, n_games=n_games, **arrays)


def resolve_method(method: str, duplicate: bool) -> str:
    """ "auto" → "paired" in a duplicate event, else "points"; "paired" outside duplicate → "points"."""
    if method == "auto":
        return "paired" if duplicate else "points"
    if method == "paired" and not duplicate:
        return "points"
    return method


def _scores(units: Units, weights: np.ndarray, method: str) -> np.ndarray:
    """Per-entrant ranking scores for unit weights ``weights`` (rows: replicates); NaN without games."""
    if method == "paired":
        num, den = weights @ units.paired, weights @ units.paired_hands
    elif method == "centred":
        num, den = weights @ units.centred, weights @ units.hands
    else:
        num, den = weights @ units.points, weights @ units.hands
    return _ratio(num, den)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def scores(units: Units, method: str) -> dict[str, float]:
    """The point estimate of each entrant's ranking score (NaN for an entrant with no rated game)."""
    values = _scores(units, np.ones(units.count), method)
    return dict(zip(units.names, (float(v) for v in values), strict=True))


def ranking_order(values: dict[str, float], demoted: Iterable[str] = ()) -> list[str]:
    """Best first; ``demoted`` (disqualified) entrants, then those without a score, last; ties by name, so
    the order is always the same."""
    last = set(demoted)

    def key(name: str) -> tuple[bool, bool, float, str]:
        value = values[name]
        missing = math.isnan(value)
        return (name in last, missing, 0.0 if missing else -round(value, 9), name)

    return sorted(values, key=key)


def bootstrap_seed(event_seed: int) -> int:
    """The bootstrap's seed: a digest of the event seed, so no two events share resamples by accident."""
    digest = hashlib.blake2b(f"{BOOTSTRAP_DOMAIN}:{event_seed}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True, slots=True)
class EntrantFigures:
    name: str
    games: int
    score: float
    score_ci: tuple[float, float]
    points_per_hand: float
    points_ci: tuple[float, float]
    mean_rank: float
    rank_ci: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "score": _round(self.score),
            "score_ci": [_round(v) for v in self.score_ci],
            "points_per_hand": _round(self.points_per_hand),
            "points_per_hand_ci": [_round(v) for v in self.points_ci],
            "mean_rank": _round(self.mean_rank),
            "mean_rank_ci": [_round(v) for v in self.rank_ci],
        }


@dataclass(frozen=True, slots=True)
class AdjacentPair:
    upper: str
    lower: str
    probability: float  # P(upper finishes above lower)
    settled: bool
    more_games: int | None  # rough extra games to settle it; None when settled or when no gap is visible

    def to_dict(self) -> dict[str, Any]:
        return {
            "upper": self.upper,
            "lower": self.lower,
            "probability": _round(self.probability),
            "settled": self.settled,
            "more_games": self.more_games,
        }


@dataclass(frozen=True, slots=True)
class Confidence:
    """Everything the leaderboard says about how sure its order is; ``order`` is the printed order."""

    method: str
    level: float
    unit: str  # "game" | "deal block"
    units: int
    games: int
    replicates: int
    seed: int
    order: tuple[str, ...]
    entrants: tuple[EntrantFigures, ...]
    pairwise: tuple[tuple[float, ...], ...]  # pairwise[i][j] = P(order[i] above order[j])
    adjacent: tuple[AdjacentPair, ...]
    whole: float

    @property
    def settled(self) -> bool:
        return all(p.settled for p in self.adjacent)

    def open_pairs(self) -> list[AdjacentPair]:
        return [p for p in self.adjacent if not p.settled]

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "level": self.level,
            "unit": self.unit,
            "units": self.units,
            "games": self.games,
            "replicates": self.replicates,
            "order": list(self.order),
            "entrants": [e.to_dict() for e in self.entrants],
            "p_above": {
                a: {b: _round(p) for b, p in zip(self.order, row, strict=True) if b != a}
                for a, row in zip(self.order, self.pairwise, strict=True)
            },
            "adjacent": [p.to_dict() for p in self.adjacent],
            "whole_order": _round(self.whole),
            "settled": self.settled,
        }


def _round(value: float) -> float | None:
    return None if value != value else round(value, 4)


def effective_sharpen(sharpen: float, games: int) -> float:
    """The sharpening an event of ``games`` games gets: ``sharpen`` from ``FULL_SHARPEN_GAMES`` games on,
    scaled towards 1 (the plain bootstrap) below.

    Why: the sharpening says the bootstrap's spread is wider than the truth's, which holds once the spread is
    measured on enough games; on 25 games the spread itself is uncertain, and the full sharpening overstated
    there (adjacent pairs stated 0.975 were right 0.92 of the time on the benchmark, while from 50 games on
    every bin was within 0.05).
    """
    if sharpen <= 1:
        return sharpen
    return 1 + (sharpen - 1) * min(1.0, games / FULL_SHARPEN_GAMES)


def pair_probability(gap: float, sd: float, sharpen: float = SHARPEN) -> float:
    """P(the entrant ahead by ``gap`` is really ahead), from the gap and its bootstrap standard deviation."""
    if sd <= 0 or sd != sd:
        return 1.0 if gap > 0 else 0.0 if gap < 0 else 0.5
    return _NORMAL.cdf(sharpen * gap / sd)


def more_games_needed(
    gap: float, sd: float, level: float, games: int, sharpen: float = SHARPEN
) -> int | None:
    """Extra games for a pair to reach ``level``, if its gap stays and its sd shrinks as 1/sqrt(games)."""
    z = sharpen * gap / sd if sd > 0 else math.inf
    target = _NORMAL.inv_cdf(level)
    if z >= target:
        return None
    if z < 0.1:  # no visible gap: any estimate would be a guess
        return None
    return max(1, math.ceil(games * ((target / z) ** 2 - 1)))


def confidence(
    units: Units,
    method: str,
    level: float,
    event_seed: int,
    replicates: int = REPLICATES,
    sharpen: float = SHARPEN,
    demoted: Iterable[str] = (),
) -> Confidence:
    """Bootstrap the units: intervals per entrant, P(above) per pair, settled adjacent pairs, whole order.

    Replicates draw ``units.count`` units with replacement (as multinomial counts, in chunks, so memory
    stays small for long events) from a PCG64 stream seeded by ``bootstrap_seed(event_seed)``. ``demoted``
    entrants (disqualified) are printed last whatever they scored.
    """
    method = resolve_method(method, units.duplicate)
    sharpen = effective_sharpen(sharpen, units.n_games)
    estimate = scores(units, method)
    order = ranking_order(estimate, demoted)
    col = [units.names.index(n) for n in order]
    rng = np.random.Generator(np.random.PCG64(bootstrap_seed(event_seed)))
    n = units.count
    rows: dict[str, list[np.ndarray]] = {"score": [], "points": [], "rank": []}
    done = 0
    while done < replicates and n:
        size = min(200, replicates - done)
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(float)
        rows["score"].append(_scores(units, weights, method)[:, col])
        rows["points"].append(_ratio(weights @ units.points, weights @ units.hands)[:, col])
        rows["rank"].append(_ratio(weights @ units.ranks, weights @ units.games)[:, col])
        done += size
    boot = {k: np.vstack(v) if v else np.full((0, len(order)), np.nan) for k, v in rows.items()}
    ones = np.ones(n)
    points = _ratio(ones @ units.points, ones @ units.hands)[col]
    mean_rank = _ratio(ones @ units.ranks, ones @ units.games)[col]
    games = (ones @ units.games)[col]
    figures = tuple(
        EntrantFigures(
            name,
            int(games[i]),
            estimate[name],
            _interval(boot["score"][:, i]),
            float(points[i]),
            _interval(boot["points"][:, i]),
            float(mean_rank[i]),
            _interval(boot["rank"][:, i]),
        )
        for i, name in enumerate(order)
    )
    k = len(order)
    gaps = [[estimate[order[i]] - estimate[order[j]] for j in range(k)] for i in range(k)]
    # The bootstrap's spread is that of n draws from the n observed units, which is short by sqrt(n/(n-1))
    # of the standard error (the same correction as a sample variance's n-1); restore it.
    inflate = math.sqrt(n / (n - 1)) if n > 1 else math.inf
    sds = [[_sd(boot["score"][:, i] - boot["score"][:, j]) * inflate for j in range(k)] for i in range(k)]
    last = set(demoted)

    def p_above(i: int, j: int) -> float:
        if i == j:
            return 0.5
        if (order[i] in last) != (order[j] in last):  # a disqualified entrant is last by rule, not by luck
            return 0.0 if order[i] in last else 1.0
        return _pair(gaps[i][j], sds[i][j], sharpen)

    pairwise = tuple(tuple(p_above(i, j) for j in range(k)) for i in range(k))
    played = units.n_games
    adjacent = []
    for i in range(k - 1):
        p = pairwise[i][i + 1]
        settled = p >= level and n >= MIN_UNITS
        more = None if settled else _more(gaps[i][i + 1], sds[i][i + 1], level, played, sharpen)
        adjacent.append(AdjacentPair(order[i], order[i + 1], p, settled, more))
    whole = whole_order_probability(
        boot["score"], [estimate[name] for name in order], adjacent, last, n, sharpen
    )
    return Confidence(
        method,
        level,
        "deal block" if units.duplicate else "game",
        n,
        played,
        done,
        event_seed,
        tuple(order),
        figures,
        pairwise,
        tuple(adjacent),
        whole,
    )


def whole_order_probability(
    boot: np.ndarray,
    estimate: Sequence[float],
    adjacent: Sequence[AdjacentPair],
    demoted: Collection[str],
    units: int,
    sharpen: float,
) -> float:
    """P(every adjacent pair of the printed order is right), from the bootstrap jointly, not pair by pair.

    Why not the product of the adjacent pairs' P: their errors are not independent. Two neighbours share an
    entrant, so when that entrant's score is lucky one gap widens as the other shrinks; on the benchmark the
    product overstated low whole-order figures. Here each replicate's adjacent gaps are moved towards the
    observed ones by the same sharpening (and the same n/(n-1) correction) as each pair's P, and the figure
    is the share of replicates in which every gap stays positive. Pairs the bootstrap cannot speak about
    (an entrant without games, a gap that never varies, a disqualified entrant's fixed place) enter as the
    factor their own P gives. The result never exceeds the weakest pair's P: the whole cannot be surer than
    a part.
    """
    if not adjacent:
        return 1.0
    factor = 1.0
    joint: list[int] = []
    for i, pair in enumerate(adjacent):
        gap = estimate[i] - estimate[i + 1]
        fixed = (pair.upper in demoted) != (pair.lower in demoted)
        spread = boot[:, i] - boot[:, i + 1] if boot.shape[0] else np.empty(0)
        if fixed or gap != gap or units < 2 or not (_sd(spread) > 0):
            factor *= pair.probability
        else:
            joint.append(i)
    if joint:
        cols = np.array(joint)
        diffs = boot[:, cols] - boot[:, cols + 1]
        diffs = diffs[~np.isnan(diffs).any(axis=1)]
        gaps = np.array([estimate[i] - estimate[i + 1] for i in joint])
        inflate = math.sqrt(units / (units - 1))
        moved = gaps + (diffs - diffs.mean(axis=0)) * (inflate / sharpen)
        factor *= float(np.mean(np.all(moved > 0, axis=1)))
    return min(factor, min(pair.probability for pair in adjacent))


def _pair(gap: float, sd: float, sharpen: float) -> float:
    if gap != gap:  # an entrant without games
        return 0.5
    return pair_probability(gap, sd, sharpen)


def _more(gap: float, sd: float, level: float, games: int, sharpen: float) -> int | None:
    if gap != gap:
        return None
    return more_games_needed(gap, sd, level, games, sharpen)


def _sd(values: np.ndarray) -> float:
    values = values[~np.isnan(values)]
    if values.size < 2:
        return math.nan
    return float(np.std(values, ddof=1))


def _interval(values: np.ndarray, mass: float = 0.95) -> tuple[float, float]:
    """The percentile interval holding ``mass`` of the bootstrap values (NaN when there are none)."""
    values = values[~np.isnan(values)]
    if not values.size:
        return (math.nan, math.nan)
    tail = (1 - mass) / 2
    lo, hi = np.quantile(values, [tail, 1 - tail])
    return (float(lo), float(hi))
