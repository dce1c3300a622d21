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
  it may get the processor only after the game has ended (tests/server/ladder/test_pages.py once saw a lag
  of two fast games on a busy 2-core machine). So before each mark the ladder waits until each seat's shim
  has copied what its bot wrote so far (``Executor.settle_logs``, ``ManagedBot.settle``), for at most 2 s a
  seat: a shim its bot keeps from the processor longer than that leaves the rest to land after the end
  mark. The page therefore also shows what was written just after the game (``AFTER_BYTES``), marked as
  such, where such a late line, or the traceback of a crash at the game's end, is found.

The reading itself is ``arena.executor.logspan``'s, shared with the Dask workers. With ``[executor]`` on
Dask the bots run on the workers, and so do their logs (``logs/worker-NAME/``, on the workers' machines):
the ladder's own marks see no file. Each worker therefore reads a game's span of each seat's log as the
game ends (the same reading, the same caps as the page) and sends it back with the game's record; the
ladder stores it (``store``, table ``worker_logs``) in the game's transaction, so the page works after the
worker is gone, and on any server process. What is kept is bounded as the local logs are by their cap: for
each version the spans of its newest games only, at most ``KEEP_GAMES`` of them and ``KEEP_BYTES`` in all;
an older game's page says its log is gone, as a local span rotated away says.

Every reader of a game's stderr (its page, the API, the analytics' log search) goes through ``game_log``:
the local span if the game has one, else the span a worker sent. (``arena run``'s report cuts a bot's log
into games another way, ``arena.results.botlog``: see docs/architecture.md.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from arena.executor import logspan
from arena.executor.logspan import AFTER_BYTES, SHOWN_BYTES, Mark, Span, mark
from arena.server.db.database import ServerDatabase
from arena.server.db.models import WorkerLog

__all__ = [
    "AFTER_BYTES",
    "COLUMNS",
    "SHOWN_BYTES",
    "GameLog",
    "Mark",
    "columns",
    "game_log",
    "mark",
    "marks",
    "read_span",
    "store",
    "tail",
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


# --- the spans Dask workers sent ----------------------------------------------------------------------

KEEP_GAMES = 200  # newest games' spans kept per version
KEEP_BYTES = 2 * 1024 * 1024  # ... and bytes: what the shim keeps on disk of a local log (twice its cap)
GONE = "this game's log is no longer kept (only the newest games' logs of each version are)"


def store(s: Session, game_id: str, seats: tuple[str, ...], spans: dict[str, Span]) -> None:
    """Add the spans a worker sent for game ``game_id`` (by seat name; only versions' seats), and forget
    the oldest of those versions' spans beyond what is kept."""
    kept = {seat: name for seat, name in enumerate(seats) if name in spans and name[0] == "v"}  # v12
    if not kept:
        return
    rows = [
        {"game_id": game_id, "seat": seat, "version_id": int(name[1:]), "data": spans[name].data,
         "after": spans[name].after, "notes": json.dumps(list(spans[name].notes))}
        for seat, name in kept.items()
    ]  # fmt: skip
    s.execute(insert(WorkerLog), rows)
    for version_id in {int(name[1:]) for name in kept.values()}:
        _prune(s, version_id)


def _prune(s: Session, version_id: int) -> None:
    sizes = s.execute(
        select(WorkerLog.game_id, func.length(WorkerLog.data) + func.length(WorkerLog.after))
        .where(WorkerLog.version_id == version_id)
        .order_by(WorkerLog.game_id.desc())
        .limit(KEEP_GAMES + 1)
    ).all()
    total = 0
    for kept, (game_id, size) in enumerate(sizes):
        total += size or 0
        if kept >= KEEP_GAMES or (total > KEEP_BYTES and kept > 0):
            s.execute(
                delete(WorkerLog).where(WorkerLog.version_id == version_id, WorkerLog.game_id <= game_id)
            )
            return


def _stored(db: ServerDatabase, game_id: str, version_id: int, limit: int | None = None) -> GameLog | None:
    """Version ``version_id``'s stored span of game ``game_id`` (its newest ``limit`` bytes, if given);
    None if none was ever stored for it (a game played here, or before revision 0005); a note that it is
    gone if it was pruned."""
    with db.session() as s:
        row = s.scalars(
            select(WorkerLog).where(WorkerLog.game_id == game_id, WorkerLog.version_id == version_id)
        ).first()
        if row is not None:
            data, notes = row.data, tuple(json.loads(row.notes))
            if limit is not None and len(data) > limit:
                notes += (f"the first {len(data) - limit} bytes are left out: the last {limit} are shown",)
                data = data[-limit:] if limit else b""
            return shown(Span(data, notes, row.after))
        oldest = s.scalar(select(func.min(WorkerLog.game_id)).where(WorkerLog.version_id == version_id))
    if oldest is not None and game_id < oldest:
        return GameLog("", (GONE,), True)
    return None


def tail(db: ServerDatabase, version_id: int, limit: int) -> str:
    """The end of version ``version_id``'s stderr over its ladder games played on Dask workers, as its
    logs page shows a local ladder log's end: its newest games' spans, read newest first until ``limit``
    bytes, then shown oldest first like a file's tail, each after a line naming its game. Empty when
    none is stored (a ladder on the local executor: the page shows its file)."""
    parts: list[bytes] = []
    total = 0
    with db.session() as s:
        rows = s.execute(
            select(WorkerLog.game_id, WorkerLog.data)
            .where(WorkerLog.version_id == version_id)
            .order_by(WorkerLog.game_id.desc())
            .limit(KEEP_GAMES)
        )
        for game_id, data in rows:
            parts.append(f"[arena] game {game_id}, on a Dask worker:\n".encode() + data)
            total += len(parts[-1])
            if total >= limit:
                break
    return b"".join(reversed(parts))[-limit:].decode("utf-8", "replace")


def game_log(
    db: ServerDatabase,
    path: Path,
    game_id: str,
    version_id: int,
    values: dict[str, int | None],
    limit: int = SHOWN_BYTES,
) -> GameLog:
    """Version ``version_id``'s stderr during game ``game_id`` (its newest ``limit`` bytes), as every page
    shows it: its span of the local ladder log at ``path`` (the seat's ``log_*`` ``values``), or, for a
    game played on a Dask worker, the span that worker sent."""
    here = read_span(path, values, limit)
    if here.recorded:
        return here
    return _stored(db, game_id, version_id, limit) or here
