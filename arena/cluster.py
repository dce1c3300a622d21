"""Tables on Dask workers: the ``dask`` executor.

Why Dask distributed: the arena's own process is CPU-bound on one core at about 25 tables, and a contest
outgrows one machine. Dask is a well-kept engine made for exactly this (tasks on worker processes, local or
on other machines, with a scheduler that reruns the tasks of a worker that died), small to install and
quick to start (measured against Ray: 68 MB against 284 MB, 0.5-0.8 s against 2.5-4 s).

How the work is split. The conductor (``arena.tournament``) keeps everything it does with the local
executor: the schedule, the store as its only writer, ratings in schedule order, disqualification and
resume. Games are played by Dask tasks ("play these tables": the games asked for together travel as one
task), each game returned as the store will keep it (:class:`~arena.record.GameRecord`).
Every worker holds the entrants for the whole event in a worker plugin (:class:`EntrantsPlugin`): it
launches the launched bots once per worker (same sandbox, limits and restarts as locally; logs in
``OUTPUT/logs/WORKER/``), dials the address entrants, imports the in-process ones, and plays tables on the
worker's event loop, so deadlines are measured on the worker, next to the bots. A task is a whole game
from its start, so when a worker dies Dask runs it again elsewhere and nothing half-played is ever stored;
the bots of a dead worker die with it (the launcher's pipe closes).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import re
import uuid
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

import dask.config
from distributed import Client, KilledWorker, LocalCluster, WorkerPlugin, get_worker
from distributed.client import FutureCancelledError

from arena.config import TournamentConfig
from arena.errors import ArenaError, ConfigError
from arena.players.remote import BotIdentity
from arena.record import GameRecord
from arena.table import TableSpec

PLUGIN = "euchre-arena-entrants"

QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}
"""Dask settings for the clusters the arena starts itself (the conductor's scheduler and nannies, and through
the nannies the workers). Dask's defaults watch every process every few milliseconds: a statistical profiler
every 10 ms per worker, an event-loop tick every 20 ms, system and memory monitors, in every server. With
games of a few milliseconds (in-process bots) or whole seconds of waiting (launched bots) that cost is paid
per game: measured with launched bots on 2 workers, the conductor's CPU per game fell from 6.0 to 2.2 ms and
each game's total from 162 to 139 ms. docs/scale-out.md gives the same settings for a cluster of machines."""


class EntrantsPlugin(WorkerPlugin):
    """The entrants of one event on one worker, started with the worker and stopped with it.

    They live on the worker's own event loop, where the games are played too (the tasks are coroutines):
    a task needs no thread of its own, and the tables' decisions, the bots' pipes and Dask's messages share
    one loop, as they share the arena's loop with the local executor.
    """

    name = PLUGIN

    def __init__(self, config: TournamentConfig, names: Sequence[str], strict: bool) -> None:
        self.config = config
        self.names = list(names)
        self.strict = strict

    async def setup(self, worker: Any) -> None:
        from arena.entrants import EntrantRuntime  # the same runtime the local executor uses

        folder = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(worker.name))
        log_dir = self.config.output / "logs" / f"worker-{folder}"
        self.runtime = EntrantRuntime(self.config, log_dir, self.strict)
        try:
            await self.runtime.start(self.names)
        except BaseException:
            await self.teardown(worker)
            raise
        # A worker's heap holds Dask, tornado and the arena (about 70,000 objects the collector would keep
        # walking through as the tables allocate): set them aside once they are loaded. Measured: the
        # worker's CPU per in-process game 10.2 -> 8.2 ms with one worker, 9.6 -> 8.8 ms with two.
        gc.freeze()

    def state(self) -> dict[str, Any]:
        return {
            "identities": dict(self.runtime.identities),
            "excluded": dict(self.runtime.excluded),
            "down": self.runtime.unavailable(),
            "notices": self.runtime.notices(),
        }

    async def teardown(self, worker: Any) -> None:
        runtime = getattr(self, "runtime", None)
        if runtime is not None:
            with contextlib.suppress(Exception):
                await runtime.stop()


def _plugin(worker: Any = None) -> EntrantsPlugin:
    plugin = (worker or get_worker()).plugins.get(PLUGIN)
    if not isinstance(plugin, EntrantsPlugin):
        raise ArenaError("this Dask worker has no euchre-arena entrants (it joined after the event started?)")
    return plugin


async def play_batch_on_worker(games: list[tuple[TableSpec, frozenset[str], int]]) -> list[GameRecord]:
    """The task: play these tables at once on this worker's entrants, on the worker's event loop.

    Each game comes back in the store's form (:class:`~arena.record.GameRecord`), made here: that is
    cheap to send and to unpickle, and it spares the conductor, whose one core bounds the event."""
    plugin = _plugin()
    return list(await asyncio.gather(*(plugin.runtime.play(*game) for game in games)))


def _worker_state(dask_worker: Any) -> dict[str, Any]:
    """Run by ``Client.run`` on each worker (which passes the worker by this argument's name)."""
    return _plugin(dask_worker).state()


class DaskRuntime:
    """Plays the event's tables on a Dask cluster: a local one of ``workers`` processes, or one running."""

    def __init__(self, config: TournamentConfig, log_dir: Path, strict: bool) -> None:
        self.config = config
        self.log_dir = log_dir
        self.strict = strict
        self.identities: dict[str, BotIdentity] = {}
        self.excluded: dict[str, str] = {}
        self.down: dict[str, str] = {}  # not up on some worker (each worker retries its own)
        self._notices: list[str] = []
        self._watch: asyncio.Task[None] | None = None
        self.cluster: LocalCluster | None = None
        self.client: Client | None = None
        self.batch = 1  # games per task: set from the number of workers once connected
        self._pending: list[tuple[TableSpec, frozenset[str], int, Any]] = []
        self._flush_handle: asyncio.TimerHandle | None = None
        self._batches: set[asyncio.Task[None]] = set()

    async def start(
        self,
        names: Sequence[str],
        progress: Callable[[int, int], None] | None = None,
        announce: Callable[[str], None] | None = None,
    ) -> None:
        """Connect to (or start) the cluster and start the entrants on every worker.

        An entrant down on any worker is seated nowhere until it is up on every worker (its workers retry
        it in the background; the conductor looks every few seconds). ``progress`` is not reported per bot
        here: the workers start their bots on their own.

        :raises ConfigError: the scheduler cannot be reached, or (strict) a worker cannot start an entrant.
        """
        spec = self.config.executor
        # Dask logs its own errors (a lost scheduler, a dead worker) on stderr; the arena reports what they
        # mean for the event in one line of its own, so keep the terminal to that.
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        try:
            if spec.scheduler or spec.scheduler_file:
                self.client = await Client(
                    spec.scheduler, scheduler_file=spec.scheduler_file, asynchronous=True, timeout="20s"
                )
                where = spec.scheduler or f"the scheduler in {spec.scheduler_file}"
            else:
                workers = spec.workers or 2
                with dask.config.set(QUIET):  # read as the servers start; the nannies pass it to the workers
                    self.cluster = await LocalCluster(
                        n_workers=workers,
                        threads_per_worker=max(1, math.ceil(self.config.concurrency / workers)),
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=None,
                        asynchronous=True,
                        silence_logs=logging.CRITICAL,
                    )
                    self.client = await Client(self.cluster, asynchronous=True)
                where = f"a local cluster of {workers} workers"
        except (OSError, TimeoutError, ValueError) as exc:
            raise ConfigError(f"cannot reach the Dask cluster: {exc}") from None
        self._notices.append(f"executor: dask, {where}")
        try:
            await self.client.register_plugin(EntrantsPlugin(self.config, names, self.strict), name=PLUGIN)
        except ArenaError as exc:
            raise ConfigError(f"a Dask worker cannot start the entrants: {exc}") from None
        states = await self.client.run(_worker_state)
        if not states:
            raise ConfigError("the Dask cluster has no workers")
        self._take(states)
        for _, state in sorted(states.items()):
            for line in state["notices"]:
                if line not in self._notices:
                    self._notices.append(line)
        self._notices.append(f"workers: {len(states)}; bots' logs in {self.log_dir}/worker-*/")
        # About one task in flight per worker, the event's concurrent games shared between them.
        self.batch = max(1, self.config.concurrency // len(states))
        if self.down:
            self._watch = asyncio.get_running_loop().create_task(self._watch_down(announce))

    def _take(self, states: dict[str, Any]) -> None:
        down: dict[str, str] = {}
        for _, state in sorted(states.items()):
            self.identities.update(state["identities"])
            self.excluded.update(state["excluded"])
            for name, why in state["down"].items():
                down.setdefault(name, why)
        self.down = down

    async def _watch_down(self, announce: Callable[[str], None] | None, every_s: float = 3.0) -> None:
        """Until every entrant is up on every worker: ask the workers which are still down."""
        assert self.client is not None
        while self.down:
            await asyncio.sleep(every_s)
            with contextlib.suppress(Exception):  # a lost cluster is reported by the game that finds it
                before = set(self.down)
                self._take(await self.client.run(_worker_state))
                for name in sorted(before - set(self.down)):
                    if announce is not None and name not in self.excluded:
                        announce(f"{name} is up on every worker: it plays the games that start from now on")

    def unavailable(self) -> dict[str, str]:
        return self.excluded | self.down

    def notices(self) -> list[str]:
        return list(self._notices)

    async def play(self, spec: TableSpec, disqualified: Collection[str], public_seed: int) -> GameRecord:
        """Play one table on whichever worker Dask chooses; a game lost with its worker is played again.

        Games asked for at about the same moment travel as one task (up to ``batch`` of them): a Dask task
        costs a few milliseconds, as much as a whole game between in-process bots, and the conductor's
        ``concurrency`` games are asked for in bursts anyway (each finished batch frees its seats at once).

        :raises ArenaError: the scheduler went away (the event stops; the stored games are kept).
        """
        assert self.client is not None, "start() first"
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[GameRecord] = loop.create_future()
        self._pending.append((spec, frozenset(disqualified), public_seed, waiter))
        if len(self._pending) >= self.batch:
            self._flush()
        elif self._flush_handle is None:
            self._flush_handle = loop.call_later(0.002, self._flush)
        return await waiter

    def _flush(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        batch, self._pending = self._pending, []
        if batch:
            task = asyncio.get_running_loop().create_task(self._run_batch(batch))
            self._batches.add(task)
            task.add_done_callback(self._batches.discard)

    async def _run_batch(self, batch: list[tuple[TableSpec, frozenset[str], int, Any]]) -> None:
        assert self.client is not None
        ids = ",".join(spec.game_id for spec, _, _, _ in batch)
        future = self.client.submit(
            play_batch_on_worker,
            [(spec, disqualified, seed) for spec, disqualified, seed, _ in batch],
            key=f"games-{batch[0][0].game_id}-{len(batch)}-{uuid.uuid4().hex[:8]}",
            pure=False,
            retries=2,
        )
        try:
            results: list[GameRecord] = await future
        except KilledWorker:
            error = ArenaError(
                f"games {ids} were lost with three Dask workers in a row; the games stored are "
                "kept: run the same command to resume"
            )
        except (OSError, TimeoutError, FutureCancelledError) as exc:
            error = ArenaError(
                f"lost the Dask cluster while playing {ids} ({type(exc).__name__}: {exc}); the "
                "games already stored are kept: run the same command to resume"
            )
        except BaseException as exc:  # any other failure reaches the games that waited for it
            error = exc  # type: ignore[assignment]
        else:
            for (_, _, _, waiter), result in zip(batch, results, strict=True):
                if not waiter.done():
                    waiter.set_result(result)
            return
        for _, _, _, waiter in batch:
            if not waiter.done():
                waiter.set_exception(error)

    async def stop(self) -> None:
        """Stop every worker's bots, then leave (or shut down the local) cluster."""
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._watch
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.unregister_worker_plugin(PLUGIN)
            with contextlib.suppress(Exception):
                await self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                await self.cluster.close()  # type: ignore[misc]  # awaitable when asynchronous
