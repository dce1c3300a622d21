"""Scale-out: ``python bench/scale.py [--games 120] [--launched-games 60]``.

The same five-handed event played by the local executor and by Dask with 1 and 2 local workers, once with
in-process bots (the engine and referee are the work) and once with launched trivial bots (the protocol is
the work), in one run. Prints games/s, the speed-up over the local executor, and the conductor's own CPU
time per decision (the part that does not scale out). Each measurement runs in a fresh child process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository's arena, not bench/arena.py

KINDS = {
    "in-process": {"class": "sample_bots.random:RandomBot"},
    "launched": {"command": "{python} -m sample_bots.random --address {address}"},
}


def child(kind: str, executor: str, games: int, output: str) -> None:
    import asyncio

    from arena.config import parse_config
    from arena.tournament import run_event

    workers = {"local": None, "dask-1": 1, "dask-2": 2}[executor]
    data = {
        "name": "scale",
        "seed": 3,
        "rounds": games,
        "concurrency": 8,
        "output": output,
        "game": {"variant": "five-handed"},
        "entrant": [{"name": f"b{i}", **KINDS[kind]} for i in range(5)],
        "deal_key": "cd" * 32,
    }
    if workers:
        data["executor"] = {"kind": "dask", "workers": workers}
    config = parse_config(data)
    began = time.perf_counter()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    finished: list[float] = []
    summary = asyncio.run(run_event(config, on_game=lambda *_: finished.append(time.perf_counter())))
    wall = time.perf_counter() - began
    # Steady state: from the first finished game to the last, so start-up (cluster, bots) is not counted.
    steady = (len(finished) - 1) / (finished[-1] - finished[0]) if len(finished) > 1 else 0.0
    after = resource.getrusage(resource.RUSAGE_SELF)
    from arena.store import Store

    with Store.open(Path(output), create=False) as store:
        decisions = store.db.execute("SELECT SUM(decisions) FROM games").fetchone()[0]
    used = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    row = {"games": summary.games_played_now, "seconds": wall, "steady": steady}
    print(json.dumps(row | {"cpu_s": used, "decisions": decisions}))


def measure(kind: str, executor: str, games: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o755)
        out = subprocess.run(
            [sys.executable, __file__, "--child", kind, executor, str(games), str(Path(tmp) / "out")],
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=120, help="games per run with in-process bots")
    parser.add_argument("--launched-games", type=int, default=60, help="games per run with launched bots")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]), args.child[3])
        return
    print(f"Python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} CPUs")
    print("five-handed, 5 sample random bots, concurrency 8, Dask local clusters on this machine")
    print("games/s in steady state (first to last finished game); total = with start-up; conductor CPU")
    head = ("bots", "executor", "games", "games/s", "speed-up", "total", "CPU/dec")
    print("".join(f"{h:>{w}}" for h, w in zip(head, (10, 10, 7, 9, 10, 8, 9), strict=True)))
    for kind, games in (("in-process", args.games), ("launched", args.launched_games)):
        base = 0.0
        for executor in ("local", "dask-1", "dask-2"):
            r = measure(kind, executor, games)
            rate = r["steady"]
            base = base or rate
            per = 1e6 * r["cpu_s"] / max(1, r["decisions"])
            total = r["games"] / r["seconds"]
            print(
                f"{kind:>10} {executor:>9} {r['games']:>6} {rate:>8.1f} {rate / base:>8.2f}x "
                f"{total:>7.1f} {per:>5.0f} us"
            )


if __name__ == "__main__":
    main()
