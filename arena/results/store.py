"""Tournament results in SQLite: entrants, schedule, games, hand records, faults, rating history.

Crash safety comes from two rules. Each finished game is written in one transaction (games, seats, hands
and faults together), so a game is either wholly stored or absent. And nothing derived is trusted across a
restart: ratings are recomputed from the stored games in schedule order. Killing the arena at any moment,
``kill -9`` included, therefore loses at most the games in flight, and resuming plays exactly those.
The database runs in WAL mode, which survives the death of the writing process.

The ``schedule`` table's ``seed`` is each game's *public* seed. The cards are dealt from it and the event's
secret key (``arena/event/deals.py``), which is kept out of this database, in ``deal.key``: a bot that read
this file could not rebuild a deal. Deal seeds are not stored either, even for played games: in a duplicate
event the later rotations of a block share their deal seed with the first one.

A file is trusted only once it proves to be ours: an empty, truncated, foreign or garbage file, or a row
that does not decode, is refused with a ``ConfigError`` naming the file, before anything is written to it.
Commands that only read (``leaderboard``, ``replay``) open the database read-only.
"""

from __future__ import annotations

import json
import os
import sqlite3
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.results.outdir import DIR_MODE, create_private
from arena.results.record import Fault, GameRecord, ScheduledGame, SeatStats, encode_hands, encode_latencies
from arena.stats.latency import merge
from arena.stats.leaderboard import RankingConfig
from arena.stats.rating import HistoryRow, RatedGame

FORMAT = "euchre-arena/results/v1"
DB_NAME = "event.sqlite"
SQLITE_MAGIC = b"SQLite format 3\x00"

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
CREATE TABLE IF NOT EXISTS disqualified (
    entrant TEXT PRIMARY KEY, after_game TEXT NOT NULL, reason TEXT NOT NULL
);
"""


def _insert_schedule(db: sqlite3.Connection, games: Sequence[ScheduledGame]) -> None:
    db.executemany(
        "INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (g.seq, g.game_id, g.round, g.table, g.block, g.rotation, g.seed, json.dumps(g.seats))
            for g in games
        ],
    )


class Store:
    """One event's database. Open with ``Store.open(directory)``; use as a context manager."""

    def __init__(self, path: Path, readonly: bool = False, new: bool | None = None) -> None:
        """Open ``path``; ``new`` says the file did not exist before (``open`` creates it empty and private
        first, so an empty file is new only when ``open`` says so)."""
        self.path = path
        self.readonly = readonly
        new = not path.exists() if new is None else new
        if not new:
            _check_file(path)
        try:
            self.db = _connect(path, readonly)
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot open {str(path)!r}: {exc}") from None
        try:
            if not new:
                self._check_ours()
            if not readonly:
                self._apply_schema()
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            self.db.close()
            if "readonly" in str(exc):
                raise ConfigError(
                    f"{str(path)!r} is read-only: an event cannot be run or resumed there ({exc})"
                ) from None
            raise ConfigError(f"{str(path)!r} is not a usable euchre-arena results database: {exc}") from None
        except BaseException:
            self.db.close()
            raise

    def _apply_schema(self) -> None:
        """The schema and the format mark in one transaction: a file that exists is always recognisable.

        Nothing is written to a database that already has every table, so a run refused a moment later
        (another event, a damaged row) leaves the file exactly as it was.
        """
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        wanted = {w.split()[0] for w in SCHEMA.split("CREATE TABLE IF NOT EXISTS ")[1:]}
        if wanted <= tables and self.meta("format") == FORMAT:
            return
        with self.transaction() as db:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (json.dumps(FORMAT),))

    def _check_ours(self) -> None:
        """Refuse a foreign SQLite file before anything is written to it."""
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                raise ConfigError(
                    f"{str(self.path)!r} is an SQLite database but not euchre-arena results (no meta table); "
                    "use another output directory"
                ) from None
            raise
        found = None if row is None else _json(row[0], f"{self.path}: meta 'format'")
        if found != FORMAT:
            raise ConfigError(f"{str(self.path)!r} holds {found!r}, not euchre-arena results ({FORMAT!r})")

    @classmethod
    def open(cls, directory: str | Path, create: bool = True, readonly: bool = False) -> Store:
        """The event database in ``directory``.

        :param create: make the directory and a new database if there is none.
        :param readonly: never write (implies not ``create``): for commands that only read.
        :raises ConfigError: the directory cannot hold a database, or the file there is not ours.
        """
        directory = Path(directory)
        path = directory / DB_NAME
        if (readonly or not create) and not path.exists():
            if directory.exists() and not directory.is_dir():
                raise ConfigError(f"{str(directory)!r} is a file, not an event's output directory")
            raise ConfigError(f"{str(directory)!r} holds no event results (no {DB_NAME})")
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
                raise ConfigError(
                    f"output directory {str(directory)!r} is read-only (file system or permissions): an "
                    "event cannot be run or resumed there"
                )
        if path.exists() and not path.is_file():
            raise ConfigError(f"{str(path)!r} is not a file")
        if new and not readonly:
            create_private(path)  # SQLite gives the -wal and -shm files the database's mode
        return cls(path, readonly=readonly, new=new)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ------------------------------------------------------------------ the event

    def meta(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else _json(row[0], f"{self.path}: meta {key!r}")

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

    def ranking(self) -> RankingConfig:
        """The stored event's ``[ranking]`` settings (the defaults for events stored before them)."""
        raw = (self.meta("config") or {}).get("ranking") or {}
        return RankingConfig.from_dict(raw) if isinstance(raw, dict) else RankingConfig()

    def event_seed(self) -> int:
        """The stored event's seed (it seeds the leaderboard's bootstrap)."""
        return int((self.meta("fingerprint") or {}).get("seed", 0))

    def set_meta(self, key: str, value: Any) -> None:
        """Store a JSON value beside the event (e.g. the settings of ``arena match``)."""
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def set_identity(self, entrant: str, identity: dict[str, Any]) -> None:
        self.db.execute("UPDATE entrants SET identity = ? WHERE name = ?", (json.dumps(identity), entrant))

    def entrants(self) -> list[tuple[str, str, str, bool]]:
        rows = self.db.execute("SELECT name, kind, target, house FROM entrants ORDER BY rowid")
        return [(n, k, t, bool(h)) for n, k, t, h in rows]

    def schedule(self) -> list[ScheduledGame]:
        rows = self.db.execute(
            "SELECT seq, game_id, round, table_no, block, rotation, seed, seats FROM schedule ORDER BY seq"
        )
        return [
            ScheduledGame(s, g, r, t, b, rot, seed, tuple(_json(seats, f"{self.path}: schedule of {g}")))
            for s, g, r, t, b, rot, seed, seats in rows
        ]

    def finished(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT game_id FROM games")}

    # ------------------------------------------------------------------ one game, one transaction

    def save_game(
        self,
        game: ScheduledGame,
        result: dict[str, Any],
        seats: Sequence[SeatStats],
        hands: Sequence[dict[str, Any]],
        faults: Sequence[Fault],
        rated: bool,
        excluded: Sequence[str],
        latencies_ms: Sequence[Sequence[float]] = (),
    ) -> None:
        """Store a finished game with its seats, hand records and faults, atomically; ``latencies_ms`` (per
        seat, the answered decisions' times) is kept as a histogram per seat (``arena.stats.latency``)."""
        self.save_encoded(
            game, result, seats, encode_hands(hands), faults, rated, excluded, encode_latencies(latencies_ms)
        )

    def save_record(
        self, game: ScheduledGame, record: GameRecord, rated: bool, excluded: Sequence[str]
    ) -> None:
        """Store a game made into its record where it was played (``arena.results.record``), atomically."""
        self.save_encoded(
            game, record.result, record.seats, record.hands, record.faults, rated, excluded, record.latency
        )

    def save_encoded(
        self,
        game: ScheduledGame,
        result: dict[str, Any],
        seats: Sequence[SeatStats],
        hands: Sequence[tuple[int, str]],
        faults: Sequence[Fault],
        rated: bool,
        excluded: Sequence[str],
        latency: Sequence[tuple[int, int, str]],
    ) -> None:
        """Store a game whose hands are JSON text already; latencies as (seat, decisions, histogram JSON)."""
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
                    len(hands),
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
                "INSERT INTO hands VALUES (?, ?, ?)", [(game.game_id, index, text) for index, text in hands]
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
                    for f in faults
                ],
            )
            db.executemany(
                "INSERT OR REPLACE INTO latency VALUES (?, ?, ?, ?, ?)",  # a game replayed replaces its times
                [(game.game_id, seat, seats[seat].entrant, count, hist) for seat, count, hist in latency],
            )

    def disqualify(self, entrant: str, after_game: str, reason: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO disqualified VALUES (?, ?, ?)", (entrant, after_game, reason))

    def disqualified(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT entrant, reason FROM disqualified"))

    def forget_disqualified(self, entrants: Sequence[str], after_game: str) -> None:
        """Lift the disqualifications of ``entrants`` made at ``after_game`` (a resumed event tries the
        entrants that were not seated at its last start again; games already stored keep their marks)."""
        with self.transaction() as db:
            db.executemany(
                "DELETE FROM disqualified WHERE entrant = ? AND after_game = ?",
                [(name, after_game) for name in entrants],
            )

    # ------------------------------------------------------------------ reading back

    def rated_games(self) -> Iterator[RatedGame]:
        """Every stored game in schedule order, read as it is consumed (an event may hold many)."""
        rows = self.db.execute(
            "SELECT g.seq, g.game_id, g.seats, g.ranks, g.scores, g.forfeited, g.rated, g.excluded, s.block, "
            "g.hands FROM games g JOIN schedule s ON s.game_id = g.game_id ORDER BY g.seq"
        )
        for seq, game_id, seats, ranks, scores, forfeited, rated, excluded, block, hands in rows:
            where = f"{self.path}: game {game_id}"
            names = tuple(_json(seats, where))
            try:
                yield RatedGame(
                    seq,
                    game_id,
                    names,
                    tuple(_json(ranks, where)),
                    tuple(_json(scores, where)),
                    tuple(names[s] for s in _json(forfeited, where)),
                    bool(rated),
                    tuple(_json(excluded, where)),
                    block,
                    hands,
                )
            except (TypeError, IndexError):
                raise ConfigError(f"{where} is damaged (a field has the wrong shape)") from None

    def seat_totals(self) -> dict[str, dict[str, int]]:
        """Per entrant: games, wins, points, maker hands, maker made, forfeits, faults (from stored games)."""
        rows = self.db.execute(
            "SELECT entrant, COUNT(*), SUM(rank = 1), SUM(score), SUM(maker_hands), SUM(maker_made), "
            "SUM(forfeited), SUM(faults) FROM game_seats GROUP BY entrant"
        )
        keys = ("games", "wins", "points", "maker_hands", "maker_made", "forfeits", "faults")
        return {row[0]: dict(zip(keys, (int(v or 0) for v in row[1:]), strict=True)) for row in rows}

    def fault_counts(self) -> dict[str, int]:
        """All recorded faults per entrant (harness faults included, which never count towards forfeits)."""
        return dict(self.db.execute("SELECT entrant, COUNT(*) FROM faults GROUP BY entrant"))

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

    def game(self, game_id: str) -> dict[str, Any] | None:
        """Everything stored about one game (for ``arena replay``), or None if it was not played."""
        row = self.db.execute(
            "SELECT seq, seats, scores, ranks, winners, forfeited, outcome, decisions FROM games "
            "WHERE game_id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        seq, seats, scores, ranks, winners, forfeited, outcome, decisions = row
        sched = self.db.execute(
            "SELECT round, table_no, block, rotation, seed FROM schedule WHERE game_id = ?", (game_id,)
        ).fetchone()
        where = f"{self.path}: game {game_id}"
        hands = [
            _json(r[0], where)
            for r in self.db.execute(
                "SELECT record FROM hands WHERE game_id = ? ORDER BY hand_index", (game_id,)
            )
        ]
        faults = [
            dict(
                zip(
                    (
                        "entrant",
                        "seat",
                        "hand_index",
                        "decision_id",
                        "kind",
                        "detail",
                        "elapsed_ms",
                        "substitute",
                    ),
                    r,
                    strict=True,
                )
            )
            for r in self.db.execute(
                "SELECT entrant, seat, hand_index, decision_id, kind, detail, elapsed_ms, "
                "substitute FROM faults WHERE game_id = ? ORDER BY id",
                (game_id,),
            )
        ]
        if sched is None:
            raise ConfigError(f"{where} is not in the schedule: the database is damaged")
        return {
            "game_id": game_id,
            "seq": seq,
            "round": sched[0],
            "table": sched[1],
            "block": sched[2],
            "rotation": sched[3],
            "seed": sched[4],
            "keyed_deals": self.meta("deal_key_check") is not None,
            "seats": _json(seats, where),
            "scores": _json(scores, where),
            "ranks": _json(ranks, where),
            "winners": _json(winners, where),
            "forfeited": _json(forfeited, where),
            "outcome": _json(outcome, where),
            "decisions": decisions,
            "hands": hands,
            "faults": faults,
        }

    def game_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT game_id FROM games ORDER BY seq")]

    # ------------------------------------------------------------------ reading for the views and the report
    # (arena/results/listings.py and arena/report/ read an event only through these, so they work on any
    # stored event)

    def games_overview(self) -> list[dict[str, Any]]:
        """Every played game in schedule order with its seats, scores, ranks, outcome and fault count."""
        faults = dict(self.db.execute("SELECT game_id, COUNT(*) FROM faults GROUP BY game_id"))
        rows = self.db.execute(
            "SELECT g.seq, g.game_id, s.round, s.table_no, s.block, s.rotation, g.seats, g.scores, g.ranks, "
            "g.winners, g.forfeited, g.excluded, g.rated, g.outcome, g.decisions, g.hands, g.wall_s "
            "FROM games g JOIN schedule s USING (game_id) ORDER BY g.seq"
        )
        keys = (
            "seq", "game_id", "round", "table", "block", "rotation", "seats", "scores", "ranks", "winners",
            "forfeited", "excluded", "rated", "outcome", "decisions", "hands", "wall_s",
        )  # fmt: skip
        out = []
        for row in rows:
            game = dict(zip(keys, row, strict=True))
            for key in ("seats", "scores", "ranks", "winners", "forfeited", "excluded", "outcome"):
                game[key] = json.loads(game[key])
            game["rated"] = bool(game["rated"])
            game["faults"] = faults.get(game["game_id"], 0)
            out.append(game)
        return out

    def all_faults(self) -> list[dict[str, Any]]:
        """Every recorded fault (harness faults included: callers tell them apart by ``kind``), in the
        order of the schedule and then of recording."""
        keys = (
            "game_id", "seq", "entrant", "seat", "hand_index", "decision_id", "kind", "detail", "elapsed_ms",
            "substitute",
        )  # fmt: skip
        rows = self.db.execute(
            "SELECT f.game_id, s.seq, f.entrant, f.seat, f.hand_index, f.decision_id, f.kind, f.detail, "
            "f.elapsed_ms, f.substitute FROM faults f JOIN schedule s USING (game_id) ORDER BY s.seq, f.id"
        )
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def charged_fault_counts(self) -> dict[str, int]:
        """Faults per entrant charged to the bot: ``harness`` faults (the arena was late) left out."""
        return dict(
            self.db.execute("SELECT entrant, COUNT(*) FROM faults WHERE kind != 'harness' GROUP BY entrant")
        )

    def latency_histograms(self) -> dict[str, Counter[int]]:
        """Per entrant, the merged histogram of its decision times (empty for events stored before
        latencies were recorded)."""
        rows: dict[str, list[dict[int, int]]] = {}
        query = "SELECT entrant, histogram FROM latency WHERE game_id IN (SELECT game_id FROM games)"
        for entrant, text in self.db.execute(query):
            rows.setdefault(entrant, []).append({int(k): v for k, v in json.loads(text).items()})
        return {entrant: merge(hists) for entrant, hists in rows.items()}

    def hand_records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every stored hand record as (game id, record), in schedule order, read as it is consumed."""
        rows = self.db.execute(
            "SELECT h.game_id, h.record FROM hands h JOIN games g USING (game_id) "
            "ORDER BY g.seq, h.hand_index"
        )
        for game_id, record in rows:
            yield game_id, json.loads(record)


def _json(text: Any, where: str) -> Any:
    """A stored JSON value, or a ``ConfigError`` that names where the damaged row is."""
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where} is damaged: not valid JSON ({exc})") from None


def _check_file(path: Path) -> None:
    """Cheap checks that catch an empty, garbage or truncated file before SQLite is let near it.

    SQLite would treat an empty file as a new database (and write our schema into it) and reports a
    truncated one only when a query reaches a missing page, possibly mid-event.
    """
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    if size == 0:
        raise ConfigError(
            f"{str(path)!r} is empty (0 bytes), not an event's results; remove it or use another output "
            "directory"
        )
    if not header.startswith(SQLITE_MAGIC) or len(header) < 100:
        raise ConfigError(f"{str(path)!r} is not an SQLite database (garbage or another kind of file)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    header_valid = header[24:28] == header[92:96]  # the page count is current (SQLite's own rule)
    if header_valid and pages and size < pages * page_size:
        raise ConfigError(f"{str(path)!r} is truncated ({size} bytes; its header says {pages * page_size})")


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    if not readonly:
        return sqlite3.connect(path, isolation_level=None, timeout=30)
    uri = "file:" + urllib.parse.quote(os.fspath(path.resolve()))
    db = sqlite3.connect(uri + "?mode=ro", uri=True, isolation_level=None, timeout=30)
    try:
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:
        # A WAL database in a directory we may not write needs its -shm file; without one, read the file
        # as it stands (immutable: SQLite then takes no locks and touches nothing).
        db.close()
        db = sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, isolation_level=None, timeout=30)
    return db
