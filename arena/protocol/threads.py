"""The threads in which the SDK runs a bot's plain ``def act``, and the cheap hand-off to and from them.

Why not ``loop.run_in_executor``: its hand-off (a concurrent future, the pool's queue, a chained asyncio
future, a wake-up of the loop through its self-pipe) costs a large share of a quick decision
(docs/performance.md), and the default pool has only ``min(32, CPUs + 4)`` threads, so a few thinking games
queued the others' decisions behind them.

Here each decision in progress borrows a thread of its own from a pool (``MAX_THREADS`` at most, so that a
bot stays well inside the sandbox's limit of 256 processes and threads), and the event loop first waits
``INLINE_WAIT_S`` on a plain lock for the result: a quick act's reply then leaves with two thread switches
and no trip through the loop. Only a slower act is awaited as an asyncio future, so a thinking bot delays
its other games and the health check by at most ``INLINE_WAIT_S`` per decision.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

INLINE_WAIT_S = 0.0005
"""How long the event loop waits, blocked, for a plain ``def act`` before it goes back to its other work."""

MAX_THREADS = 32
"""Acts running at once per event loop; a decision beyond them waits for a thread to come free."""

Outcome = tuple[bool, Any]
"""``(True, result)`` or ``(False, exception)``."""


class _Thinker:
    """One thread that runs the calls it is handed, one at a time."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._jobs: queue.SimpleQueue[tuple[Callable[[Any], Any], Any] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()  # guards _waiter: the choice between the two ways back
        self._ready = threading.Lock()  # released by the thread when _outcome holds a result
        self._ready.acquire()
        self._outcome: Outcome | None = None
        self._waiter: asyncio.Future[Outcome] | None = None
        self.busy = False
        threading.Thread(target=self._run, name="arena-bot-act", daemon=True).start()

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            function, argument = job
            try:
                outcome: Outcome = (True, function(argument))
            except BaseException as exc:  # handed to the stream, which reports it to the arena
                outcome = (False, exc)
            del job, function, argument
            with self._lock:
                waiter = self._waiter
                if waiter is None:  # the loop waits on _ready (or will find the outcome at once)
                    self._outcome = outcome
                    self._ready.release()
                    continue
                self._waiter = None
            with contextlib.suppress(RuntimeError):  # the loop closed while act ran: nobody waits
                self._loop.call_soon_threadsafe(_settle, waiter, outcome)

    async def call(self, function: Callable[[Any], Any], argument: Any) -> Outcome:
        self.busy = True
        self._jobs.put((function, argument))
        if self._ready.acquire(timeout=INLINE_WAIT_S):
            outcome = self._outcome
        else:
            with self._lock:
                if self._ready.acquire(blocking=False):  # it finished just after the wait
                    outcome = self._outcome
                else:
                    outcome, waiter = None, self._loop.create_future()
                    self._waiter = waiter
            if outcome is None:
                outcome = await waiter  # if cancelled here, the thread stays busy until act returns
        self._outcome = None
        self.busy = False
        assert outcome is not None
        return outcome

    def stop(self) -> None:
        """End the thread once its current call (if any) returns."""
        self._jobs.put(None)


def _settle(waiter: asyncio.Future[Outcome], outcome: Outcome) -> None:
    if not waiter.done():  # the stream may have been cancelled while act ran
        waiter.set_result(outcome)


class ThinkerPool:
    """The act threads of one event loop. Used from that loop only, so it needs no lock of its own."""

    def __init__(self, loop: asyncio.AbstractEventLoop, max_threads: int = MAX_THREADS) -> None:
        self._loop = loop
        self._max = max_threads
        self._idle: list[_Thinker] = []
        self._count = 0
        self._waiting: collections.deque[asyncio.Future[_Thinker]] = collections.deque()

    async def call(self, function: Callable[[Any], Any], argument: Any) -> Any:
        """``function(argument)`` in a thread of the pool; returns its result or raises its exception."""
        if self._idle:
            thinker = self._idle.pop()  # the most recently used: its thread is the likeliest to be warm
        elif self._count < self._max:
            thinker = _Thinker(self._loop)
            self._count += 1
        else:
            free = self._loop.create_future()
            self._waiting.append(free)
            try:
                thinker = await free
            except asyncio.CancelledError:
                if free.done() and not free.cancelled():  # handed a thread just before the cancel
                    self._give_back(free.result())
                raise
        try:
            ok, value = await thinker.call(function, argument)
        finally:
            self._give_back(thinker)
        if ok:
            return value
        raise value

    def _give_back(self, thinker: _Thinker) -> None:
        if thinker.busy:  # the call was cancelled while act ran: retire the thread, make room for another
            thinker.stop()
            self._count -= 1
            if self._waiting and self._count < self._max:
                thinker = _Thinker(self._loop)
                self._count += 1
            else:
                return
        while self._waiting:
            free = self._waiting.popleft()
            if not free.done():
                free.set_result(thinker)
                return
        self._idle.append(thinker)

    def close(self) -> None:
        """Stop the idle threads (a busy one ends when its act returns)."""
        for thinker in self._idle:
            thinker.stop()
        self._idle.clear()


_POOLS: dict[asyncio.AbstractEventLoop, ThinkerPool] = {}


def pool_for_running_loop() -> ThinkerPool:
    """The running loop's pool, created on first use; pools of loops closed since are stopped."""
    loop = asyncio.get_running_loop()
    pool = _POOLS.get(loop)
    if pool is None:
        for old in [old for old in _POOLS if old.is_closed()]:
            _POOLS.pop(old).close()
        pool = _POOLS[loop] = ThinkerPool(loop)
    return pool
