"""Protocol benchmark: decisions per second through the real protocol, beside a bare gRPC ping-pong.

Usage::

    python bench/protocol.py [--seconds S] [--warmup W] [--repeats R] [--streams K] [--variant V]

What is measured, each time with the bot in a separate process on the same machine (``multiprocessing``,
spawn), over loopback TCP:

* **bare**: a ``grpc.aio`` bidirectional stream that exchanges raw bytes (a generic handler, no
  serializers): the client writes a message as large as a typical ``DecisionRequest`` (a real one,
  serialized) and waits for a reply as large as a typical ``Decision`` (also real), then the next. This is
  the floor: gRPC and asyncio, nothing of ours.
* **ours (async act)**: what a table pays per decision. The arena side is ``RemotePlayer.decide`` on real
  views of real games, with each seat's real events queued in between (``queue_news``), so every
  decision does view → protobuf (+ events) → write → the SDK's ``PlayerServicer`` (events and view back to
  engine values) → ``act`` → reply → read → decode. The bot is the smallest possible SDK bot: an
  ``async def act`` returning the first legal action.
* **ours (sync act)**: the same with a plain ``def act``, which the SDK runs in a worker thread (how most
  real bots are written).
* **ours (whole tables)**: ``play_table`` with every seat remote, so the engine, ``build_view``, the
  events and the referee's checks are included.
* **floor (our messages, no work)**: prebuilt ``ArenaMessage`` bytes of the same real decisions, sent to a
  ``Player`` servicer that answers each request with its first legal action and does nothing else (the
  generated code, protobuf parsing and serializing, and nothing of ours). No implementation of this
  protocol in Python can be faster; the gap between it and "ours" is our own work, the gap between it and
  "bare" is gRPC's per-message cost of real protobuf messages and a real servicer.

Each measurement runs ``--warmup`` seconds unmeasured, then ``--seconds`` measured, ``--repeats`` times; the
best repeat is kept. ``--streams K`` runs K streams (K tables) at once, against the same bot process. The
ratio ours/bare compares decisions per second of "ours (async act)" and "bare" (goal: at least 0.8).

``--pin`` (the default on Linux with at least two CPUs; ``--no-pin`` to turn it off) runs this process on
CPU 0 and every bot process on CPU 1. Unpinned, the scheduler moves the two ends of a stream between the
cores and the same measurement swings by up to 2x from one run to the next; pinned, repeats agree within
a few per cent. Run it on an otherwise idle machine either way.

The "conversions alone" line times the conversions outside gRPC (``conversion_costs``): the arena's request
encoding (``arena/protocol/wire.py``) and the SDK's decoding. It holds the figures behind two choices in
``arena/protocol/``. The SDK's view decodes lazily (``lazyview.py``) because decoding every field of every
request ("decode eager") costs several times what a bot that reads its legal actions pays ("decode lazy,
legal_actions read"): 43 against 6 µs per decision, five-handed, best of six runs on a shared two-CPU
machine. And ``convert.py`` decodes enums through tables, not enum calls, because one enum call costs more
than a whole table lookup: ``python -m timeit -s "from arena.engine.cards import Trump" "Trump(2)"`` against
``python -m timeit -s "from arena.engine.cards import Trump; T = (None, *Trump)" "T[3]"`` gave 0.6 to
1.2 µs against 15 to 30 ns on that machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.metadata
import multiprocessing
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

import grpc

from arena.bot import Bot, create_server
from arena.engine import Action, GameConfig, GameState, View, build_view
from arena.engine.news import News, mark, news_for_seats, opening_news
from arena.event.faults import FaultPolicy
from arena.event.table import TableSpec, play_table
from arena.gameinfo import GameInfo
from arena.players.base import DecisionTiming
from arena.players.connection import MAX_REPLY_BYTES, BotConnection
from arena.players.remote import RemotePlayer
from arena.protocol import SERVICE_NAME, convert, loops, wire
from arena.protocol.lazyview import LazyViewDecoder
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.v1 import player_pb2_grpc as pb_grpc

BARE_METHOD = "/bench.PingPong/Exchange"
DECISION_MS = 30_000  # generous: on a shared machine the arena loop may lag for a second


class FirstLegal(Bot):
    name = "first-legal"

    async def act(self, view: View) -> Action:
        return view.legal_actions[0]


class FirstLegalSync(Bot):
    name = "first-legal-sync"

    def act(self, view: View) -> Action:
        return view.legal_actions[0]


BOTS: dict[str, type[Bot]] = {"async": FirstLegal, "sync": FirstLegalSync}


# ---------------------------------------------------------------------------------------------- bot processes


def _pin(cpu: int | None) -> None:
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})


def _serve_sdk(kind: str, cpu: int | None, ports: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    """``kind`` is ``async`` or ``sync``, with ``-uvloop`` to run the SDK on uvloop."""
    _pin(cpu)

    async def main() -> None:
        server, port, _ = await create_server(BOTS[kind.removesuffix("-uvloop")], "127.0.0.1:0")
        ports.put(port)
        await server.wait_for_termination()

    _run_on(main(), kind.endswith("-uvloop"))


def _run_on(main: Any, uv: bool) -> None:
    """Run ``main`` on uvloop (``uv``) or asyncio's loop."""
    loops.run(main, "uvloop" if uv else "asyncio")


def _serve_bare_uvloop(reply: bytes, cpu: int | None, ports: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    """``_serve_bare`` on uvloop."""
    _serve_bare(reply, cpu, ports, uv=True)


def _serve_bare(
    reply: bytes,
    cpu: int | None,
    ports: multiprocessing.Queue,  # type: ignore[type-arg]
    uv: bool = False,
) -> None:
    _pin(cpu)

    async def exchange(requests, context):  # type: ignore[no-untyped-def]
        async for _ in requests:
            yield reply

    async def main() -> None:
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", 4 * 1024 * 1024),
                ("grpc.max_send_message_length", 4 * 1024 * 1024),
            ]
        )
        handler = grpc.method_handlers_generic_handler(
            "bench.PingPong", {"Exchange": grpc.stream_stream_rpc_method_handler(exchange)}
        )
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        ports.put(port)
        await server.wait_for_termination()

    _run_on(main(), uv)


_CHECKOUT_BOT = """
import asyncio, os, sys
sys.path.insert(0, sys.argv[1])
from arena.bot import Bot, create_server
if sys.argv[3] != "-":
    os.sched_setaffinity(0, {int(sys.argv[3])})
class FirstLegal(Bot):
    async def act(self, view):
        return view.legal_actions[0]
class FirstLegalSync(Bot):
    def act(self, view):
        return view.legal_actions[0]
async def main():
    server, port, _ = await create_server(FirstLegal if sys.argv[2] == "async" else FirstLegalSync)
    print(port, flush=True)
    await server.wait_for_termination()
asyncio.run(main())
"""


class CheckoutBot:
    """The bench's SDK bot served by another checkout's ``arena`` (``--baseline``), so that a change is
    measured against the code before it in one run, under the same load."""

    def __init__(self, root: Path, kind: str, cpu: int | None) -> None:
        self.args = [sys.executable, "-c", _CHECKOUT_BOT, str(root), kind, "-" if cpu is None else str(cpu)]

    def __enter__(self) -> CheckoutBot:
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.address = f"127.0.0.1:{int(self.proc.stdout.readline())}"
        self.pid = self.proc.pid
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(10)


class ZeroWorkPlayer(pb_grpc.PlayerServicer):
    """The least a ``Player`` can do: answer every request with its first legal action, read nothing else."""

    async def Hello(self, request: pb.HelloRequest, context: grpc.aio.ServicerContext) -> pb.HelloResponse:
        return pb.HelloResponse(protocol_version=request.protocol_version, name="zero-work")

    async def PlayGame(self, requests, context):  # type: ignore[no-untyped-def]
        async for message in requests:
            if message.WhichOneof("body") == "decision_request":
                request = message.decision_request
                yield pb.BotMessage(
                    decision=pb.Decision(decision_id=request.decision_id, action=request.legal_actions[0])
                )


def _serve_zero_work(cpu: int | None, ports: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    _pin(cpu)

    async def main() -> None:
        server = grpc.aio.server()
        pb_grpc.add_PlayerServicer_to_server(ZeroWorkPlayer(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        ports.put(port)
        await server.wait_for_termination()

    asyncio.run(main())


class BotProcess:
    """A server in a child process; ``with`` gives its address and always stops it."""

    def __init__(self, target: Callable[..., None], *args: object) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.ports = ctx.Queue()
        self.proc = ctx.Process(target=target, args=(*args, self.ports), daemon=True)

    def __enter__(self) -> BotProcess:
        self.proc.start()
        port = self.ports.get(timeout=30)
        self.address = f"127.0.0.1:{port}"
        self.pid = self.proc.pid
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


# ---------------------------------------------------------------------------------------------- workload


@dataclass(frozen=True)
class Item:
    """One decision as a seat's stream carries it: the events queued since its last message, and the view."""

    events: tuple[News, ...]
    view: View


def workload(config: GameConfig, games: int) -> tuple[list[Item], list[tuple[News, ...]]]:
    """Every decision of ``games`` random games, seat by seat, with the events each seat was told before it.

    Also returns the opening events of each seat of the first game (sent with ``GameStart``).
    """
    rng = random.Random(1)
    items: list[Item] = []
    opening: list[tuple[News, ...]] = []
    for g in range(games):
        state = GameState(config, seed=1000 + g)
        n = config.num_players
        pending: list[list[News]] = [list(opening_news(state, s)) for s in range(n)]
        if g == 0:
            opening = [tuple(p) for p in pending]
        per_seat: list[list[Item]] = [[] for _ in range(n)]
        while not state.is_terminal():
            seat = state.current_player()
            per_seat[seat].append(Item(tuple(pending[seat]), build_view(state, seat)))
            pending[seat] = []
            before = mark(state)
            state.apply(rng.choice(state.legal_actions()))
            for s, events in enumerate(news_for_seats(state, before)):
                pending[s].extend(events)
        for seat_items in per_seat:
            items.extend(seat_items)
    return items, opening


def request_bytes(item: Item, decision_id: int) -> bytes:
    message = convert.decision_request(item.view, decision_id, DECISION_MS, 0)
    message.events.extend(convert.event_to_pb(e) for e in item.events)
    return message.SerializeToString()


def reply_bytes(item: Item, decision_id: int) -> bytes:
    action = convert.action_to_pb(item.view.legal_actions[0])
    return pb.BotMessage(decision=pb.Decision(decision_id=decision_id, action=action)).SerializeToString()


# ---------------------------------------------------------------------------------------------- measurements


@dataclass
class Figures:
    decisions: int
    seconds: float
    latencies_ms: list[float]
    arena_cpu_s: float = float("nan")
    """CPU time of this process (the arena side) over the measured period."""
    bot_cpu_s: float = float("nan")
    """CPU time of the bot process over the measured period (all its threads, gRPC's included)."""

    def cpu_us(self, seconds: float) -> float:
        return seconds / self.decisions * 1e6 if self.decisions else float("nan")

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds

    def percentile(self, q: float) -> float:
        data = sorted(self.latencies_ms)
        return data[min(len(data) - 1, int(q * len(data)))] if data else float("nan")


Loop = Callable[[float, list[float]], Awaitable[int]]
"""``loop(end_time, latencies)``: exchange decisions until ``end_time``; returns how many."""


BOT_PID: int | None = None
"""The process the current measurement talks to, whose CPU time ``measure`` reads (set by ``main``)."""


def process_cpu_s(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``); NaN where unknown.

    Why CPU time: on a shared machine throughput swings with the neighbours' load, while the CPU a
    process spends per decision barely moves, so it tells a change in our own cost from noise."""
    if pid is None:
        return float("nan")
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(loops: list[Loop], warmup_s: float, seconds: float) -> Figures:
    """Run every loop at once: first a warm-up, then the measured period."""
    scratch: list[float] = []
    end = time.perf_counter() + warmup_s
    await asyncio.gather(*(loop(end, scratch) for loop in loops))
    latencies: list[float] = []
    bot_cpu, arena_cpu = process_cpu_s(BOT_PID), time.process_time()
    started = time.perf_counter()
    counts = await asyncio.gather(*(loop(started + seconds, latencies) for loop in loops))
    elapsed = time.perf_counter() - started
    return Figures(
        sum(counts),
        elapsed,
        latencies,
        arena_cpu_s=time.process_time() - arena_cpu,
        bot_cpu_s=process_cpu_s(BOT_PID) - bot_cpu,
    )


async def bare_figures(
    address: str, request: bytes, streams: int, warmup_s: float, seconds: float
) -> Figures:
    channel = grpc.aio.insecure_channel(
        address,
        options=[
            ("grpc.max_receive_message_length", MAX_REPLY_BYTES),
            ("grpc.max_send_message_length", 4 * 1024 * 1024),
            ("grpc.enable_retries", 0),
        ],
    )
    exchange = channel.stream_stream(BARE_METHOD)  # no serializers: bytes in, bytes out
    calls = [exchange() for _ in range(streams)]

    def loop_for(call: grpc.aio.StreamStreamCall) -> Loop:
        async def loop(end: float, latencies: list[float]) -> int:
            done = 0
            clock = time.perf_counter
            while clock() < end:
                sent = clock()
                await call.write(request)
                reply = await call.read()
                latencies.append((clock() - sent) * 1000)
                assert isinstance(reply, bytes)
                done += 1
            return done

        return loop

    try:
        return await measure([loop_for(c) for c in calls], warmup_s, seconds)
    finally:
        for call in calls:
            await call.done_writing()
        await channel.close()


async def floor_figures(
    address: str, start: bytes, requests: list[bytes], streams: int, warmup_s: float, seconds: float
) -> Figures:
    """Prebuilt request bytes to the zero-work ``Player``: gRPC plus real messages, nothing of ours."""
    channel = grpc.aio.insecure_channel(address)
    play = channel.stream_stream(  # bytes out (prebuilt), bytes in (the reply is not even parsed)
        f"/{SERVICE_NAME}/PlayGame"
    )
    calls = [play() for _ in range(streams)]
    for call in calls:
        await call.write(start)

    def loop_for(k: int, call: grpc.aio.StreamStreamCall) -> Loop:
        position = {"next": k * len(requests) // streams}

        async def loop(end: float, latencies: list[float]) -> int:
            done = 0
            clock = time.perf_counter
            while clock() < end:
                sent = clock()
                await call.write(requests[position["next"] % len(requests)])
                position["next"] += 1
                await call.read()
                latencies.append((clock() - sent) * 1000)
                done += 1
            return done

        return loop

    try:
        return await measure([loop_for(k, c) for k, c in enumerate(calls)], warmup_s, seconds)
    finally:
        for call in calls:
            call.cancel()
        await channel.close()


async def decide_figures(
    address: str,
    config: GameConfig,
    items: list[Item],
    opening: list[tuple[News, ...]],
    streams: int,
    warmup_s: float,
    seconds: float,
) -> Figures:
    connection = BotConnection(address)
    await connection.hello()
    names = tuple(f"seat{s}" for s in range(config.num_players))
    timing = DecisionTiming(DECISION_MS, 0)
    players = []
    for k in range(streams):
        player = RemotePlayer(connection, f"bench{k}")
        info = GameInfo(f"bench-{k}", config, 0, names, DECISION_MS, 0)
        await player.start(info, opening[0])
        players.append(player)

    def loop_for(k: int, player: RemotePlayer) -> Loop:
        state = {"next": k * len(items) // streams, "id": 0}

        async def loop(end: float, latencies: list[float]) -> int:
            done = 0
            clock = time.perf_counter
            while clock() < end:
                item = items[state["next"] % len(items)]
                state["next"] += 1
                state["id"] += 1
                player.queue_news(item.events)
                sent = clock()
                reply = await player.decide(item.view, state["id"], timing)
                latencies.append((clock() - sent) * 1000)
                if reply.action not in item.view.legal_actions:  # pragma: no cover
                    raise AssertionError(f"illegal reply {reply.action}")
                done += 1
            return done

        return loop

    try:
        return await measure([loop_for(k, p) for k, p in enumerate(players)], warmup_s, seconds)
    finally:
        for player in players:
            await player.close()
        await connection.close()


async def arena_tables(
    addresses: list[str], tables: int, warmup_s: float, seconds: float, decision_ms: int
) -> dict[str, float]:
    """Whole five-handed games at ``tables`` concurrent tables, seat ``s`` on bot ``s % len(addresses)``;
    counts only games finished in the measured window. Shared by bench/arena.py and bench/profile_arena.py
    (which keeps both CPU figures: the whole process and its main thread, where the arena's Python runs)."""
    config = GameConfig.create("five-handed")
    names = tuple(f"seat{s}" for s in range(config.num_players))
    connections = [BotConnection(a) for a in addresses]
    for c in connections:
        await c.hello()
    policy = FaultPolicy(decision_ms=decision_ms)
    seeds = iter(range(10**9))
    totals = {"decisions": 0, "games": 0, "all": 0}
    counting = {"on": False}

    async def table_loop(k: int, end: float) -> None:
        while time.perf_counter() < end:
            players = [RemotePlayer(connections[s % len(connections)], names[s]) for s in range(len(names))]
            result = await play_table(TableSpec(f"t{k}", config, next(seeds), names, policy), players)
            if result.faults:
                raise AssertionError(f"faults: {result.faults[:3]}")
            totals["all"] += result.decisions
            if counting["on"]:
                totals["decisions"] += result.decisions
                totals["games"] += 1

    try:
        await asyncio.gather(*(table_loop(k, time.perf_counter() + warmup_s) for k in range(tables)))
        counting["on"] = True
        cpu0, main0, wall0 = time.process_time(), time.thread_time(), time.perf_counter()
        await asyncio.gather(*(table_loop(k, wall0 + seconds) for k in range(tables)))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        main = time.thread_time() - main0
    finally:
        for c in connections:
            await c.close()
    decisions = max(1, totals["decisions"])
    return {
        "decisions": totals["decisions"],
        "all_decisions": totals["all"],
        "games": totals["games"],
        "cpu_us_per_decision": cpu / decisions * 1e6,
        "main_thread_us_per_decision": main / decisions * 1e6,
        "decisions_per_s": totals["decisions"] / wall,
        "games_per_s": totals["games"] / wall,
    }


async def table_figures(
    address: str, config: GameConfig, streams: int, warmup_s: float, seconds: float
) -> Figures:
    connection = BotConnection(address)
    await connection.hello()
    names = tuple(f"seat{s}" for s in range(config.num_players))
    policy = FaultPolicy(decision_ms=DECISION_MS)
    seeds = iter(range(10**9))

    def loop_for(k: int) -> Loop:
        async def loop(end: float, latencies: list[float]) -> int:
            done = 0
            while time.perf_counter() < end:
                spec = TableSpec(f"t{k}", config, next(seeds), names, policy)
                result = await play_table(spec, [RemotePlayer(connection, n) for n in names])
                if result.faults:  # pragma: no cover
                    raise AssertionError(f"faults: {result.faults}")
                done += result.decisions
                for seat in result.latencies_ms:
                    latencies.extend(seat)
            return done

        return loop

    try:
        return await measure([loop_for(k) for k in range(streams)], warmup_s, seconds)
    finally:
        await connection.close()


def conversion_costs(items: list[Item], repeats: int = 5) -> dict[str, float]:
    """Microseconds per decision, outside gRPC, of the conversions every decision needs: the arena
    encoding the request (``RequestEncoder``, with the queued events) and the SDK decoding it: eagerly into
    a ``View`` (``convert.ViewDecoder``, the reference), lazily as the SDK does (``LazyViewDecoder``) with
    the first legal action read (what the bench's bots read), and lazily with every field read. Items come
    seat by seat and game by game, so all reuse their parts as they do on a real stream; the best of
    ``repeats`` passes (the caches warm) is kept."""
    raw = [request_bytes(item, 1 + i) for i, item in enumerate(items)]
    messages = [pb.ArenaMessage.FromString(r).decision_request for r in raw]
    decoders: dict[str, tuple[Callable[[], Any], Callable[[Any], object]]] = {
        "decode eager": (convert.ViewDecoder, lambda view: view),
        "decode lazy, legal_actions read": (LazyViewDecoder, lambda view: view.legal_actions[0]),
        "decode lazy, every field read": (LazyViewDecoder, lambda view: view.materialize()),
    }
    best = dict.fromkeys(["encode", *decoders], float("inf"))
    for _ in range(repeats):
        encoder = wire.RequestEncoder()
        seat = -1
        started = time.perf_counter()
        for i, item in enumerate(items):
            if item.view.seat != seat:
                encoder, seat = wire.RequestEncoder(), item.view.seat
            encoder.encode(item.view, 1 + i, DECISION_MS, 0, [wire.event_bytes(e) for e in item.events])
        best["encode"] = min(best["encode"], time.perf_counter() - started)
        for name, (make, read) in decoders.items():
            seat = -1
            decoder = make()
            started = time.perf_counter()
            for message in messages:
                if message.view.seat != seat:
                    decoder, seat = make(), message.view.seat
                read(decoder.decode(message))
            best[name] = min(best[name], time.perf_counter() - started)
    return {name: seconds / len(items) * 1e6 for name, seconds in best.items()}


# ---------------------------------------------------------------------------------------------- main


def version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measured time per measurement (3)")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured warm-up per measurement (1)")
    parser.add_argument(
        "--repeats", type=int, default=1, help="repeats per measurement; the best is kept (1)"
    )
    parser.add_argument(
        "--streams", type=int, default=1, help="concurrent streams (tables) per bot process (1)"
    )
    parser.add_argument(
        "--variant",
        default="five-handed",
        choices=["five-handed", "call-ace", "classic"],
        help="(five-handed)",
    )
    parser.add_argument("--no-tables", action="store_true", help="skip the whole-table measurement")
    parser.add_argument(
        "--uvloop", action="store_true", help="also measure the SDK bots running on uvloop (if installed)"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="another checkout (e.g. `git archive main | tar -x -C /tmp/base`) whose SDK is measured too, "
        "in the same run, as 'baseline' rows",
    )
    can_pin = hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2
    parser.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        default=can_pin,
        help="this process on one CPU, the bots on another (default on Linux with 2+ CPUs)",
    )
    args = parser.parse_args(argv)
    bot_cpu: int | None = None
    if args.pin:
        arena_cpu, bot_cpu = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, {arena_cpu})

    config = GameConfig.create(args.variant)
    items, opening = workload(config, games=20)
    requests = sorted(len(request_bytes(item, 100 + i)) for i, item in enumerate(items))
    typical = min(
        range(len(items)),
        key=lambda i: abs(len(request_bytes(items[i], 100 + i)) - statistics.median(requests)),
    )
    request = request_bytes(items[typical], 100 + typical)
    reply = reply_bytes(items[typical], 100 + typical)
    prebuilt = [request_bytes(item, 100 + i) for i, item in enumerate(items)]
    start = pb.ArenaMessage(
        game_start=pb.GameStart(game_id="floor", config=convert.config_to_pb(config), decision_time_ms=1000)
    ).SerializeToString()

    print(
        f"euchre-arena protocol benchmark: Python {platform.python_version()}, grpcio {version('grpcio')}, "
        f"protobuf {version('protobuf')}, {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f} (other work on the machine skews every figure)"
    )
    print(
        f"workload: {args.variant}, {len(items)} real decisions of 20 random games; request (ArenaMessage "
        f"with DecisionRequest and queued events) median {statistics.median(requests):.0f} B "
        f"(min {requests[0]}, p90 {requests[int(0.9 * len(requests))]}, max {requests[-1]}); "
        f"reply (BotMessage with Decision) {len(reply)} B"
    )
    print(
        f"each bot in its own process over loopback TCP; {args.streams} stream(s); "
        f"{args.warmup:g} s warm-up + {args.seconds:g} s measured, best of {args.repeats}; "
        + (f"this process pinned to CPU {arena_cpu}, bots to CPU {bot_cpu}" if args.pin else "not pinned")
    )

    with (
        BotProcess(_serve_bare, reply, bot_cpu) as bare_bot,
        BotProcess(_serve_zero_work, bot_cpu) as floor_bot,
        BotProcess(_serve_sdk, "async", bot_cpu) as async_bot,
        BotProcess(_serve_sdk, "sync", bot_cpu) as sync_bot,
        contextlib.ExitStack() as stack,
    ):
        k, w, s = args.streams, args.warmup, args.seconds
        measurements: list[tuple[str, BotProcess | CheckoutBot, Callable[[], Awaitable[Figures]]]] = [
            (
                f"bare grpc.aio ping-pong ({len(request)} B / {len(reply)} B raw)",
                bare_bot,
                lambda: bare_figures(bare_bot.address, request, k, w, s),
            ),
            (
                "floor: our messages, zero-work Player, no arena code",
                floor_bot,
                lambda: floor_figures(floor_bot.address, start, prebuilt, k, w, s),
            ),
            (
                "ours: RemotePlayer.decide <-> SDK, async act",
                async_bot,
                lambda: decide_figures(async_bot.address, config, items, opening, k, w, s),
            ),
            (
                "ours: same, sync act",
                sync_bot,
                lambda: decide_figures(sync_bot.address, config, items, opening, k, w, s),
            ),
            (
                "SDK alone: prebuilt requests -> SDK, async act",
                async_bot,
                lambda: floor_figures(async_bot.address, start, prebuilt, k, w, s),
            ),
            (
                "SDK alone: prebuilt requests -> SDK, sync act",
                sync_bot,
                lambda: floor_figures(sync_bot.address, start, prebuilt, k, w, s),
            ),
        ]

        def sdk_rows(
            label: str, kind: str, bot: BotProcess | CheckoutBot
        ) -> list[tuple[str, BotProcess | CheckoutBot, Callable[[], Awaitable[Figures]]]]:
            """'ours' and 'SDK alone' for one more bot process (another checkout's SDK, or uvloop)."""
            return [
                (
                    f"{label}: ours, {kind} act",
                    bot,
                    lambda: decide_figures(bot.address, config, items, opening, k, w, s),
                ),
                (
                    f"{label}: SDK alone, {kind} act",
                    bot,
                    lambda: floor_figures(bot.address, start, prebuilt, k, w, s),
                ),
            ]

        for kind in ("async", "sync") if args.baseline is not None else ():
            old = stack.enter_context(CheckoutBot(args.baseline, kind, bot_cpu))
            measurements += sdk_rows("baseline", kind, old)
        for kind in ("async", "sync") if args.uvloop else ():
            uv = stack.enter_context(BotProcess(_serve_sdk, f"{kind}-uvloop", bot_cpu))
            measurements += sdk_rows("uvloop (bot side)", kind, uv)
        if not args.no_tables:
            measurements.append(
                (
                    "ours: whole tables (engine + protocol)",
                    async_bot,
                    lambda: table_figures(async_bot.address, config, k, w, s),
                )
            )
        # Repeats go round all measurements in turn, so a change in the machine's load hits them alike.
        global BOT_PID
        best: dict[str, Figures] = {}
        least_cpu: dict[str, Figures] = {}
        for _ in range(args.repeats):
            for label, bot, run in measurements:
                BOT_PID = bot.pid
                figures = asyncio.run(run())
                if label not in best or figures.rate > best[label].rate:
                    best[label] = figures
                if label not in least_cpu or figures.cpu_us(figures.bot_cpu_s) < least_cpu[label].cpu_us(
                    least_cpu[label].bot_cpu_s
                ):
                    least_cpu[label] = figures
    rows = list(best.items())

    width = max(len(label) for label, _ in rows)
    print()
    print(
        f"{'measurement':<{width}}  {'decisions/s':>11}  {'p50 ms':>7}  {'p99 ms':>7}  {'decisions':>9}  "
        f"{'bot CPU us':>10}  {'arena CPU us':>12}"
    )
    for label, f in rows:
        c = least_cpu[label]
        print(
            f"{label:<{width}}  {f.rate:>11,.0f}  {f.percentile(0.5):>7.3f}  {f.percentile(0.99):>7.3f}  "
            f"{f.decisions:>9,}  {c.cpu_us(c.bot_cpu_s):>10.0f}  {c.cpu_us(c.arena_cpu_s):>12.0f}"
        )
    print("(CPU columns: CPU time per decision of each process, least of the repeats; the bot process")
    print(" counts all its threads, gRPC's included)")
    figures = dict(rows)
    bare, floor = rows[0][1], rows[1][1]
    print()
    for label, name, goal in (
        ("ours: same, sync act", "sync act", 0.8),
        ("ours: RemotePlayer.decide <-> SDK, async act", "async act", 0.85),
    ):
        ours = figures[label]
        ratio = ours.rate / bare.rate
        verdict = "met" if ratio >= goal else "NOT met"
        print(
            f"ratio ours/bare ({name}): {ratio:.2f} (goal >= {goal}: {verdict}); "
            f"per decision: ours {1e6 / ours.rate:.0f} us, bare {1e6 / bare.rate:.0f} us, "
            f"difference {1e6 / ours.rate - 1e6 / bare.rate:.0f} us"
        )
    floor_cpu = least_cpu[rows[1][0]]
    for name in ("async act", "sync act"):
        label = f"SDK alone: prebuilt requests -> SDK, {name}"
        sdk, sdk_cpu = figures[label], least_cpu[label]
        print(
            f"SDK alone/floor ({name}): {sdk.rate / floor.rate:.2f}; the SDK's own work per decision: "
            f"{1e6 / sdk.rate - 1e6 / floor.rate:.0f} us of latency, "
            f"{sdk_cpu.cpu_us(sdk_cpu.bot_cpu_s) - floor_cpu.cpu_us(floor_cpu.bot_cpu_s):.0f} us of bot CPU"
        )
    costs = conversion_costs(items)
    print(
        "conversions alone, outside gRPC (warm, in this process), us per decision: "
        + ", ".join(f"{name} {us:.1f}" for name, us in costs.items())
    )
    ours = figures["ours: RemotePlayer.decide <-> SDK, async act"]
    print(
        f"floor/bare: {floor.rate / bare.rate:.2f} (gRPC's extra cost of real messages and a servicer: "
        f"{1e6 / floor.rate - 1e6 / bare.rate:.0f} us); ours/floor (async act): {ours.rate / floor.rate:.2f} "
        f"(our own work, arena side and SDK side: {1e6 / ours.rate - 1e6 / floor.rate:.0f} us per decision)"
    )


if __name__ == "__main__":
    main()
