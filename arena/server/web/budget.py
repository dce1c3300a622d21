"""The web's share of the event loop the ladder's games share (``arena.server.app``).

Pages are cheap (a spectator's page is rendered once for all: ``arena.server.web.cache``), but a client that
asks for them as fast as they are answered, one hostile spectator is enough, would still take the whole
loop: about a thousand pages a second here, and the ladder's games, whose every move passes through the
same loop, slowed to a tenth (``python bench/server.py --load --interval 0``). So the web gets a share:
when requests have kept the loop busy for more than ``share`` of the last ``window_s`` seconds, the next
request waits its turn (its page comes later) instead of the games waiting. A request's cost is the time
it held the loop, up to ``MAX_COST_S``: a handler that hands its work to a thread (an export, an entrant's
analytics) holds the loop only for its start and end.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

SHARE = 0.15  # of the loop, for the web's requests (besides uvicorn's own parsing, not counted here)
WINDOW_S = 1.0
MAX_COST_S = 0.05  # a request counted as at most this long: one that awaits a thread frees the loop
TURN_S = 0.005  # how often a waiting request looks again


@dataclass
class LoopBudget:
    """The time requests held the loop over the last ``window_s`` (see the module's docstring)."""

    share: float = SHARE
    window_s: float = WINDOW_S
    clock: Callable[[], float] = time.monotonic
    _spent: deque[tuple[float, float]] = field(default_factory=deque)  # (ended at, seconds held)
    _total: float = 0.0

    def used(self) -> float:
        """The share of the last window that requests held the loop."""
        horizon = self.clock() - self.window_s
        while self._spent and self._spent[0][0] < horizon:
            self._total -= self._spent.popleft()[1]
        return max(0.0, self._total) / self.window_s

    def spend(self, seconds: float) -> None:
        cost = min(max(seconds, 0.0), MAX_COST_S)
        self._spent.append((self.clock(), cost))
        self._total += cost

    async def turn(self) -> None:
        """Return when the web may use the loop again (at once, unless it used its share)."""
        while self.used() > self.share:
            await asyncio.sleep(TURN_S)
