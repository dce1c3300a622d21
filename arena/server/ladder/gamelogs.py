"""A version's stderr during one ladder game: a span of its ladder log, marked when the game starts and ends.

One process serves all of a server process's ladder games of a version, so its stderr is one file
(``logs/ladder/vID.log``; ``logs/ladder/pN/vID.log`` for each playing process on a shared database,
``arena.server.db.multi``), written by the launcher's shim, ``arena.players.shim.CappedLog``. The ladder
marks that file (its inode and size) just before a game starts and just after it ends, and stores both
marks with the game's seat (``GameSeat.log_*``). The game's log is then the bytes between the two marks:
no copy is made, and the bot's output is not changed (a bot writes what it writes; nothing can tag its
lines with a game).

What the span cannot know, and the page says:

* **Overlapping games.** With ``[ladder] tables`` > 1 one version can sit at two tables at once; the two
  spans then overlap, and each holds what the bot wrote during both. The page names the games that overlap.
* **Rotation.** The shim caps the log: at the cap it renames ``vID.log`` to ``vID.log.1`` and starts a
  fresh file. The inode tells which file a mark was made in, so a span that crosses one rotation is read
  from the two files; a span whose file has since been rotated away (two rotations later) is gone, and
  the page says so rather than showing other bytes. An inode number can be reused by the file system after
  the old file is deleted; the span can then show other output *of the same version*, never anybody else's.
* **Latency.** The shim copies the bot's stderr from a pipe, in a process of its own; on a loaded machine
  it may get the processor only after the game has ended, so a line the bot wrote during a game can land
  after the end mark (tests/server/ladder/test_pages.py saw a lag of two fast games on a busy 2-core machine).
  The page therefore also shows what was written just after the game (``AFTER_BYTES``), marked as such.

The reading itself is ``arena.executor.logspan``'s, shared with the Dask workers, which read each game's
span where the bot ran and send it back with the game (``arena.server.ladder.workerlogs`` stores it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.executor import logspan
from arena.executor.logspan import AFTER_BYTES, SHOWN_BYTES, Mark, mark

__all__ = [
    "AFTER_BYTES",
    "COLUMNS",
    "SHOWN_BYTES",
    "GameLog",
    "Mark",
    "columns",
    "mark",
    "marks",
    "read_span",
]
COLUMNS = ("log_inode", "log_start", "log_end_inode", "log_end")


def log_path(log_dir: Path, name: str) -> Path:
    """A ladder entrant's log, as the executor names it (``arena.executor.local``: ``NAME.log``)."""
    return log_dir / f"{name}.log"


def marks(log_dir: Path, names: Iterable[str]) -> dict[str, Mark | None]:
    """The marks of the seats' logs that are versions' (``v12``; the in-process house bots have none)."""
    return {n: mark(log_path(log_dir, n)) for n in names if n.startswith("v")}


def columns(
    before: dict[str, Mark | None], after: dict[str, Mark | None], name: str
) -> dict[str, int | None]:
    """The four ``GameSeat.log_*`` values of seat ``name``: all present, or all None (every row of one
    insert has the same keys)."""
    start, end = before.get(name), after.get(name)
    if start is None or end is None:
        return dict.fromkeys(COLUMNS)
    return {"log_inode": start.inode, "log_start": start.offset,
            "log_end_inode": end.inode, "log_end": end.offset}  # fmt: skip


@dataclass(frozen=True, slots=True)
class GameLog:
    """What the page shows: the text, and what it must say about it."""

    text: str
    notes: tuple[str, ...]
    recorded: bool  # false: the game has no span (a house bot, an older game, another machine's log)
    after: str = ""  # the next bytes written after the game's end mark (they may still be the game's)


def shown(span: logspan.Span) -> GameLog:
    """A span as the page shows it (a bot's bytes need not be UTF-8)."""
    return GameLog(
        span.data.decode("utf-8", "replace"), span.notes, True, span.after.decode("utf-8", "replace")
    )


def read_span(path: Path, values: dict[str, int | None], limit: int = SHOWN_BYTES) -> GameLog:
    """The span ``values`` (a seat's ``log_*`` columns) of the log at ``path``: its newest ``limit`` bytes."""
    inode, start, end_inode, end = (values.get(c) for c in COLUMNS)
    if inode is None or start is None or end_inode is None or end is None:
        return GameLog("", ("no log was recorded for this game",), False)
    return shown(logspan.read(path, Mark(inode, start), Mark(end_inode, end), limit))
