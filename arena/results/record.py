"""The values the results store keeps: a scheduled game, a fault, a finished game's record.

A leaf of the results layer: it imports nothing of the arena but the fault kinds and the latency histogram,
so the conductor, the executors (which make records where games are played) and the store share one
definition of what is stored, and the store imports nothing that imports it back.

Why a finished game has a form of its own (:class:`GameRecord`), besides the table's ``TableResult``: with
the dask executor a game is played in a worker process and travels to the conductor, the store's only
writer, whose single core bounds the whole event. A ``TableResult`` is a deep tree of small dicts and frozen
dataclasses, costly to unpickle and to encode on the conductor (bench/scale.py measures it). A
:class:`GameRecord` carries what the store writes, already in the store's form (each hand as the JSON text
of its row, latencies as histograms), so that work is done by whichever process played the game, in
parallel, and the conductor only inserts rows. The local executor makes the same record on its own
process, so both executors store byte-identical rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import FaultKind
from arena.stats.latency import histogram


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the event: who sits where, under which id and deal seed.

    ``seq`` is the order in which results are rated; ``block`` groups the rotations of a duplicate table
    (it equals ``game_id`` when the event is not duplicate), and all games of a block share ``seed`` so they
    see the same deals.
    """

    seq: int
    game_id: str
    round: int
    table: int
    block: str
    rotation: int
    seed: int
    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Fault:
    """One recorded fault: who, where, what, and what was played instead; one value for the fault a table
    records and the fault row the store gives back (``arena.results.queries``).

    ``seq`` is the game's place in the schedule (what ``arena replay`` takes): the store knows it, the table
    that records the fault does not, so it is ``None`` until the fault is read back from the store.
    """

    entrant: str
    game_id: str
    seat: int
    hand_index: int
    decision_id: int
    kind: FaultKind
    detail: str
    elapsed_ms: float
    substitute: str
    seq: int | None = None

    @property
    def charged(self) -> bool:
        """Whether the fault counts against the bot, towards forfeiting (a harness fault is the arena's own
        lateness)."""
        return self.kind is not FaultKind.HARNESS

    def to_dict(self) -> dict[str, Any]:
        """The fields in the stored row's order, ``kind`` as its text (the keys ``arena faults --json``
        prints)."""
        return {
            "game_id": self.game_id,
            "seq": self.seq,
            "entrant": self.entrant,
            "seat": self.seat,
            "hand_index": self.hand_index,
            "decision_id": self.decision_id,
            "kind": self.kind.value,
            "detail": self.detail,
            "elapsed_ms": self.elapsed_ms,
            "substitute": self.substitute,
        }


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
    decision_times: str = "[]"  # per seat, each answered decision's time in ms, in order (JSON text)


def encode_hands(hands: Sequence[dict[str, Any]]) -> tuple[tuple[int, str], ...]:
    """Hand records as the store keeps them: (hand index, compact JSON text). One encoder for every path
    into the store, so a game stored by either executor is byte-identical (``arena.results.record``)."""
    return tuple((h["hand_index"], json.dumps(h, separators=(",", ":"))) for h in hands)


def encode_latencies(latencies_ms: Sequence[Sequence[float]]) -> tuple[tuple[int, int, str], ...]:
    """Per seat with answered decisions: how many, and their log-scale histogram (``arena.stats.latency``)."""
    return tuple(
        (seat, len(times), json.dumps(histogram(times))) for seat, times in enumerate(latencies_ms) if times
    )


def encode_decision_times(latencies_ms: Sequence[Sequence[float]]) -> str:
    """Each seat's answered decisions' times in ms, in the order asked, to three significant figures: what
    the replay shows beside each move (a faulted decision has none; its fault carries its time)."""
    return json.dumps([[float(f"{t:.3g}") for t in times] for times in latencies_ms], separators=(",", ":"))
