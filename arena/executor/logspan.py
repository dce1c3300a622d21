"""A game's span of a bot's log file: the bytes between two marks (inode and size) taken when the game
started and when it ended, read on the machine that has the file.

The competition server's ladder marks its own bots' logs (``arena.server.ladder.gamelogs``, which reads the
span when a page asks); a Dask worker marks the logs of the bots it launched and reads each game's span as
soon as the game ends, so that the bytes travel back with the game's record (``arena.executor.dask_worker``):
the worker may be gone by the time anybody looks. Both read the same way, here, so a rotated or capped log
reads the same whichever machine it was on.

The launcher's shim caps a log by renaming ``NAME.log`` to ``NAME.log.1`` and starting a fresh file
(``arena.players.shim.CappedLog``): the inode tells which of the two a mark was made in.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

SHOWN_BYTES = 200_000  # most of one game's span kept (its newest part)
AFTER_BYTES = 4_000  # what the log holds after the game's end mark, kept apart: a bot's stderr reaches its
# log through the shim's pipe, so a line written at the very end of the game can land just after the mark


@dataclass(frozen=True, slots=True)
class Mark:
    """Where a log file stood: which file (inode) and how long it was."""

    inode: int
    offset: int


@dataclass(frozen=True, slots=True)
class Span:
    """A game's bytes of one log (the newest ``SHOWN_BYTES``), what followed them when it was read, and
    what a reader must be told about them (rotated, cut, gone)."""

    data: bytes
    notes: tuple[str, ...]
    after: bytes = b""


def mark(path: Path) -> Mark | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return Mark(st.st_ino, st.st_size)


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


def read(path: Path, start: Mark, end: Mark, limit: int = SHOWN_BYTES) -> Span:
    """The span from ``start`` to ``end`` of the log at ``path`` (or its rotated ``.1``): its newest
    ``limit`` bytes, and up to ``AFTER_BYTES`` written after ``end``."""
    candidates = [path, path.with_name(path.name + ".1")]
    notes: list[str] = []
    if start.inode == end.inode:
        data = _read(candidates, start.inode, start.offset, end.offset)
    else:
        first = _read(candidates, start.inode, start.offset, None)
        second = _read(candidates, end.inode, 0, end.offset)
        notes.append("the log reached its size cap during this game and was rotated")
        data = None if first is None and second is None else (first or b"") + (second or b"")
        if (first is None) != (second is None):
            notes.append("part of this game's log has since been rotated away")
    if data is None:
        return Span(b"", ("this game's log has since been rotated away (the log is capped)",))
    if len(data) > limit:
        notes.append(f"the first {len(data) - limit} bytes are left out: the last {limit} are shown")
        data = data[-limit:]
    after = _read(candidates, end.inode, end.offset, end.offset + AFTER_BYTES) or b""
    return Span(data, tuple(notes), after)
