"""The SDK's act threads (arena/protocol/threads.py): results, exceptions, the limit, and cancelled calls.

Events, not sleeps, decide when a call returns, so nothing here depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from arena.protocol.threads import INLINE_WAIT_S, ThinkerPool, pool_for_running_loop


def test_quick_and_slow_calls_return_their_results_and_exceptions() -> None:
    async def main() -> None:
        pool = ThinkerPool(asyncio.get_running_loop())
        assert await pool.call(lambda x: x + 1, 41) == 42
        gate = threading.Event()

        def slow(x: int) -> int:
            gate.wait(30)
            return x * 2

        task = asyncio.create_task(pool.call(slow, 21))
        await asyncio.sleep(INLINE_WAIT_S * 4)
        assert not task.done()
        gate.set()
        assert await asyncio.wait_for(task, 30) == 42

        def broken(x: int) -> int:
            raise ValueError(f"no {x}")

        with pytest.raises(ValueError, match="no 7"):
            await pool.call(broken, 7)
        assert await pool.call(str, 5) == "5"  # the thread survives an exception
        pool.close()

    asyncio.run(main())


def test_calls_beyond_the_limit_wait_for_a_free_thread_and_the_loop_stays_free() -> None:
    async def main() -> None:
        pool = ThinkerPool(asyncio.get_running_loop(), max_threads=2)
        gates = [threading.Event() for _ in range(3)]
        started: list[int] = []

        def blocked(i: int) -> int:
            started.append(i)
            gates[i].wait(30)
            return i

        tasks = [asyncio.create_task(pool.call(blocked, i)) for i in range(3)]
        for _ in range(200):  # the loop keeps running while two acts block
            await asyncio.sleep(0.005)
            if len(started) == 2:
                break
        assert sorted(started) == [0, 1]
        gates[0].set()
        assert await asyncio.wait_for(tasks[0], 30) == 0
        for _ in range(200):
            await asyncio.sleep(0.005)
            if len(started) == 3:
                break
        assert started[2] == 2  # the third ran on the thread the first gave back
        gates[1].set()
        gates[2].set()
        assert await asyncio.wait_for(asyncio.gather(*tasks[1:]), 30) == [1, 2]
        assert pool._count == 2  # the limit held: no third thread was made
        pool.close()

    asyncio.run(main())


def test_a_call_cancelled_while_act_runs_retires_its_thread_and_the_pool_goes_on() -> None:
    async def main() -> None:
        pool = ThinkerPool(asyncio.get_running_loop(), max_threads=1)
        gate = threading.Event()
        task = asyncio.create_task(pool.call(lambda _: gate.wait(30), None))
        await asyncio.sleep(INLINE_WAIT_S * 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await asyncio.wait_for(pool.call(lambda x: x, "next"), 30) == "next"
        gate.set()
        pool.close()

    asyncio.run(main())


def test_each_loop_has_its_own_pool() -> None:
    """Two loops alive at once (one per thread, as two bots served in one process would be) get two pools,
    each bound to its own loop; one loop asked twice gets the same pool; a closed loop's idle threads are
    stopped once a new loop makes its pool."""

    async def ask(ready: threading.Barrier | None = None) -> tuple[ThinkerPool, ThinkerPool, object]:
        first = pool_for_running_loop()
        await first.call(str, 1)  # one idle thread, to be stopped when this loop is gone
        if ready is not None:
            ready.wait(30)  # both loops run now
        return first, pool_for_running_loop(), asyncio.get_running_loop()

    ready = threading.Barrier(2)
    results: list[tuple[ThinkerPool, ThinkerPool, object]] = []
    threads = [threading.Thread(target=lambda: results.append(asyncio.run(ask(ready)))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(results) == 2
    for first, again, loop in results:
        assert first is again and first._loop is loop
    (a, _, _), (b, _, _) = results
    assert a is not b, "two loops share a pool"
    assert a._idle and b._idle
    asyncio.run(ask())  # a new loop: the pools of the closed loops are stopped
    assert not a._idle and not b._idle
