"""Where a decision's microseconds go, by removing our parts one at a time: ``python bench/ladder.py``.

``bench/protocol.py`` compares the whole of ours with a bare gRPC ping-pong; this bench climbs from the bare
ping-pong to the arena's ``RemotePlayer`` and to whole tables one rung at a time, one stream, each bot in a
process of its own pinned to the other CPU, so that the difference between two rungs is the cost of the one
part the upper rung adds. Two ladders:

* **bot side** (the client fixed: prebuilt request bytes written and the reply read in one task, nothing
  parsed): the bare server (raw bytes) -> a zero-work ``Player`` servicer (real messages, the generated
  code; beside it, the same on gRPC's synchronous server, a rung of its own, not a step) -> the SDK,
  ``async def act`` -> the SDK, plain ``def act``.
* **arena side** (the bot fixed: the SDK, ``async def act``, on the loop the SDK picks): prebuilt bytes ->
  the reply parsed (``BotMessage``) -> each request encoded from its view (``RequestEncoder``, with the
  queued events) -> the reply read by a reader task and handed over in a future (how ``RemotePlayer``
  reads, so that a deadline never has to cancel a read) -> ``RemotePlayer.decide`` (timers, checks) ->
  whole tables (``play_table``: the engine, ``build_view``, events, the referee, a stream per seat and
  game) on asyncio's loop and on the arena's (uvloop where installed).

Every rung is measured ``--repeats`` times, the rungs in turn, and the median is printed: per decision, the
latency (the inverse of decisions/s: with one stream a decision is a round trip), and the CPU of the arena
process and of the bot process (all threads, gRPC's included). On a shared machine read the CPU columns.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/protocol.py
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc
import protocol as bench

from arena.engine import GameConfig
from arena.protocol import SERVICE_NAME, convert, loops, wire
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.v1 import player_pb2_grpc as pb_grpc

Run = Callable[[], Awaitable[bench.Figures]]


class SyncZeroWork(pb_grpc.PlayerServicer):
    """The zero-work ``Player`` on gRPC's synchronous server (a thread per stream, no event loop): the
    floor of a synchronous SDK, the option issue 15 names for bots with a plain ``def act``."""

    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloResponse:
        return pb.HelloResponse(protocol_version=request.protocol_version, name="zero-work-sync")

    def PlayGame(self, requests, context):  # type: ignore[no-untyped-def]
        for message in requests:
            if message.WhichOneof("body") == "decision_request":
                request = message.decision_request
                yield pb.BotMessage(
                    decision=pb.Decision(decision_id=request.decision_id, action=request.legal_actions[0])
                )


def _serve_zero_work_sync(cpu: int | None, ports: Any) -> None:
    bench._pin(cpu)
    server = grpc.server(ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_PlayerServicer_to_server(SyncZeroWork(), server)
    ports.put(server.add_insecure_port("127.0.0.1:0"))
    server.start()
    server.wait_for_termination()


async def _client(
    address: str,
    start: bytes,
    requests: Callable[[int], bytes],
    parse: bool,
    reader_task: bool,
    warmup_s: float,
    seconds: float,
) -> bench.Figures:
    """One stream: ``requests(i)`` written, the reply read (parsed or not; in this task or a reader's)."""
    channel = grpc.aio.insecure_channel(address, options=[("grpc.enable_retries", 0)])
    play = channel.stream_stream(
        f"/{SERVICE_NAME}/PlayGame", response_deserializer=pb.BotMessage.FromString if parse else None
    )
    call = play()
    await call.write(start)
    state = {"i": 0}
    waiter: list[asyncio.Future[object]] = []

    async def reader() -> None:
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                return
            waiter.pop().set_result(message)

    task = asyncio.get_running_loop().create_task(reader()) if reader_task else None

    async def loop(end: float, latencies: list[float]) -> int:
        done = 0
        clock = bench.time.perf_counter
        running = asyncio.get_running_loop()
        while clock() < end:
            state["i"] += 1
            sent = clock()
            data = requests(state["i"])
            if task is not None:
                future: asyncio.Future[object] = running.create_future()
                waiter.append(future)
                await call.write(data)
                reply = await future
            else:
                await call.write(data)
                reply = await call.read()
            if parse:
                assert isinstance(reply, pb.BotMessage) and reply.WhichOneof("body") == "decision"
            latencies.append((clock() - sent) * 1000)
            done += 1
        return done

    try:
        return await bench.measure([loop], warmup_s, seconds)
    finally:
        call.cancel()
        if task is not None:
            task.cancel()
        await channel.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--warmup", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=5, help="runs per rung, rungs in turn; the median")
    args = parser.parse_args()
    if not (hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2):
        raise SystemExit("bench/ladder.py needs Linux and 2 CPUs (the arena on one, the bot on the other)")
    arena_cpu, bot_cpu = sorted(os.sched_getaffinity(0))[:2]
    os.sched_setaffinity(0, {arena_cpu})
    uv = loops.loop_factory() is not None
    sdk = "async-uvloop" if uv else "async"

    config = GameConfig.create("five-handed")
    items, opening = bench.workload(config, games=20)
    prebuilt = [bench.request_bytes(item, 1 + i) for i, item in enumerate(items)]
    reply = bench.reply_bytes(items[len(items) // 2], 1)
    bare_request = prebuilt[len(prebuilt) // 2]
    start = pb.ArenaMessage(
        game_start=pb.GameStart(game_id="ladder", config=convert.config_to_pb(config), decision_time_ms=1000)
    ).SerializeToString()
    encoder = wire.RequestEncoder()  # one for the stream, as a RemotePlayer has

    def fixed_request(i: int) -> bytes:
        return prebuilt[(i - 1) % len(prebuilt)]

    def encoded_request(i: int) -> bytes:
        item = items[(i - 1) % len(items)]
        return encoder.encode(item.view, i, 1000, 0, [wire.event_bytes(e) for e in item.events])

    w, s = args.warmup, args.seconds
    with (
        bench.BotProcess(bench._serve_bare, reply, bot_cpu) as bare_bot,
        bench.BotProcess(bench._serve_zero_work, bot_cpu) as zero_bot,
        bench.BotProcess(_serve_zero_work_sync, bot_cpu) as zero_sync_bot,
        bench.BotProcess(bench._serve_sdk, sdk, bot_cpu) as async_bot,
        bench.BotProcess(bench._serve_sdk, sdk.replace("async", "sync"), bot_cpu) as sync_bot,
    ):
        # (ladder, rung, the process whose CPU is the bot's, the measurement, the arena's loop)
        rungs: list[tuple[str, str, object, Run, str]] = [
            (
                "bot",
                "bare server, raw bytes",
                bare_bot,
                lambda: bench.bare_figures(bare_bot.address, bare_request, 1, w, s),
                "asyncio",
            ),
            (
                "bot",
                "zero-work Player (real messages)",
                zero_bot,
                lambda: bench.floor_figures(zero_bot.address, start, prebuilt, 1, w, s),
                "asyncio",
            ),
            (
                "bot",
                "  (zero-work Player, grpc's sync server)",
                zero_sync_bot,
                lambda: bench.floor_figures(zero_sync_bot.address, start, prebuilt, 1, w, s),
                "asyncio",
            ),
            (
                "bot",
                "SDK, async act",
                async_bot,
                lambda: bench.floor_figures(async_bot.address, start, prebuilt, 1, w, s),
                "asyncio",
            ),
            (
                "bot",
                "SDK, sync act",
                sync_bot,
                lambda: bench.floor_figures(sync_bot.address, start, prebuilt, 1, w, s),
                "asyncio",
            ),
            (
                "arena",
                "prebuilt bytes, reply unparsed",
                async_bot,
                lambda: _client(async_bot.address, start, fixed_request, False, False, w, s),
                "asyncio",
            ),
            (
                "arena",
                "+ reply parsed",
                async_bot,
                lambda: _client(async_bot.address, start, fixed_request, True, False, w, s),
                "asyncio",
            ),
            (
                "arena",
                "+ request encoded from the view",
                async_bot,
                lambda: _client(async_bot.address, start, encoded_request, True, False, w, s),
                "asyncio",
            ),
            (
                "arena",
                "+ reply via a reader task",
                async_bot,
                lambda: _client(async_bot.address, start, encoded_request, True, True, w, s),
                "asyncio",
            ),
            (
                "arena",
                "RemotePlayer.decide",
                async_bot,
                lambda: bench.decide_figures(async_bot.address, config, items, opening, 1, w, s),
                "asyncio",
            ),
            (
                "arena",
                "whole tables (engine, views, referee)",
                async_bot,
                lambda: bench.table_figures(async_bot.address, config, 1, w, s),
                "asyncio",
            ),
        ]
        if uv:
            rungs.append(
                (
                    "arena",
                    "whole tables, arena on uvloop",
                    async_bot,
                    lambda: bench.table_figures(async_bot.address, config, 1, w, s),
                    "uvloop",
                )
            )
        results: dict[str, list[bench.Figures]] = {rung: [] for _, rung, *_ in rungs}
        for _ in range(args.repeats):
            for _, rung, bot, run, loop in rungs:
                bench.BOT_PID = bot.pid  # type: ignore[attr-defined]
                results[rung].append(loops.run(run(), loop))

    print(
        f"one stream, five-handed, {len(items)} real decisions; arena on CPU {arena_cpu}, bots on CPU "
        f"{bot_cpu} ({'uvloop' if uv else 'asyncio'} in the SDK bots); median of {args.repeats} runs of "
        f"{s:g} s each; load average {os.getloadavg()[0]:.2f}"
    )
    head = f"{'ladder':<6} {'rung':<42} {'us/dec':>7} {'+':>6} {'arena CPU':>10} {'+':>6}"
    print(f"{head} {'bot CPU':>8} {'+':>6}")
    previous: tuple[float, float, float] | None = None
    ladder = ""
    for name, rung, *_ in rungs:
        runs = results[rung]
        latency = statistics.median(1e6 / f.rate for f in runs)
        arena = statistics.median(f.cpu_us(f.arena_cpu_s) for f in runs)
        bot = statistics.median(f.cpu_us(f.bot_cpu_s) for f in runs)
        if name != ladder:
            ladder, previous = name, None
        deltas = [
            "" if previous is None else f"{now - was:+.0f}"
            for now, was in zip((latency, arena, bot), previous or (0, 0, 0), strict=True)
        ]
        print(
            f"{name:<6} {rung:<42} {latency:>7.0f} {deltas[0]:>6} {arena:>10.0f} {deltas[1]:>6} {bot:>8.0f}"
            f" {deltas[2]:>6}"
        )
        if not rung.startswith("  ("):  # a rung beside the ladder, compared with the step above it only
            previous = (latency, arena, bot)
    print(
        "us/dec = microseconds per decision (1 / decisions per second); + = the rung's own cost over the step"
    )
    print("above it; CPU = CPU time per decision of the arena (this) process and of the bot process")


if __name__ == "__main__":
    main()
