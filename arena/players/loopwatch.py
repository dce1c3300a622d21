"""How late the arena's own event loop is running, so that its lateness is not blamed on a bot.

A task sleeps for a short interval and records by how much it woke up late. When a decision times out,
the player asks for the worst lag seen since the request was sent: if the loop itself was stalled for a
good part of the decision's time, the reply may well have been sitting unread, and the fault is recorded as
the harness's (``FaultKind.HARNESS``), which never counts against the bot.

``transport_pending`` looks one level lower: gRPC's own thread completes network I/O and then wakes the
event loop through a socket; while that socket is readable, the transport holds completed reads (perhaps a
bot's reply) that the busy loop has not handled yet. That is the arena's delay, never the bot's.
"""

from __future__ import annotations

import asyncio
import functools
import select
import time
import weakref
from collections import deque
from typing import ClassVar

INTERVAL_S = 0.02
HISTORY_S = 30.0


class LoopWatch:
    """Samples event-loop lag; one per running loop (``for_running_loop``)."""

    _by_loop: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopWatch]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self) -> None:
        self._samples: deque[tuple[float, float]] = deque(maxlen=int(HISTORY_S / INTERVAL_S))
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def for_running_loop(cls) -> LoopWatch:
        loop = asyncio.get_running_loop()
        watch = cls._by_loop.get(loop)
        if watch is None or watch._task is None or watch._task.done():
            watch = cls()
            watch._task = loop.create_task(watch._run(), name="arena-loopwatch")
            cls._by_loop[loop] = watch
        return watch

    async def _run(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(INTERVAL_S)
            now = time.monotonic()
            self._samples.append((now, max(0.0, now - before - INTERVAL_S)))

    def transport_pending(self) -> bool:
        """Whether gRPC has completed I/O that the event loop has not handled yet."""
        fd = _grpc_wakeup_fd(asyncio.get_running_loop())
        if fd is None:
            return False
        try:
            readable, _, _ = select.select([fd], [], [], 0)
        except (OSError, ValueError):
            return False
        return bool(readable)

    def max_lag_ms(self, since: float) -> float:
        """The largest lag (ms) of any sample taken after ``since`` (a ``time.monotonic()`` value)."""
        return 1000 * max((lag for at, lag in self._samples if at >= since), default=0.0)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


def _grpc_wakeup_fd(loop: asyncio.AbstractEventLoop) -> int | None:
    """The socket through which gRPC's completion-queue thread wakes ``loop`` (None if not found).

    gRPC's asyncio integration registers it with ``loop.add_reader``; it is found by its callback,
    ``PollerCompletionQueue._handle_events``. The arena's uvloop (``arena.protocol.loops``) notes it as gRPC
    registers it; on asyncio's loop this reads the selector map (not a public API), so any surprise means "not
    found", and the caller falls back to the lag samples alone.
    """
    noted = getattr(loop, "grpc_wakeup_fd", None)
    if isinstance(noted, int):
        return noted
    try:
        keys = loop._selector.get_map().values()  # type: ignore[attr-defined]
        for key in keys:
            reader = key.data[0] if isinstance(key.data, tuple) else None
            callback = getattr(reader, "_callback", None)
            if isinstance(callback, functools.partial):
                callback = callback.func
            if getattr(callback, "__name__", "") == "_handle_events":
                return int(key.fd)
    except Exception:
        return None
    return None
