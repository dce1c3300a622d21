"""Where the test suite's CPU goes: each test's CPU (its worker's and the processes it waited for), by file.

    python bench/suite_cpu.py [--out DIR] [--top 30] [-- PYTEST ARGS]
    python bench/suite_cpu.py --report DIR          # the table again, from a run's records

The suite is bound by the CPU of 2 cores, not by waits (docs/performance.md, "The suite's time"), so a
file's wall time says more about what ran beside it than about itself; its CPU is what a cut can save. The
run loads this module into pytest and into every pytest-xdist worker (``-p suite_cpu``), and each worker
writes one line per test (its node id; the worker's own CPU; the CPU of child processes it reaped during
the test, which is where a server, a bot or an ``arena`` command started by the test lands; and the wall
time) to ``DIR/<worker>.jsonl``. A process reaped later (a module's server, at its last test) is counted
there: compare files, not tests, where module fixtures start processes. Processes nobody waits for (a
browser's, under Playwright's driver) are not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import IO, Any

import pytest

ENV = "ARENA_SUITE_CPU_DIR"
_out: IO[str] | None = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, None]:
    """Around one test's setup, call and teardown: its CPU and wall time, appended to this worker's file."""
    global _out
    directory = os.environ.get(ENV)
    before, began = os.times(), time.monotonic()
    yield
    if not directory:
        return
    after = os.times()
    if _out is None:
        _out = open(Path(directory) / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl", "a")  # noqa: SIM115
    own = after.user - before.user + after.system - before.system
    kids = after.children_user - before.children_user + after.children_system - before.children_system
    _out.write(
        json.dumps({"id": item.nodeid, "own": own, "kids": kids, "wall": time.monotonic() - began}) + "\n"
    )
    _out.flush()


def report(directory: Path, top: int) -> str:
    """The files by CPU, most first, and the run's totals."""
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    for path in sorted(directory.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            entry = files[row["id"].split("::")[0]]
            entry[0] += row["own"]
            entry[1] += row["kids"]
            entry[2] += row["wall"]
            entry[3] += 1
    cpu = sum(e[0] + e[1] for e in files.values())
    lines = [
        f"{len(files)} files, {sum(int(e[3]) for e in files.values())} tests: {cpu:.0f} s of CPU, "
        f"{sum(e[2] for e in files.values()):.0f} s of wall time summed over the workers",
        f"{'CPU s':>7} {'own':>6} {'reaped':>6} {'wall s':>7} {'tests':>5}  file",
    ]
    ranked = sorted(files.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
    for name, (own, kids, wall, n) in ranked[:top]:
        lines.append(f"{own + kids:7.1f} {own:6.1f} {kids:6.1f} {wall:7.1f} {int(n):5d}  {name}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ours, _, theirs = (
        (argv[: argv.index("--")], None, argv[argv.index("--") + 1 :]) if "--" in argv else (argv, None, [])
    )
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=None, help="where the records go (default: a new temporary directory)"
    )
    parser.add_argument(
        "--report", type=Path, default=None, help="print the table of an earlier run's records"
    )
    parser.add_argument("--top", type=int, default=30, help="files shown")
    args = parser.parse_args(ours)
    if args.report is not None:
        print(report(args.report, args.top))
        return 0
    out = args.out or Path(
        subprocess.run(["mktemp", "-d"], capture_output=True, text=True, check=True).stdout.strip()
    )
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.jsonl"):
        old.unlink()
    here = str(Path(__file__).resolve().parent)
    env = os.environ | {
        ENV: str(out),
        "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])),
    }
    began = time.monotonic()
    code = subprocess.call([sys.executable, "-m", "pytest", "-p", "suite_cpu", *theirs], env=env)
    print(f"pytest exited {code} after {time.monotonic() - began:.0f} s; records in {out}")
    print(report(out, args.top))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
