"""How fast and how small ``arena run`` refuses a file that is no config: ``python bench/bad_files.py
[--runs 5]``.

Why: issue 42's goal is exit 2 within 1 s and under 100 MB for ``/dev/zero``, ``/dev/urandom``, a FIFO and
a 1 GB file (``arena.userfiles``). Tests check the exit, the line and the memory, never the time (a loaded
machine is slow at everything); this measures the time, beside ``arena --help``, the cost of starting the
command line at all, and the same refusal made after the command line's imports (``LATE``: before
``arena.start``), on the same machine at the same moment. Each case runs ``--runs`` times (median wall
time, largest peak resident size); the whole bench takes well under a minute on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LATE = "import sys; from arena.cli import main; sys.argv[0] = 'arena'; main()"
"""The command line without ``arena.start``'s early refusal: the same check, made after every import (how
``arena run`` refused before issue 42's third round)."""


def one(args: list[str]) -> tuple[float, int, int]:
    """Wall seconds, peak resident KB and exit status of ``python -m arena ARGS`` (``late``: of ``LATE``)."""
    began = time.monotonic()
    command = ["-c", LATE, *args[1:]] if args[0] == "late" else ["-m", "arena", *args]
    proc = subprocess.Popen([sys.executable, *command], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.monotonic() - began, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as where:
        tmp = Path(where)
        os.mkfifo(tmp / "fifo")
        with (tmp / "huge.toml").open("wb") as f:
            f.truncate(1024**3)
        cases = {
            "arena --help (start-up alone)": ["--help"],
            "arena run /dev/zero": ["run", "/dev/zero"],
            "arena run /dev/urandom": ["run", "/dev/urandom"],
            "arena run FIFO": ["run", str(tmp / "fifo")],
            "arena run 1 GB file (sparse)": ["run", str(tmp / "huge.toml")],
            "the same, checked after imports": ["late", "run", str(tmp / "huge.toml")],
        }
        print(f"{'case':32} {'median s':>9} {'max MB':>7} exit")
        for name, args in cases.items():
            argv = [*args, "--output", str(tmp / "out")] if "run" in args else args
            got = [one(argv) for _ in range(runs)]
            codes = sorted({c for _, _, c in got})
            wall = statistics.median(t for t, _, _ in got)
            peak = max(m for _, m, _ in got) / 1024
            print(f"{name:32} {wall:9.2f} {peak:7.1f} {','.join(map(str, codes))}")
    print(f"load average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
