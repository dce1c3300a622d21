"""Several ``arena serve`` processes on one PostgreSQL database (docs/server.md, "Deployment").

Every process may serve pages and the API, run checks and play ladder games (``--role`` narrows it); they
agree through the database alone, never through each other:

- **Game numbers.** A game is numbered ``max(seq) + 1`` inside the transaction that stores it, after taking
  a transaction-scoped advisory lock (``pg_advisory_xact_lock``), so two processes storing at once are
  numbered one after the other, and each game's transaction commits before the next number is given. So
  the numbers have no gaps and are committed in order, which the board needs: it reads only the games
  numbered after its last look (``arena.server.ladder.ratings``), and a smaller number committed later would
  be skipped for ever. The lock is held for the milliseconds of one insert, never across a game.
- **Checks.** A version waiting for its check (``queued``, or ``checking`` by a process that died) is
  taken by the process that holds a session advisory lock on its id, on a connection of its own kept for
  the process's life: a crashed process's locks go with its connection, so its check is taken again by
  another, and no check runs twice at once.
- **Game counts.** The matchmaker's fewest-games rule counts every process's games: each look (every
  2 s) reads the games stored since the last one in one aggregate (``seq`` only grows, with no gap, so the
  rows after the last seen are exactly the new ones), and adds this process's games stored since and in
  flight (:class:`GameCounts`). Another process's games in flight, and those it stored since this one's
  last look, are not seen: the counts differ by at most those.
- **Log files.** Each playing process writes its bots' stderr into a directory of its own,
  ``logs/ladder/pN/`` (N: the lowest number whose advisory lock it could take, held for its life, so a
  restart takes up its former directory again and two live processes never share one), so a game's span
  holds only its own process's bot's lines; the pages find a span's file by its inode among all of them.
- **Matches and challenges.** A running plan (``arena.server.matches.service``) is played by the one process
  that holds a session advisory lock on its id; every playing process looks for plans every 2 s, so one
  asked on a web process is taken by a playing one, and one whose process died is taken over and resumed
  where its stored games end (a game is stored once: its match and place are the table's key).
- **Finals.** A running final (``arena.server.finals.service``) is played by the one process holding an
  advisory lock on its number; every other playing process finds it in the shared directory within half a
  second and holds its tables (rated and unrated) until it ends, and takes it over (resuming it) if its player
  dies.
- **One deal key.** Every process must deal with the same secret key, so the first one to start records
  the key's SHA-256 in ``settings`` and a process whose ``deal.key`` differs is refused (it was given
  another directory than the others: the data directory must be shared, see the docs).

SQLite stays one process (its directory's lock refuses a second): a second writer on one file would wait
on the file's lock, on the event loop the games share; the PostgreSQL path exists for that.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
from pathlib import Path

from sqlalchemy import Connection, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session

from arena.errors import StoreError
from arena.event.deals import new_key, read_key_file, write_key_file
from arena.server.db.database import ServerDatabase, guarded
from arena.server.db.models import Game, GameSeat, Setting

NUMBERING_KEY = 0x45_75_63_68_72_65  # "Euchre": numbering stored games, and binding the deal key
CHECK_CLASS = 0x4575  # the first key of a check's two-key advisory lock (the second: the version's id)
SLOT_CLASS = 0x4576  # a playing process's number, naming its log directory (the second key: the number)
PLAN_CLASS = 0x4577  # a match's or challenge's player (the second key: the plan's id)
FINAL_CLASS = 0x4578  # a final's player (the second key: the final's number)
LOOK_S = 2.0  # how often a process reads what others changed: the field, the pause, counts, plans
DEAL_KEY = "deal_key_sha256"


class Role(enum.StrEnum):
    """What one process does (``arena serve --role``): a web process takes the pages' load off the
    processes that play, whose event loop the games share."""

    ALL = "all"  # pages, API, checks and ladder games: the default, and SQLite's only role
    WEB = "web"  # pages and API only
    LADDER = "ladder"  # checks and ladder games (and the pages too, for a health check behind the proxy)

    @property
    def plays(self) -> bool:
        return self is not Role.WEB


def shared(db: ServerDatabase) -> bool:
    """Whether several server processes may use this database at once."""
    return db.engine.dialect.name == "postgresql"


def numbering_lock(session: Session) -> None:
    """Serialise the numbering of stored games for this transaction (see the module's docstring)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": NUMBERING_KEY})


def deal_key(db: ServerDatabase, directory: Path) -> bytes:
    """The directory's deal key, made if missing, and checked against the one this database's games were
    dealt with (its SHA-256, recorded by the first process): all under the numbering lock, so that two
    processes starting at once on an empty directory cannot make two keys.

    :raises StoreError: the directory's key is not the database's (another directory than the others').
    """
    with db.session() as s:
        numbering_lock(s)
        key = read_key_file(directory)
        if key is None:
            key = new_key()
            write_key_file(directory, key)
        digest = hashlib.sha256(key).hexdigest()
        found = s.get(Setting, DEAL_KEY)
        if found is None:
            s.add(Setting(key=DEAL_KEY, value=digest))
        elif found.value != digest:
            raise StoreError(
                f"the deal key in {str(directory)!r} is not the one this database's games were dealt with: "
                "every arena serve on one database needs the same data directory (docs/server.md, Deployment)"
            )
    return key


def url_is_shared(url: str) -> bool:
    """Whether the database at ``url`` is one several processes may share (before it is opened)."""
    try:
        return make_url(url).get_backend_name() == "postgresql"
    except (ArgumentError, ValueError):
        return False  # open_database says what is wrong with it


class CheckClaims:
    """This process's advisory locks, on a connection kept for its life (see the module's docstring): the
    versions it is checking, the matches and challenges and the final it plays, and its log directory's
    number. A session lock is counted per taking, so each is taken once and let go once.

    On SQLite (one process) every claim succeeds and nothing is held.
    """

    def __init__(self, db: ServerDatabase) -> None:
        self.db = db
        self._connection: Connection | None = None

    def _conn(self) -> Connection:
        if self._connection is None:
            self._connection = self.db.engine.connect()
        return self._connection

    def _try(self, first: int, second: int) -> bool:
        with guarded("the database"):
            connection = self._conn()
            held = connection.execute(
                text("SELECT pg_try_advisory_lock(:a, :b)"), {"a": first, "b": second}
            ).scalar()
            connection.commit()
        return bool(held)

    def _unlock(self, first: int, second: int) -> None:
        if self._connection is None:
            return
        with guarded("the database"):
            self._connection.execute(text("SELECT pg_advisory_unlock(:a, :b)"), {"a": first, "b": second})
            self._connection.commit()

    def claim(self, version_id: int) -> bool:
        """Take the version's check; False when another process holds it."""
        return not shared(self.db) or self._try(CHECK_CLASS, version_id)

    def release(self, version_id: int) -> None:
        if shared(self.db):
            self._unlock(CHECK_CLASS, version_id)

    def claim_plan(self, plan_id: int) -> bool:
        """Take a match or challenge to play (a lock is counted per taking: take each once, see
        ``arena.server.matches.service``); False when another process plays it."""
        return not shared(self.db) or self._try(PLAN_CLASS, plan_id)

    def release_plan(self, plan_id: int) -> None:
        if shared(self.db):
            self._unlock(PLAN_CLASS, plan_id)

    def claim_final(self, number: int) -> bool:
        """Take the final ``number`` to play; False when another process plays it."""
        return not shared(self.db) or self._try(FINAL_CLASS, number)

    def release_final(self, number: int) -> None:
        if shared(self.db):
            self._unlock(FINAL_CLASS, number)

    def slot(self) -> str | None:
        """This playing process's log directory's name (``p1``, ``p2``, ...: the lowest free number, kept for
        the process's life), or None on SQLite (one process: ``logs/ladder/`` itself)."""
        if not shared(self.db):
            return None
        number = 1
        while not self._try(SLOT_CLASS, number):
            number += 1
        return f"p{number}"

    def close(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(SQLAlchemyError):
                self._connection.close()
            self._connection = None


def paused_setting(db: ServerDatabase, key: str) -> bool | None:
    """A setting read again by every process (the ladder paused from another process's page)."""
    with db.session() as s:
        value = s.scalar(select(Setting.value).where(Setting.key == key))
    return None if value is None else value == "1"


class GameCounts:
    """Each ladder name's games, as the matchmaker's fewest-games rule counts them (see the module's
    docstring): every process's stored games as of the last look, plus this process's stored since and
    in flight."""

    def __init__(self, db: ServerDatabase) -> None:
        self.db = db
        self.stored: dict[str, int] = {}
        self.last_seq = 0
        self.mine: dict[str, int] = {}  # this process's games stored since the last look
        self.flying: dict[str, int] = {}  # this process's games in flight
        self.look()

    def look(self) -> None:
        """Read the games stored (by any process) since the last look: one aggregate of the new rows."""
        with self.db.session() as s:
            top = s.scalar(select(func.max(Game.seq))) or 0
            if top > self.last_seq:
                rows = s.execute(
                    select(GameSeat.name, func.count())
                    .join(Game, Game.id == GameSeat.game_id)
                    .where(Game.seq > self.last_seq, Game.seq <= top)
                    .group_by(GameSeat.name)
                ).all()
                for name, n in rows:
                    self.stored[name] = self.stored.get(name, 0) + int(n)
                self.last_seq = top
        self.mine = {}

    def of(self, name: str) -> int:
        return self.stored.get(name, 0) + self.mine.get(name, 0) + self.flying.get(name, 0)

    def started(self, names: tuple[str, ...]) -> None:
        for n in names:
            self.flying[n] = self.flying.get(n, 0) + 1

    def ended(self, names: tuple[str, ...], stored: bool) -> None:
        """A game of this process ended: stored (counted until the next look reads it) or lost."""
        for n in names:
            self.flying[n] -= 1
            if stored:
                self.mine[n] = self.mine.get(n, 0) + 1
