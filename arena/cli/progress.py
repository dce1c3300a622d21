"""The terminal's view of a running event (an :class:`~arena.conductor.observer.EventObserver`): a progress
bar with the fault count and an ETA that does not jump, the conductor's notices printed above it; when the
output is not a terminal (a log file, CI), a plain line every so many games or seconds instead, so a log
never goes quiet for minutes; and, on request, the standings every so many games."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TaskID, TextColumn
from rich.text import Text

from arena.conductor.observer import EventObserver
from arena.errors import ConfigError
from arena.results.record import GameRecord, ScheduledGame
from arena.stats.confidence import Confidence
from arena.text import printable

DEFAULT_PROGRESS_EVERY = "10s"


@dataclass(frozen=True, slots=True)
class Every:
    """How often a log gets a progress line: every ``games`` games or every ``seconds`` seconds (0: never)."""

    games: int = 0
    seconds: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Every:
        """``"10s"`` (seconds), ``"50"`` (games) or ``"0"`` (never).

        :raises ConfigError: anything else.
        """
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|g|games?)?\s*", text)
        if m is None or (m.group(2) in (None, "g", "game", "games") and "." in m.group(1)):
            raise ConfigError(
                f"--progress-every={text!r}: expected seconds such as 10s, a number of games such as 50, "
                "or 0 for never"
            )
        value = float(m.group(1))
        return cls(seconds=value) if m.group(2) == "s" else cls(games=int(value))


class Eta:
    """Time left, from the mean rate of this run's games since play began, counting down between finishes:
    games end in bursts (a round of tables at once), so the last few gaps are no guide, while the rate over
    the whole run moves slowly. Clock values are passed in, so a test can drive it."""

    def __init__(self) -> None:
        self._origin: tuple[float, int] | None = None  # when play began, and the games stored then
        self._last: tuple[float, int] | None = None

    def start(self, done: int, now: float) -> None:
        """Play begins (again, once the bots are up: their start is not a game's time)."""
        if self._last is None:
            self._origin = (now, done)

    def finished(self, done: int, now: float) -> None:
        if self._origin is None:
            self._origin = (now, done - 1)
        self._last = (now, done)

    def seconds_left(self, total: int, now: float) -> float | None:
        """None until a game of this run has finished (no rate yet)."""
        if self._origin is None or self._last is None:
            return None
        (t0, d0), (t1, d1) = self._origin, self._last
        if d1 <= d0 or t1 <= t0:
            return None
        per_game = (t1 - t0) / (d1 - d0)
        return max(0.0, (total - d1) * per_game - (now - t1))


def clock_text(seconds: float | None) -> str:
    if seconds is None:
        return "-:--:--"
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class _EtaColumn(ProgressColumn):
    def __init__(self, eta: Eta) -> None:
        super().__init__()
        self.eta = eta

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        return Text(f"ETA {clock_text(self.eta.seconds_left(int(task.total), time.monotonic()))}")


class TerminalProgress(EventObserver):
    """One bar for the event's games (with the bots' faults, and the arena's own lateness apart, as it is
    never charged to a bot), one for entrants while they start, and every notice as plain text. Not on a
    terminal, no bar: a line every ``every`` instead."""

    def __init__(
        self,
        name: str,
        output: str,
        quiet: bool,
        every: Every | None = None,
        standings_every: int = 0,
        console: Console | None = None,
    ) -> None:
        self.name = name
        self.output = output
        self.quiet = quiet
        self.faults = 0
        self.harness = 0
        self.total = 0
        self.done = 0
        self.every = every if every is not None else Every.parse(DEFAULT_PROGRESS_EVERY)
        self.standings_every = standings_every
        self.eta = Eta()
        self.console = console or Console()
        self.tty = self.console.is_terminal
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            _EtaColumn(self.eta),
            TextColumn("{task.fields[extra]}"),
            console=self.console,
            disable=quiet or not self.tty,
            transient=False,
        )
        self.games = self.progress.add_task(name, total=None, extra="faults: 0")
        self._bots: tuple[TaskID, float] | None = None  # the "starting bots" bar and when it began
        self._session = 0  # games finished in this run (not those a resumed event had stored)
        self._timer: asyncio.TimerHandle | None = None
        self._standings: threading.Thread | None = None
        self._last_line = 0.0
        self._said = -1  # games done at the last progress line
        self.clock: Callable[[], float] = time.monotonic

    def started(self, total: int, done: int) -> None:
        # Only now: an event that cannot begin (locked, another event ...) shows no bar.
        self.total, self.done = total, done
        self.progress.start()
        self.progress.update(self.games, total=total, completed=done)
        if done:
            self.say(f"resuming {self.name}: {done} of {total} games already stored in {self.output}")
        self._last_line = self.clock()
        self.eta.start(done, self.clock())
        if self._logging and self.every.seconds > 0:
            self._timer = asyncio.get_running_loop().call_later(self.every.seconds, self._tick)

    @property
    def _logging(self) -> bool:
        """Plain progress lines: the output is not a terminal, and not quiet."""
        return not self.tty and not self.quiet

    def _tick(self) -> None:
        now = self.clock()
        if now - self._last_line >= self.every.seconds * 0.999:
            self.progress_line()
        wait = max(0.05, self.every.seconds - (self.clock() - self._last_line))
        self._timer = asyncio.get_running_loop().call_later(wait, self._tick)

    def progress_line(self) -> None:
        """One line of progress for a log: games done of the total, the share, the ETA and the faults."""
        self._last_line = self.clock()
        self._said = self.done
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        eta = clock_text(self.eta.seconds_left(self.total, self.clock()))
        self.say(f"{self.name}: {self.done} of {self.total} games{share}, ETA {eta}, {self._fault_text()}")

    def _fault_text(self) -> str:
        apart = f" (harness: {self.harness})" if self.harness else ""
        return f"faults: {self.faults}{apart}"

    def bots_starting(self, tried: int, total: int) -> None:
        if tried == 0 or self._bots is None:  # an event grown by --until-settled may start house bots later
            self._bots = (self.progress.add_task("starting bots", total=total, extra=""), time.monotonic())
        task, began = self._bots
        self.progress.update(task, completed=tried)
        if tried == total:
            self.eta.start(self.done, self.clock())
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
        self.done += 1
        self._session += 1
        self.eta.finished(self.done, self.clock())
        self.progress.update(self.games, advance=1, extra=self._fault_text())
        if self._logging and self.every.games and self._session % self.every.games == 0:
            self.progress_line()
        if self.standings_every and self._session % self.standings_every == 0 and self.done < self.total:
            self.standings()

    def standings(self) -> None:
        """The standings so far, from what is stored, computed on a thread of their own: on a long event they
        read every stored game and bootstrap the order (seconds), and the games in flight on this event
        loop must not wait for them. One at a time: asked again while the last is still computing, it
        skips that one rather than pile them up."""
        if self._standings is not None and self._standings.is_alive():
            return
        self._standings = threading.Thread(
            target=self._print_standings, args=(self.done, self.total), name="standings", daemon=True
        )
        self._standings.start()

    def _print_standings(self, done: int, total: int) -> None:
        from arena.results.leaderboard import render_table
        from arena.results.queries import Queries
        from arena.stats.leaderboard import compute_leaderboard

        try:
            with Queries.open(Path(self.output)) as store:
                board = compute_leaderboard(store)
        except Exception as exc:  # a display on the side: one line, and the event plays on
            self.say(f"standings after {done} of {total} games not shown: {exc}")
            return
        games = board.confidence.games  # the store may hold a game or two more than were counted
        title = f"standings after {games} of {total} games"
        self.say(render_table(board, title, details=False).rstrip("\n"), wrap=False)

    def extended(self, total: int, conf: Confidence) -> None:
        self.total = total
        self.progress.update(self.games, total=total)
        self.say(
            f"after {conf.games} games {len(conf.open_pairs())} of {len(conf.adjacent)} adjacent pairs are "
            f"open (chance the whole order is right: {conf.whole:.2f}): extending to {total} games"
        )

    def say(self, line: str, wrap: bool = True) -> None:
        """One of the arena's own lines, above the bars (wrapped on words to the terminal, 80 columns when
        it is not one)."""
        self.progress.console.print(line, markup=False, highlight=False, soft_wrap=not wrap)

    def stop(self) -> None:
        if self._standings is not None:  # printed before the end, not across the final leaderboard
            self._standings.join()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._logging and self.total and self._said != self.done:
            self.say(f"{self.name}: {self.done} of {self.total} games, {self._fault_text()}")
        if self.progress.live.is_started:
            self.progress.stop()
