"""TrueSkill ratings and the leaderboard numbers. Pure: games in, standings out.

Each game is a free-for-all ranked by the table's final ranks (equal ranks tie; a forfeiter already ranks
last). Games are applied strictly in schedule order, whatever order they finished in, so the same seed gives
the same leaderboard at any concurrency and after any number of interruptions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import trueskill


@dataclass(frozen=True, slots=True)
class RatedGame:
    """What rating needs from one finished game."""

    seq: int
    game_id: str
    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    forfeited: tuple[str, ...] = ()
    rated: bool = True  # False: a void game (a forfeit under ``forfeit_result = "void"``)
    excluded: tuple[str, ...] = ()  # seats played by the autopilot for a disqualified entrant
    block: str = (
        ""  # the duplicate block (the game id itself outside duplicate mode); see arena.stats.confidence
    )
    hands: int = 0  # hands played, the denominator of points per hand


@dataclass(frozen=True, slots=True)
class HistoryRow:
    seq: int
    game_id: str
    entrant: str
    mu: float
    sigma: float


def conservative(mu: float, sigma: float) -> float:
    """mu - 3 sigma, TrueSkill's conservative rating: a skill the entrant has very probably reached. The one
    writing of it: an event's standings, and the server's ladder (its order, the analytics' steps and days,
    every chart's low line)."""
    return mu - 3 * sigma


@dataclass
class Standing:
    """One line of the leaderboard."""

    name: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    points: int = 0
    maker_hands: int = 0
    maker_made: int = 0
    faults: int = 0
    forfeits: int = 0
    disqualified: bool = False
    house: bool = False
    rank: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: a skill the entrant has very probably reached (shown beside the order on hover; the
        order itself is by points per hand, docs/ranking.md)."""
        return conservative(self.mu, self.sigma)

    @property
    def avg_points(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def maker_rate(self) -> float | None:
        return self.maker_made / self.maker_hands if self.maker_hands else None

    def to_dict(self) -> dict[str, Any]:
        return (
            {
                "rank": self.rank,
                "name": self.name,
                "conservative": round(self.conservative, 3),
                "mu": round(self.mu, 3),
                "sigma": round(self.sigma, 3),
                "games": self.games,
                "wins": self.wins,
                "avg_points": round(self.avg_points, 3),
                "maker_hands": self.maker_hands,
                "maker_success": None if self.maker_rate is None else round(self.maker_rate, 4),
                "faults": self.faults,
                "forfeits": self.forfeits,
                "disqualified": self.disqualified,
                "house": self.house,
            }
            | self.extra
        )  # figures added by the ranking (arena/stats/leaderboard.py), so every output carries them


DRIFT_TAU = 25.0 / 300
"""TrueSkill's usual skill drift per game, for players who change between games; see ``environment``."""


def environment(tau: float = 0.0) -> trueskill.TrueSkill:
    """TrueSkill's standard parameters (mu 25, sigma 25/3); the draw probability covers shared ranks.

    No drift (``tau = 0``) by default: within one event the entrants do not change, and the usual drift
    (``DRIFT_TAU``) made sigma floor near 0.66, so the rating behaved like a moving average over the last
    ~125 games of each entrant and threw away most of the evidence (docs/ranking.md).
    """
    return trueskill.TrueSkill(mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, tau=tau, draw_probability=0.10)


def rate(
    games: Iterable[RatedGame], entrants: Sequence[str], tau: float = 0.0
) -> tuple[dict[str, trueskill.Rating], list[HistoryRow]]:
    """Apply ``games`` in ``seq`` order; returns the final ratings and the rating after every game."""
    history: list[HistoryRow] = []
    ratings = apply_in_order(sorted(games, key=lambda g: g.seq), entrants, history.append, tau)
    return ratings, history


def apply_in_order(
    games: Iterable[RatedGame],
    entrants: Sequence[str],
    record: Callable[[HistoryRow], None] | None = None,
    tau: float = 0.0,
    start: Mapping[str, trueskill.Rating] | None = None,
) -> dict[str, trueskill.Rating]:
    """``rate`` for games already in ``seq`` order, one at a time: memory stays the size of the field,
    however long the event (``record`` gets each rating as it is made, e.g. to store it).

    ``start``: the ratings after the games before these (a ladder's board goes on from its last
    computation: the same games in the same order give exactly the ratings of one replay of them all).

    The games must come in ``seq`` order (the store reads them ``ORDER BY seq``; ``rate`` sorts them): any
    other order is a caller's bug, not bad data, so it is an assertion.
    """
    env = environment(tau)
    ratings = dict(start or {})
    for name in entrants:
        ratings.setdefault(name, env.create_rating())
    last = None
    for game in games:
        assert last is None or game.seq >= last, (
            f"game {game.game_id} (seq {game.seq}) comes after seq {last}"
        )
        last = game.seq
        if not game.rated:
            continue
        players = [(seat, name) for seat, name in enumerate(game.seats) if name not in game.excluded]
        if len(players) < 2:
            continue
        for _, name in players:
            ratings.setdefault(name, env.create_rating())
        groups = [(ratings[name],) for _, name in players]
        new = env.rate(groups, ranks=[game.ranks[seat] - 1 for seat, _ in players])
        for (_, name), (rating,) in zip(players, new, strict=True):
            ratings[name] = rating
            if record is not None:
                record(HistoryRow(game.seq, game.game_id, name, rating.mu, rating.sigma))
    return ratings
