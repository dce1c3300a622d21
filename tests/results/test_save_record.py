"""``Store.save_record``, the one way a game enters the store: all of the game or none of it, whatever
fails half-way (a full disk, a row SQLite refuses, a bad value in our own code), and the store goes on."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from arena.errors import StoreError
from arena.results.record import GameRecord, ScheduledGame
from arena.results.store import Store
from tests.results.stored_events import FAULTS, SCHEDULE, hand, make_record, tiny_event

TABLES = ("games", "game_seats", "hands", "faults", "latency", "decision_times")


def rows_of(store: Store, game_id: str) -> dict[str, int]:
    return {
        table: store.database.all(f"SELECT COUNT(*) FROM {table} WHERE game_id = ?", (game_id,))[0][0]
        for table in TABLES
    }


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tiny_event(tmp_path / "out"))


def g3_record(hands: int = 3) -> tuple[ScheduledGame, GameRecord]:
    """The unplayed game g3, each hand padded to about 3 kB."""
    game = SCHEDULE[2]
    records = [hand(i, 0, [1, 0, 0]) | {"padding": "x" * 3000} for i in range(hands)]
    return game, make_record(game, [10, 3, 2], [1, 2, 3], records, latencies_ms=[[5.0], [6.0], [7.0]])


def test_a_whole_game_is_stored(store: Store) -> None:
    game, record = g3_record()
    with store:
        store.save_record(game, record, True, [])
        assert rows_of(store, "g3") == {
            "games": 1,
            "game_seats": 3,
            "hands": 3,
            "faults": 0,
            "latency": 3,
            "decision_times": 1,
        }
        assert store.decision_times()["g3"] == [[5.0], [6.0], [7.0]]


def test_a_full_disk_half_way_leaves_the_game_absent_and_the_store_usable(store: Store) -> None:
    game, record = g3_record(hands=40)
    with store:
        pages = store.database.all("PRAGMA page_count")[0][0]
        store.database.execute(f"PRAGMA max_page_count = {pages + 2}")  # room for a row, not 40 hands
        with pytest.raises(StoreError, match="disk is full") as error:
            store.save_record(game, record, True, [])
        assert str(store.path) in str(error.value)
        assert rows_of(store, "g3") == dict.fromkeys(TABLES, 0)
        assert store.finished() == {"g1", "g2"}
        store.database.execute("PRAGMA max_page_count = 1073741823")
        store.save_record(game, record, True, [])
        assert rows_of(store, "g3")["hands"] == 40


def test_a_row_sqlite_refuses_half_way_leaves_the_game_absent(store: Store) -> None:
    game, record = g3_record()
    twice = dataclasses.replace(record, hands=(*record.hands, record.hands[0]))  # hand 0 stored twice
    with store:
        with pytest.raises(StoreError, match="UNIQUE constraint failed: hands") as error:
            store.save_record(game, twice, True, [])
        assert str(store.path) in str(error.value)
        assert rows_of(store, "g3") == dict.fromkeys(TABLES, 0)


def test_our_own_error_half_way_leaves_the_game_absent(store: Store) -> None:
    """A fault whose kind is not a FaultKind fails after the games, seats and hands rows are written."""
    game, record = g3_record()
    bad = dataclasses.replace(FAULTS[0], game_id="g3", kind="timeout")
    with store:
        with pytest.raises(AttributeError):
            store.save_record(game, dataclasses.replace(record, faults=(bad,)), True, [])
        assert rows_of(store, "g3") == dict.fromkeys(TABLES, 0)
        store.save_record(game, record, True, [])  # nothing was left half-open
        assert rows_of(store, "g3")["games"] == 1


def test_a_game_stored_twice_is_refused_and_the_first_is_kept(store: Store) -> None:
    with store:
        before = rows_of(store, "g1")
        again = make_record(SCHEDULE[0], [0, 0, 0], [1, 1, 1])
        with pytest.raises(StoreError, match="UNIQUE constraint failed: games"):
            store.save_record(SCHEDULE[0], again, True, [])
        assert rows_of(store, "g1") == before
        assert store.games_overview()[0].scores == (10, 4, 2)
