"""The worker's side of the Dask executor: the event's entrants on each worker, and the games it plays.

Every worker holds the entrants for the whole event in a worker plugin (:class:`EntrantsPlugin`): it
launches the launched bots once per worker (same sandbox, limits and restarts as the local executor; logs
in ``OUTPUT/logs/worker-NAME/``), dials the address entrants, imports the in-process ones, and plays
batches of tables on the worker's event loop, so deadlines are measured on the worker, next to the bots.
The conductor's side is :mod:`arena.executor.dask`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from distributed import WorkerPlugin, get_worker
from distributed.protocol import to_serialize

from arena.errors import ArenaError
from arena.event.config import EntrantSpec, TournamentConfig
from arena.event.table import TableSpec
from arena.executor import logspan
from arena.executor.logspan import Span
from arena.results.record import GameRecord

PLUGIN = "euchre-arena-entrants"
"""The prefix of each executor's plugin name: ``PLUGIN-TOKEN``, one token per executor (``plugin_name``)."""
HANDLER = "euchre_arena_play"
"""The operation the plugin adds to its worker (``HANDLER_TOKEN``): play a batch of games and answer with
their records."""
CHANGE = "euchre_arena_entrants"
"""... and change its entrants while it runs (a ladder's versions come and go), answering with its state."""
NEWS = "euchre_arena_news"
"""... and answer with the public news of games in flight since what the conductor has (live tables)."""
NEWS_CAP = 5_000
"""Actions of one game a worker keeps for its live table (a game has a few hundred): past this, no more."""
PUBLIC, OPEN = 1, 2
"""What a game's live table is kept of on the worker: the public news only, or with the seats' cards too."""


def plugin_name(token: str) -> str:
    """The name one executor registers its plugin under.

    Why one per executor: a Dask worker keeps one plugin per name, so two ladder processes (or a final, or
    an ``arena run``) on one scheduler with a fixed name would replace each other's entrants, and the first
    to stop would remove the other's. With a token of its own (chosen at random by the executor when it
    starts) each has its own entrants on every worker, reached by operations named with the same token
    (``op``), and removes only its own."""
    return f"{PLUGIN}-{token}" if token else PLUGIN


def op(base: str, token: str) -> str:
    """The worker operation ``base`` of the executor with ``token`` (``euchre_arena_play_1f2e3d4c``)."""
    return f"{base}_{token}" if token else base


OVERLAP = (
    "this bot played another game on the same Dask worker at the same time (one process serves all its "
    "games there), so this span also holds what it wrote during that game"
)


@dataclass(eq=False)
class News:
    """A game's live table on the worker (a :class:`~arena.event.table.TableWatch`): the public news of
    each of its actions so far, as the table told them (already redacted: ``arena.engine.news.redact``),
    and, only for a competition that shows open hands, the seats' cards now.

    Kept here and taken by the conductor (the ``NEWS`` operation), never sent by the worker: the conductor
    asks only for games somebody is watching, so an unwatched game costs a list append per action, and a
    slow or absent server cannot slow a game (the worker never waits for anybody)."""

    hands_too: bool
    groups: list[Sequence[Any]] = field(default_factory=list)
    hands: list[list[str]] | None = None

    def seen(self, events: Sequence[Any], hands: Sequence[Sequence[Any]]) -> None:
        if len(self.groups) >= NEWS_CAP:
            return
        self.groups.append(list(events))
        if self.hands_too:
            self.hands = [[str(c) for c in h] for h in hands]


@dataclass(eq=False)
class _Playing:
    """A game being played with its logs kept: its seats, and those of them that were seated at another
    of this worker's tables meanwhile (their spans overlap)."""

    names: frozenset[str]
    shared: set[str] = field(default_factory=set)


class EntrantsPlugin(WorkerPlugin):
    """The entrants of one event on one worker, started with the worker and stopped with it.

    They live on the worker's own event loop, where the games are played too (the tasks are coroutines):
    a task needs no thread of its own, and the tables' decisions, the bots' pipes and Dask's messages share
    one loop, as they share the arena's loop with the local executor.
    """

    def __init__(
        self,
        config: TournamentConfig,
        names: Sequence[str],
        strict: bool,
        pins: dict[str, tuple[int, ...]] | None = None,
        token: str = "",
    ) -> None:
        self.token = token
        self.name = plugin_name(token)
        self.config = config
        self.names = list(names)
        self.strict = strict
        self.pins = dict(pins or {})
        self._closing = False
        self._batches: set[asyncio.Future[list[Any]]] = set()
        self._playing: set[_Playing] = set()
        self._news: dict[str, News] = {}  # by game id, while the game is played

    async def setup(self, worker: Any) -> None:
        from arena.executor.local import LocalExecutor  # the same runtime the local executor uses

        cpus = self.pins.get(str(worker.name))
        if cpus:
            pin_process(cpus)  # before the bots start: they inherit it
        folder = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(worker.name))
        log_dir = self.config.output / "logs" / f"worker-{folder}"
        self.runtime = LocalExecutor(self.config, log_dir, self.strict)
        try:
            await self.runtime.start(self.names)
        except BaseException:
            await self.teardown(worker)
            raise
        for name, handler in self._handlers():
            worker.handlers[name] = handler
        # A worker's heap holds Dask, tornado and the arena (tens of thousands of objects the collector would
        # keep walking through as the tables allocate): set them aside once they are loaded.
        gc.freeze()

    async def play_batch(
        self,
        games: list[tuple[TableSpec, frozenset[str], int]],
        logs: bool = False,
        live: list[int] | None = None,
    ) -> dict[str, Any]:
        """The handler: play these tables at once on this worker's entrants, on the worker's event loop.

        Each game comes back in the store's form (:class:`~arena.results.record.GameRecord`), made here: that
        is cheap to send and to unpickle, and it spares the conductor, whose one core bounds the event.
        With ``logs`` each also comes with its spans of its seats' logs (:meth:`_play_logged`). ``live``
        says, game by game, what its live table keeps for the conductor to ask for (0: nothing,
        ``PUBLIC``, ``OPEN``: :class:`News`)."""
        if self._closing:
            return {"status": "CLOSING"}
        flags = live or [0] * len(games)
        followed = [game[0].game_id for game, flag in zip(games, flags, strict=True) if flag]
        batch = asyncio.gather(
            *(
                self._play_logged(*game, watch=self._watch(game[0], flag))
                if logs
                else self._play(*game, watch=self._watch(game[0], flag))
                for game, flag in zip(games, flags, strict=True)
            )
        )
        self._batches.add(batch)
        try:
            played = await batch
        except asyncio.CancelledError:
            if self._closing:  # the worker is leaving: the conductor plays these games elsewhere
                return {"status": "CLOSING"}
            raise
        finally:
            self._batches.discard(batch)
            for game_id in followed:
                self._news.pop(game_id, None)
        if self._closing:
            return {"status": "CLOSING"}
        reply = {"status": "OK", "records": to_serialize([record for record, _ in played])}
        if logs:
            reply["logs"] = to_serialize([spans for _, spans in played])
        return reply

    def _watch(self, spec: TableSpec, flag: int) -> News | None:
        if not flag:
            return None
        news = self._news[spec.game_id] = News(flag == OPEN)
        return news

    async def _play(
        self, spec: TableSpec, disqualified: frozenset[str], public_seed: int, watch: News | None = None
    ) -> tuple[GameRecord, dict[str, Span]]:
        return await self.runtime.play(spec, disqualified, public_seed, watch=watch), {}

    async def _play_logged(
        self, spec: TableSpec, disqualified: frozenset[str], public_seed: int, watch: News | None = None
    ) -> tuple[GameRecord, dict[str, Span]]:
        """Play one game, and read each launched seat's log between its marks at the start and the end
        (``arena.executor.logspan``) at once: the bytes go back with the game, since this worker may be
        gone by the time anybody asks (a log read later would also hold more of the bot's next games)."""
        paths = {n: self.runtime.log_dir / f"{n}.log" for n in spec.seat_names if n in self.runtime.managed}
        await self.runtime.settle_logs(paths)  # what the bots wrote before the game: before its span
        before = {n: logspan.mark(path) for n, path in paths.items()}
        me = _Playing(frozenset(paths))
        for other in self._playing:
            common = me.names & other.names
            other.shared |= common
            me.shared |= common
        self._playing.add(me)
        try:
            record = await self.runtime.play(spec, disqualified, public_seed, watch=watch)
        finally:
            self._playing.discard(me)
        await self.runtime.settle_logs(paths)  # what they wrote during it: inside
        spans: dict[str, Span] = {}
        for name, path in paths.items():
            start, end = before[name], logspan.mark(path)
            if start is None or end is None:
                continue
            span = logspan.read(path, start, end)
            spans[name] = replace(span, notes=(*span.notes, OVERLAP)) if name in me.shared else span
        return record, spans

    async def change(self, add: list[EntrantSpec], remove: list[str]) -> dict[str, Any]:
        """The handler: stop and forget the entrants ``remove``, start those of ``add`` (one that cannot
        start is down here and retried by this worker, as at the start), and answer with the state."""
        await self.runtime.remove(remove)
        await self.runtime.add(add)
        return {"status": "OK", "state": self.state()}

    async def news(self, since: dict[str, int]) -> dict[str, Any]:
        """The handler: for each game of ``since`` played here, the news after its first ``since[id]``
        actions (and the seats' cards now, if its table keeps them); games not here are left out."""
        out = {}
        for game_id, start in since.items():
            news = self._news.get(game_id)
            if news is not None:
                out[game_id] = (news.groups[start:], news.hands)
        return {"status": "OK", "news": to_serialize(out)}

    def _handlers(self) -> list[tuple[str, Any]]:
        return [
            (op(HANDLER, self.token), self.play_batch),
            (op(CHANGE, self.token), self.change),
            (op(NEWS, self.token), self.news),
        ]

    def state(self) -> dict[str, Any]:
        return {
            "identities": dict(self.runtime.identities),
            "excluded": dict(self.runtime.excluded),
            "down": self.runtime.unavailable(),
            "notices": self.runtime.notices(),
        }

    async def teardown(self, worker: Any) -> None:
        """Stop the games in flight before their bots: a worker closes its plugins while its connections
        still answer (it does so at once when it loses its scheduler), and a game whose bots the worker
        stopped would otherwise come back finished, with crashes the bots never had, and be stored."""
        self._closing = True
        for name, handler in self._handlers():
            if worker.handlers.get(name) == handler:
                del worker.handlers[name]
        for batch in list(self._batches):
            batch.cancel()
        if self._batches:
            await asyncio.gather(*self._batches, return_exceptions=True)
        runtime = getattr(self, "runtime", None)
        if runtime is not None:
            with contextlib.suppress(Exception):
                await runtime.stop()


def pin_process(cpus: Collection[int]) -> None:
    """Every thread of this process on ``cpus`` (Linux keeps an affinity per thread, and new threads and
    child processes inherit their creator's): the worker's loop, Dask's and gRPC's threads, the bots."""
    if not hasattr(os, "sched_setaffinity"):
        return
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        tids = [0]
    for tid in tids:
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            os.sched_setaffinity(tid, set(cpus))


def _plugin(worker: Any = None, name: str = PLUGIN) -> EntrantsPlugin:
    plugin = (worker or get_worker()).plugins.get(name)
    if not isinstance(plugin, EntrantsPlugin):
        raise ArenaError("this Dask worker has no euchre-arena entrants (it joined after the event started?)")
    return plugin


def worker_state(dask_worker: Any, plugin: str = PLUGIN) -> dict[str, Any]:
    """Run by ``Client.run`` on each worker (which passes the worker by this argument's name): the state
    of the entrants of plugin ``plugin`` there."""
    return _plugin(dask_worker, plugin).state()
