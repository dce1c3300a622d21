"""Scale-out: ``python bench/scale.py [--games 120] [--launched-games 60]``.

The same five-handed event played by the local executor and by Dask with 1 and 2 local workers, once with
in-process bots (the engine and referee are the work) and once with launched trivial bots (the protocol is
the work), in one run. Prints games/s, the speed-up over the local executor, and the CPU time per game of
each kind of process: the conductor (the part that does not scale out; with a local cluster it also hosts
Dask's scheduler and nannies), the Dask workers, and the bots (launchers, sandboxes, interpreters), with the
conductor's CPU per decision. CPU time, unlike games/s, stays readable on a shared machine; on n cores the
Dask executor's games/s is at most n / (all processes' CPU per game) (docs/scale-out.md). Each measurement
runs in a fresh child process; ``--baseline DIR`` measures another checkout (with its own .venv) row by
row, alternately with this one.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The repository's arena (not bench/arena.py), or another checkout's with --baseline (its own venv runs it).
REPO = Path(os.environ.get("SCALE_REPO") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(REPO))

KINDS = {
    "in-process": {"class": "sample_bots.random:RandomBot"},
    "launched": {"command": "{python} -m sample_bots.random --address {address}"},
}


def role(proc: Any, me: int) -> str:
    """Which part of the event a process is: the conductor (with the local cluster's scheduler and
    nannies), a Dask scheduler or worker process, or a bot (its shim, sandbox and interpreter)."""
    if proc.pid == me:
        return "conductor"
    try:
        line = " ".join(proc.cmdline())
    except Exception:
        return "bots"
    if "spawn_main" in line or "forkserver" in line:
        return "worker" if "scheduler" not in line else "scheduler"
    if "arena.cluster_scheduler" in line or "dask scheduler" in line or "dask-scheduler" in line:
        return "scheduler"
    return "bots"


def cpu_by_role() -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system) so far of this process and every process under it, by pid."""
    import psutil  # type: ignore[import-untyped]  # installed with distributed

    me = psutil.Process()
    seen: dict[int, tuple[str, float]] = {}
    for proc in [me, *me.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            t = proc.cpu_times()
            seen[proc.pid] = (role(proc, me.pid), t.user + t.system)
    return seen


def child(kind: str, executor: str, games: int, output: str) -> None:
    import asyncio

    from arena.conductor.observer import EventObserver
    from arena.conductor.tournament import run_event
    from arena.event.config import parse_config

    workers = {"local": None, "dask-1": 1, "dask-2": 2, "dask-2-unpinned": 2}[executor]
    data = {
        "name": "scale",
        "seed": 3,
        "rounds": games,
        "concurrency": int(os.environ.get("SCALE_CONCURRENCY", "8")),
        "output": output,
        "game": {"variant": "five-handed"},
        "entrant": [{"name": f"b{i}", **KINDS[kind]} for i in range(5)],
        "deal_key": "cd" * 32,
    }
    if workers:
        data["executor"] = {"kind": "dask", "workers": workers}
        if executor.endswith("-unpinned"):
            data["executor"]["pin_cpus"] = False
    config = parse_config(data)
    began = time.perf_counter()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    finished: list[float] = []
    marks: list[dict[int, tuple[str, float]]] = []
    first = max(1, games // 10)  # the steady state's CPU: from the first tenth of the games to the last

    class Timing(EventObserver):
        def game_finished(self, *_: Any) -> None:
            finished.append(time.perf_counter())
            if len(finished) in (first, games):
                marks.append(cpu_by_role())

    summary = asyncio.run(run_event(config, Timing()))
    wall = time.perf_counter() - began
    # Steady state: from the first finished game to the last, so start-up (cluster, bots) is not counted.
    steady = (len(finished) - 1) / (finished[-1] - finished[0]) if len(finished) > 1 else 0.0
    after = resource.getrusage(resource.RUSAGE_SELF)
    # The file itself, not the store's API: the child may run another checkout's arena (--baseline).
    with contextlib.closing(sqlite3.connect(Path(output) / "event.sqlite")) as db:
        decisions = db.execute("SELECT SUM(decisions) FROM games").fetchone()[0]
    used = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    row = {"games": summary.games_played_now, "seconds": wall, "steady": steady}
    roles: dict[str, float] = {}
    if len(marks) == 2:
        for pid, (name, end) in marks[1].items():
            start = marks[0].get(pid, (name, 0.0))[1]
            roles[name] = roles.get(name, 0.0) + (end - start) / (games - first)
    print(json.dumps(row | {"cpu_s": used, "decisions": decisions, "roles": roles}))


def measure(kind: str, executor: str, games: int, repo: Path | None = None) -> dict[str, Any]:
    """One run in a fresh child process: with this checkout, or ``repo``'s code and its own venv."""
    python, env = sys.executable, dict(os.environ)
    if repo is not None:
        python, env["SCALE_REPO"] = str(repo / ".venv" / "bin" / "python"), str(repo)
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp).chmod(0o755)
        out = subprocess.run(
            [python, __file__, "--child", kind, executor, str(games), str(Path(tmp) / "out")],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=repo or REPO,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=120, help="games per run with in-process bots")
    parser.add_argument("--launched-games", type=int, default=60, help="games per run with launched bots")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout (with its .venv) to measure alternately with this one, row by row",
    )
    parser.add_argument("--repeats", type=int, default=1, help="runs per row; the best games/s is shown")
    parser.add_argument(
        "--executors",
        default="local,dask-1,dask-2",
        help="comma-separated, of local, dask-1, dask-2 and dask-2-unpinned (pin_cpus = false)",
    )
    parser.add_argument("--kinds", default="in-process,launched", help="comma-separated")
    parser.add_argument("--concurrency", type=int, default=8, help="games in flight, whatever the executor")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ["SCALE_CONCURRENCY"] = str(args.concurrency)
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]), args.child[3])
        return
    print(f"Python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} CPUs")
    print(f"five-handed, 5 sample random bots, concurrency {args.concurrency}, Dask local clusters here")
    print("games/s in steady state (first to last finished game, best of the repeats); total = with")
    print("start-up; CPU ms per game in each kind of process over the last nine tenths of the games")
    head = ("code", "bots", "executor", "games", "games/s", "speed-up", "total", "cond/dec", "cond", "worker")
    widths = (9, 11, 16, 6, 9, 9, 7, 9, 7, 7)
    print("".join(f"{h:>{w}}" for h, w in zip(head, widths, strict=True)) + "   bots    all (ms/game)")
    checkouts: list[tuple[str, Path | None]] = [("this", None)]
    if args.baseline is not None:
        checkouts.insert(0, ("baseline", args.baseline.resolve()))
    kinds = {"in-process": args.games, "launched": args.launched_games}
    executors = args.executors.split(",")
    for kind in args.kinds.split(","):
        base: dict[str, float] = {}
        best: dict[tuple[str, str], dict[str, Any]] = {}
        # Repeats go round every executor and checkout in turn, so a change in the machine's load hits
        # them alike.
        for _ in range(args.repeats):
            for executor in executors:
                for label, repo in checkouts:
                    r = measure(kind, executor, kinds[kind], repo)
                    key = (executor, label)
                    if key not in best or r["steady"] > best[key]["steady"]:
                        best[key] = r
        for executor in executors:
            for label, _ in checkouts:
                r = best[(executor, label)]
                rate = r["steady"]
                base.setdefault(label, rate)
                total = r["games"] / r["seconds"]
                ms = {k: 1e3 * v for k, v in r["roles"].items()}
                cells = [ms.get(k, 0.0) for k in ("conductor", "worker", "bots")]
                per_decision = 1e3 * ms.get("conductor", 0.0) * r["games"] / max(1, r["decisions"])
                print(
                    f"{label:>9}{kind:>11}{executor:>16}{r['games']:>6}{rate:>9.1f}"
                    f"{rate / base[label]:>8.2f}x"
                    f"{total:>7.1f}{per_decision:>6.0f} us"
                    + "".join(f"{c:>7.2f}" for c in cells)
                    + f"{sum(ms.values()):>7.2f}"
                )


if __name__ == "__main__":
    main()
