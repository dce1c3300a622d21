"""Arena throughput: ``python bench/arena.py [--seconds S] [--tables 1,5,25] [--bots 5]``.

Decisions/s and games/s of whole five-handed games played by the arena (``play_table``: engine, views,
events, protocol, referee) against trivial SDK bots over loopback, at 1, 5 and 25 tables at once, beside
the bare ``grpc.aio`` ping-pong of ``bench/protocol.py`` with as many streams, in the same run. Each seat
``s`` talks to bot process ``s % bots`` (like a tournament, where each entrant is one process), and the
bare exchange spreads its streams over as many bare server processes. Also: games/s with the same bots
in-process (no gRPC; ``InProcessPlayer``), one table and ``--tables`` at once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/protocol.py
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import protocol as protocol_bench

from arena.engine import GameConfig
from arena.event.table import TableSpec, play_table
from arena.players.inprocess import InProcessPlayer
from arena.protocol import loops

CONFIG = GameConfig.create("five-handed")
NAMES = tuple(f"seat{s}" for s in range(CONFIG.num_players))


async def arena_figures(
    addresses: list[str], tables: int, warmup_s: float, seconds: float, decision_ms: int
) -> tuple[float, float, float]:
    """(decisions/s, games/s, this process's CPU µs per decision) of ``tables`` concurrent tables, counting
    only whole games. The CPU figure is the arena's own cost, whatever the bots' speed."""
    f = await protocol_bench.arena_tables(addresses, tables, warmup_s, seconds, decision_ms)
    return f["decisions_per_s"], f["games_per_s"], f["cpu_us_per_decision"]


async def bare_rate(
    addresses: list[str], request: bytes, streams: int, warmup_s: float, seconds: float
) -> tuple[float, float]:
    """(decisions/s, this process's CPU µs per decision) of the bare ping-pong over ``streams`` streams."""
    per = [
        streams // len(addresses) + (1 if i < streams % len(addresses) else 0) for i in range(len(addresses))
    ]
    cpu = time.process_time()
    figures = await asyncio.gather(
        *(
            protocol_bench.bare_figures(a, request, n, warmup_s, seconds)
            for a, n in zip(addresses, per, strict=True)
            if n
        )
    )
    cpu = time.process_time() - cpu  # warm-up included (``bare_figures`` does it inside): an estimate
    decisions = sum(f.decisions for f in figures) * (warmup_s + seconds) / seconds
    return sum(f.rate for f in figures), cpu / max(1.0, decisions) * 1e6


async def inprocess_games(tables: int, seconds: float) -> float:
    games = 0
    seeds = iter(range(10**9))

    async def loop(end: float) -> None:
        nonlocal games
        while time.perf_counter() < end:
            players = [InProcessPlayer(protocol_bench.FirstLegal, n) for n in NAMES]
            await play_table(TableSpec("ip", CONFIG, next(seeds), NAMES), players)
            games += 1

    started = time.perf_counter()
    await asyncio.gather(*(loop(started + seconds) for _ in range(tables)))
    return games / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--tables", default="1,5,25")
    parser.add_argument("--bots", type=int, default=5, help="bot processes (and bare server processes)")
    parser.add_argument(
        "--decision-ms",
        type=int,
        default=protocol_bench.DECISION_MS,
        help="the tables' decision time; raise it on a loaded machine, where a timeout stops the bench",
    )
    can_pin = hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2
    parser.add_argument("--pin", action=argparse.BooleanOptionalAction, default=can_pin)
    parser.add_argument(
        "--loop",
        choices=loops.CHOICES,
        default="auto",
        help="the event loop of every process here, the arena's and the bots', ours and bare alike "
        "(auto: uvloop where installed, as `arena run` and the SDK choose)",
    )
    args = parser.parse_args()
    uv = loops.loop_factory(args.loop) is not None
    bot_cpu: int | None = None
    if args.pin:
        arena_cpu, bot_cpu = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, {arena_cpu})
    counts = [int(x) for x in args.tables.split(",")]
    items, _ = protocol_bench.workload(CONFIG, 5)
    request = protocol_bench.request_bytes(items[len(items) // 2], 1)
    reply = protocol_bench.reply_bytes(items[len(items) // 2], 1)
    load = os.getloadavg()[0]
    print(
        f"euchre-arena arena benchmark: Python {platform.python_version()}, {platform.system()} "
        f"{platform.machine()}, {os.cpu_count()} CPUs, load average {load:.2f}"
    )
    print(
        f"five-handed games of trivial SDK bots (first legal action) in {args.bots} processes over loopback; "
        f"bare: {len(request)} B / {len(reply)} B ping-pong over as many streams and processes; "
        f"{args.warmup:.0f} s warm-up + {args.seconds:.0f} s measured each; "
        + (f"arena pinned to CPU {arena_cpu}, bots to CPU {bot_cpu}" if args.pin else "not pinned")
        + f"; every process on {'uvloop' if uv else 'asyncio'}"
    )
    print(
        f"{'tables':>6} {'arena decisions/s':>18} {'games/s':>8} {'bare decisions/s':>17} {'ratio':>6}"
        f" {'arena CPU us/dec':>17} {'bare CPU us/dec':>16}"
    )
    with ExitStack() as stack:
        sdk = protocol_bench._serve_sdk
        bare_server = protocol_bench._serve_bare_uvloop if uv else protocol_bench._serve_bare
        bots = [
            stack.enter_context(
                protocol_bench.BotProcess(sdk, "async-uvloop" if uv else "async", bot_cpu)
            ).address
            for _ in range(args.bots)
        ]
        bares = [
            stack.enter_context(protocol_bench.BotProcess(bare_server, reply, bot_cpu)).address
            for _ in range(args.bots)
        ]
        for tables in counts:
            decisions, games, cpu = loops.run(
                arena_figures(bots, tables, args.warmup, args.seconds, args.decision_ms), args.loop
            )
            bare, bare_cpu = loops.run(
                bare_rate(bares, request, tables, args.warmup, args.seconds), args.loop
            )
            print(
                f"{tables:>6} {decisions:>18,.0f} {games:>8.1f} {bare:>17,.0f} {decisions / bare:>6.2f}"
                f" {cpu:>17.0f} {bare_cpu:>16.0f}"
            )
    single = loops.run(inprocess_games(1, args.seconds), args.loop)
    many = loops.run(inprocess_games(max(counts), args.seconds), args.loop)
    print(
        f"in-process (no gRPC), same bots: {single:.0f} games/s at 1 table, {many:.0f} games/s at "
        f"{max(counts)} tables"
    )
    print(
        "ratio = arena decisions/s over bare decisions/s over as many streams (goal >= 0.8); CPU us/dec = "
        "this process's CPU time per decision (arena: independent of the bots' speed; bare: warm-up "
        "included); bench/profile_arena.py splits the arena's"
    )


if __name__ == "__main__":
    main()
