"""Where a bot process spends its time per decision: py-spy samples of the SDK serving real requests.

Usage::

    python bench/profile_sdk.py [--kind async|sync] [--seconds S] [--native] [--top N] [--raw FILE]

The bench's smallest bot (``FirstLegal`` of ``bench/protocol.py``: a plain or ``async def act`` returning the
first legal action) runs in its own process, pinned to one CPU when there are two; this process sends it the
prebuilt requests of real games over one stream as fast as it answers (what ``bench/protocol.py`` calls
"SDK alone"), while ``py-spy record`` samples the bot process. The summary gives, per function, the share
of the bot's busy samples and that share of the bot's measured CPU time per decision (``/proc``), by self
time and by inclusive time. ``--native`` adds the C frames (gRPC core, protobuf), which is slower to
sample. Needs ``py-spy`` (``pip install py-spy``) and permission to trace a child process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/protocol.py
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from protocol import _CHECKOUT_BOT, floor_figures, process_cpu_s, request_bytes, workload

from arena.engine import GameConfig
from arena.protocol import convert
from arena.protocol.v1 import player_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=["async", "sync"], default="sync", help="the bot's act (sync)")
    parser.add_argument("--seconds", type=float, default=5.0, help="sampled time (5)")
    parser.add_argument("--rate", type=int, default=1000, help="py-spy samples per second (1000)")
    parser.add_argument("--native", action="store_true", help="sample C frames too")
    parser.add_argument(
        "--gil",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="sample only the thread holding the GIL (default; a fair proxy of Python CPU time: without it, "
        "threads waiting for the CPU or the GIL are counted as busy, and gRPC's poller thread shows)",
    )
    parser.add_argument("--top", type=int, default=25, help="functions shown per table (25)")
    parser.add_argument("--raw", type=Path, default=None, help="keep py-spy's collapsed stacks here")
    args = parser.parse_args(argv)

    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    bot_cpu = "-"
    if len(cpus) >= 2:
        os.sched_setaffinity(0, {cpus[0]})
        bot_cpu = str(cpus[1])
    config = GameConfig.create("five-handed")
    items, _ = workload(config, games=20)
    prebuilt = [request_bytes(item, 100 + i) for i, item in enumerate(items)]
    start = pb.ArenaMessage(
        game_start=pb.GameStart(game_id="profile", config=convert.config_to_pb(config), decision_time_ms=1000)
    ).SerializeToString()

    bot = subprocess.Popen(
        [sys.executable, "-c", _CHECKOUT_BOT, str(ROOT), args.kind, bot_cpu],
        stdout=subprocess.PIPE,
        text=True,
    )
    raw = args.raw or Path(tempfile.mkstemp(suffix=".txt")[1])
    try:
        assert bot.stdout is not None
        address = f"127.0.0.1:{int(bot.stdout.readline())}"
        asyncio.run(floor_figures(address, start, prebuilt, 1, 1.0, 0.5))  # warm up before sampling
        spy = subprocess.Popen(
            [
                "py-spy",
                "record",
                "--pid",
                str(bot.pid),
                "--duration",
                str(int(args.seconds)),
                "--rate",
                str(args.rate),
                "--format",
                "raw",
                "--output",
                str(raw),
                "--threads",
                *(["--native"] if args.native else []),
                *(["--gil"] if args.gil else []),
                "--nonblocking",  # pausing the bot for every sample slows it several-fold
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(0.5)  # py-spy attaching
        cpu_before = process_cpu_s(bot.pid)
        figures = asyncio.run(floor_figures(address, start, prebuilt, 1, 0.0, args.seconds - 1.0))
        cpu_us = (process_cpu_s(bot.pid) - cpu_before) / figures.decisions * 1e6
        _, err = spy.communicate(timeout=60)
        if spy.returncode != 0:
            raise SystemExit(f"py-spy failed: {err.strip()}")
    finally:
        bot.terminate()
        bot.wait(10)

    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    threads: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = stack.split(";")
        total += count
        threads[frames[0]] += count
        own[frames[-1]] += count
        for frame in set(frames[1:]):
            inclusive[frame] += count
    print(
        f"SDK bot ({args.kind} act), one stream of prebuilt requests: {figures.rate:,.0f} decisions/s, "
        f"bot CPU {cpu_us:.0f} us per decision; {total:,} busy samples at {args.rate}/s"
        + (" (native frames)" if args.native else "")
        + (" (GIL holder only)" if args.gil else "")
    )
    print("\nby thread:")
    for name, count in threads.most_common():
        print(f"  {100 * count / total:5.1f} %  {cpu_us * count / total:6.1f} us  {name}")
    for title, table in (("self time", own), ("inclusive time", inclusive)):
        print(f"\nby {title} (share of busy samples, and of the CPU per decision):")
        for frame, count in table.most_common(args.top):
            print(f"  {100 * count / total:5.1f} %  {cpu_us * count / total:6.1f} us  {frame[:150]}")
    if args.raw is None:
        raw.unlink()


if __name__ == "__main__":
    main()
