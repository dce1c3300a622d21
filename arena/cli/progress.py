"""The terminal's view of a running event: a progress bar with the fault count, and the conductor's notices
printed above it (an :class:`~arena.conductor.observer.EventObserver`)."""

from __future__ import annotations

import time

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from arena.conductor.observer import EventObserver
from arena.results.record import GameRecord, ScheduledGame
from arena.stats.confidence import Confidence
from arena.text import printable


class TerminalProgress(EventObserver):
    """One bar for the event's games (with the bots' faults, and the arena's own lateness apart, as it is
    never charged to a bot), one for entrants while they start, and every notice as plain text."""

    def __init__(self, name: str, output: str, quiet: bool) -> None:
        self.name = name
        self.output = output
        self.faults = 0
        self.harness = 0
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[extra]}"),
            disable=quiet,
            transient=False,
        )
        self.games = self.progress.add_task(name, total=None, extra="faults: 0")
        self._bots: tuple[TaskID, float] | None = None  # the "starting bots" bar and when it began

    def started(self, total: int, done: int) -> None:
        # Only now: an event that cannot begin (locked, another event ...) shows no bar.
        self.progress.start()
        self.progress.update(self.games, total=total, completed=done)
        if done:
            self.say(f"resuming {self.name}: {done} of {total} games already stored in {self.output}")

    def bots_starting(self, tried: int, total: int) -> None:
        if tried == 0 or self._bots is None:  # an event grown by --until-settled may start house bots later
            self._bots = (self.progress.add_task("starting bots", total=total, extra=""), time.monotonic())
        task, began = self._bots
        self.progress.update(task, completed=tried)
        if tried == total:
            self.progress.remove_task(task)
            self.say(f"bots: {total} started in {time.monotonic() - began:.1f} s")

    def notice(self, line: str) -> None:
        # Not markup, not wrapped, no control characters: a notice may quote a bot's log, which may hold
        # anything (rich passes ESC through).
        self.progress.console.print(
            printable(line, lines=True), markup=False, highlight=False, soft_wrap=True
        )

    def game_finished(self, game: ScheduledGame, record: GameRecord) -> None:
        late = sum(1 for f in record.faults if not f.charged)
        self.faults += len(record.faults) - late
        self.harness += late
        apart = f" (harness: {self.harness})" if self.harness else ""
        self.progress.update(self.games, advance=1, extra=f"faults: {self.faults}{apart}")

    def extended(self, total: int, conf: Confidence) -> None:
        self.progress.update(self.games, total=total)
        self.say(
            f"after {conf.games} games {len(conf.open_pairs())} of {len(conf.adjacent)} adjacent pairs are "
            f"open (whole order P = {conf.whole:.2f}): extending to {total} games"
        )

    def say(self, line: str) -> None:
        """One of the arena's own lines, above the bars (wrapped to the terminal)."""
        self.progress.console.print(line)

    def stop(self) -> None:
        if self.progress.live.is_started:
            self.progress.stop()
