"""What a seat is told when a game starts and when it ends: values shared by the bot SDK and the arena.

Both sides of the protocol use these two values, so they live apart from either: the SDK (``arena.bot``)
must not depend on the arena's internals, and the arena must not redefine them.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine.config import GameConfig


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game as one seat sees it at the start (``GameStart``)."""

    game_id: str
    config: GameConfig
    seat: int
    seat_names: tuple[str, ...]
    decision_time_ms: int
    time_bank_ms: int
    resumed: bool = False


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended (``GameOver``): per-seat scores and ranks (1 = winner), winners, forfeiting seats."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    termination: str
    forfeited: tuple[int, ...]
