"""What a play page follows: one person's seat at one table, as versioned JSON states, the same on both
sides that seat a person (``arena play``'s ``PlaySession``, and a game on the competition server:
``arena.server.matches.people``), so that one page (``static/play.js``) serves both.

The state is the seat's own view and news only (``arena.play.board``), plus how long the person has for the
pending decision; where the game is kept once over is the caller's to add.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any

from arena.engine.config import GameConfig
from arena.play.board import hand_end_json, trick_json, view_json
from arena.play.seat import HumanSeat

LOG_TAIL = 60  # lines of the seat's news the page is sent each time


class SeatFeed:
    """A version number that every change of the seat raises, and a wait for the next one (long polls)."""

    def __init__(self) -> None:
        self.version = 0
        self._changed = asyncio.Event()

    def changed(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for(self, since: int, timeout_s: float) -> None:
        """Return once the state is newer than ``since``, or after ``timeout_s``."""
        if self.version != since:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout_s)


def seat_state(
    seat: HumanSeat,
    version: int,
    game_id: str,
    config: GameConfig,
    seat_index: int,
    seat_names: Sequence[str],
    seed: int | None,
) -> dict[str, Any]:
    """What the page shows: the seat's view and news, the last trick and hand, the end of the game.

    ``seed`` is shown with the final scores only (None: not shown at all, as on the server, whose deals
    come from its secret key).
    """
    view, final = seat.view, seat.final
    pending = seat.decision_id != 0
    return {
        "version": version,
        "game": game_id,
        "config": config.to_dict(),
        "seat": seat_index,
        "seats": list(seat_names),
        "deadline_s": seat.deadline_s,
        "autopilot": seat.autopilot_name,
        "away": seat.away,
        "decision": seat.decision_id,
        "remaining_s": round(max(0.0, seat.deadline_at - time.monotonic()), 1) if pending else None,
        "view": None if view is None else view_json(view),
        "log": seat.log[-LOG_TAIL:],
        "last_trick": None if seat.last_trick is None else trick_json(seat.last_trick),
        "last_hand": None if seat.last_hand is None else hand_end_json(seat.last_hand),
        "final": None
        if final is None
        else {
            "scores": list(final.scores),
            "ranks": list(final.ranks),
            "winners": list(final.winners),
            "termination": final.termination,
            "seed": seed,
        },
    }
