"""Tournament results in SQLite: the writes and the resume of an event (entrants, schedule, games, hand
records, faults, disqualifications, identities, rating history). Reads are ``arena.results.queries``, which
a ``Store`` is too; the file checks and SQLite's errors are ``arena.results.database``.

Crash safety comes from two rules. Each finished game is written in one transaction (games, seats, hands
and faults together), so a game is either wholly stored or absent. And nothing derived is trusted across a
restart: ratings are recomputed from the stored games in schedule order. Killing the arena at any moment,
``kill -9`` included, therefore loses at most the games in flight, and resuming plays exactly those.
The database runs in WAL mode, which survives the death of the writing process.

The ``schedule`` table's ``seed`` is each game's *public* seed. The cards are dealt from it and the event's
secret key (``arena/event/deals.py``), which is kept out of this database, in ``deal.key``: a bot that read
this file could not rebuild a deal. Deal seeds are not stored either, even for played games: in a duplicate
event the later rotations of a block share their deal seed with the first one.

What is wrong with the event's database file (not ours, empty, truncated, damaged, read-only, locked, full)
is a ``StoreError`` naming the file; what is wrong with the output directory the organiser chose (a file in
its way, a directory that cannot be created or written before any database is in it) is a ``ConfigError``,
as is a directory that holds another event.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena.errors import ConfigError, StoreError
from arena.results.database import DB_NAME, FORMAT, Database
from arena.results.outdir import DIR_MODE, create_private
from arena.results.queries import Queries, require_database
from arena.results.record import GameRecord, ScheduledGame
from arena.stats.rating import HistoryRow

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    name TEXT PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, house INTEGER NOT NULL,
    identity TEXT
);
CREATE TABLE IF NOT EXISTS schedule (
    seq INTEGER PRIMARY KEY, game_id TEXT NOT NULL UNIQUE, round INTEGER NOT NULL, table_no INTEGER NOT NULL,
    block TEXT NOT NULL, rotation INTEGER NOT NULL, seed INTEGER NOT NULL, seats TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY REFERENCES schedule(game_id), seq INTEGER NOT NULL, seats TEXT NOT NULL,
    scores TEXT NOT NULL, ranks TEXT NOT NULL, winners TEXT NOT NULL, forfeited TEXT NOT NULL,
    excluded TEXT NOT NULL, rated INTEGER NOT NULL, outcome TEXT NOT NULL, decisions INTEGER NOT NULL,
    hands INTEGER NOT NULL, wall_s REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS game_seats (
    game_id TEXT NOT NULL REFERENCES games(game_id), seat INTEGER NOT NULL, entrant TEXT NOT NULL,
    score INTEGER NOT NULL, rank INTEGER NOT NULL, forfeited INTEGER NOT NULL, maker_hands INTEGER NOT NULL,
    maker_made INTEGER NOT NULL, faults INTEGER NOT NULL, PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS hands (
    game_id TEXT NOT NULL REFERENCES games(game_id), hand_index INTEGER NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (game_id, hand_index)
);
CREATE TABLE IF NOT EXISTS faults (
    id INTEGER PRIMARY KEY, game_id TEXT NOT NULL, entrant TEXT NOT NULL, seat INTEGER NOT NULL,
    hand_index INTEGER NOT NULL, decision_id INTEGER NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL,
    elapsed_ms REAL NOT NULL, substitute TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    seq INTEGER NOT NULL, game_id TEXT NOT NULL, entrant TEXT NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL,
    PRIMARY KEY (seq, entrant)
);
CREATE TABLE IF NOT EXISTS latency (
    game_id TEXT NOT NULL, seat INTEGER NOT NULL, entrant TEXT NOT NULL,
    decisions INTEGER NOT NULL, histogram TEXT NOT NULL, PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS decision_times (
    game_id TEXT PRIMARY KEY, times TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS disqualified (
    entrant TEXT PRIMARY KEY, after_game TEXT NOT NULL, reason TEXT NOT NULL
);
"""


def _discard_unborn(path: Path) -> None:
    """Remove the database this run created when it could not even hold the schema (a full disk): left
    empty, it would be refused on the next run as "empty, not an event's results" instead of being
    created again."""
    try:
        if path.stat().st_size == 0:
            for leftover in (path, path.with_name(path.name + "-journal")):
                leftover.unlink(missing_ok=True)
    except OSError:
        pass


def _insert_schedule(db: Database, games: Sequence[ScheduledGame]) -> None:
    db.executemany(
        "INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (g.seq, g.game_id, g.round, g.table, g.block, g.rotation, g.seed, json.dumps(g.seats))
            for g in games
        ],
    )


class Store(Queries):
    """One event's database, to run or resume the event: ``Store.open(directory)``, as a context manager.

    The conductor, the only writer, reads back what it wrote (what is done, totals, disqualifications)
    through the same connection, so a ``Store`` is also the event's ``Queries``.
    """

    def __init__(self, database: Database) -> None:
        super().__init__(database)
        if not database.readonly:
            try:
                self._apply_schema()
                database.execute("PRAGMA journal_mode=WAL")
                database.execute("PRAGMA synchronous=NORMAL")
                database.execute("PRAGMA foreign_keys=ON")
            except BaseException:
                database.close()
                raise

    def _apply_schema(self) -> None:
        """The schema and the format mark in one transaction: a file that exists is always recognisable.

        Nothing is written to a database that already has every table, so a run refused a moment later
        (another event, a damaged row) leaves the file exactly as it was.
        """
        tables = {r[0] for r in self.database.rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
        wanted = {w.split()[0] for w in SCHEMA.split("CREATE TABLE IF NOT EXISTS ")[1:]}
        if wanted <= tables and self.meta("format") == FORMAT:
            return
        with self.transaction() as db:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (json.dumps(FORMAT),))

    @classmethod
    def open(cls, directory: str | Path, create: bool = True, readonly: bool = False) -> Store:
        """The event database in ``directory``.

        :param create: make the directory and a new database if there is none.
        :param readonly: never write (implies not ``create``): for commands that only read
            (``Queries.open`` is the read model alone).
        :raises ConfigError: the directory cannot hold a database (a file in the way, cannot be created,
            not writable while it holds no database yet), or holds none and ``create`` is off.
        :raises StoreError: the database there is not ours, damaged, read-only or locked.
        """
        directory = Path(directory)
        path = directory / DB_NAME
        if (readonly or not create) and not path.exists():
            require_database(directory)  # says why there is none
        new = not path.exists()
        if not readonly:
            try:
                directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            except (FileExistsError, NotADirectoryError):
                raise ConfigError(
                    f"output directory {str(directory)!r} cannot be created: a file is in the way"
                ) from None
            except OSError as exc:
                raise ConfigError(
                    f"output directory {str(directory)!r} cannot be created: {exc.strerror or exc}"
                ) from None
            if not os.access(directory, os.W_OK):  # also catches a read-only file system, even for root
                if not new:
                    raise StoreError(
                        f"{str(path)!r} is read-only (file system or permissions of its directory): an "
                        "event cannot be run or resumed there"
                    )
                raise ConfigError(
                    f"output directory {str(directory)!r} is read-only (file system or permissions): an "
                    "event cannot be run or resumed there"
                )
        if path.exists() and not path.is_file():
            raise ConfigError(f"{str(path)!r} is not a file")
        if new and not readonly:
            create_private(path)  # SQLite gives the -wal and -shm files the database's mode
        try:
            return cls(Database.open(path, readonly=readonly, new=new))
        except BaseException:
            if new and not readonly:
                _discard_unborn(path)
            raise

    def __enter__(self) -> Store:
        return self

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """Statements that are stored together or not at all."""
        with self.database.transaction() as db:
            yield db

    # ------------------------------------------------------------------ the event

    def check_same_event(self, fingerprint: dict[str, Any], schedule: Sequence[ScheduledGame]) -> bool:
        """True when the directory holds this event already, False when it holds none.

        :raises ConfigError: the directory holds results of a different event (other seed, variant,
            entrants ...), which resuming would corrupt. More or fewer rounds are the same event.
        """
        stored = self.meta("fingerprint")
        if stored is None:
            return False
        # rounds may grow (see begin_event); stores from before that still hold them
        stored = {k: v for k, v in stored.items() if k != "rounds"}
        fingerprint = {k: v for k, v in fingerprint.items() if k != "rounds"}
        if stored != fingerprint:
            changed = sorted(k for k in set(stored) | set(fingerprint) if stored.get(k) != fingerprint.get(k))
            raise ConfigError(
                f"{str(self.path.parent)!r} holds results of a different event (changed: "
                f"{', '.join(changed)}); use another output directory, or restore the original settings "
                "to resume"
            )
        have, want = self.schedule(), list(schedule)
        common = min(len(have), len(want))
        if have[:common] != want[:common]:
            raise ConfigError(
                f"{str(self.path.parent)!r} was scheduled differently (by another version of the "
                "arena?); finish it with that version, or use another output directory"
            )
        return True

    def begin_event(
        self,
        fingerprint: dict[str, Any],
        config: dict[str, Any],
        schedule: Sequence[ScheduledGame],
        entrants: Sequence[tuple[str, str, str, bool]],
        deal_check: str | None = None,
    ) -> bool:
        """Record a new event, or check that a resumed one is the same event; returns True when resuming.

        A resumed event may have more rounds than stored (``--until-settled`` or a larger ``rounds``): the
        schedule of more rounds starts with the stored one (arena.event.schedule), so the extra games are
        added and every stored game stays as it was. With fewer rounds, the stored schedule is kept whole, so
        a resumed extension is finished rather than cut. Read the schedule to play from ``schedule()``.

        ``deal_check`` is the check value of the event's secret deal key (``arena.event.deals.key_check``),
        stored when it is given, so that a resumed event can tell its own key file; the key itself never
        enters the database.

        :raises ConfigError: the directory holds results of a different event.
        :raises StoreError: a stored game is damaged (found now, not after more games are played).
        """
        if self.check_same_event(fingerprint, schedule):
            for _ in self.rated_games():  # a damaged row is refused now, not after more games are played
                pass
            if self.meta("config") != config or (
                deal_check is not None and self.meta("deal_key_check") != deal_check
            ):
                with self.transaction() as db:
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('config', ?)", (json.dumps(config),))
                    if deal_check is not None:
                        check = json.dumps(deal_check)
                        db.execute("INSERT OR REPLACE INTO meta VALUES ('deal_key_check', ?)", (check,))
            have = len(self.schedule())
            if len(schedule) > have:
                with self.transaction() as db:
                    _insert_schedule(db, list(schedule)[have:])
            return True
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (json.dumps(FORMAT),))
            db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (json.dumps(fingerprint),))
            db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config),))
            if deal_check is not None:
                db.execute("INSERT INTO meta VALUES ('deal_key_check', ?)", (json.dumps(deal_check),))
            db.executemany(
                "INSERT INTO entrants VALUES (?, ?, ?, ?, NULL)",
                [(n, k, t, int(h)) for n, k, t, h in entrants],
            )
            _insert_schedule(db, schedule)
        return False

    def set_meta(self, key: str, value: Any) -> None:
        """Store a JSON value beside the event (e.g. the settings of ``arena match``)."""
        self.database.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def set_identity(self, entrant: str, identity: dict[str, Any]) -> None:
        self.database.execute(
            "UPDATE entrants SET identity = ? WHERE name = ?", (json.dumps(identity), entrant)
        )

    # ------------------------------------------------------------------ one game, one transaction

    def save_record(
        self, game: ScheduledGame, record: GameRecord, rated: bool, excluded: Sequence[str]
    ) -> None:
        """Store a game made into its record where it was played (``arena.results.record``): its row, its
        seats, hands, faults and latencies in one transaction, so that it is wholly stored or absent.

        :raises StoreError: the database refused it (nothing of the game is stored then).
        """
        result, seats = record.result, record.seats
        with self.transaction() as db:
            db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game.game_id,
                    game.seq,
                    json.dumps(game.seats),
                    json.dumps(result["scores"]),
                    json.dumps(result["ranks"]),
                    json.dumps(result["winners"]),
                    json.dumps(result["forfeited"]),
                    json.dumps(list(excluded)),
                    int(rated),
                    json.dumps(result["outcome"]),
                    result["decisions"],
                    len(record.hands),
                    result["wall_s"],
                ),
            )
            db.executemany(
                "INSERT INTO game_seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        game.game_id,
                        i,
                        s.entrant,
                        s.score,
                        s.rank,
                        int(s.forfeited),
                        s.maker_hands,
                        s.maker_made,
                        s.faults,
                    )
                    for i, s in enumerate(seats)
                ],
            )
            db.executemany(
                "INSERT INTO hands VALUES (?, ?, ?)",
                [(game.game_id, index, text) for index, text in record.hands],
            )
            db.executemany(
                "INSERT INTO faults (game_id, entrant, seat, hand_index, decision_id, kind, detail, "
                "elapsed_ms, substitute) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        f.game_id,
                        f.entrant,
                        f.seat,
                        f.hand_index,
                        f.decision_id,
                        f.kind.value,
                        f.detail,
                        f.elapsed_ms,
                        f.substitute,
                    )
                    for f in record.faults
                ],
            )
            db.executemany(
                "INSERT OR REPLACE INTO latency VALUES (?, ?, ?, ?, ?)",  # a game replayed replaces its times
                [
                    (game.game_id, seat, seats[seat].entrant, count, hist)
                    for seat, count, hist in record.latency
                ],
            )
            db.execute(
                "INSERT OR REPLACE INTO decision_times VALUES (?, ?)", (game.game_id, record.decision_times)
            )

    # ------------------------------------------------------------------ disqualification

    def disqualify(self, entrant: str, after_game: str, reason: str) -> None:
        self.database.execute(
            "INSERT OR IGNORE INTO disqualified VALUES (?, ?, ?)", (entrant, after_game, reason)
        )

    def forget_disqualified(self, entrants: Sequence[str], after_game: str) -> None:
        """Lift the disqualifications of ``entrants`` made at ``after_game`` (a resumed event tries the
        entrants that were not seated at its last start again; games already stored keep their marks)."""
        with self.transaction() as db:
            db.executemany(
                "DELETE FROM disqualified WHERE entrant = ? AND after_game = ?",
                [(name, after_game) for name in entrants],
            )

    # ------------------------------------------------------------------ the rating history

    @contextmanager
    def rating_history_writer(self, batch: int = 1000) -> Iterator[Callable[[HistoryRow], None]]:
        """Replace the stored rating history, in one transaction, with the rows passed to the function
        this yields (written in batches, so the history never has to be held in memory whole)."""
        pending: list[tuple[int, str, str, float, float]] = []
        with self.transaction() as db:
            db.execute("DELETE FROM ratings")

            def record(h: HistoryRow) -> None:
                pending.append((h.seq, h.game_id, h.entrant, h.mu, h.sigma))
                if len(pending) >= batch:
                    db.executemany("INSERT INTO ratings VALUES (?, ?, ?, ?, ?)", pending)
                    pending.clear()

            yield record
            db.executemany("INSERT INTO ratings VALUES (?, ?, ?, ?, ?)", pending)
