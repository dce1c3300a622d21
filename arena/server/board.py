"""The ladder's stored games as the statistics read them, and the leaderboard computed from them.

The server's games live in its own database, so this module gives the statistics the same narrow view
the results store gives them (``arena.stats.leaderboard.LeaderboardSource``): the leaderboard's
points-per-hand order and its confidence come from ``compute_leaderboard``, unchanged; the TrueSkill
ratings from ``arena.stats.rating.rate`` with drift on (``[ladder] tau``, default 25/300, TrueSkill's
usual value). Drift is off for a fixed event (``docs/ranking.md``), but a ladder's field keeps changing:
new bots arrive, entrants upload better versions. With τ = 0 every rating's σ only shrinks, so after a few
hundred games a rating can hardly move any more and a newcomer that beats everybody climbs far too
slowly: exactly the "frozen ratings" Halite II's players reported (HaliteChallenge/Halite-II#181, #221),
fixed there by putting drift back. τ > 0 keeps σ from collapsing, so the ladder follows the current field.

Everything is recomputed from the stored games (never updated in place), so the ratings after a kill -9
and a restart are by construction those of an uninterrupted replay of the same games. The computation is
cached until the next stored game, and done at most every few seconds.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import func, select

from arena.server.config import CompetitionConfig, NewVersion
from arena.server.db import Database
from arena.server.models import Game, GameFault, GameSeat, User, Version
from arena.stats.leaderboard import Leaderboard, RankingConfig, SeatTotals, compute_leaderboard
from arena.stats.rating import RatedGame, rate

REFRESH_S = 3.0  # at most one recomputation (all stored games) per this many seconds


@dataclass(frozen=True, slots=True)
class _Entrant:
    name: str
    house: bool = False


def rating_key(config: CompetitionConfig, version_id: int, user_id: int) -> str:
    """Whose rating a seat counts for: the version (``fresh``) or the entrant across its versions
    (``inherit``: a new version starts from its predecessor's rating, and drift lets it move on)."""
    return f"u{user_id}" if config.ladder.new_version is NewVersion.INHERIT else f"v{version_id}"


class LadderSource:
    """``LeaderboardSource`` over the server's tables, each seat named by its rating key."""

    def __init__(self, db: Database, config: CompetitionConfig, names: Sequence[str]) -> None:
        self.db = db
        self.config = config
        self.names = list(names)
        with db.session() as s:
            rows = s.execute(
                select(GameSeat.version_id, Version.user_id).join(Version, Version.id == GameSeat.version_id)
            ).all()
        self.key = {v: rating_key(config, v, u) for v, u in rows if v is not None}

    def seat_name(self, version_id: int | None, name: str) -> str:
        return self.key.get(version_id, name) if version_id is not None else name

    def entrants(self) -> Sequence[_Entrant]:
        return [_Entrant(n) for n in self.names]

    def rated_games(self) -> Iterator[RatedGame]:
        with self.db.session() as s:
            games = s.scalars(select(Game).order_by(Game.seq)).all()
            seats = s.scalars(select(GameSeat).order_by(GameSeat.game_id, GameSeat.seat)).all()
        by_game: dict[str, list[GameSeat]] = {}
        for seat in seats:
            by_game.setdefault(seat.game_id, []).append(seat)
        for game in games:
            rows = by_game.get(game.id, [])
            names = tuple(self.seat_name(r.version_id, r.name) for r in rows)
            excluded = json.loads(game.result).get("excluded", [])
            yield RatedGame(
                game.seq,
                game.id,
                names,
                tuple(r.rank for r in rows),
                tuple(r.score for r in rows),
                tuple(n for n, r in zip(names, rows, strict=True) if r.forfeited),
                game.rated,
                tuple(n for n, r in zip(names, rows, strict=True) if r.name in excluded),
                game.id,
                game.hands,
            )

    def seat_totals(self) -> dict[str, SeatTotals]:
        totals: dict[str, list[int]] = {}
        with self.db.session() as s:
            for r in s.scalars(select(GameSeat)):
                t = totals.setdefault(self.seat_name(r.version_id, r.name), [0] * 7)
                for i, v in enumerate(
                    (1, r.rank == 1, r.score, r.maker_hands, r.maker_made, r.forfeited, r.faults)
                ):
                    t[i] += int(v)
        return {k: SeatTotals(*v) for k, v in totals.items()}

    def charged_fault_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        with self.db.session() as s:
            rows = s.execute(
                select(GameFault.game_id, GameFault.seat, GameSeat.version_id, GameSeat.name)
                .join(GameSeat, (GameSeat.game_id == GameFault.game_id) & (GameSeat.seat == GameFault.seat))
                .where(GameFault.kind != "harness")
            ).all()
        for _, _, version_id, name in rows:
            key = self.seat_name(version_id, name)
            out[key] = out.get(key, 0) + 1
        return out

    def disqualified(self) -> dict[str, str]:
        return {}

    def ranking(self) -> RankingConfig:
        return LADDER_RANKING

    def event_seed(self) -> int:
        return self.config.ladder.seed


LADDER_RANKING = RankingConfig(look_growth=1.0)
"""A ladder's order is looked at whenever anybody opens the page, not at looks planned in advance: its
verdicts are judged by the confidence sequence, which holds at every look (docs/ranking.md), never by the
planned looks' boundary that ``arena run --until-settled`` uses by default."""

HISTORY_POINTS = 200


def _thin(points: list[tuple[int, float, float]]) -> list[tuple[int, float, float]]:
    """At most ``HISTORY_POINTS`` evenly spread points of a rating's history, the last one kept."""
    if len(points) <= HISTORY_POINTS:
        return points
    step = len(points) / HISTORY_POINTS
    return [points[int(i * step)] for i in range(HISTORY_POINTS - 1)] + [points[-1]]


def _finite(value: float | None) -> float | None:
    """JSON has no NaN: a figure without data (no hands yet) is null."""
    return None if value is None or not math.isfinite(value) else value


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the ladder's leaderboard."""

    rank: int
    user_id: int
    entrant: str
    version_id: int
    version: str
    mu: float
    sigma: float
    games: int
    points_per_hand: float | None
    p_above_next: float | None
    settled: bool | None
    description: str = ""  # the entrant's words about its bot

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "entrant": self.entrant,
            "version": self.version,
            "conservative": round(self.conservative, 3),
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "games": self.games,
            "points_per_hand": _finite(self.points_per_hand),
            "p_above_next": _finite(self.p_above_next),
            "settled_above_next": self.settled,
            "description": self.description,
        }


@dataclass
class Board:
    """The leaderboard of the active versions, recomputed from the stored games when they change."""

    db: Database
    config: CompetitionConfig
    rows: list[Row] = field(default_factory=list)
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)  # rating key -> (mu, sigma)
    order_note: str = ""
    games: int = -1
    computed_at: float = 0.0
    cost_s: float = 0.0  # how long the last recomputation took
    history: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)  # key -> (seq, mu, σ)

    def refresh(self, force: bool = False) -> None:
        """Recompute, unless ``force`` is false and the last computation is recent or nothing changed.

        Recomputing reads every stored game: it waits twenty times as long as the last one took, so that
        however long the ladder grows, keeping the board fresh costs at most a twentieth of the server.
        """
        wait = max(REFRESH_S, 20 * self.cost_s)
        if not force and time.monotonic() - self.computed_at < wait:
            return
        with self.db.session() as s:
            count = s.scalar(select(func.count()).select_from(Game)) or 0
            active = s.execute(
                select(Version, User)
                .join(User, User.id == Version.user_id)
                .where(Version.active, ~User.disabled)
            ).all()
        if not force and count == self.games:
            self.computed_at = time.monotonic()
            return
        began = time.monotonic()
        keys = {rating_key(self.config, v.id, u.id): (v, u) for v, u in active}
        source = LadderSource(self.db, self.config, list(keys))
        ratings, steps = rate(source.rated_games(), list(keys), self.config.ladder.tau)
        history: dict[str, list[tuple[int, float, float]]] = {}
        for step in steps:
            history.setdefault(step.entrant, []).append((step.seq, step.mu, step.sigma))
        self.history = {k: _thin(v) for k, v in history.items() if k in keys}
        self.ratings = {k: (r.mu, r.sigma) for k, r in ratings.items()}
        board: Leaderboard | None = compute_leaderboard(source) if len(keys) >= 2 else None
        figures = {}
        if board is not None:
            conf = board.confidence
            for i, name in enumerate(conf.order):
                nxt = conf.adjacent[i] if i < len(conf.adjacent) else None
                figures[name] = (conf.entrants[i].points_per_hand, nxt)
            self.order_note = (
                f"{conf.method} order over {conf.units} {conf.unit}s: the whole order holds with probability "
                f"{conf.whole:.0%}"
            )
        totals = source.seat_totals()
        rows = []
        for key, (version, user) in keys.items():
            mu, sigma = self.ratings.get(key, (25.0, 25.0 / 3))
            pph, nxt = figures.get(key, (None, None))
            rows.append(
                Row(0, user.id, user.name, version.id, f"v{version.number}", mu, sigma,
                    totals.get(key, SeatTotals()).games, _finite(None if pph is None else round(pph, 3)),
                    None if nxt is None else round(nxt.probability, 3), None if nxt is None else nxt.settled,
                    user.description or "")
            )  # fmt: skip
        rows.sort(key=lambda r: (-r.conservative, r.entrant))
        self.rows = [
            Row(i + 1, *(getattr(r, f) for f in Row.__dataclass_fields__ if f != "rank"))
            for i, r in enumerate(rows)
        ]
        self.games = count
        self.computed_at = time.monotonic()
        self.cost_s = self.computed_at - began

    def rating_of(self, key: str) -> tuple[float, float]:
        return self.ratings.get(key, (25.0, 25.0 / 3))

    def describe(self, user_id: int, text: str) -> None:
        """A new description shows at once, without recomputing the board (an entrant may edit often)."""
        self.rows = [replace(r, description=text) if r.user_id == user_id else r for r in self.rows]
