"""Tables on Dask workers: the ``dask`` executor.

Why Dask distributed: the arena's own process is CPU-bound on one core, and a contest outgrows one
machine. Dask is a well-kept engine made for exactly this (tasks on worker processes, local or on other
machines, with a scheduler that notices a worker that died), and smaller to install and quicker to start
than the alternatives (docs/scale-out.md compares it with Ray).

How the work is split. The conductor (``arena.conductor.tournament``) keeps everything it does with the local
executor: the schedule, the store as its only writer, ratings in schedule order, disqualification and
resume. Every worker holds the entrants for the whole event and plays tables next to its bots: that side
is :mod:`arena.executor.dask_worker`.

Games travel to the workers in small batches straight from the conductor (a handler the plugin adds to its
worker, the way Dask's own shuffle plugin talks to workers), not as scheduler tasks: a task costs the
scheduler and the conductor a few milliseconds, as much as a whole game between in-process bots, and the
scheduler cannot be told to keep every worker exactly two batches deep. Each worker is a *lane* with at
most two batches in flight, so it starts the next batch while the conductor stores the last one. The
scheduler still knows the workers: the conductor asks it every second which are alive, opens a lane for a
new one and closes the lane of one that left. A batch is whole games from their start, so when a worker
dies its unfinished games go back to the queue and are played again elsewhere from their start, and
nothing half-played is ever stored; the bots of a dead worker die with it (the launcher's pipe closes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dask.config
from distributed import Client, LocalCluster, Security
from distributed.protocol import to_serialize

from arena.errors import ArenaError, ConfigError
from arena.event.config import TLS_KEYS, EntrantKind, EntrantSpec, TournamentConfig
from arena.event.table import TableSpec, TableWatch
from arena.executor.dask_connect import (
    connect_patience_s,
    open_scheduler_warning,
    quiet_dask_logs,
    unreachable,
    wait_for_scheduler_file,
)
from arena.executor.dask_live import LiveFeeds
from arena.executor.dask_worker import (
    CHANGE,
    HANDLER,
    NEWS,
    EntrantsPlugin,
    op,
    plugin_name,
    worker_state,
)
from arena.executor.logspan import Span
from arena.players.connection import BotIdentity
from arena.results.record import GameRecord
from arena.userfiles import KEY_LIMIT, check_user_file

DEPTH = 2
"""Batches of in-process games in flight per worker: one playing while the conductor stores the other's
games and sends more."""
TRIES = 3
"""Workers a game may be lost with before the event stops (as Dask's own ``retries=2`` would)."""
STOP_WATCHERS_S = 30.0
"""``stop`` waits this long for each watcher loop to end (each ends within about ten seconds: its sleep,
or the scheduler's ``identity`` call's timeout)."""

QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.http.routes": [],
    "distributed.worker.http.routes": [],
}
"""Dask settings for the clusters the arena starts itself (the conductor's scheduler and nannies, and through
the nannies the workers). Dask's defaults watch every process every few milliseconds (a statistical
profiler, an event-loop tick, system and memory monitors, in every server); with games of a few
milliseconds, or seconds of mostly waiting, that cost is paid per game. docs/scale-out.md ("Dask's
watchers") gives the figures and the same settings for a cluster of machines.

No HTTP routes: every Dask server listens for HTTP besides its TLS port (the scheduler on 8787), in plain
HTTP whatever the cluster's TLS, and by default serves the workers' logs, call stacks and addresses there
to anyone on the machine. The arena reads none of it, so with no routes each answers 404 to everything."""


def cpu_groups(workers: int, cpus: Sequence[int]) -> dict[str, tuple[int, ...]]:
    """The CPUs of each worker of a local cluster (by its name, ``"0"``, ``"1"``, ...): the machine's CPUs
    cut into ``workers`` contiguous shares, or, with more workers than CPUs, one CPU each, in turn.

    Why pin at all: a game with launched bots is a ping-pong between the worker and a bot, dozens of
    times a second per seat. Unpinned, the two usually sit on different CPUs, and each reply wakes the other
    CPU (on a virtual machine an interrupt between virtual CPUs, paid to the hypervisor). A worker and its
    bots on CPUs of their own wake each other where they are (docs/scale-out.md: what pinning buys, and
    the ``bench/scale.py`` command that measures it)."""
    cpus = sorted(cpus)
    if workers <= len(cpus):
        cut = [round(i * len(cpus) / workers) for i in range(workers + 1)]
        return {str(i): tuple(cpus[cut[i] : cut[i + 1]]) for i in range(workers)}
    return {str(i): (cpus[i % len(cpus)],) for i in range(workers)}


@dataclass(eq=False)
class _Game:
    """A game waiting for a worker, or on one, and the conductor's coroutine waiting for its record."""

    spec: TableSpec
    disqualified: frozenset[str]
    public_seed: int
    waiter: asyncio.Future[GameRecord]
    lost: int = 0  # workers it was lost with


@dataclass(eq=False)
class _Lane:
    """One worker, reached directly (``Client.rpc``), with the batches it is playing."""

    address: str
    rpc: Any
    calls: set[asyncio.Task[None]] = field(default_factory=set)
    games: int = 0  # in those batches


class DaskExecutor:
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
        self._members: asyncio.Task[None] | None = None
        self._stopping = False  # ``stop``: the watchers' loops end at their next turn
        self.cluster: LocalCluster | None = None
        self.client: Client | None = None
        self.batch = 1  # games per batch, and games in flight per worker: set once connected
        self.per_lane = 1
        self._queue: deque[_Game] = deque()
        self._lanes: dict[str, _Lane] = {}
        self._flush_handle: asyncio.TimerHandle | None = None
        self._lost: ArenaError | None = None  # the cluster is gone: every game from now on fails with this
        self._announce: Callable[[str], None] | None = None
        self._joined: dict[str, EntrantSpec] = {}  # entrants added since the start (``add``), by name
        self._keep_logs = False  # ``keep_logs``: the workers send each game's spans of its bots' logs
        self._logs: dict[str, dict[str, Span]] = {}  # by game id, until ``logs_of`` takes them
        self._feeds = LiveFeeds(self._ask_news)  # the games in flight with a live table
        self._live: asyncio.Task[None] | None = None
        # This executor's own plugin on the workers (``dask_worker.plugin_name``): not rules or statistics,
        # so a random token is fine; it only has to differ from the other executors' on the same cluster.
        self.token = secrets.token_hex(4)
        self.plugin = plugin_name(self.token)

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
        self._announce = announce
        # Dask logs its own errors (a lost scheduler, a dead worker) on stderr; the arena reports what they
        # mean for the event in one line of its own, so keep the terminal to that.
        quiet_dask_logs()
        try:
            if spec.scheduler or spec.scheduler_file:
                patience = connect_patience_s()
                if spec.scheduler_file:
                    await wait_for_scheduler_file(Path(spec.scheduler_file), patience)
                self.client = await Client(
                    spec.scheduler,
                    scheduler_file=spec.scheduler_file,
                    asynchronous=True,
                    timeout=patience,
                    security=self._security(),
                )
                where = spec.scheduler or f"the scheduler in {spec.scheduler_file}"
            else:
                workers = spec.workers or 2
                # A certificate of this event's, in memory only, for the scheduler, the workers and the
                # arena: a process that does not hold it (another user's, a bot's) cannot connect to any of
                # them, where plain TCP on 127.0.0.1 let any local user run code in the workers as the
                # arena's user (docs/security.md, "The Dask cluster").
                security = Security.temporary()
                with dask.config.set(QUIET):  # read as the servers start; the nannies pass it to the workers
                    self.cluster = await LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,  # games are coroutines on the worker's loop, not tasks
                        processes=True,
                        host="127.0.0.1",
                        protocol="tls://",
                        security=security,
                        dashboard_address=None,
                        asynchronous=True,
                        silence_logs=logging.CRITICAL,
                    )
                    self.client = await Client(self.cluster, asynchronous=True, security=security)
                where = f"a local cluster of {workers} worker{'' if workers == 1 else 's'} (TLS)"
        except (OSError, TimeoutError, ValueError) as exc:
            raise unreachable(str(exc)) from None
        except TypeError as exc:  # Dask's way of saying a tls:// cluster was joined without certificates
            if "ssl_context" not in str(exc):
                raise
            raise unreachable(
                "it speaks TLS and the arena has no certificate for it; give [executor] tls_ca_file, "
                "tls_cert and tls_key (docs/scale-out.md)"
            ) from None
        self._notices.append(f"executor: dask, {where}")
        if self.cluster is None:
            warning = open_scheduler_warning(self.client.scheduler.address)
            if warning:
                self._notices.append(warning)
        pins: dict[str, tuple[int, ...]] = {}
        if self.cluster is not None and spec.pin_cpus and hasattr(os, "sched_getaffinity"):
            pins = cpu_groups(len(self.cluster.workers), sorted(os.sched_getaffinity(0)))
            where = ", ".join(f"worker {n} on {','.join(map(str, c))}" for n, c in pins.items())
            self._notices.append(f"CPUs: {where} (each with its bots; [executor] pin_cpus)")
        try:
            plugin = EntrantsPlugin(self.config, names, self.strict, pins, self.token)
            await self.client.register_plugin(plugin, name=self.plugin)
        except ArenaError as exc:
            raise ConfigError(f"a Dask worker cannot start the entrants: {exc}") from None
        states = await self.client.run(worker_state, plugin=self.plugin)
        if not states:
            raise ConfigError("the Dask cluster has no workers")
        self._take(states)
        for _, state in sorted(states.items()):
            for line in state["notices"]:
                if line not in self._notices:
                    self._notices.append(line)
        self._notices.append(f"workers: {len(states)}; bots' logs in {self.config.output / 'logs'}/worker-*/")
        for address in sorted(states):
            self._lanes[address] = _Lane(address, self.client.rpc(address))
        # The event's concurrent games shared between the workers. A batch answers when its slowest game
        # ends, so batches only pay where a game is a few milliseconds of CPU and sending one costs about as
        # much: in-process entrants, DEPTH batches per worker. A game with a bot behind a socket waits for
        # its bots (tens of milliseconds at least), and batching it would idle its seats until the batch's
        # last game ends: one game a call.
        self.per_lane = max(1, math.ceil(self.config.concurrency / len(states)))
        in_process = all(entrant.kind is EntrantKind.CLASS for entrant in self.config.entrants)
        self.batch = max(1, math.ceil(self.per_lane / DEPTH)) if in_process else 1
        loop = asyncio.get_running_loop()
        self._members = loop.create_task(self._watch_members())
        self._live = loop.create_task(self._feeds.run(lambda: set(self._lanes)))
        if self.down:
            self._watch = loop.create_task(self._watch_down())

    def _security(self) -> Security | None:
        """How the arena proves itself to a cluster it joins: the ``[executor]`` TLS files (relative to
        the config), or, without them, Dask's own configuration (``distributed.comm.tls.*``).

        :raises ConfigError: a file that cannot be read.
        """
        spec = self.config.executor
        if spec.tls_ca_file is None or spec.tls_cert is None:
            return None
        paths = {
            key: self.config.path(value) for key in TLS_KEYS if (value := getattr(spec, key)) is not None
        }
        for key, path in paths.items():
            check_user_file(path, f"executor.{key}", KEY_LIMIT)  # a regular, readable file of PEM
        return Security(
            require_encryption=True,
            tls_ca_file=str(paths["tls_ca_file"]),
            tls_client_cert=str(paths["tls_cert"]),
            tls_client_key=str(paths["tls_key"]) if "tls_key" in paths else None,
        )

    def _op(self, rpc: Any, base: str) -> Any:
        """This executor's operation ``base`` on a worker (named with its token: ``dask_worker.op``)."""
        return getattr(rpc, op(base, self.token))

    def _take(self, states: dict[str, Any]) -> None:
        down: dict[str, str] = {}
        for _, state in sorted(states.items()):
            self.identities.update(state["identities"])
            self.excluded.update(state["excluded"])
            for name, why in state["down"].items():
                down.setdefault(name, why)
        self.down = down

    async def _watch_down(self, every_s: float = 3.0) -> None:
        """Until every entrant is up on every worker: ask the workers which are still down."""
        assert self.client is not None
        while self.down and not self._stopping:
            await asyncio.sleep(every_s)
            with contextlib.suppress(Exception):  # a lost cluster is reported by the game that finds it
                before = set(self.down)
                self._take(await self.client.run(worker_state, plugin=self.plugin))
                for name in sorted(before - set(self.down)):
                    if self._announce is not None and name not in self.excluded:
                        self._announce(
                            f"{name} is up on every worker: it plays the games that start from now on"
                        )

    async def _watch_members(self, every_s: float = 1.0) -> None:
        """Every second, ask the scheduler which workers are alive: open lanes to new ones (once their
        entrants are up), close the lanes of those that left, and stop the event if the scheduler is gone.

        A worker that dies mid-batch is usually noticed first by its lane (the connection closes); this
        catches a worker the scheduler gave up on while its connection to the conductor still looks open.

        The loop ends on ``_stopping``, not only on ``stop``'s cancellation: a cancellation that arrives
        while Dask's client is answering can be swallowed there (the task is left "cancelling" and loops
        on), which hung ``stop`` for good after a worker's death (tests/executor/test_dask.py)."""
        assert self.client is not None
        while not self._stopping:
            await asyncio.sleep(every_s)
            if self._stopping:
                return
            try:
                info = await asyncio.wait_for(self.client.scheduler.identity(n_workers=-1), 10 * every_s)
                alive = set(info.get("workers", {}))
            except (OSError, TimeoutError) as exc:
                why = f"no answer in {10 * every_s:g} s" if isinstance(exc, TimeoutError) else repr(exc)
                self._lose(
                    ArenaError(
                        f"lost the Dask scheduler ({why}); the games already stored are kept: run the "
                        "same command to resume"
                    )
                )
                return
            for address in [a for a in self._lanes if a not in alive]:
                self._close_lane(address)
            for address in sorted(alive - set(self._lanes)):
                with contextlib.suppress(Exception):  # not ready yet (or gone again): asked next time
                    await self._admit(
                        address,
                        (await self.client.run(worker_state, plugin=self.plugin, workers=[address]))[address],
                    )
            self._dispatch()

    async def _admit(self, address: str, state: dict[str, Any]) -> None:
        """A worker that joined during the event, its entrants started: it plays from now on. An entrant
        it could not start is seated nowhere until it is up there too (as at the start). The plugin
        starts the entrants it was registered with; those added since are started there first."""
        assert self.client is not None
        rpc = self.client.rpc(address)
        if self._joined:
            joined = to_serialize(list(self._joined.values()))
            state = self._answer(await self._op(rpc, CHANGE)(add=joined, remove=[]))
        self._merge(state)
        self._lanes[address] = _Lane(address, rpc)

    def _merge(self, state: dict[str, Any]) -> None:
        """One worker's state into the executor's: who is up, what they said, who is down there."""
        self.identities.update(state["identities"])
        self.excluded.update(state["excluded"])
        for name, why in state["down"].items():
            self.down.setdefault(name, why)
        if self.down and (self._watch is None or self._watch.done()):
            self._watch = asyncio.get_running_loop().create_task(self._watch_down())

    @staticmethod
    def _answer(answer: Any) -> dict[str, Any]:
        if not isinstance(answer, dict) or answer.get("status") != "OK":  # the plugin is not there
            raise OSError(f"the worker did not change its entrants ({answer!r:.200})")
        state: dict[str, Any] = answer["state"]
        return state

    async def add(self, specs: Sequence[EntrantSpec]) -> None:
        """Entrants that join while the executor runs (a ladder's new version): started on every worker,
        and on every worker that joins later. One down on any worker is seated nowhere until it is up on
        all (as at the start). A worker that cannot be asked is closed: its games go elsewhere."""
        for spec in specs:
            self._joined[spec.name] = spec
        if any(spec.kind is not EntrantKind.CLASS for spec in specs):
            self.batch = 1  # a game with a launched bot waits for it: one game a call (see ``start``)
        await self._change(list(specs), [])

    async def remove(self, names: Sequence[str]) -> None:
        """Entrants that leave while the executor runs (a ladder's version replaced or disabled): their bots
        are stopped on every worker and they are forgotten."""
        for name in names:
            self._joined.pop(name, None)
            for known in (self.identities, self.excluded, self.down):
                known.pop(name, None)
        await self._change([], list(names))

    async def _change(self, add: list[EntrantSpec], remove: list[str]) -> None:
        if not (add or remove) or self._lost is not None:
            return
        lanes = list(self._lanes.values())
        answers = await asyncio.gather(
            *(self._op(lane.rpc, CHANGE)(add=to_serialize(add), remove=remove) for lane in lanes),
            return_exceptions=True,
        )
        for lane, answer in zip(lanes, answers, strict=True):
            try:
                if isinstance(answer, BaseException):
                    raise answer
                self._merge(self._answer(answer))
            except (OSError, asyncio.CancelledError):  # gone meanwhile: admitted afresh if it comes back
                if lane.address in self._lanes:
                    self._close_lane(lane.address)

    def unavailable(self) -> dict[str, str]:
        return self.excluded | self.down

    def notices(self) -> list[str]:
        return list(self._notices)

    async def play(
        self,
        spec: TableSpec,
        disqualified: Collection[str],
        public_seed: int,
        watch: TableWatch | None = None,
    ) -> GameRecord:
        """Play one table on a worker; a game lost with its worker is played again on another.

        ``watch`` is told the game's public news (redacted on the worker) while somebody watches it
        (:class:`~arena.executor.dask_live.LiveFeeds`).

        Games asked for at about the same moment travel as one batch (up to ``batch`` of them): sending
        costs about as much as a whole game between in-process bots, and the conductor's ``concurrency``
        games are asked for in bursts anyway (each finished batch frees its seats at once).

        :raises ArenaError: the scheduler went away, or the game was lost with three workers (the event
            stops; the stored games are kept).
        """
        if self._lost is not None:
            raise self._lost
        waiter: asyncio.Future[GameRecord] = asyncio.get_running_loop().create_future()
        if watch is not None:
            self._feeds.follow(spec.game_id, watch)
        self._queue.append(_Game(spec, frozenset(disqualified), public_seed, waiter))
        self._dispatch()
        try:
            return await waiter
        finally:
            self._feeds.done(spec.game_id)

    async def _ask_news(self, address: str, since: dict[str, int]) -> Any:
        lane = self._lanes.get(address)
        if lane is None:
            raise OSError(f"no lane to {address}")
        return await self._op(lane.rpc, NEWS)(since=since)

    def keep_logs(self) -> None:
        """The bots' logs are on the workers, which may be gone when somebody asks for a game's: from now
        on each worker reads the game's span of each seat's log as the game ends and sends it back with
        the game's record (capped: ``arena.executor.logspan``)."""
        self._keep_logs = True

    def logs_of(self, game_id: str) -> dict[str, Span]:
        return self._logs.pop(game_id, {})

    async def settle_logs(self, names: Collection[str]) -> None:
        """The bots are on the workers, which settle their logs around each game they read a span of."""

    def _dispatch(self, *, flush: bool = False) -> None:
        """Send full batches to the least busy lanes; a partial batch waits 2 ms for company (``flush``).

        With every lane ``per_lane`` games deep nothing is sent: the end of a batch dispatches again."""
        if flush:
            self._flush_handle = None
        while self._queue and self._lanes:
            lane = min(self._lanes.values(), key=lambda lane: lane.games)
            room = self.per_lane - lane.games
            if room <= 0:
                return
            if len(self._queue) < min(self.batch, room) and not flush:
                if self._flush_handle is None:
                    self._flush_handle = asyncio.get_running_loop().call_later(
                        0.002, lambda: self._dispatch(flush=True)
                    )
                return
            games = [self._queue.popleft() for _ in range(min(self.batch, room, len(self._queue)))]
            lane.games += len(games)
            call = asyncio.get_running_loop().create_task(self._call(lane, games))
            lane.calls.add(call)
            call.add_done_callback(lane.calls.discard)

    async def _call(self, lane: _Lane, games: list[_Game]) -> None:
        try:
            answer = await self._op(lane.rpc, HANDLER)(
                games=to_serialize([(g.spec, g.disqualified, g.public_seed) for g in games]),
                logs=self._keep_logs,
                live=[self._feeds.flag(g.spec.game_id, lane.address) for g in games],
            )
            if not isinstance(answer, dict) or answer.get("status") != "OK":  # the plugin is not there
                raise OSError(f"the worker did not play the games ({answer!r:.200})")
            records = answer["records"]
            spans = answer.get("logs") or [{} for _ in games]
        except (OSError, asyncio.CancelledError) as exc:
            # The worker died, left or was never ready: the games go back to the queue, to be played
            # again from their start by another worker.
            if lane.address in self._lanes and not isinstance(exc, asyncio.CancelledError):
                self._close_lane(lane.address, skip=asyncio.current_task())
            self._requeue(games, lane.address)
            return
        except BaseException as exc:  # any other failure reaches the games that waited for it
            for game in games:
                if not game.waiter.done():
                    game.waiter.set_exception(exc)
            return
        finally:
            lane.games -= len(games)
            self._dispatch_soon()
        for game, record, logs in zip(games, records, spans, strict=True):
            if not game.waiter.done():
                if logs:
                    self._logs[game.spec.game_id] = logs
                game.waiter.set_result(record)

    def _dispatch_soon(self) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closing
            asyncio.get_running_loop().call_soon(self._dispatch)

    def _requeue(self, games: list[_Game], address: str) -> None:
        for game in reversed(games):
            if game.waiter.done():
                continue
            game.lost += 1
            if self._lost is not None:
                game.waiter.set_exception(self._lost)
            elif game.lost >= TRIES:
                game.waiter.set_exception(
                    ArenaError(
                        f"game {game.spec.game_id} was lost with {TRIES} Dask workers in a row (the last "
                        f"{address}); the games stored are kept: run the same command to resume"
                    )
                )
            else:
                self._queue.appendleft(game)

    def _close_lane(self, address: str, skip: asyncio.Task[Any] | None = None) -> None:
        """Forget a worker: its batches in flight are cancelled, and their games go back to the queue."""
        lane = self._lanes.pop(address, None)
        if lane is not None:
            for call in list(lane.calls):
                if call is not skip:
                    call.cancel()

    def _lose(self, error: ArenaError) -> None:
        """The cluster is gone: every game waiting or in flight fails with ``error``; the event stops."""
        self._lost = error
        for address in list(self._lanes):
            self._close_lane(address)
        while self._queue:
            game = self._queue.popleft()
            if not game.waiter.done():
                game.waiter.set_exception(error)

    async def stop(self) -> None:
        """Stop every worker's bots, then leave (or shut down the local) cluster."""
        self._stopping = self._feeds.stopping = True
        for task in (self._watch, self._members, self._live):
            if task is not None:
                task.cancel()
                # Each loop also ends on the flag within its turn (a second, or a call's own timeout):
                # waited for in bounded time, so a swallowed cancellation cannot hang the event's end.
                await asyncio.wait([task], timeout=STOP_WATCHERS_S)
                if task.done() and not task.cancelled():
                    task.exception()  # retrieved: a watcher's failure is not the event's
        calls = [call for lane in self._lanes.values() for call in lane.calls]
        for call in calls:
            call.cancel()
        await asyncio.gather(*calls, return_exceptions=True)
        if self.client is not None:
            # With the scheduler gone, the client would wait out its reconnection timeout (20 s) first.
            patience = 2.0 if self._lost is not None else 30.0
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.unregister_worker_plugin(self.plugin), patience)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.close(), patience)
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                await self.cluster.close()  # type: ignore[misc]  # awaitable when asynchronous
