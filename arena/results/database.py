"""The one place that talks to SQLite: proving a file is an event's database, and turning every SQLite
error into a ``StoreError`` that names the file.

The store (writes, resume) and the read model (``queries``) run every statement through
:class:`Database`, so no ``sqlite3`` exception reaches their callers, whichever statement meets the
damage: the organiser sees which file is wrong and what to do, not a driver's traceback. Errors in
streamed reads are translated as the rows are fetched, so a long listing that reaches a damaged page
mid-way still ends in one line.

A file is trusted only once it proves to be ours: an empty, truncated, foreign or garbage file is refused
before anything is written to it (SQLite would take an empty file for a new database and write a schema
into it, and would report a truncated one only when a query reaches the missing page, possibly mid-event).
"""

from __future__ import annotations

import json
import os
import sqlite3
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from arena.errors import StoreError

FORMAT = "euchre-arena/results/v1"
DB_NAME = "event.sqlite"
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 30.0
"""How long a statement waits for another process's lock before it is refused as locked (unless the
environment's ``ARENA_DB_WAIT_S`` says otherwise: a script that must not hang, a test)."""


def busy_timeout_s() -> float:
    """``ARENA_DB_WAIT_S`` if set, else ``BUSY_TIMEOUT_S``.

    :raises StoreError: it is set to anything but a number of seconds from 0 to 3600.
    """
    raw = os.environ.get("ARENA_DB_WAIT_S")
    if raw is None:
        return BUSY_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 3600:
        raise StoreError(f"ARENA_DB_WAIT_S must be a number of seconds from 0 to 3600, not {raw!r}")
    return value


def store_error(exc: sqlite3.Error, path: Path, doing: str) -> StoreError:
    """Our error for SQLite's ``exc`` met while ``doing`` ("opened", "read", "written") ``path``.

    Locked, read-only, full and damaged files each say so, since each asks the organiser for something
    else (wait, move the event, free space, restore a copy); the rest quote SQLite.
    """
    name = getattr(exc, "sqlite_errorname", None) or ""
    where = repr(str(path))
    if _locked(exc):
        return StoreError(f"{where} is locked by another process: try again once it is done ({exc})")
    if name.startswith("SQLITE_READONLY") or "readonly" in str(exc):
        return StoreError(f"{where} is read-only: an event cannot be run or resumed there ({exc})")
    if name.startswith("SQLITE_FULL"):
        return StoreError(
            f"{where} cannot be written: the disk is full ({exc}); the games stored are kept: free some "
            "space and run the same command to resume"
        )
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return StoreError(f"{where} is damaged: {exc}; restore it from a copy, or use another directory")
    if doing == "opened":
        return StoreError(f"{where} is not a usable euchre-arena results database: {exc}")
    return StoreError(f"{where}: the results database cannot be {doing}: {exc}")


def _locked(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", None) or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in str(exc)


def decode(text: Any, where: str) -> Any:
    """A stored JSON value, or a ``StoreError`` that names where the damaged row is."""
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{where} is damaged: not valid JSON ({exc})") from None


def damaged(where: str) -> StoreError:
    """A row that decodes but holds the wrong shape of value (a list where a number belongs ...)."""
    return StoreError(f"{where} is damaged (a field has the wrong shape)")


class Database:
    """An open event database; every statement's SQLite error comes out as a ``StoreError``."""

    def __init__(self, connection: sqlite3.Connection, path: Path, readonly: bool) -> None:
        self._db = connection
        self.path = path
        self.readonly = readonly

    @classmethod
    def open(cls, path: Path, readonly: bool, new: bool) -> Database:
        """Connect to ``path``; unless it is ``new`` (created empty and private just now), check first that
        it is an SQLite file and then that it holds euchre-arena results.

        :raises StoreError: the file is unreadable, empty, garbage, truncated, foreign or locked.
        """
        if not new:
            check_file(path)
        try:
            db = cls(_connect(path, readonly), path, readonly)
        except sqlite3.Error as exc:
            if _locked(exc):
                raise store_error(exc, path, "opened") from None
            raise StoreError(f"cannot open {str(path)!r}: {exc}") from None
        try:
            if not new:
                db.check_ours()
        except BaseException:
            db.close()
            raise
        return db

    def check_ours(self) -> None:
        """Refuse a foreign SQLite file before anything is written to it."""
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.Error as exc:
            if "no such table" in str(exc):
                raise StoreError(
                    f"{str(self.path)!r} is an SQLite database but not euchre-arena results (no meta table); "
                    "use another output directory"
                ) from None
            raise store_error(exc, self.path, "opened") from None
        found = None if row is None else decode(row[0], f"{self.path}: meta 'format'")
        if found != FORMAT:
            raise StoreError(f"{str(self.path)!r} holds {found!r}, not euchre-arena results ({FORMAT!r})")

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------------ reading

    def rows(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows of a query, fetched as they are consumed (an event may hold millions of them)."""
        try:
            cursor = self._db.execute(sql, params)
            while batch := cursor.fetchmany(256):
                yield from batch
        except sqlite3.Error as exc:
            raise store_error(exc, self.path, "read") from None

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self.rows(sql, params))

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        try:
            row: tuple[Any, ...] | None = self._db.execute(sql, params).fetchone()
        except sqlite3.Error as exc:
            raise store_error(exc, self.path, "read") from None
        return row

    # ------------------------------------------------------------------ writing

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        try:
            self._db.execute(sql, params)
        except sqlite3.Error as exc:
            raise store_error(exc, self.path, "written") from None

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            self._db.executemany(sql, rows)
        except sqlite3.Error as exc:
            raise store_error(exc, self.path, "written") from None

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """All of the block or none of it: any error inside (ours, SQLite's, an interrupt) rolls it back."""
        self.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            with suppress(sqlite3.Error):  # SQLite may have rolled back already (a full disk, an I/O error)
                self._db.execute("ROLLBACK")
            raise
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            with suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise store_error(exc, self.path, "written") from None


def check_file(path: Path) -> None:
    """Cheap checks that catch an empty, garbage or truncated file before SQLite is let near it.

    :raises StoreError: the file cannot be read, is empty, is not SQLite, or is shorter than its header says.
    """
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise StoreError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    if size == 0:
        raise StoreError(
            f"{str(path)!r} is empty (0 bytes), not an event's results; remove it or use another output "
            "directory"
        )
    if not header.startswith(SQLITE_MAGIC) or len(header) < 100:
        raise StoreError(f"{str(path)!r} is not an SQLite database (garbage or another kind of file)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    header_valid = header[24:28] == header[92:96]  # the page count is current (SQLite's own rule)
    if header_valid and pages and size < pages * page_size:
        # A checkpoint stopped by a full disk leaves the file short of its header, with the missing pages
        # still in the write-ahead log, which SQLite reads first: the database is whole.
        held = wal_pages(path.with_name(path.name + "-wal"), page_size)
        if not set(range(size // page_size + 1, pages + 1)) <= held:
            raise StoreError(
                f"{str(path)!r} is truncated ({size} bytes; its header says {pages * page_size})"
            )


WAL_MAGIC = (0x377F0682, 0x377F0683)
WAL_HEADER = 32
FRAME_HEADER = 24


def wal_pages(wal: Path, page_size: int) -> set[int]:
    """The page numbers held by the committed frames of the write-ahead log ``wal`` (none when there is no
    log, or it is not one).

    A frame counts when it is whole, carries the log header's salts (frames of an earlier log generation
    carry others) and is followed by a commit frame (one with the database's size after the commit); the
    frames' checksums are not recomputed, so a log damaged inside its frames passes here and is reported by
    SQLite when it reads the page. (SQLite's file format, "The Write-Ahead Log File Format".)
    """
    try:
        with wal.open("rb") as f:
            head = f.read(WAL_HEADER)
            if len(head) < WAL_HEADER or int.from_bytes(head[:4], "big") not in WAL_MAGIC:
                return set()
            if int.from_bytes(head[8:12], "big") != page_size:
                return set()
            salts = head[16:24]
            held: set[int] = set()
            pending: set[int] = set()
            while len(frame := f.read(FRAME_HEADER)) == FRAME_HEADER and frame[8:16] == salts:
                if len(f.read(page_size)) < page_size:
                    break
                pending.add(int.from_bytes(frame[:4], "big"))
                if int.from_bytes(frame[4:8], "big"):  # a commit frame: what came before it counts
                    held |= pending
                    pending = set()
            return held
    except OSError:
        return set()


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    if not readonly:
        return sqlite3.connect(path, isolation_level=None, timeout=busy_timeout_s())
    uri = "file:" + urllib.parse.quote(os.fspath(path.resolve()))
    db = sqlite3.connect(uri + "?mode=ro", uri=True, isolation_level=None, timeout=busy_timeout_s())
    try:
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as exc:
        db.close()
        if _locked(exc):
            raise  # another process holds it: reading around its lock would show a state it never had
        # A WAL database in a directory we may not write needs its -shm file; without one, read the file
        # as it stands (immutable: SQLite then takes no locks and touches nothing).
        db = sqlite3.connect(
            uri + "?mode=ro&immutable=1", uri=True, isolation_level=None, timeout=busy_timeout_s()
        )
    return db
