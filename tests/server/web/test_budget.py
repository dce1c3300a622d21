"""The web's share of the event loop (``arena.server.web.budget``) and the middleware that keeps to it."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from arena.server.web.budget import MAX_COST_S, LoopBudget
from arena.server.web.middleware import WebShare


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_the_share_used_counts_the_last_window_only_and_caps_each_request() -> None:
    clock = Clock()
    budget = LoopBudget(share=0.1, window_s=1.0, clock=clock)
    budget.spend(0.02)
    budget.spend(0.03)
    assert abs(budget.used() - 0.05) < 1e-9
    budget.spend(10.0)  # a request that waited on a thread held the loop only for its start and end
    assert abs(budget.used() - (0.05 + MAX_COST_S)) < 1e-9
    clock.now += 1.01
    assert budget.used() == 0.0


def test_a_request_waits_while_the_share_is_spent() -> None:
    budget = LoopBudget(share=0.1, window_s=0.3)
    budget.spend(MAX_COST_S)  # a sixth of the window: over the share

    async def waited() -> float:
        began = time.monotonic()
        await budget.turn()
        return time.monotonic() - began

    assert asyncio.run(waited()) >= 0.25  # until the spent time left the window (sleep never ends early)
    assert budget.used() <= 0.1


def test_the_middleware_holds_pages_but_not_the_health_check_or_live_streams() -> None:
    budget = LoopBudget(share=0.0, window_s=60.0)  # nothing left: any held request would wait a minute
    budget.spend(MAX_COST_S)
    served: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        served.append(scope["path"])

    share = WebShare(app, budget)

    async def call(path: str) -> bool:
        try:
            await asyncio.wait_for(share({"type": "http", "path": path}, None, None), 0.5)  # type: ignore[arg-type]
        except TimeoutError:
            return False
        return True

    async def main() -> list[bool]:
        return [
            await call(p) for p in ("/healthz", "/static/server.css", "/live/g1/events", "/", "/games/g1")
        ]

    assert asyncio.run(main()) == [True, True, True, False, False]
    assert served == ["/healthz", "/static/server.css", "/live/g1/events"]
