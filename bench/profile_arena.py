"""Arena CPU per decision, and where it goes: ``python bench/profile_arena.py [options]``.

Plays whole five-handed games (``play_table``, every seat a ``RemotePlayer``) at ``--tables`` tables at once
against trivial SDK bots in ``--bots`` child processes over loopback, the load of ``bench/arena.py``, and
reports the ARENA process's CPU time (``time.process_time``: all its threads, gRPC's included) divided by
the decisions played. That figure does not depend on how fast the bots are or on what else the machine
runs (unlike decisions/s), so it is the one to compare before/after a change on a shared machine.

Modes:

* default: ``--repeats`` measurements, best (least CPU per decision) and median printed.
* ``--profile``: one measurement under cProfile; prints the top ``--top`` functions by own time as
  microseconds per decision (cProfile inflates every call, so read it for proportions; the plain figure
  is the truth). ``--profile-out FILE`` keeps the pstats file.
* ``--py-spy FILE``: one measurement under ``py-spy record --native`` (``pip install py-spy``), written to
  FILE (speedscope format), for the C side of gRPC and protobuf that cProfile cannot see.
* ``--ab DIR,DIR,...``: the same measurement of several checkouts (for example the base commit unpacked with
  ``git archive BASE | tar -x -C /tmp/base`` beside ``.``), run in turn ``--repeats`` times, each in a fresh
  process that imports ``arena`` from that checkout; best and median per checkout. Before/after in one run.

The deadline is generous (``--decision-ms``, 30 s) so a loaded machine never turns a slow reply into a
fault: a fault would change the work done, and the run stops if one happens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _import_arena(code: str | None) -> None:
    """Import ``arena`` (and ``bench/protocol.py``) from the checkout ``code`` (default: this one)."""
    root = Path(code).resolve() if code else HERE.parent
    sys.path.insert(0, str(HERE))  # bench/protocol.py of THIS checkout: its helpers take arena from sys.path
    sys.path.insert(0, str(root))
    import arena  # noqa: F401  (now, before bench/protocol.py puts this checkout first on sys.path)


async def _run(
    addresses: list[str], tables: int, warmup_s: float, seconds: float, decision_ms: int
) -> dict[str, Any]:
    import protocol as protocol_bench

    return await protocol_bench.arena_tables(addresses, tables, warmup_s, seconds, decision_ms)


async def _run_bare(
    addresses: list[str], request: bytes, streams: int, warmup_s: float, seconds: float
) -> dict[str, Any]:
    """The bare ``grpc.aio`` ping-pong of ``bench/protocol.py`` over as many streams, with its CPU."""
    import grpc
    import protocol as protocol_bench

    channels = [grpc.aio.insecure_channel(a) for a in addresses]
    exchanges = [c.stream_stream(protocol_bench.BARE_METHOD) for c in channels]
    calls = [exchanges[k % len(exchanges)]() for k in range(streams)]
    count = {"n": 0}

    async def loop(call: Any, end: float) -> None:
        while time.perf_counter() < end:
            await call.write(request)
            await call.read()
            count["n"] += 1

    try:
        await asyncio.gather(*(loop(c, time.perf_counter() + warmup_s) for c in calls))
        count["n"] = 0
        cpu0, main0, wall0 = time.process_time(), time.thread_time(), time.perf_counter()
        await asyncio.gather(*(loop(c, wall0 + seconds) for c in calls))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        main = time.thread_time() - main0
    finally:
        for call in calls:
            call.cancel()
        for c in channels:
            await c.close()
    return {
        "decisions": count["n"],
        "cpu_us_per_decision": cpu / max(1, count["n"]) * 1e6,
        "main_thread_us_per_decision": main / max(1, count["n"]) * 1e6,
        "decisions_per_s": count["n"] / wall,
    }


def _measure(args: argparse.Namespace, bots: list[str]) -> dict[str, Any]:
    if args.uvloop:
        import uvloop

        return uvloop.run(_run(bots, args.tables, args.warmup, args.seconds, args.decision_ms))
    return asyncio.run(_run(bots, args.tables, args.warmup, args.seconds, args.decision_ms))


def _with_bots(args: argparse.Namespace, body: Any, bare: bool = False) -> Any:
    from contextlib import ExitStack

    import protocol as protocol_bench

    bot_cpu: int | None = None
    if args.pin:
        arena_cpu, bot_cpu = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, {arena_cpu})
    with ExitStack() as stack:
        if bare:
            items, _ = protocol_bench.workload(protocol_bench.GameConfig.create("five-handed"), 5)
            reply = protocol_bench.reply_bytes(items[len(items) // 2], 1)
            target: Any = (protocol_bench._serve_bare, reply)
        elif args.bot == "zero":
            target = (protocol_bench._serve_zero_work,)
        else:
            target = (protocol_bench._serve_sdk, "async")
        bots = [
            stack.enter_context(protocol_bench.BotProcess(*target, bot_cpu)).address for _ in range(args.bots)
        ]
        return body(bots)


_PARTS = (  # (where, what it is), first match wins
    ("arena/players/remote.py", "RemotePlayer (decide, reader, timers, stream lifecycle)"),
    ("arena/players/", "other players code (loop watch)"),
    ("arena/event/table.py", "play_table (referee, fan-out)"),
    ("arena/engine/views.py", "build_view"),
    ("arena/engine/news.py", "news_for_seats"),
    ("arena/engine/", "engine rules (legal actions, apply)"),
    ("arena/protocol/", "encoding (convert.py)"),
    ("_upb", "encoding (protobuf upb calls)"),
    ("/grpc/", "grpc.aio Python layer (includes its Cython calls into C-core)"),
    ("/asyncio/", "asyncio event loop"),
    ("selectors.py", "asyncio event loop"),
    ("select.epoll", "asyncio event loop"),
    ("_contextvars", "asyncio event loop"),
    ("_asyncio", "asyncio event loop"),
)


def _part(filename: str, func: str) -> str:
    where = filename if filename != "~" else func
    for needle, part in _PARTS:
        if needle in where:
            return part
    return "builtins and other (len, hash, enum, ...)"


def _print_profile(stats: Any, decisions: int, top: int, real: dict[str, Any]) -> None:
    """The top functions, then every part of the arena's CPU per decision.

    cProfile sees only the main thread, and it slows Python calls more than C code, so the parts are its
    proportions of the main thread scaled to the main thread's real CPU per decision (measured without the
    profiler just before); the other threads (gRPC's C-core) are the rest of the process's CPU.
    """
    rows = []
    parts: dict[str, float] = {}
    for (filename, line, func), (_cc, calls, tottime, cumtime, _callers) in stats.stats.items():
        rows.append((tottime, cumtime, calls, f"{Path(filename).name}:{line}({func})"))
        part = _part(filename, func)
        parts[part] = parts.get(part, 0.0) + tottime
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    print(f"profiled main thread: {total / decisions * 1e6:.0f} us/decision (with the profiler's overhead)")
    print(f"{'own us/dec':>10} {'cum us/dec':>10} {'calls/dec':>9}  function")
    for tottime, cumtime, calls, name in rows[:top]:
        own, cum = tottime / decisions * 1e6, cumtime / decisions * 1e6
        print(f"{own:>10.1f} {cum:>10.1f} {calls / decisions:>9.2f}  {name}")
    main, process = real["main_thread_us_per_decision"], real["cpu_us_per_decision"]
    print(
        f"\nwhere the arena's {process:.0f} us of CPU per decision go (measured without the profiler; "
        f"main thread {main:.0f} us split in the profile's proportions):"
    )
    for part, own in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"{own / total * main:>8.1f} us  {part}")
    print(f"{process - main:>8.1f} us  other threads (gRPC C-core: completion queue, I/O)")


def _ab(args: argparse.Namespace) -> None:
    dirs = [d for d in args.ab.split(",") if d]
    results: dict[str, list[float]] = {d: [] for d in dirs}
    rates: dict[str, list[float]] = {d: [] for d in dirs}
    for _ in range(args.repeats):
        for d in dirs:
            cmd = [*_child_command(args), "--code", d, "--json", "--pin" if args.pin else "--no-pin"]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            figure = json.loads(out.strip().splitlines()[-1])
            results[d].append(figure["cpu_us_per_decision"])
            rates[d].append(figure["decisions_per_s"])
    print(
        f"arena CPU per decision, {args.tables} tables, {args.bots} bot processes ({args.bot}), "
        f"{args.repeats} alternating rounds"
    )
    print(f"{'checkout':<40} {'best us/dec':>11} {'median':>8} {'dec/s (median, noisy)':>22}")
    for d in dirs:
        best, median = min(results[d]), statistics.median(results[d])
        print(f"{d:<40} {best:>11.1f} {median:>8.1f} {statistics.median(rates[d]):>22,.0f}")


def _child_command(args: argparse.Namespace) -> list[str]:
    """This script with the same load, one measurement."""
    return [
        *(sys.executable, __file__, "--repeats", "1", "--tables", str(args.tables), "--bots", str(args.bots)),
        *(
            "--seconds",
            str(args.seconds),
            "--warmup",
            str(args.warmup),
            "--decision-ms",
            str(args.decision_ms),
        ),
        *("--bot", args.bot, *(["--uvloop"] if args.uvloop else [])),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=25)
    parser.add_argument("--bots", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--decision-ms", type=int, default=30_000)
    parser.add_argument("--profile", action="store_true", help="one run under cProfile")
    parser.add_argument("--profile-out", default=None)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--py-spy", default=None, metavar="FILE", help="one run under py-spy record --native")
    parser.add_argument(
        "--bot",
        choices=("sdk", "zero"),
        default="sdk",
        help="sdk: trivial SDK bots (as bench/arena.py); zero: bench/protocol.py's zero-work servicer, so "
        "the arena never waits on slow bots (its CPU per decision is lowest when it is saturated)",
    )
    parser.add_argument("--uvloop", action="store_true", help="run the arena's loop on uvloop")
    parser.add_argument(
        "--bare", action="store_true", help="the bare gRPC client over as many streams instead"
    )
    parser.add_argument("--ab", default=None, metavar="DIR,DIR", help="compare checkouts, alternating")
    parser.add_argument("--code", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    can_pin = hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2
    parser.add_argument("--pin", action=argparse.BooleanOptionalAction, default=can_pin)
    args = parser.parse_args()
    if args.ab:
        _ab(args)
        return
    _import_arena(args.code)
    if args.py_spy:
        subprocess.run(
            [
                "py-spy",
                "record",
                "--native",
                "--format",
                "speedscope",
                "-o",
                args.py_spy,
                "--",
                *_child_command(args),
            ],
            check=True,
        )
        return
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()

        def body(bots: list[str]) -> dict[str, Any]:
            profiler.enable()
            try:
                return _measure(args, bots)
            finally:
                profiler.disable()

        def both(bots: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
            return _measure(args, bots), body(bots)

        real, figure = _with_bots(args, both)
        if args.profile_out:
            profiler.dump_stats(args.profile_out)
        print(
            f"{figure['all_decisions']:,} decisions (warm-up included) at {args.tables} tables under cProfile"
        )
        _print_profile(pstats.Stats(profiler), figure["all_decisions"], args.top, real)
        return
    if args.bare:
        import protocol as protocol_bench

        items, _ = protocol_bench.workload(protocol_bench.GameConfig.create("five-handed"), 5)
        request = protocol_bench.request_bytes(items[len(items) // 2], 1)

        def bare_body(bots: list[str]) -> list[dict[str, Any]]:
            return [
                asyncio.run(_run_bare(bots, request, args.tables, args.warmup, args.seconds))
                for _ in range(args.repeats)
            ]

        figures = _with_bots(args, bare_body, bare=True)
    else:
        figures = _with_bots(args, lambda bots: [_measure(args, bots) for _ in range(args.repeats)])
    if args.json:
        print(json.dumps(min(figures, key=lambda f: f["cpu_us_per_decision"])))
        return
    cpu = [f["cpu_us_per_decision"] for f in figures]
    main = [f["main_thread_us_per_decision"] for f in figures]
    other = min(c - m for c, m in zip(cpu, main, strict=True))
    rate = statistics.median(f["decisions_per_s"] for f in figures)
    who = "bare client" if args.bare else "arena"
    print(
        f"{who} CPU per decision at {args.tables} tables: best {min(cpu):.1f} "
        f"us, median {statistics.median(cpu):.1f} us (main thread {min(main):.1f} us, other threads "
        f"{other:.1f} us) over {args.repeats} runs; decisions/s median {rate:,.0f}"
    )


if __name__ == "__main__":
    main()
