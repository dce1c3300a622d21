"""A launched bot's log, cut into games: what it printed while it played each one.

A launched bot writes its standard output and error to ``OUTPUT/logs/NAME.log`` (``arena.players.shim``;
``NAME.log.1`` holds the older part once the log reaches its cap; on a Dask worker ``logs/worker-W/``). One
bot process plays all its games, so the arena writes a line of its own into that log as each of its seats
begins and ends a game (``start_line``, ``end_line``), and a line the bot wrote between the two belongs to
that game. With several games at once (``concurrency``) a bot may be in more than one game when it writes:
such a line is given to every game it was in at the time, and says so. What the bot buffers and writes late
(a block-buffered standard output) lands where it is written, not where it was meant. What the bot has
written lands in its game however late its shim copies it: the arena writes its marks into the bot's own
output pipe, and the shim writes marks and lines into the log in the pipe's order (``arena.players.shim``).

The logs can hold what the bot author keeps private (their own debugging, the hands they saw), so only the
organiser's report shows them (``arena report``, not ``arena report --public``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.text import printable

MARK = "[arena] game "
_MARKER = re.compile(r"^\[arena\] game (?P<game>\S+) seat (?P<seat>\d+): (?P<what>start|end)$")
MAX_LINE = 300
MAX_LINES_PER_GAME = 400  # per entrant: the last ones kept, and a line saying how many were left out


def start_line(game_id: str, seat: int) -> str:
    return f"{MARK}{game_id} seat {seat}: start\n"


def end_line(game_id: str, seat: int) -> str:
    return f"{MARK}{game_id} seat {seat}: end\n"


@dataclass(frozen=True, slots=True)
class LogLine:
    entrant: str
    text: str
    shared: tuple[str, ...] = ()  # the other games the bot was in when it wrote the line


def _files(directory: Path, entrant: str) -> list[Path]:
    """The entrant's log files, oldest first (the rotated part before the current one), on this machine
    and on every Dask worker's."""
    logs = directory / "logs"
    places = [logs, *sorted(p for p in logs.glob("worker-*") if p.is_dir())] if logs.is_dir() else []
    out = []
    for place in places:
        out += [f for f in (place / f"{entrant}.log.1", place / f"{entrant}.log") if f.is_file()]
    return out


def split_log(lines: Iterable[str], entrant: str) -> dict[str, list[LogLine]]:
    """The bot's lines between each game's start and end marks, by game id (see the module docstring)."""
    open_games: dict[str, int] = {}
    out: dict[str, list[LogLine]] = {}
    for raw in lines:
        line = raw.rstrip("\n")
        mark = _MARKER.match(line)
        if mark:
            game = mark["game"]
            if mark["what"] == "start":
                open_games[game] = open_games.get(game, 0) + 1
                out.setdefault(game, [])
            elif open_games.get(game, 0) > 1:
                open_games[game] -= 1
            else:
                open_games.pop(game, None)
            continue
        if not open_games:
            continue
        text = printable(line[:MAX_LINE])
        for game in open_games:
            others = tuple(g for g in open_games if g != game)
            out[game].append(LogLine(entrant, text, others))
    return out


def game_logs(directory: Path, entrants: Iterable[str]) -> dict[str, list[LogLine]]:
    """Every game's log lines from every launched entrant's log in ``directory`` (none for in-process
    bots, which have no log, nor for events played before the marks were written)."""
    out: dict[str, list[LogLine]] = {}
    for entrant in entrants:
        text: list[str] = []
        for path in _files(directory, entrant):
            try:
                # Lines end at newlines only, as the shim writes and marks them (not at a carriage return
                # or U+2028 inside a bot's line, where splitlines would begin a line the bot chose).
                # (read_bytes: a text read would turn a carriage return into a newline itself).
                content = path.read_bytes().decode("utf-8", errors="replace")
                text += content.removesuffix("\n").split("\n") if content else []
            except OSError:
                continue
        for game, lines in split_log(text, entrant).items():
            if len(lines) > MAX_LINES_PER_GAME:
                left = len(lines) - MAX_LINES_PER_GAME
                lines = [LogLine(entrant, f"[{left} earlier lines left out]"), *lines[-MAX_LINES_PER_GAME:]]
            out.setdefault(game, []).extend(lines)
    return out
