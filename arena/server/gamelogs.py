"""A version's stderr during one ladder game: a span of its ladder log, marked when the game starts and ends.

One process serves all of a version's ladder games, so its stderr is one file (``logs/ladder/vID.log``,
written by the launcher's shim, ``arena.players.shim.CappedLog``). The ladder marks that file (its inode
and size) just before a game starts and just after it ends, and stores both marks with the game's seat
(``GameSeat.log_*``). The game's log is then the bytes between the two marks: no copy is made, and the
bot's output is not changed (a bot writes what it writes; nothing can tag its lines with a game).

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
  after the end mark (tests/server/test_pages.py saw a lag of two fast games on a busy 2-core machine).
  The page therefore also shows what was written just after the game (``AFTER_BYTES``), marked as such.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SHOWN_BYTES = 200_000  # most of one game's span shown on its page (the newest part)
AFTER_BYTES = 4_000  # what the log holds after the game's end mark, shown apart (see Latency above)
COLUMNS = ("log_inode", "log_start", "log_end_inode", "log_end")


@dataclass(frozen=True, slots=True)
class Mark:
    """Where a log file stood: which file (inode) and how long it was."""

    inode: int
    offset: int


def log_path(log_dir: Path, name: str) -> Path:
    """A ladder entrant's log, as the executor names it (``arena.executor.local``: ``NAME.log``)."""
    return log_dir / f"{name}.log"


def mark(path: Path) -> Mark | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return Mark(st.st_ino, st.st_size)


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


def _read(candidates: list[Path], inode: int, start: int, end: int | None) -> bytes | None:
    """Bytes ``start:end`` of whichever candidate file has ``inode`` (checked on the open file, so a
    rotation between looking and reading cannot hand over the wrong one); None if none has it."""
    for path in candidates:
        try:
            with path.open("rb") as f:
                if os.fstat(f.fileno()).st_ino != inode:
                    continue
                f.seek(start)
                return f.read() if end is None else f.read(max(0, end - start))
        except OSError:
            continue
    return None


def read_span(path: Path, values: dict[str, int | None], limit: int = SHOWN_BYTES) -> GameLog:
    """The span ``values`` (a seat's ``log_*`` columns) of the log at ``path``: its newest ``limit`` bytes."""
    inode, start, end_inode, end = (values.get(c) for c in COLUMNS)
    if inode is None or start is None or end_inode is None or end is None:
        return GameLog("", ("no log was recorded for this game",), False)
    candidates = [path, path.with_name(path.name + ".1")]
    notes: list[str] = []
    if inode == end_inode:
        data = _read(candidates, inode, start, end)
    else:
        first = _read(candidates, inode, start, None)
        second = _read(candidates, end_inode, 0, end)
        notes.append("the log reached its size cap during this game and was rotated")
        data = None if first is None and second is None else (first or b"") + (second or b"")
        if (first is None) != (second is None):
            notes.append("part of this game's log has since been rotated away")
    if data is None:
        return GameLog("", ("this game's log has since been rotated away (the log is capped)",), True)
    if len(data) > limit:
        notes.append(f"the first {len(data) - limit} bytes are left out: the last {limit} are shown")
        data = data[-limit:]
    after = _read(candidates, end_inode, end, end + AFTER_BYTES) or b""
    return GameLog(data.decode("utf-8", "replace"), tuple(notes), True, after.decode("utf-8", "replace"))
