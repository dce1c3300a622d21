"""The web's share of the event loop the ladder's games share (``arena.server.app``).

Pages are cheap (a spectator's page is rendered once for all: ``arena.server.web.cache``), but a client that
asks for them as fast as they are answered, one hostile spectator is enough, would still take the whole
loop: about a thousand pages a second here, and the ladder's games, whose every move passes through the
same loop, slowed to a tenth (``python bench/server.py --load --interval 0``). So the web gets a share:
when requests have kept the loop busy for more than ``share`` of the last ``window_s`` seconds, the next
request waits its turn (its page comes later) instead of the games waiting.

What a request costs is what it took from the loop, measured so that the share holds on a loaded machine
(docs/server.md, "Pages under load"):

- the loop thread's **CPU time** while the request ran, not the wall time: on a shared machine the process
  is often waiting for a core, and a request charged for that wait would be refused for nothing;
- plus ``overhead_s`` for what happens outside the app: uvicorn reading, parsing and writing the request
  (measured with the health check, whose handler does nothing);
- at most ``MAX_COST_S``: a handler that hands its work to a thread (an export, an entrant's analytics)
  holds the loop only for its start and end, and the CPU of other tasks that ran meanwhile is not its own.

Waiting requests are served **in arrival order**, one at a time, woken by one timer set for the moment the
share frees: a request never waits behind later ones (the page's p99 stays near its p50 under a
saturating load), and thirty waiting requests cost the loop one timer, not thirty that poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

SHARE = 0.10  # of the loop, for the web's requests, their parsing and writing included
WINDOW_S = 1.0
OVERHEAD_S = 0.0002  # a request's cost outside the app: uvicorn's parsing and writing
MAX_COST_S = 0.05  # a request counted as at most this long: one that awaits a thread frees the loop
MIN_WAIT_S = 0.001  # the shortest timer set for the next request's turn


@dataclass
class LoopBudget:
    """The time requests held the loop over the last ``window_s``, and the requests waiting for their turn
    (see the module's docstring)."""

    share: float = SHARE
    window_s: float = WINDOW_S
    overhead_s: float = OVERHEAD_S
    clock: Callable[[], float] = time.monotonic
    _spent: deque[tuple[float, float]] = field(default_factory=deque)  # (ended at, seconds held)
    _total: float = 0.0
    _queue: deque[asyncio.Future[None]] = field(default_factory=deque)
    _timer: asyncio.TimerHandle | None = None

    def used(self) -> float:
        """The share of the last window that requests held the loop."""
        horizon = self.clock() - self.window_s
        while self._spent and self._spent[0][0] < horizon:
            self._total -= self._spent.popleft()[1]
        return max(0.0, self._total) / self.window_s

    def spend(self, seconds: float) -> None:
        """Count a request that held the loop ``seconds`` (its CPU time; ``overhead_s`` is added), and
        give the next waiting request its turn when the share allows."""
        cost = min(max(seconds, 0.0) + self.overhead_s, MAX_COST_S)
        self._spent.append((self.clock(), cost))
        self._total += cost
        if self._queue:
            self._arm(self._until_free())

    def waiting(self) -> int:
        """Requests waiting for their turn."""
        return sum(not f.done() for f in self._queue)

    def _until_free(self) -> float:
        """Seconds until the time spent in the window is within the share again (0: it is now)."""
        allowed = self.share * self.window_s
        total = self._total
        if total <= allowed:
            return 0.0
        now = self.clock()
        for ended, cost in self._spent:
            total -= cost
            if total <= allowed:
                return max(0.0, ended + self.window_s - now)
        return 0.0

    def _arm(self, delay: float) -> None:
        """(Re)set the one timer that gives the next request its turn."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(max(delay, MIN_WAIT_S), self._release)

    def _release(self) -> None:
        """The first waiting request's turn, if the share allows; a later look otherwise. After a release
        the next is given its turn when this one's cost is counted (``spend``), or after ``MAX_COST_S``
        if it is still running (it awaits a thread: the loop is free meanwhile)."""
        self._timer = None
        while self._queue and self._queue[0].done():  # a client that went away while it waited
            self._queue.popleft()
        if not self._queue:
            return
        wait = self._until_free() if self.used() > self.share else 0.0
        if wait > 0:
            self._arm(wait)
            return
        self._queue.popleft().set_result(None)
        if self._queue:
            self._arm(MAX_COST_S)

    async def turn(self) -> None:
        """Return when it is this request's turn: at once, unless the share is spent or others wait."""
        if not self._queue and self.used() <= self.share:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(future)
        if self._timer is None:
            self._arm(self._until_free())
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # its turn came as it was cancelled: pass it on
                self._arm(0.0)
            else:
                future.cancel()
                with contextlib.suppress(ValueError):
                    self._queue.remove(future)
            raise
