"""Hand-made stored events for the results tests: games whose every stored value is chosen here, so a read
can be compared with what was written, and a record made from plain values the way ``record_of`` makes one
from a ``TableResult``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.errors import FaultKind
from arena.results.record import (
    Fault,
    GameRecord,
    ScheduledGame,
    SeatStats,
    encode_decision_times,
    encode_hands,
    encode_latencies,
)
from arena.results.store import Store


def hand(index: int, maker: int | None, points: Sequence[int], outcome: str = "made") -> dict[str, Any]:
    """A hand record with the fields the read model and the report look at (not a whole v1 record)."""
    return {
        "hand_index": index,
        "maker": maker,
        "partner": None,
        "alone": False,
        "outcome": outcome,
        "points": list(points),
        "num_players": len(points),
    }


def make_record(
    game: ScheduledGame,
    scores: Sequence[int],
    ranks: Sequence[int],
    hands: Sequence[dict[str, Any]] = (),
    faults: Sequence[Fault] = (),
    forfeited: Sequence[int] = (),
    latencies_ms: Sequence[Sequence[float]] = (),
    termination: str = "target_reached",
) -> GameRecord:
    """A finished game in the store's form, from plain values."""
    winners = [s for s, r in enumerate(ranks) if r == 1]
    result = {
        "game_id": game.game_id,
        "scores": list(scores),
        "ranks": list(ranks),
        "winners": winners,
        "forfeited": list(forfeited),
        "outcome": {"termination": termination, "hands_played": len(hands)},
        "decisions": 7,
        "wall_s": 0.25,
    }
    seats = tuple(
        SeatStats(
            name,
            scores[s],
            ranks[s],
            s in forfeited,
            sum(1 for h in hands if h["maker"] == s),
            sum(1 for h in hands if h["maker"] == s and h["outcome"] in ("made", "march")),
            sum(1 for f in faults if f.seat == s and f.charged),
        )
        for s, name in enumerate(game.seats)
    )
    return GameRecord(
        game.game_id,
        result,
        seats,
        encode_hands(hands),
        tuple(faults),
        encode_latencies(latencies_ms),
        tuple(forfeited),
        7,
        encode_decision_times(latencies_ms),
    )


SCHEDULE = [
    ScheduledGame(0, "g1", 1, 1, "g1", 0, 101, ("a", "b", "c")),
    ScheduledGame(1, "g2", 1, 2, "g2", 0, 102, ("b", "c", "d")),
    ScheduledGame(2, "g3", 2, 1, "g3", 0, 103, ("a", "c", "d")),  # scheduled, never played
]
FAULTS = [
    Fault("a", "g1", 0, 1, 4, FaultKind.ILLEGAL_ACTION, "not its card", 3.0, "PLAY(9C)"),
    Fault("d", "g2", 2, 0, 2, FaultKind.TIMEOUT, "no reply", 1000.0, "PASS"),
    Fault("d", "g2", 2, 1, 9, FaultKind.HARNESS, "the arena was late", 1200.0, "PASS"),
]
CONFIG = {
    "name": "tiny",
    "seed": 7,
    "game": {"variant": "call-ace", "num_players": 3},
    "faults": {"max_faults_per_game": 2},
}


def tiny_event(directory: Path) -> Path:
    """Two played games of three scheduled, among a, b, c and d (d forfeits g2), with three faults."""
    with Store.open(directory) as store:
        entrants = [("a", "class", "m:A", False), ("b", "class", "m:B", False)]
        entrants += [("c", "command", "run c", False), ("d", "class", "m:D", True)]
        store.begin_event({"seed": 7}, CONFIG, SCHEDULE, entrants, deal_check="check")
        store.save_record(
            SCHEDULE[0],
            make_record(
                SCHEDULE[0],
                [10, 4, 2],
                [1, 2, 3],
                [hand(0, 0, [1, 1, 0]), hand(1, 2, [2, 2, 0], "euchred")],
                FAULTS[:1],
                latencies_ms=[[10.0, 10.0], [], [500.0]],
            ),
            True,
            [],
        )
        store.save_record(
            SCHEDULE[1],
            make_record(SCHEDULE[1], [10, 10, 3], [1, 1, 3], [hand(0, 1, [0, 0, 2])], FAULTS[1:], [2]),
            False,
            ["d"],
        )
    return directory
