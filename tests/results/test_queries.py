"""The typed read model (``arena.results.queries``) against a hand-made stored event: each read gives back
exactly the values written, as frozen values, and the listings keep their keys and their order."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest

from arena.errors import FaultKind
from arena.results import listings
from arena.results.queries import (
    EntrantRow,
    EventInfo,
    Fault,
    GameSummary,
    Queries,
    SeatTotals,
    StoredGame,
    StoredHand,
)
from arena.stats.latency import histogram, merge
from tests.results.stored_events import FAULTS, tiny_event


@pytest.fixture
def event(tmp_path: Path) -> Path:
    return tiny_event(tmp_path / "tiny")


def test_entrants_totals_and_the_event(event: Path) -> None:
    with Queries.open(event) as q:
        assert q.entrants() == [
            EntrantRow("a", "class", "m:A", False),
            EntrantRow("b", "class", "m:B", False),
            EntrantRow("c", "command", "run c", False),
            EntrantRow("d", "class", "m:D", True),
        ]
        totals = q.seat_totals()
        # a: g1 won, 10 points, made trump once and made it, one charged fault
        assert totals["a"] == SeatTotals(games=1, wins=1, points=10, maker_hands=1, maker_made=1, faults=1)
        # b: 4 in g1, a shared first place in g2 (10), never made trump
        assert totals["b"] == SeatTotals(games=2, wins=1, points=14)
        # c: made trump in g1 and was euchred, made it in g2 (seat 1)
        assert totals["c"] == SeatTotals(games=2, wins=1, points=12, maker_hands=2, maker_made=1)
        # d: forfeited g2; its timeout is charged, its harness fault is not
        assert totals["d"] == SeatTotals(games=1, wins=0, points=3, forfeits=1, faults=1)
        assert q.fault_counts() == {"a": 1, "d": 2} and q.charged_fault_counts() == {"a": 1, "d": 1}
        assert q.event_info() == EventInfo(
            name="tiny",
            variant="call-ace",
            num_players=3,
            seed=7,
            duplicate=False,
            games_played=2,
            games_scheduled=3,
            faults_policy={"max_faults_per_game": 2},
        )
        assert q.finished() == {"g1", "g2"} and q.game_ids() == ["g1", "g2"]
        assert [g.game_id for g in q.schedule()] == ["g1", "g2", "g3"]
        assert q.event_seed() == 7  # from the fingerprint, which is what identifies the event
        assert q.meta("deal_key_check") == "check"


def test_games_overview_is_every_played_game_in_schedule_order(event: Path) -> None:
    with Queries.open(event) as q:
        overview = q.games_overview()
    assert overview == [
        GameSummary(
            seq=0, game_id="g1", round=1, table=1, block="g1", rotation=0, seats=("a", "b", "c"),
            scores=(10, 4, 2), ranks=(1, 2, 3), winners=(0,), forfeited=(), excluded=(), rated=True,
            termination="target_reached", decisions=7, hands=2, wall_s=0.25, faults=1,
        ),
        GameSummary(
            seq=1, game_id="g2", round=1, table=2, block="g2", rotation=0, seats=("b", "c", "d"),
            scores=(10, 10, 3), ranks=(1, 1, 3), winners=(0, 1), forfeited=(2,), excluded=("d",),
            rated=False, termination="target_reached", decisions=7, hands=1, wall_s=0.25, faults=2,
        ),
    ]  # fmt: skip


def test_one_game_with_its_hands_and_faults(event: Path) -> None:
    with Queries.open(event) as q:
        game = q.game("g2")
        assert q.game("g3") is None  # scheduled, not played
    assert isinstance(game, StoredGame)
    assert (game.seq, game.round, game.table, game.seed, game.keyed_deals) == (1, 1, 2, 102, True)
    assert (game.seats, game.scores, game.ranks, game.winners) == (
        ("b", "c", "d"),
        (10, 10, 3),
        (1, 1, 3),
        (0, 1),
    )
    assert (game.forfeited, game.termination, game.hands_played, game.decisions) == (
        (2,),
        "target_reached",
        1,
        7,
    )
    assert [h["hand_index"] for h in game.hands] == [0] and game.hands[0]["points"] == [0, 0, 2]
    assert game.faults == (
        Fault("d", "g2", 2, 0, 2, FaultKind.TIMEOUT, "no reply", 1000.0, "PASS", seq=1),
        Fault("d", "g2", 2, 1, 9, FaultKind.HARNESS, "the arena was late", 1200.0, "PASS", seq=1),
    )
    assert [f.charged for f in game.faults] == [True, False]


def test_faults_hands_and_latencies(event: Path) -> None:
    with Queries.open(event) as q:
        faults = q.all_faults()
        hands = list(q.hand_records())
        latency = q.latency_histograms()
    assert [(f.game_id, f.seq, f.decision_id, f.kind) for f in faults] == [
        (f.game_id, seq, f.decision_id, f.kind) for f, seq in zip(FAULTS, (0, 1, 1), strict=True)
    ]
    assert [(h.game_id, h.record["hand_index"]) for h in hands] == [("g1", 0), ("g1", 1), ("g2", 0)]
    assert all(isinstance(h, StoredHand) for h in hands)
    assert latency == {"a": Counter(histogram([10.0, 10.0])), "c": merge([histogram([500.0])])}


def test_values_are_frozen(event: Path) -> None:
    with Queries.open(event) as q:
        values = [q.entrants()[0], q.games_overview()[0], q.all_faults()[0], q.game("g1"), q.event_info()]
        values += [next(q.hand_records()), q.seat_totals()["a"]]
    for value in values:
        assert dataclasses.is_dataclass(value)
        field = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)


def test_fault_listing_json_keeps_its_keys_and_their_order(event: Path) -> None:
    """``arena faults --json`` printed the stored columns in order, then ``charged``."""
    with Queries.open(event) as q:
        rows = json.loads(listings.faults_json(listings.faults(q)))
    assert [list(r) for r in rows] == [
        ["game_id", "seq", "entrant", "seat", "hand_index", "decision_id", "kind", "detail", "elapsed_ms",
         "substitute", "charged"]
    ] * 3  # fmt: skip
    assert rows[2] == {
        "game_id": "g2", "seq": 1, "entrant": "d", "seat": 2, "hand_index": 1, "decision_id": 9,
        "kind": "harness", "detail": "the arena was late", "elapsed_ms": 1200.0, "substitute": "PASS",
        "charged": False,
    }  # fmt: skip


def test_game_listing_rows(event: Path) -> None:
    with Queries.open(event) as q:
        rows = [listings.game_row(g) for g in listings.games(q)]
        only_d = listings.games(q, "d")
    assert rows[1] == {
        "number": 1, "game_id": "g2", "round": 1, "table": 2, "block": "g2", "rotation": 0,
        "seats": "b;c;d", "scores": "10;10;3", "ranks": "1;1;3", "winners": "b;c",
        "termination": "target_reached", "hands": 1, "rated": "false", "forfeited": "d", "faults": 2,
        "first_hand_line": 3,
    }  # fmt: skip
    assert list(rows[0]) == list(listings.GAME_COLUMNS)
    assert [(g.game.game_id, g.first_hand_line) for g in only_d] == [("g2", 3)]
