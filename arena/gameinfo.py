"""What a seat is told when a game starts and when it ends: values shared by the bot SDK and the arena.

Both sides of the protocol use these two values, so they live apart from either: the SDK (``arena.bot``)
must not depend on the arena's internals, and the arena must not redefine them.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine.config import GameConfig


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game as one seat sees it at the start (``GameStart``), as ``Bot.game``.

    Attributes:
        game_id: The game's id within the event (e.g. ``"r003-t01"``), for the bot's logs.
        config: The rules of this game.
        seat: The seat this bot plays.
        seat_names: The entrants' names, indexed by seat (public).
        decision_time_ms: The default time per decision; each request repeats the figure that applies.
        time_bank_ms: Extra time for the whole game, drawn down by late replies (0: no bank).
        resumed: True when the arena reopened this seat's stream in mid-game after it failed.
    """

    game_id: str
    config: GameConfig
    seat: int
    seat_names: tuple[str, ...]
    decision_time_ms: int
    time_bank_ms: int
    resumed: bool = False


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended (``GameOver``), as ``Bot.on_game_over`` receives it.

    Attributes:
        scores: Final points per seat.
        ranks: Rank per seat: 1 for the winners, equal scores sharing a rank, forfeiters last.
        winners: The winning seats; several of different teams are a draw among them.
        termination: ``"target_reached"``, ``"max_hands"`` or ``"aborted"`` (the arena stopped the game).
        forfeited: Seats that forfeited the game (too many faults).
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    termination: str
    forfeited: tuple[int, ...]
