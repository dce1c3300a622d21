"""The arena's side of a seat: what a table needs from a player, whatever is behind it.

A table talks to every seat through this one interface; a remote gRPC bot, an in-process Python bot and the
autopilot of a forfeited seat are interchangeable. Everything a player is given comes from the engine's
view and event functions, so nothing but the seat's own view can leave the arena (C-5).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine.actions import Action
from arena.engine.news import News
from arena.engine.views import View
from arena.gameinfo import GameInfo, GameResult


@dataclass(frozen=True, slots=True)
class DecisionTiming:
    """Time allowed for one decision: its own time and what is left of the seat's bank for the game."""

    time_ms: int
    bank_ms: int


@dataclass(frozen=True, slots=True)
class Reply:
    """A player's answer: the action (already decoded, not yet checked for legality) and how long it took.

    ``bank_used_ms`` is how much of the time bank the reply ate (it arrived after ``time_ms``).
    """

    action: Action
    elapsed_ms: float
    bank_used_ms: float = 0.0


class Player(ABC):
    """One seat of one game. A table calls ``start``, then ``decide`` (with news queued in between), then
    ``finish``, and always ``close``.

    ``decide`` raises a ``BotError`` subclass for every way a bot can fail, and ``HarnessLate`` when the arena
    itself was too late to hear it; the table records either as a fault (charging only the ``BotError``)
    and plays a substitute action.
    """

    name: str
    wants_views: bool = False
    """True for a seat that shows its table to a person (``arena.play``): the table then hands it the seat's
    own view after every action, through ``see``. Off for bots: they are given a view only when they act."""

    @abstractmethod
    async def start(self, info: GameInfo, news: Sequence[News]) -> None: ...

    @abstractmethod
    def queue_news(self, news: Sequence[News]) -> None:
        """Remember news to deliver with the seat's next message (cheap: no I/O here)."""

    @abstractmethod
    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply: ...

    @abstractmethod
    async def finish(self, final: GameResult) -> None: ...

    def see(self, view: View) -> None:  # noqa: B027 (called only when ``wants_views`` is set)
        """The seat's own view after an action (its own view only, as ``decide`` is given)."""

    async def close(self) -> None:  # noqa: B027 (optional hook: most players hold nothing to release)
        """Release the seat's resources; safe to call more than once and after any failure."""
