"""The leaderboard of an event, computed from its store alone (so it is the same live, resumed, or later).

``compute_board`` applies the stored games to TrueSkill in schedule order, joins the per-entrant totals,
orders the entrants by the event's ranking (arena.stats.confidence: points per hand, paired in duplicate mode)
and says how sure that order is, in each standing's ``extra`` (so the JSON, the CSV and the report carry it);
the ``render_*`` functions give the three output forms of ``arena leaderboard``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena.errors import ConfigError
from arena.stats.confidence import SHARPEN, Confidence, collect, confidence
from arena.stats.rating import HistoryRow, RatedGame, Standing, apply_in_order

RANKING_METHODS = ("auto", "points", "paired", "trueskill")


@dataclass(frozen=True, slots=True)
class RankingConfig:
    """``[ranking]``: how the leaderboard orders entrants and when ``--until-settled`` stops.

    ``method``: "auto" (the default) orders by paired points per hand in a duplicate event and by points per
    hand otherwise; "trueskill" by mu - 3 sigma. ``confidence``: the probability at which an adjacent pair
    of the order counts as settled. ``max_games``: the budget of ``--until-settled``. ``check_every``: games
    between two looks at the confidence while extending. ``sharpen``: the probit scale of the pair
    probabilities (arena.stats.confidence.SHARPEN; 1.0 is the plain bootstrap).
    """

    method: str = "auto"
    confidence: float = 0.95
    max_games: int = 1000
    check_every: int = 25
    sharpen: float = SHARPEN

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "confidence": self.confidence,
            "max_games": self.max_games,
            "check_every": self.check_every,
            "sharpen": self.sharpen,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> RankingConfig:
        allowed = ("method", "confidence", "max_games", "check_every", "sharpen")
        for key in raw:
            if key not in allowed:
                raise ConfigError(f"unknown key ranking.{key}: allowed keys are {', '.join(allowed)}")
        method = raw.get("method", "auto")
        if method not in RANKING_METHODS:
            raise ConfigError(f"ranking.method={method!r}: expected one of {', '.join(RANKING_METHODS)}")
        confidence = raw.get("confidence", 0.95)
        number = isinstance(confidence, int | float) and not isinstance(confidence, bool)
        if not number or not 0.5 < confidence < 1:
            raise ConfigError(f"ranking.confidence={confidence!r}: expected a probability in (0.5, 1)")
        sharpen = raw.get("sharpen", SHARPEN)
        if not isinstance(sharpen, int | float) or isinstance(sharpen, bool) or not 1 <= sharpen <= 4:
            raise ConfigError(f"ranking.sharpen={sharpen!r}: expected a number 1..4 (1 = plain bootstrap)")
        ints = {}
        for key, default, lo, hi in (("max_games", 1000, 1, 10_000_000), ("check_every", 25, 1, 1_000_000)):
            value = raw.get(key, default)
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ConfigError(f"ranking.{key}={value!r}: expected an integer {lo}..{hi}")
            ints[key] = value
        return cls(method, float(confidence), sharpen=float(sharpen), **ints)


@dataclass(frozen=True, slots=True)
class SeatTotals:
    """One entrant's sums over its stored seats (``faults``: those charged to the bot); the store makes
    them (``arena.results.queries``), as it makes the ``RatedGame`` values the ratings take."""

    games: int = 0
    wins: int = 0
    points: int = 0
    maker_hands: int = 0
    maker_made: int = 0
    forfeits: int = 0
    faults: int = 0


NO_GAMES = SeatTotals()


class Entrant(Protocol):
    """What the leaderboard needs of a stored entrant (``arena.results.queries.EntrantRow`` has more)."""

    @property
    def name(self) -> str: ...

    @property
    def house(self) -> bool: ...


class LeaderboardSource(Protocol):
    """What the leaderboard reads of a stored event (``arena.results.queries.Queries`` provides it)."""

    def entrants(self) -> Sequence[Entrant]: ...

    def rated_games(self) -> Iterator[RatedGame]: ...

    def seat_totals(self) -> Mapping[str, SeatTotals]: ...

    def charged_fault_counts(self) -> dict[str, int]: ...

    def disqualified(self) -> dict[str, str]: ...

    def ranking(self) -> RankingConfig: ...

    def event_seed(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Board:
    """A leaderboard: the standings in ranking order, and the confidence in that order."""

    standings: list[Standing]
    confidence: Confidence


def compute_standings(
    store: LeaderboardSource, record: Callable[[HistoryRow], None] | None = None
) -> list[Standing]:
    """The standings of what ``store`` holds, best first; ``record`` gets every rating step on the way."""
    return compute_board(store, record).standings


def compute_board(
    store: LeaderboardSource,
    record: Callable[[HistoryRow], None] | None = None,
    ranking: RankingConfig | None = None,
) -> Board:
    """The leaderboard of what ``store`` holds; ``record`` gets every rating step on the way.

    The stored games are read twice, each time streamed (TrueSkill, then the ranking units), rather than
    held in memory whole.
    """
    ranking = ranking or store.ranking()
    seed = store.event_seed()
    entrants = store.entrants()
    names = [e.name for e in entrants]
    ratings = apply_in_order(store.rated_games(), names, record)
    totals = store.seat_totals()
    faults = store.charged_fault_counts()  # the leaderboard charges a bot only with its own faults
    disqualified = store.disqualified()
    standings = []
    for entrant in entrants:
        name = entrant.name
        t = totals.get(name, NO_GAMES)
        r = ratings[name]
        standings.append(
            Standing(
                name=name,
                mu=r.mu,
                sigma=r.sigma,
                games=t.games,
                wins=t.wins,
                points=t.points,
                maker_hands=t.maker_hands,
                maker_made=t.maker_made,
                faults=faults.get(name, 0),
                forfeits=t.forfeits,
                disqualified=name in disqualified,
                house=entrant.house,
            )
        )
    units = collect(store.rated_games(), names)
    conf = confidence(
        units, ranking.method, ranking.confidence, seed, sharpen=ranking.sharpen, demoted=disqualified
    )
    by_name = {s.name: s for s in standings}
    ordered = [by_name[name] for name in conf.order]
    for i, standing in enumerate(ordered):
        standing.rank = i + 1
        standing.extra.update(_confidence_fields(conf, i))
    return Board(ordered, conf)


def _confidence_fields(conf: Confidence, i: int) -> dict[str, object]:
    """The figures of the ``i``-th entrant of the order: its bootstrap intervals, P(above) every other
    entrant, the pair with the next one, and the whole order's figure (the same on every row)."""
    figures = conf.entrants[i].to_dict()
    nxt = conf.adjacent[i] if i < len(conf.adjacent) else None
    return {
        "score": figures["score"],
        "points_per_hand_ci": figures["points_per_hand_ci"],
        "mean_rank": figures["mean_rank"],
        "mean_rank_ci": figures["mean_rank_ci"],
        "p_above": {
            other: round(p, 4)
            for other, p in zip(conf.order, conf.pairwise[i], strict=True)
            if other != conf.order[i]
        },
        "p_above_next": None if nxt is None else round(nxt.probability, 4),
        "settled_above_next": None if nxt is None else nxt.settled,
        "whole_order": round(conf.whole, 4),
    }
