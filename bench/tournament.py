"""Tournament throughput and memory: ``python bench/tournament.py [--games 200] [--big 2000] [--sandbox]``.

A five-entrant five-handed event of the sample ``random`` bots, each launched as its own gRPC process,
played to ``--games`` games at concurrency 1, 2, 4 and 8 (games/s), then the arena's peak memory (its own
max RSS, bots excluded) for ``--games`` and ``--big`` games: it must not grow with the number of games.
Each measurement runs in a fresh child process, so every peak is its own.

``--sandbox`` instead compares the sandbox modes at concurrency 4: unsandboxed (``none``), bubblewrap with
the bots on a Unix socket (``{address}``), and bubblewrap with TCP-only bots behind the in-sandbox relay
(``{port}``): games/s, and the start-up time of one bot (launch to SERVING, mean of ``--starts``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run from a checkout without installing; the repository root goes first, so that this folder's
# bench/arena.py does not shadow the arena package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


MODES = {
    "none": ("none", "{python} -m sample_bots.random --port {port}"),
    "bwrap+socket": ("bubblewrap", "{python} -m sample_bots.random --address {address}"),
    "bwrap+relay": ("bubblewrap", "{python} -m sample_bots.random --port {port}"),
}


def child(games: int, concurrency: int, output: str, mode: str = "none") -> None:
    from arena.conductor.tournament import run_event
    from arena.event.config import parse_config

    sandbox, command = MODES[mode]
    entrants = [{"name": f"random-{i}", "command": command} for i in range(1, 6)]
    config = parse_config(
        {
            "name": "bench",
            "seed": 1,
            "rounds": games,
            "concurrency": concurrency,
            "output": output,
            "game": {"variant": "five-handed"},
            "entrant": entrants,
            "sandbox": sandbox,
        }
    )
    started = time.perf_counter()
    summary = asyncio.run(run_event(config))
    elapsed = time.perf_counter() - started
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"games": summary.games_played_now, "seconds": elapsed, "max_rss_mb": rss_kb / 1024}))


def startup_child(mode: str, starts: int, output: str) -> None:
    """Launch to SERVING, ``starts`` times: wall time, and the CPU the bot's processes used to get there
    (read from its cgroup, so it does not depend on how busy the machine is)."""
    from arena.players.process import ManagedBot
    from arena.sandbox import SandboxMode, SandboxSpec

    sandbox, command = MODES[mode]

    async def run() -> tuple[list[float], list[float]]:
        walls, cpus = [], []
        for i in range(starts):
            bot = ManagedBot(
                "b", command, Path(output) / f"b{i}.log", sandbox=SandboxSpec(mode=SandboxMode(sandbox))
            )
            began = time.perf_counter()
            await bot.start()
            walls.append(time.perf_counter() - began)
            group = bot._cgroup
            cpus.append(group.cpu_seconds() if group is not None else float("nan"))
            await bot.close()
        return walls, cpus

    walls, cpus = asyncio.run(run())
    row = {"startup_ms": 1000 * statistics.median(walls), "cpu_ms": 1000 * statistics.median(cpus)}
    print(json.dumps(row))


def measure(games: int, concurrency: int, mode: str = "none") -> dict[str, float]:
    return _child(["--child", str(games), str(concurrency)], mode)


def _child(args: list[str], mode: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o755)
        out = subprocess.run(
            [sys.executable, __file__, *args, tmp, "--mode", mode],
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare_sandboxes(games: int, starts: int, repeat: int) -> None:
    """Each mode ``repeat`` times, the modes interleaved, medians: a busy machine slows them all alike."""
    print(f"sandbox modes: {games} games at concurrency 4, medians of {repeat} interleaved runs;")
    print(f"bot start-up: medians of {starts} starts (wall; the bot's own CPU to SERVING, from its cgroup)")
    print(f"{'mode':>13} {'games/s':>9} {'vs none':>8} {'start-up':>9} {'vs none':>8} {'bot CPU':>8}")
    rates: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(repeat):
        for mode in MODES:
            r = measure(games, 4, mode)
            rates[mode].append(r["games"] / r["seconds"])
    base: dict[str, float] = {}
    for mode in MODES:
        s = _child(["--startup", str(starts)], mode)
        rate = statistics.median(rates[mode])
        base = base or {"rate": rate, "startup": s["startup_ms"]}
        print(
            f"{mode:>13} {rate:>9.1f} {100 * (rate / base['rate'] - 1):>+7.1f}% "
            f"{s['startup_ms']:>6.0f} ms {s['startup_ms'] - base['startup']:>+5.0f} ms {s['cpu_ms']:>5.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--big", type=int, default=2000, help="games for the memory comparison (0: skip)")
    parser.add_argument("--sandbox", action="store_true", help="compare the sandbox modes instead")
    parser.add_argument("--starts", type=int, default=10, help="bot starts per mode for --sandbox")
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode for --sandbox")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--startup", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="none", choices=sorted(MODES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), int(args.child[1]), args.child[2], args.mode)
        return
    if args.startup:
        startup_child(args.mode, int(args.startup[0]), args.startup[1])
        return
    if args.sandbox:
        compare_sandboxes(args.games, args.starts, args.repeat)
        return
    print(f"Python {platform.python_version()} on {platform.platform()}, {platform.machine()}")
    print(f"five-handed, 5 sample random bots as gRPC processes, {args.games} games (one table per round)")
    print(f"{'concurrency':>11} {'games/s':>9} {'seconds':>8} {'arena max RSS':>14}")
    for concurrency in (1, 2, 4, 8):
        r = measure(args.games, concurrency)
        rate = r["games"] / r["seconds"]
        print(f"{concurrency:>11} {rate:>9.1f} {r['seconds']:>8.1f} {r['max_rss_mb']:>11.1f} MB")
    if args.big:
        big = measure(args.big, 4)
        print(
            f"memory at concurrency 4: {args.big} games -> max RSS {big['max_rss_mb']:.1f} MB "
            f"({big['games'] / big['seconds']:.1f} games/s)"
        )


if __name__ == "__main__":
    main()
