"""A finished game as the store keeps it, made where the game was played.

Why a second form of a finished game: with the dask executor a game is played in a worker process and
travels to the conductor, the store's only writer, whose single core bounds the whole event. A
:class:`~arena.table.TableResult` is a deep tree of small dicts and frozen dataclasses: unpickling one cost
the conductor about 0.6 ms a game and JSON-encoding its hands another 0.3 ms, more than storing it. A
:class:`GameRecord` carries what the store writes, already in the store's form (each hand as the JSON text
of its row, latencies as histograms), so that work is done by whichever process played the game, in
parallel, and the conductor only inserts rows. The local executor makes the same record on its own
process, so both executors store byte-identical rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.faults import Fault
from arena.store import SeatStats, encode_hands, encode_latencies
from arena.table import TableResult


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game in the store's form; ``faults`` and ``decisions`` also feed the progress line."""

    game_id: str
    result: dict[str, Any]  # TableResult.to_dict() with "wall_s"
    seats: tuple[SeatStats, ...]
    hands: tuple[tuple[int, str], ...]  # (hand_index, the hand record as compact JSON text)
    faults: tuple[Fault, ...]
    latency: tuple[tuple[int, int, str], ...]  # (seat, answered decisions, histogram as JSON text)
    forfeited: tuple[int, ...]
    decisions: int


def seat_stats(result: TableResult) -> list[SeatStats]:
    """Each seat's score, rank, forfeit, hands made trump (and made) and faults charged to the bot."""
    n = len(result.spec.seat_names)
    makers = [0] * n
    made = [0] * n
    for hand in result.hands:
        maker = hand["maker"]
        if maker is not None:
            makers[maker] += 1
            made[maker] += hand["outcome"] in ("made", "march")
    # Only faults charged to the bot: a harness fault is the arena's own lateness (docs/protocol.md).
    faults = [sum(1 for f in result.faults if f.seat == s and f.counts) for s in range(n)]
    return [
        SeatStats(
            result.spec.seat_names[s],
            result.scores[s],
            result.ranks[s],
            s in result.forfeited,
            makers[s],
            made[s],
            faults[s],
        )
        for s in range(n)
    ]


def record_of(result: TableResult) -> GameRecord:
    return GameRecord(
        game_id=result.spec.game_id,
        result=result.to_dict() | {"wall_s": result.wall_s},
        seats=tuple(seat_stats(result)),
        hands=encode_hands(result.hands),
        faults=result.faults,
        latency=encode_latencies(result.latencies_ms),
        forfeited=result.forfeited,
        decisions=result.decisions,
    )
