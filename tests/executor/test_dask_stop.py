"""``DaskExecutor.stop`` ends however its watchers' cancellation lands. Python 3.11's ``asyncio.wait_for``
returns the inner call's result, dropping the outer task's cancellation, when that call finished in the
same turn of the loop as the cancel: the watcher was left "cancelling" and looped on, and ``stop`` waited
for it for good (seen twice after a worker's death beside two burners in tests/executor/test_dask.py,
found with a dump of the arena's tasks). A fake client here times ``stop`` into exactly that turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.event.config import parse_config
from arena.executor.dask import DaskExecutor
from tests.helpers import event


class RacingScheduler:
    """Answers ``identity`` at once; on the fifth call it starts ``stop`` just before answering, so the
    cancellation reaches the watcher in the turn in which its call completed (the race, made certain)."""

    def __init__(self, stop: Callable[[], Any]) -> None:
        self.calls = 0
        self.fail = False
        self.stop = stop
        self.stopping: asyncio.Task[Any] | None = None

    async def identity(self, n_workers: int = -1) -> dict[str, Any]:
        if self.fail:
            raise OSError("the scheduler is gone")
        self.calls += 1
        if self.calls == 5:
            self.stopping = asyncio.get_running_loop().create_task(self.stop())
        return {"workers": {}}


class FakeClient:
    def __init__(self, stop: Callable[[], Any]) -> None:
        self.scheduler = RacingScheduler(stop)
        self.closed = False

    async def unregister_worker_plugin(self, name: str) -> None:
        return None

    async def close(self) -> None:
        self.closed = True


def test_stop_ends_when_a_watchers_cancellation_is_dropped_by_wait_for(tmp_path: Path) -> None:
    executor = DaskExecutor(parse_config(event(tmp_path)), tmp_path / "logs", strict=False)
    client = FakeClient(executor.stop)
    executor.client = client  # type: ignore[assignment]

    async def main() -> None:
        executor._members = asyncio.get_running_loop().create_task(executor._watch_members(every_s=0.001))
        for _ in range(5000):
            if client.scheduler.stopping is not None:
                break
            await asyncio.sleep(0.001)
        assert client.scheduler.stopping is not None, "the watcher did not loop"
        done, _ = await asyncio.wait([client.scheduler.stopping], timeout=10)  # for good before the fix
        if not done:
            client.scheduler.fail = True  # ends the loop the old way (a lost scheduler), for a clean exit
            await asyncio.wait([client.scheduler.stopping], timeout=10)
        assert done, "stop did not end: the watcher's cancellation was dropped and it looped on"

    asyncio.run(main())
    assert executor._members is not None and executor._members.done()
    assert client.closed
