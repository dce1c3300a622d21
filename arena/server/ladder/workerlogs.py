"""The versions' stderr during ladder games played on Dask workers: stored with the game, read by its page.

With ``[executor]`` on Dask the bots run on the workers, and so do their logs (``logs/worker-NAME/``,
on the workers' machines): the ladder's own marks (``arena.server.ladder.gamelogs``) see no file. Each worker
therefore reads a game's span of each seat's log as the game ends (``arena.executor.logspan``: the same
reading, the same caps as the page) and sends it back with the game's record; the ladder stores it here,
in the game's transaction, so the page works after the worker is gone, and on any server process.

What is kept is bounded as the local logs are by their cap: for each version the spans of its newest
games only, at most ``KEEP_GAMES`` of them and ``KEEP_BYTES`` in all; an older game's page says its log
is gone, as a local span rotated away says.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from arena.executor.logspan import Span
from arena.server.db.database import ServerDatabase
from arena.server.db.models import WorkerLog
from arena.server.ladder.gamelogs import GameLog, read_span, shown

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


def read(db: ServerDatabase, game_id: str, version_id: int, limit: int | None = None) -> GameLog | None:
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
    db: ServerDatabase, path: Path, game_id: str, version_id: int, values: dict[str, int | None]
) -> GameLog:
    """What the logs page (and its API) shows of version ``version_id`` in game ``game_id``: its span of
    the local ladder log at ``path`` (the seat's ``log_*`` ``values``), or, for a game played on a Dask
    worker, the span that worker sent."""
    here = read_span(path, values)
    if here.recorded:
        return here
    return read(db, game_id, version_id) or here
