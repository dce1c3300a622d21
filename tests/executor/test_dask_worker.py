"""The worker plugin when its worker leaves mid-batch: no game whose bots the worker stopped comes back.

A Dask worker removes its plugins as soon as it loses its scheduler (or is told to close), while its
connections still answer; the plugin's teardown stops the entrants' bots. A batch in flight must then come
back as "not played" (the conductor plays it elsewhere, or stops the event), never as finished games with
crashes the bots did not have: CI once stored such a game and the resumed event differed from an
uninterrupted one (tests/executor/test_dask.py, the vanishing scheduler).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("distributed")

from arena.executor.dask_worker import HANDLER, EntrantsPlugin


class _Runtime:
    """Stands in for the worker's LocalExecutor: a game ends only when its bots are stopped, and then
    "finishes" with the crash a real table would record."""

    def __init__(self) -> None:
        self.bots_stopped = asyncio.Event()
        self.started = 0
        self.events: list[str] = []

    async def play(self, spec: Any, disqualified: Any, public_seed: int, watch: Any = None) -> str:
        self.started += 1
        try:
            await self.bots_stopped.wait()
        except asyncio.CancelledError:
            self.events.append("game cancelled")
            raise
        self.events.append("game finished with a crash")
        return "a record with a crash"

    async def stop(self) -> None:
        self.events.append("bots stopped")
        self.bots_stopped.set()


class _Worker:
    def __init__(self) -> None:
        self.handlers: dict[str, Any] = {}


def _plugin() -> tuple[EntrantsPlugin, _Runtime, _Worker]:
    plugin = EntrantsPlugin.__new__(EntrantsPlugin)
    EntrantsPlugin.__init__(plugin, config=None, names=[], strict=False)  # type: ignore[arg-type]
    runtime = _Runtime()
    plugin.runtime = runtime  # type: ignore[assignment]
    worker = _Worker()
    worker.handlers[HANDLER] = plugin.play_batch
    return plugin, runtime, worker


def test_a_batch_in_flight_when_the_worker_leaves_comes_back_unplayed() -> None:
    async def scenario() -> tuple[dict[str, Any], list[str], dict[str, Any]]:
        plugin, runtime, worker = _plugin()
        batch = asyncio.ensure_future(plugin.play_batch([(None, frozenset(), 1), (None, frozenset(), 2)]))
        while runtime.started < 2:
            await asyncio.sleep(0)
        await plugin.teardown(worker)
        answer = await batch
        later = await plugin.play_batch([(None, frozenset(), 3)])
        return answer, runtime.events, later

    answer, events, later = asyncio.run(scenario())
    assert answer == {"status": "CLOSING"}
    # The games were cancelled before the bots were stopped: none "finished" with a crash.
    assert events == ["game cancelled", "game cancelled", "bots stopped"]
    assert later == {"status": "CLOSING"}


def test_a_batch_cancelled_for_another_reason_is_still_cancelled() -> None:
    """Only the worker's leaving turns a cancellation into an answer; Dask cancelling the handler itself
    (its connection closed) still propagates."""

    async def scenario() -> None:
        plugin, runtime, _ = _plugin()
        batch = asyncio.ensure_future(plugin.play_batch([(None, frozenset(), 1)]))
        while runtime.started < 1:
            await asyncio.sleep(0)
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch

    asyncio.run(scenario())


class _Telling:
    """Stands in for the worker's LocalExecutor: tells the game's watch two actions, then waits."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def play(self, spec: Any, disqualified: Any, public_seed: int, watch: Any = None) -> str:
        watch.seen(["public news 1"], [["AS", "KS"], ["QH"]])
        watch.seen(["public news 2"], [["KS"], ["QH"]])
        await self.release.wait()
        return "a record"


def test_a_games_live_news_is_kept_on_the_worker_with_the_hands_only_when_open() -> None:
    """The conductor asks for the news after what it has; the seats' cards are kept (and sent) only for a
    game whose live table shows open hands; a finished game's news is gone."""
    from types import SimpleNamespace

    from arena.executor.dask_worker import OPEN, PUBLIC

    async def scenario(flag: int) -> tuple[Any, Any, Any]:
        plugin = EntrantsPlugin.__new__(EntrantsPlugin)
        EntrantsPlugin.__init__(plugin, config=None, names=[], strict=False)  # type: ignore[arg-type]
        runtime = _Telling()
        plugin.runtime = runtime  # type: ignore[assignment]
        spec = SimpleNamespace(game_id="L1")
        batch = asyncio.ensure_future(plugin.play_batch([(spec, frozenset(), 1)], live=[flag]))  # type: ignore[list-item]
        while not plugin._news.get("L1") or len(plugin._news["L1"].groups) < 2:
            await asyncio.sleep(0)
        everything = (await plugin.news({"L1": 0, "elsewhere": 0}))["news"].data
        after_one = (await plugin.news({"L1": 1}))["news"].data
        runtime.release.set()
        assert (await batch)["status"] == "OK"
        return everything, after_one, (await plugin.news({"L1": 0}))["news"].data

    everything, after_one, ended = asyncio.run(scenario(PUBLIC))
    assert everything == {"L1": ([["public news 1"], ["public news 2"]], None)}
    assert after_one == {"L1": ([["public news 2"]], None)}
    assert ended == {}
    everything, _, _ = asyncio.run(scenario(OPEN))
    assert everything["L1"][1] == [["KS"], ["QH"]]
