"""Several ``arena serve`` processes on one PostgreSQL database (docs/server.md, "Deployment").

Every process may serve pages and the API, run checks and play ladder games (``--role`` narrows it); they
agree through the database alone, never through each other:

- **Game numbers.** A game is numbered ``max(seq) + 1`` inside the transaction that stores it, after taking
  a transaction-scoped advisory lock (``pg_advisory_xact_lock``), so two processes storing at once are
  numbered one after the other, and each game's transaction commits before the next number is given. So
  the numbers have no gaps and are committed in order, which the board needs: it reads only the games
  numbered after its last look (``arena.server.board``), and a smaller number committed later would be
  skipped for ever. The lock is held for the milliseconds of one insert, never across a game.
- **Checks.** A version waiting for its check (``queued``, or ``checking`` by a process that died) is
  taken by the process that holds a session advisory lock on its id, on a connection of its own kept for
  the process's life: a crashed process's locks go with its connection, so its check is taken again by
  another, and no check runs twice at once.
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

from sqlalchemy import Connection, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session

from arena.errors import StoreError
from arena.event.deals import new_key, read_key_file, write_key_file
from arena.server.db import Database, guarded
from arena.server.models import Setting

NUMBERING_KEY = 0x45_75_63_68_72_65  # "Euchre": numbering stored games, and binding the deal key
CHECK_CLASS = 0x4575  # the first key of a check's two-key advisory lock (the second: the version's id)
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


def shared(db: Database) -> bool:
    """Whether several server processes may use this database at once."""
    return db.engine.dialect.name == "postgresql"


def numbering_lock(session: Session) -> None:
    """Serialise the numbering of stored games for this transaction (see the module's docstring)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": NUMBERING_KEY})


def deal_key(db: Database, directory: Path) -> bytes:
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
    """The versions this process is checking, each held by an advisory lock (see the module's docstring).

    On SQLite (one process) every claim succeeds and nothing is held.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self._connection: Connection | None = None

    def _conn(self) -> Connection:
        if self._connection is None:
            self._connection = self.db.engine.connect()
        return self._connection

    def claim(self, version_id: int) -> bool:
        """Take the version's check; False when another process holds it."""
        if not shared(self.db):
            return True
        with guarded("the database"):
            connection = self._conn()
            held = connection.execute(
                text("SELECT pg_try_advisory_lock(:a, :b)"), {"a": CHECK_CLASS, "b": version_id}
            ).scalar()
            connection.commit()
        return bool(held)

    def release(self, version_id: int) -> None:
        if not shared(self.db) or self._connection is None:
            return
        with guarded("the database"):
            self._connection.execute(
                text("SELECT pg_advisory_unlock(:a, :b)"), {"a": CHECK_CLASS, "b": version_id}
            )
            self._connection.commit()

    def close(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(SQLAlchemyError):
                self._connection.close()
            self._connection = None


def paused_setting(db: Database, key: str) -> bool | None:
    """A setting read again by every process (the ladder paused from another process's page)."""
    with db.session() as s:
        value = s.scalar(select(Setting.value).where(Setting.key == key))
    return None if value is None else value == "1"
