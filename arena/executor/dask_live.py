"""Live tables of games played on Dask workers: the conductor's side of their news.

A game's table is on a worker, and its watch (``arena.event.table.TableWatch``: the server's live table)
on the conductor. The worker keeps each of its games' public news (``dask_worker.News``: redacted on the
worker, as the table redacts it locally) and never sends it by itself; :class:`LiveFeeds` asks each worker
every ``LIVE_S`` for the news of its games that somebody watches (``watch.watched``), after what the watch
was already told, and tells the watch. So a slow or absent server cannot slow a game (the worker never
waits for anybody), a game nobody watches sends nothing, and a spectator is at most ``LIVE_S`` plus a
round trip behind the table.

The seats' cards travel only when ``watch.open_hands`` says everybody may see them anyway
(``[ladder] live_open_hands``); otherwise they leave the worker with the finished game's record, and the
organiser's live view of a Dask game shows the public moves (docs/server.md, "Live tables").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any

from arena.event.table import TableWatch
from arena.executor.dask_worker import OPEN, PUBLIC

LIVE_S = 0.25
"""How often the conductor asks the workers for the news of the games somebody watches live."""


@dataclass(eq=False)
class _Follow:
    """A game with a live table: where it is played and how much of its news the watch has been told."""

    watch: TableWatch
    flag: int  # what the worker keeps: dask_worker.PUBLIC, or OPEN (with the seats' cards)
    address: str | None = None
    since: int = 0  # actions told


class LiveFeeds:
    """The games in flight that have a live table, and the loop that feeds them (the module's docstring).

    ``ask(address, since)`` asks the worker at ``address`` for the news of the games ``since`` names
    after their first ``since[id]`` actions (the ``dask_worker.NEWS`` operation)."""

    def __init__(self, ask: Callable[[str, dict[str, int]], Awaitable[Any]]) -> None:
        self._ask = ask
        self._follow: dict[str, _Follow] = {}
        self.stopping = False  # ``run`` ends at its next turn

    def follow(self, game_id: str, watch: TableWatch) -> None:
        self._follow[game_id] = _Follow(watch, OPEN if getattr(watch, "open_hands", False) else PUBLIC)

    def done(self, game_id: str) -> None:
        self._follow.pop(game_id, None)

    def flag(self, game_id: str, address: str) -> int:
        """What the worker at ``address`` keeps of this game for its live table (0: nothing). A game sent
        again (its worker was lost) is followed no more: its table already showed moves of the game's
        first playing, which the new one, from its start, would contradict."""
        follow = self._follow.get(game_id)
        if follow is None:
            return 0
        if follow.address is not None:
            del self._follow[game_id]
            return 0
        follow.address = address
        return follow.flag

    async def run(self, lanes: Callable[[], Collection[str]]) -> None:
        """Every ``LIVE_S``, ask each worker (of ``lanes()``, the addresses of the live workers) for the
        news of its watched games. A worker that does not answer in time is asked again next time; its
        games never wait for this. Ends on ``stopping`` too (``DaskExecutor.stop``: a cancellation may be
        swallowed inside Dask's client)."""
        while not self.stopping:
            await asyncio.sleep(LIVE_S)
            alive = lanes()
            wanted: dict[str, dict[str, _Follow]] = {}
            for game_id, follow in list(self._follow.items()):
                if (
                    follow.address is not None
                    and follow.address in alive
                    and getattr(follow.watch, "watched", True)
                ):
                    wanted.setdefault(follow.address, {})[game_id] = follow
            if wanted:
                await asyncio.gather(*(self._feed(a, games) for a, games in wanted.items()))

    async def _feed(self, address: str, games: dict[str, _Follow]) -> None:
        try:
            answer = await asyncio.wait_for(
                self._ask(address, {g: f.since for g, f in games.items()}), 10 * LIVE_S
            )
            news = answer["news"]
        except Exception:  # gone, slow, or not a plugin of ours: its games' records say what happened
            return
        for game_id, (groups, hands) in news.items():
            follow = games.get(game_id)
            if follow is None or self._follow.get(game_id) is not follow or not groups:
                continue
            follow.since += len(groups)
            with contextlib.suppress(Exception):  # a watcher never stops a game (TableWatch)
                many = getattr(follow.watch, "seen_many", None)
                if many is not None:
                    many(groups, hands)
                else:
                    for events in groups:
                        follow.watch.seen(events, hands or [])
