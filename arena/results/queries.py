"""The read model of a stored event: what the leaderboard, the listings, the replay and the report read.

Every read returns frozen values (``StoredGame``, ``GameSummary``, ``Fault`` ...), decoded and checked
here, so a reader never touches SQL or a row's JSON, and a damaged row is a ``StoreError`` that names it
rather than a ``KeyError`` somewhere in a view. The values carry the stored order of their fields, and
``to_dict`` gives a listing the exact keys it has always printed.

``Queries.open`` opens an event read-only, for the commands that only read (they take no lock and work
on a running event, whose writer's transactions keep every game whole). The store (``arena.results.store``)
is a ``Queries`` too: the conductor reads back what it wrote on the same connection.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ConfigError, FaultKind, StoreError
from arena.results.database import DB_NAME, Database, damaged, decode
from arena.results.record import Fault, ScheduledGame
from arena.stats.collusion_sides import HandSides, hand_sides
from arena.stats.latency import merge
from arena.stats.leaderboard import RankingConfig, SeatTotals
from arena.stats.rating import RatedGame

__all__ = [
    "EntrantRow",
    "EventInfo",
    "Fault",  # defined with the other stored values (arena.results.record); read back here, with its seq
    "GameSummary",
    "Queries",
    "SeatTotals",  # defined by the leaderboard that sums them up, like the ratings' RatedGame
    "StoredGame",
    "StoredHand",
    "require_database",
]


@dataclass(frozen=True, slots=True)
class EntrantRow:
    """An entrant as the event stored it: its name, how it is played (``kind``, ``target``), house bot."""

    name: str
    kind: str
    target: str
    house: bool


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One played game without its hands: where it sat in the schedule, who sat where, how it ended.

    Per-seat values are in seat order; ``winners`` and ``forfeited`` are seat numbers, ``excluded`` the
    names the game was not rated for; ``hands`` and ``faults`` are counts.
    """

    seq: int
    game_id: str
    round: int
    table: int
    block: str
    rotation: int
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    forfeited: tuple[int, ...]
    excluded: tuple[str, ...]
    rated: bool
    termination: str
    decisions: int
    hands: int
    wall_s: float
    faults: int


@dataclass(frozen=True, slots=True)
class StoredGame:
    """Everything stored about one game, its hand records (format v1, docs/hand-record.md) and faults.

    ``keyed_deals``: the event dealt from its public seeds and a secret key (``arena.event.deals``), so
    ``seed`` alone does not give the cards.
    """

    game_id: str
    seq: int
    round: int
    table: int
    block: str
    rotation: int
    seed: int
    keyed_deals: bool
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    forfeited: tuple[int, ...]
    termination: str
    hands_played: int
    decisions: int
    hands: tuple[dict[str, Any], ...]
    faults: tuple[Fault, ...]


@dataclass(frozen=True, slots=True)
class StoredHand:
    """One hand record (format v1) and the game it was played in."""

    game_id: str
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class EventInfo:
    """What the report's heading says of the event, from its stored settings and schedule."""

    name: str
    variant: str
    num_players: int | None
    seed: int | None
    duplicate: bool
    games_played: int
    games_scheduled: int
    faults_policy: dict[str, Any]


_FAULT_COLUMNS = (
    "f.game_id, s.seq, f.entrant, f.seat, f.hand_index, f.decision_id, f.kind, f.detail, f.elapsed_ms, "
    "f.substitute"
)


class Queries:
    """The reads of one event's database (``Queries.open(directory)``; use as a context manager)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    @property
    def path(self) -> Path:
        return self.database.path

    @classmethod
    def open(cls, directory: str | Path) -> Queries:
        """The event in ``directory``, read-only.

        :raises ConfigError: ``directory`` is a file, or holds no event.
        :raises StoreError: its database is not ours, damaged or locked.
        """
        directory = Path(directory)
        path = require_database(directory)
        return cls(Database.open(path, readonly=True, new=False))

    def __enter__(self) -> Queries:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.database.close()

    # ------------------------------------------------------------------ the event

    def meta(self, key: str) -> Any:
        row = self.database.one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else decode(row[0], f"{self.path}: meta {key!r}")

    def ranking(self) -> RankingConfig:
        """The stored event's ``[ranking]`` settings (the defaults for events stored before them)."""
        raw = (self.meta("config") or {}).get("ranking") or {}
        return RankingConfig.from_stored(raw) if isinstance(raw, dict) else RankingConfig()

    def event_seed(self) -> int:
        """The stored event's seed (it seeds the leaderboard's bootstrap)."""
        return int((self.meta("fingerprint") or {}).get("seed", 0))

    def event_info(self) -> EventInfo:
        """The event's name, variant, seed and fault policy as its stored config gives them, with how many
        of its games are played (the name falls back to the directory's)."""
        config = self.meta("config") or {}
        game = config.get("game", {})
        return EventInfo(
            name=config.get("name", str(self.path.parent.name)),
            variant=game.get("variant", "?"),
            num_players=game.get("num_players"),
            seed=config.get("seed"),
            duplicate=bool(config.get("duplicate")),
            games_played=len(self.finished()),
            games_scheduled=len(self.schedule()),
            faults_policy=config.get("faults", {}),
        )

    def entrants(self) -> list[EntrantRow]:
        rows = self.database.rows("SELECT name, kind, target, house FROM entrants ORDER BY rowid")
        return [EntrantRow(n, k, t, bool(h)) for n, k, t, h in rows]

    def schedule(self) -> list[ScheduledGame]:
        rows = self.database.rows(
            "SELECT seq, game_id, round, table_no, block, rotation, seed, seats FROM schedule ORDER BY seq"
        )
        return [
            ScheduledGame(s, g, r, t, b, rot, seed, tuple(decode(seats, f"{self.path}: schedule of {g}")))
            for s, g, r, t, b, rot, seed, seats in rows
        ]

    def finished(self) -> set[str]:
        return {row[0] for row in self.database.rows("SELECT game_id FROM games")}

    def game_ids(self) -> list[str]:
        return [r[0] for r in self.database.rows("SELECT game_id FROM games ORDER BY seq")]

    def disqualified(self) -> dict[str, str]:
        return dict(self.database.rows("SELECT entrant, reason FROM disqualified"))

    # ------------------------------------------------------------------ the games, for the statistics

    def rated_games(self, after: int = -1) -> Iterator[RatedGame]:
        """Every stored game in schedule order (only those after schedule place ``after``: what a running
        tally has not seen yet), read as it is consumed (an event may hold many)."""
        rows = self.database.rows(
            "SELECT g.seq, g.game_id, g.seats, g.ranks, g.scores, g.forfeited, g.rated, g.excluded, s.block, "
            "g.hands FROM games g JOIN schedule s ON s.game_id = g.game_id WHERE g.seq > ? ORDER BY g.seq",
            (after,),
        )
        for seq, game_id, seats, ranks, scores, forfeited, rated, excluded, block, hands in rows:
            where = f"{self.path}: game {game_id}"
            names = tuple(decode(seats, where))
            try:
                yield RatedGame(
                    seq,
                    game_id,
                    names,
                    tuple(decode(ranks, where)),
                    tuple(decode(scores, where)),
                    tuple(names[s] for s in decode(forfeited, where)),
                    bool(rated),
                    tuple(decode(excluded, where)),
                    block,
                    hands,
                )
            except (TypeError, IndexError):
                raise damaged(where) from None

    def hand_sides(self) -> dict[str, list[HandSides]]:
        """Each stored game's hands as the collusion check's test on sides reads them, by game id: who made
        trump, the maker's partner and who sat out (-1: none), and each seat's points
        (``arena.stats.collusion_sides``)."""
        out: dict[str, list[HandSides]] = {}
        rows = self.database.rows(
            "SELECT game_id, hand_index, record FROM hands ORDER BY game_id, hand_index"
        )
        for game_id, hand_index, text in rows:
            where = f"{self.path}: game {game_id}, hand {hand_index}"
            try:
                out.setdefault(game_id, []).append(hand_sides(decode(text, where)))
            except (TypeError, KeyError, ValueError):
                raise damaged(where) from None
        return out

    def seat_totals(self) -> dict[str, SeatTotals]:
        """Per entrant: games, wins, points, maker hands, maker made, forfeits, faults (from stored games)."""
        rows = self.database.rows(
            "SELECT entrant, COUNT(*), SUM(rank = 1), SUM(score), SUM(maker_hands), SUM(maker_made), "
            "SUM(forfeited), SUM(faults) FROM game_seats GROUP BY entrant"
        )
        return {row[0]: SeatTotals(*(int(v or 0) for v in row[1:])) for row in rows}

    def fault_counts(self) -> dict[str, int]:
        """All recorded faults per entrant (harness faults included, which never count towards forfeits)."""
        return dict(self.database.rows("SELECT entrant, COUNT(*) FROM faults GROUP BY entrant"))

    def charged_fault_counts(self) -> dict[str, int]:
        """Faults per entrant charged to the bot: ``harness`` faults (the arena was late) left out."""
        return dict(
            self.database.rows(
                "SELECT entrant, COUNT(*) FROM faults WHERE kind != 'harness' GROUP BY entrant"
            )
        )

    def latency_histograms(self) -> dict[str, Counter[int]]:
        """Per entrant, the merged histogram of its decision times (empty for events stored before
        latencies were recorded)."""
        rows: dict[str, list[dict[int, int]]] = {}
        query = "SELECT game_id, entrant, histogram FROM latency WHERE game_id IN (SELECT game_id FROM games)"
        for game_id, entrant, text in self.database.rows(query):
            where = f"{self.path}: latency of game {game_id}"
            try:
                hist = {int(k): int(v) for k, v in decode(text, where).items()}
            except (AttributeError, TypeError, ValueError):
                raise damaged(where) from None
            rows.setdefault(entrant, []).append(hist)
        return {entrant: merge(hists) for entrant, hists in rows.items()}

    def decision_times(self) -> dict[str, list[list[float]]]:
        """Per game, each seat's answered decisions' times in ms, in the order asked (none for games stored
        before they were kept: the table is missing, or the game has no row)."""
        tables = {r[0] for r in self.database.rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "decision_times" not in tables:
            return {}
        out: dict[str, list[list[float]]] = {}
        for game_id, text in self.database.rows("SELECT game_id, times FROM decision_times"):
            where = f"{self.path}: decision times of game {game_id}"
            try:
                out[game_id] = [[float(t) for t in seat] for seat in decode(text, where)]
            except (TypeError, ValueError):
                raise damaged(where) from None
        return out

    # ------------------------------------------------------------------ the games, for views and the report

    def game(self, game_id: str) -> StoredGame | None:
        """Everything stored about one game (for ``arena replay``), or None if it was not played."""
        row = self.database.one(
            "SELECT seq, seats, scores, ranks, winners, forfeited, outcome, decisions FROM games "
            "WHERE game_id = ?",
            (game_id,),
        )
        if row is None:
            return None
        seq, seats, scores, ranks, winners, forfeited, outcome, decisions = row
        sched = self.database.one(
            "SELECT round, table_no, block, rotation, seed FROM schedule WHERE game_id = ?", (game_id,)
        )
        where = f"{self.path}: game {game_id}"
        hands = tuple(
            decode(r[0], where)
            for r in self.database.rows(
                "SELECT record FROM hands WHERE game_id = ? ORDER BY hand_index", (game_id,)
            )
        )
        faults = tuple(
            self._fault(r)
            for r in self.database.rows(
                f"SELECT {_FAULT_COLUMNS} FROM faults f JOIN schedule s USING (game_id) "
                "WHERE f.game_id = ? ORDER BY f.id",
                (game_id,),
            )
        )
        if sched is None:
            raise StoreError(f"{where} is not in the schedule: the database is damaged")
        ended = decode(outcome, where)
        lists = [decode(v, where) for v in (seats, scores, ranks, winners, forfeited)]
        try:
            return StoredGame(
                game_id=game_id,
                seq=seq,
                round=sched[0],
                table=sched[1],
                block=sched[2],
                rotation=sched[3],
                seed=sched[4],
                keyed_deals=self.meta("deal_key_check") is not None,
                seats=tuple(lists[0]),
                scores=tuple(lists[1]),
                ranks=tuple(lists[2]),
                winners=tuple(lists[3]),
                forfeited=tuple(lists[4]),
                termination=ended["termination"],
                hands_played=ended["hands_played"],
                decisions=decisions,
                hands=hands,
                faults=faults,
            )
        except (TypeError, KeyError):
            raise damaged(where) from None

    def games_overview(self) -> list[GameSummary]:
        """Every played game in schedule order with its seats, scores, ranks, outcome and fault count."""
        faults = dict(self.database.rows("SELECT game_id, COUNT(*) FROM faults GROUP BY game_id"))
        rows = self.database.rows(
            "SELECT g.seq, g.game_id, s.round, s.table_no, s.block, s.rotation, g.seats, g.scores, g.ranks, "
            "g.winners, g.forfeited, g.excluded, g.rated, g.outcome, g.decisions, g.hands, g.wall_s "
            "FROM games g JOIN schedule s USING (game_id) ORDER BY g.seq"
        )
        out = []
        for row in rows:
            seq, game_id, round_, table, block, rotation, *lists, rated, outcome, decisions, hands, wall_s = (
                row
            )
            where = f"{self.path}: game {game_id}"
            values = [decode(v, where) for v in lists]
            ended = decode(outcome, where)
            try:
                seats, scores, ranks, winners, forfeited, excluded = (tuple(v) for v in values)
                termination = ended["termination"]
            except (TypeError, KeyError):
                raise damaged(where) from None
            out.append(
                GameSummary(
                    seq=seq,
                    game_id=game_id,
                    round=round_,
                    table=table,
                    block=block,
                    rotation=rotation,
                    seats=seats,
                    scores=scores,
                    ranks=ranks,
                    winners=winners,
                    forfeited=forfeited,
                    excluded=excluded,
                    rated=bool(rated),
                    termination=termination,
                    decisions=decisions,
                    hands=hands,
                    wall_s=wall_s,
                    faults=faults.get(game_id, 0),
                )
            )
        return out

    def all_faults(self) -> list[Fault]:
        """Every recorded fault (harness faults included: ``charged`` tells them apart), in the order of the
        schedule and then of recording."""
        rows = self.database.rows(
            f"SELECT {_FAULT_COLUMNS} FROM faults f JOIN schedule s USING (game_id) ORDER BY s.seq, f.id"
        )
        return [self._fault(row) for row in rows]

    def hand_records(self) -> Iterator[StoredHand]:
        """Every stored hand record with its game, in schedule order, read as it is consumed."""
        rows = self.database.rows(
            "SELECT h.game_id, h.hand_index, h.record FROM hands h JOIN games g USING (game_id) "
            "ORDER BY g.seq, h.hand_index"
        )
        for game_id, index, record in rows:
            yield StoredHand(game_id, decode(record, f"{self.path}: hand {index} of game {game_id}"))

    def _fault(self, row: tuple[Any, ...]) -> Fault:
        game_id, seq, entrant, seat, hand_index, decision_id, kind, detail, elapsed_ms, substitute = row
        try:
            known = FaultKind(kind)
        except ValueError:
            raise StoreError(
                f"{self.path}: a fault of game {game_id} is damaged (unknown kind {kind!r})"
            ) from None
        return Fault(
            entrant, game_id, seat, hand_index, decision_id, known, detail, elapsed_ms, substitute, seq
        )


def require_database(directory: Path) -> Path:
    """The database file of the event in ``directory``, which must exist.

    :raises ConfigError: ``directory`` is a file, holds no event, or its database is not a file.
    """
    path = directory / DB_NAME
    if not path.exists():
        if directory.exists() and not directory.is_dir():
            raise ConfigError(f"{str(directory)!r} is a file, not an event's output directory")
        raise ConfigError(f"{str(directory)!r} holds no event results (no {DB_NAME})")
    if not path.is_file():
        raise ConfigError(f"{str(path)!r} is not a file")
    return path
