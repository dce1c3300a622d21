"""The ladder's stored games as the pages read them: recent games, one game with its hands, head-to-head.

Read-only, and returning frozen values: the pages never see a row. A seat is shown by its entrant's name
and version (``alice v3``), or ``house`` for a house bot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import aliased

from arena.server.db.database import ServerDatabase
from arena.server.db.models import Game, GameFault, GameSeat, Hand, User, Version
from arena.server.ladder.gamelogs import COLUMNS


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    name: str  # the ladder's name: v12, house-1
    version_id: int | None
    user_id: int | None
    entrant: str
    version: str
    score: int
    rank: int
    forfeited: bool
    faults: int

    @property
    def label(self) -> str:
        return f"{self.entrant} {self.version}".strip()


@dataclass(frozen=True, slots=True)
class GameView:
    id: str
    seq: int
    created_at: float
    hands: int
    rated: bool
    seats: tuple[SeatView, ...]


@dataclass(frozen=True, slots=True)
class GameDetail:
    game: GameView
    hands: tuple[dict[str, Any], ...]  # the v1 hand records
    faults: tuple[dict[str, Any], ...]
    public_seed: int = 0  # the table named the game L + its hex (``Ladder.play``), as its bots were told


class Games:
    def __init__(self, db: ServerDatabase) -> None:
        self.db = db

    def _labels(self, version_ids: set[int]) -> dict[int, tuple[int, str, str]]:
        with self.db.session() as s:
            rows = s.execute(
                select(Version.id, Version.number, User.id, User.name)
                .join(User, User.id == Version.user_id)
                .where(Version.id.in_(version_ids))
            ).all()
        return {vid: (uid, name, f"v{number}") for vid, number, uid, name in rows}

    def _views(self, games: list[Game]) -> list[GameView]:
        ids = [g.id for g in games]
        with self.db.session() as s:
            seats = s.scalars(select(GameSeat).where(GameSeat.game_id.in_(ids)).order_by(GameSeat.seat)).all()
        labels = self._labels({r.version_id for r in seats if r.version_id is not None})
        by_game: dict[str, list[SeatView]] = {}
        for r in seats:
            uid, entrant, version = labels.get(r.version_id or -1, (None, "house", ""))
            by_game.setdefault(r.game_id, []).append(
                SeatView(
                    r.seat,
                    r.name,
                    r.version_id,
                    uid,
                    entrant,
                    version,
                    r.score,
                    r.rank,
                    r.forfeited,
                    r.faults,
                )
            )
        return [
            GameView(g.id, g.seq, g.created_at, g.hands, g.rated, tuple(by_game.get(g.id, []))) for g in games
        ]

    def recent(self, limit: int = 20, user_id: int | None = None) -> list[GameView]:
        """The last ``limit`` games, newest first; with ``user_id``, only those one of its versions sat in."""
        query = select(Game).order_by(Game.seq.desc()).limit(limit)
        if user_id is not None:
            mine = (
                select(GameSeat.game_id)
                .join(Version, Version.id == GameSeat.version_id)
                .where(Version.user_id == user_id)
            )
            query = query.where(Game.id.in_(mine))
        with self.db.session() as s:
            games = list(s.scalars(query))
        return self._views(games)

    def count(self) -> int:
        with self.db.session() as s:
            return len(s.scalars(select(Game.id)).all())

    def detail(self, game_id: str) -> GameDetail | None:
        with self.db.session() as s:
            game = s.get(Game, game_id)
            if game is None:
                return None
            hands = s.scalars(select(Hand).where(Hand.game_id == game_id).order_by(Hand.hand_index)).all()
            faults = s.scalars(
                select(GameFault).where(GameFault.game_id == game_id).order_by(GameFault.id)
            ).all()
        view = self._views([game])[0]
        return GameDetail(
            view,
            tuple(json.loads(h.record) for h in hands),
            tuple(
                {"seat": f.seat, "hand_index": f.hand_index, "decision_id": f.decision_id, "kind": f.kind,
                 "detail": f.detail, "elapsed_ms": f.elapsed_ms, "substitute": f.substitute}
                for f in faults
            ),
            game.public_seed,
        )  # fmt: skip

    def head_to_head(self, user_id: int) -> list[tuple[str, int, int, int]]:
        """Per opponent entrant: (name, games together, games this entrant finished above, below).

        Counted by the database (a join of the game's seats with themselves), not by reading the games:
        an entrant's page is opened on the event loop the ladder's games share, and an entrant may have
        played tens of thousands of games.
        """
        me, other = aliased(GameSeat), aliased(GameSeat)
        mine, theirs = aliased(Version), aliased(Version)
        query = (
            select(
                User.name,
                func.count(),
                func.sum(case((me.rank < other.rank, 1), else_=0)),
                func.sum(case((me.rank > other.rank, 1), else_=0)),
            )
            .select_from(me)
            .join(mine, mine.id == me.version_id)
            .join(other, (other.game_id == me.game_id) & (other.seat != me.seat))
            .join(theirs, theirs.id == other.version_id)
            .join(User, User.id == theirs.user_id)
            .where(mine.user_id == user_id, theirs.user_id != user_id)
            .group_by(User.name)
        )
        with self.db.session() as s:
            rows = s.execute(query).all()
        return sorted(((n, int(c), int(a), int(b)) for n, c, a, b in rows), key=lambda r: (-r[1], r[0]))

    def seat_log(self, game_id: str, version_id: int) -> SeatLog | None:
        """Where version ``version_id``'s stderr during game ``game_id`` lies, or None if it did not play
        there; with the other games of that version whose spans overlap this one (``gamelogs``)."""
        with self.db.session() as s:
            seat = s.scalars(
                select(GameSeat).where(GameSeat.game_id == game_id, GameSeat.version_id == version_id)
            ).first()
            if seat is None:
                return None
            owner = s.get(Version, version_id)
            if owner is None:
                return None
            values = {c: getattr(seat, c) for c in COLUMNS}
            overlapping: list[str] = []
            own = seat.log_start is not None and seat.log_end is not None and seat.log_end > seat.log_start
            if own and seat.log_inode is not None and seat.log_inode == seat.log_end_inode:
                overlapping = list(
                    s.scalars(
                        select(GameSeat.game_id)
                        .where(
                            GameSeat.version_id == version_id,
                            GameSeat.game_id != game_id,
                            GameSeat.log_inode == seat.log_inode,
                            GameSeat.log_start < seat.log_end,
                            GameSeat.log_end > seat.log_start,
                            GameSeat.log_end > GameSeat.log_start,  # an empty span shares no bytes
                        )
                        .order_by(GameSeat.game_id)
                    )
                )
        return SeatLog(owner.user_id, owner.number, values, tuple(overlapping))

    def of_version(self, version_id: int, limit: int = 10) -> list[str]:
        """The ids of the last ``limit`` games version ``version_id`` played, newest first."""
        with self.db.session() as s:
            return list(
                s.scalars(
                    select(GameSeat.game_id)
                    .where(GameSeat.version_id == version_id)
                    .order_by(GameSeat.game_id.desc())
                    .limit(limit)
                )
            )


@dataclass(frozen=True, slots=True)
class SeatLog:
    user_id: int
    number: int  # the version's number (v3)
    values: dict[str, int | None]  # the seat's ``log_*`` columns
    overlapping: tuple[str, ...]
