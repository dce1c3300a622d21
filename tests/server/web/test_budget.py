"""The web's share of the event loop (``arena.server.web.budget``) and the middleware that keeps to it:
what a request is charged (the loop's CPU, not a wait for a core), and that waiting requests are served in
arrival order (issue 41, item 8: pages under load)."""

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
    budget = LoopBudget(share=0.1, window_s=1.0, overhead_s=0.0, clock=clock)
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


def test_waiting_requests_are_served_in_arrival_order_and_none_jumps_the_queue() -> None:
    clock = Clock()
    budget = LoopBudget(share=0.1, window_s=0.2, overhead_s=0.0, clock=clock)
    budget.spend(MAX_COST_S)  # a quarter of the window: over the share
    served: list[str] = []

    async def request(name: str) -> None:
        await budget.turn()
        served.append(name)
        budget.spend(0.0)

    async def main() -> None:
        first = asyncio.create_task(request("first"))
        await asyncio.sleep(0)  # it waits for its turn
        assert budget.waiting() == 1
        clock.now += 1.0  # the share is free again, and a second request comes before the first's turn
        second = asyncio.create_task(request("second"))
        third = asyncio.create_task(request("third"))
        await asyncio.wait_for(asyncio.gather(first, second, third), 5)

    asyncio.run(main())
    assert served == ["first", "second", "third"]


def test_a_request_that_goes_away_while_it_waits_passes_its_place_on() -> None:
    clock = Clock()
    budget = LoopBudget(share=0.1, window_s=0.2, overhead_s=0.0, clock=clock)
    budget.spend(MAX_COST_S)
    served: list[str] = []

    async def request(name: str) -> None:
        await budget.turn()
        served.append(name)
        budget.spend(0.0)

    async def main() -> None:
        gone = asyncio.create_task(request("gone"))
        kept = asyncio.create_task(request("kept"))
        await asyncio.sleep(0)
        gone.cancel()
        clock.now += 1.0
        await asyncio.wait_for(kept, 5)
        assert budget.waiting() == 0

    asyncio.run(main())
    assert served == ["kept"]


def test_a_request_is_charged_the_loop_s_cpu_and_the_server_s_overhead_not_its_wall_time() -> None:
    """A handler that awaits (a thread, the database's turn) or a process waiting for a core on a loaded
    machine holds no CPU of the loop: charging the wall time refused pages for nothing."""
    budget = LoopBudget(share=1.0, window_s=60.0, overhead_s=0.001)

    async def waits(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await asyncio.sleep(0.2)  # the loop is free meanwhile

    async def computes(scope: dict[str, Any], receive: Any, send: Any) -> None:
        end = time.thread_time() + 0.02
        while time.thread_time() < end:  # 20 ms of the loop's CPU
            pass

    asyncio.run(WebShare(waits, budget)({"type": "http", "path": "/"}, None, None))  # type: ignore[arg-type]
    assert budget.used() * 60 < 0.005, budget.used() * 60  # the overhead and a little, not 0.2 s (nor 0.05)
    asyncio.run(WebShare(computes, budget)({"type": "http", "path": "/"}, None, None))  # type: ignore[arg-type]
    assert 0.02 <= budget.used() * 60 < 0.04, budget.used() * 60
