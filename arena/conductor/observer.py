"""What a conductor tells whoever watches an event: the terminal's progress bar, a test, a bench script.

One object with a method per kind of news, rather than a bundle of callbacks, so that a watcher says what it
follows by overriding those methods only, and the conductor's signatures stay short. Every method here does
nothing. A watcher must be quick: it is called on the conductor's event loop, between games.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.results.record import GameRecord, ScheduledGame

if TYPE_CHECKING:
    from arena.stats.confidence import Confidence


class EventObserver:
    """The news of one event, in the order it happens."""

    def started(self, total: int, done: int) -> None:
        """The event is set up: ``total`` games in it, ``done`` of them already stored (a resumed event)."""

    def bots_starting(self, tried: int, total: int) -> None:
        """Entrants are being started: ``tried`` of ``total`` so far (``tried == 0`` begins a start)."""

    def notice(self, line: str) -> None:
        """What the organiser should know, a line (or an indented block) at a time: how bots are confined,
        an entrant that cannot start (with its log's last lines) or came up later, a machine too loaded to
        time decisions fairly. Text from a bot's log may be in it: print it as text, never as markup."""

    def game_finished(self, game: ScheduledGame, record: GameRecord) -> None:
        """A game is stored."""

    def extended(self, total: int, seen: Confidence) -> None:
        """``--until-settled`` grew the event to ``total`` games because the order it ``seen`` (its pairs'
        figures and verdicts, without intervals per entrant) is not settled yet."""
