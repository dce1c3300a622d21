"""Tournament results in SQLite: entrants, schedule, games, hand records, faults, rating history.

Crash safety comes from two rules. Each finished game is written in one transaction (games, seats, hands
and faults together), so a game is either wholly stored or absent. And nothing derived is trusted across a
restart: ratings are recomputed from the stored games in schedule order. Killing the arena at any moment,
``kill -9`` included, therefore loses at most the games in flight, and resuming plays exactly those.
The database runs in WAL mode, which survives the death of the writing process.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.faults import Fault
from arena.rating import HistoryRow, RatedGame
from arena.schedule import ScheduledGame

FORMAT = "euchre-arena/results/v1"
DB_NAME = "event.sqlite"

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


@dataclass(frozen=True, slots=True)
class SeatStats:
    """Per-seat numbers of one game, computed when the game is stored."""

    entrant: str
    score: int
    rank: int
    forfeited: bool
    maker_hands: int
    maker_made: int
    faults: int


class Store:
    """One event's database. Open with ``Store.open(directory)``; use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)

    @classmethod
    def open(cls, directory: str | Path, create: bool = True) -> Store:
        directory = Path(directory)
        path = directory / DB_NAME
        if not create and not path.exists():
            raise ConfigError(f"{str(directory)!r} holds no event results (no {DB_NAME})")
        directory.mkdir(parents=True, exist_ok=True)
        return cls(path)

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
        return None if row is None else json.loads(row[0])

    def begin_event(
        self,
        fingerprint: dict[str, Any],
        config: dict[str, Any],
        schedule: Sequence[ScheduledGame],
        entrants: Sequence[tuple[str, str, str, bool]],
    ) -> bool:
        """Record a new event, or check that a resumed one is the same event; returns True when resuming.

        A resumed event may have more rounds than stored (``--until-settled`` or a larger ``rounds``): the
        schedule of more rounds starts with the stored one (arena.schedule), so the extra games are added
        and every stored game stays as it was. With fewer rounds, the stored schedule is kept whole, so a
        resumed extension is finished rather than cut. Read the schedule to play from ``schedule()``.

        :raises ConfigError: the directory holds results of a different event (other seed, variant,
            entrants ...), which resuming would corrupt.
        """
        stored = self.meta("fingerprint")
        if stored is not None:
            # rounds may grow (and stores from before that still hold them)
            stored = {k: v for k, v in stored.items() if k != "rounds"}
            fingerprint = {k: v for k, v in fingerprint.items() if k != "rounds"}
            if stored != fingerprint:
                changed = sorted(
                    k for k in set(stored) | set(fingerprint) if stored.get(k) != fingerprint.get(k)
                )
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
            with self.transaction() as db:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('config', ?)", (json.dumps(config),))
                _insert_schedule(db, want[len(have) :])
            return True
        with self.transaction() as db:
            db.execute("INSERT INTO meta VALUES ('format', ?)", (json.dumps(FORMAT),))
            db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (json.dumps(fingerprint),))
            db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config),))
            db.executemany(
                "INSERT INTO entrants VALUES (?, ?, ?, ?, NULL)",
                [(n, k, t, int(h)) for n, k, t, h in entrants],
            )
            _insert_schedule(db, schedule)
        return False

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
            ScheduledGame(s, g, r, t, b, rot, seed, tuple(json.loads(seats)))
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
    ) -> None:
        """Store a finished game with its seats, hand records and faults, atomically."""
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
                "INSERT INTO hands VALUES (?, ?, ?)",
                [(game.game_id, h["hand_index"], json.dumps(h, separators=(",", ":"))) for h in hands],
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

    def disqualify(self, entrant: str, after_game: str, reason: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO disqualified VALUES (?, ?, ?)", (entrant, after_game, reason))

    def disqualified(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT entrant, reason FROM disqualified"))

    # ------------------------------------------------------------------ reading back

    def rated_games(self) -> Iterator[RatedGame]:
        """Every stored game in schedule order, read as it is consumed (an event may hold many)."""
        rows = self.db.execute(
            "SELECT g.seq, g.game_id, g.seats, g.ranks, g.scores, g.forfeited, g.rated, g.excluded, s.block, "
            "g.hands FROM games g JOIN schedule s ON s.game_id = g.game_id ORDER BY g.seq"
        )
        for seq, game_id, seats, ranks, scores, forfeited, rated, excluded, block, hands in rows:
            names = tuple(json.loads(seats))
            yield RatedGame(
                seq,
                game_id,
                names,
                tuple(json.loads(ranks)),
                tuple(json.loads(scores)),
                tuple(names[s] for s in json.loads(forfeited)),
                bool(rated),
                tuple(json.loads(excluded)),
                block,
                hands,
            )

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
        hands = [
            json.loads(r[0])
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
        return {
            "game_id": game_id,
            "seq": seq,
            "round": sched[0],
            "table": sched[1],
            "block": sched[2],
            "rotation": sched[3],
            "seed": sched[4],
            "seats": json.loads(seats),
            "scores": json.loads(scores),
            "ranks": json.loads(ranks),
            "winners": json.loads(winners),
            "forfeited": json.loads(forfeited),
            "outcome": json.loads(outcome),
            "decisions": decisions,
            "hands": hands,
            "faults": faults,
        }

    def game_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT game_id FROM games ORDER BY seq")]
