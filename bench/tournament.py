"""Tournament throughput and memory: ``python bench/tournament.py [--games 200] [--big 2000]``.

A five-entrant five-handed event of the sample ``random`` bots, each launched as its own gRPC process,
played to ``--games`` games at concurrency 1, 2, 4 and 8 (games/s), then the arena's peak memory (its own
max RSS, bots excluded) for ``--games`` and ``--big`` games: it must not grow with the number of games.
Each measurement runs in a fresh child process, so every peak is its own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run from a checkout without installing; the repository root goes first, so that this folder's
# bench/arena.py does not shadow the arena package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def child(games: int, concurrency: int, output: str) -> None:
    from arena.config import parse_config
    from arena.tournament import run_event

    entrants = [
        {"name": f"random-{i}", "command": "{python} -m sample_bots.random --port {port}"}
        for i in range(1, 6)
    ]
    config = parse_config(
        {
            "name": "bench",
            "seed": 1,
            "rounds": games,
            "concurrency": concurrency,
            "output": output,
            "game": {"variant": "five-handed"},
            "entrant": entrants,
        }
    )
    started = time.perf_counter()
    summary = asyncio.run(run_event(config))
    elapsed = time.perf_counter() - started
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"games": summary.games_played_now, "seconds": elapsed, "max_rss_mb": rss_kb / 1024}))


def measure(games: int, concurrency: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(games), str(concurrency), tmp],
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--big", type=int, default=2000, help="games for the memory comparison (0: skip)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), int(args.child[1]), args.child[2])
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
