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

from arena.errors import ConfigError
from arena.userfiles import opened_user_file

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


def _read(
    candidates: list[Path], inode: int, start: int, end: int | None, newest: int
) -> tuple[bytes, int] | None:
    """The newest ``newest`` bytes of ``start:end`` (``end`` None: to the end of the file) of whichever
    candidate file has ``inode`` (checked on the open file, so a rotation between looking and reading
    cannot hand over the wrong one), and how many bytes of the span before them were left out; None if
    none has it. Only a regular file is read (``arena.userfiles``: a log replaced by a FIFO or a device
    is no log), and never more than ``newest`` bytes of it."""
    for path in candidates:
        try:
            with opened_user_file(path, "bot log") as f:
                info = os.fstat(f.fileno())
                if info.st_ino != inode:
                    continue
                stop = min(info.st_size, end) if end is not None else info.st_size
                skipped = max(0, stop - start - newest)
                f.seek(start + skipped)
                return f.read(max(0, stop - start - skipped)) or b"", skipped
        except (OSError, ConfigError):
            continue
    return None


def read(path: Path, start: Mark, end: Mark, limit: int = SHOWN_BYTES) -> Span:
    """The span from ``start`` to ``end`` of the log at ``path`` (or its rotated ``.1``): its newest
    ``limit`` bytes, and up to ``AFTER_BYTES`` written after ``end``."""
    candidates = [path, path.with_name(path.name + ".1")]
    notes: list[str] = []
    if start.inode == end.inode:
        got = _read(candidates, start.inode, start.offset, end.offset, limit)
        data, skipped = (None, 0) if got is None else got
    else:
        second = _read(candidates, end.inode, 0, end.offset, limit)
        room = limit - (len(second[0]) if second is not None else 0)
        first = _read(candidates, start.inode, start.offset, None, room)
        notes.append("the log reached its size cap during this game and was rotated")
        data = None if first is None and second is None else (first or (b"", 0))[0] + (second or (b"", 0))[0]
        skipped = (first or (b"", 0))[1] + (second or (b"", 0))[1]
        if (first is None) != (second is None):
            notes.append("part of this game's log has since been rotated away")
    if data is None:
        return Span(b"", ("this game's log has since been rotated away (the log is capped)",))
    if skipped:
        notes.append(f"the first {skipped} bytes are left out: the last {limit} are shown")
    after = _read(candidates, end.inode, end.offset, end.offset + AFTER_BYTES, AFTER_BYTES)
    return Span(data, tuple(notes), after[0] if after is not None else b"")
