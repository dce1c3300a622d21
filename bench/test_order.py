"""Would another order of the suite's files end it sooner? Each file's seconds in a whole run, and the
two workers' finish when the files are handed out in the suite's order and longest first.

    pytest --junitxml /tmp/suite.xml           # a whole run (its JUnit report has each test's seconds)
    python bench/test_order.py /tmp/suite.xml  # [--workers 2] [--top 20]

pytest-xdist's ``--dist loadfile`` hands a worker the next file when it is nearly done with its own; the
simulation hands each file, whole, to the worker that is free first. A test's seconds in the report are
its setup's, its call's and its teardown's (a module's server is started in its first test's setup).
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def file_seconds(report: Path) -> dict[str, float]:
    """Seconds by test file (``tests/x/test_y.py``), in the order the report first names each file."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).getroot().iter("testcase"):
        parts = case.get("classname", "").split(".")  # the module's dotted path, then a class if any
        for cut in range(len(parts), 0, -1):
            path = Path(*parts[:cut]).with_suffix(".py")
            if (ROOT / path).is_file():
                seconds[path.as_posix()] += float(case.get("time", 0) or 0)
                break
    return dict(seconds)


def finish(order: list[float], workers: int) -> float:
    """When the last worker ends, each file given whole to the worker free first."""
    ends = [0.0] * workers
    for seconds in order:
        ends[ends.index(min(ends))] += seconds
    return max(ends)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python bench/test_order.py")
    parser.add_argument("report", type=Path, help="pytest's --junitxml report of a whole run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--top", type=int, default=15, help="how many of the longest files to list")
    args = parser.parse_args(argv)
    try:
        seconds = file_seconds(args.report)
    except (OSError, ET.ParseError) as exc:
        print(f"error: cannot read {args.report}: {exc}", file=sys.stderr)
        return 2
    if not seconds or args.workers < 1:
        print("error: no test file in the report, or no worker", file=sys.stderr)
        return 2
    total = sum(seconds.values())
    longest = sorted(seconds.items(), key=lambda kv: -kv[1])
    for path, s in longest[: args.top]:
        print(f"{s:8.1f} s  {path}")
    print(f"{len(seconds)} files, {total:,.0f} s; at best {total / args.workers:,.0f} s on {args.workers}.")
    print(f"in the suite's order: {finish(list(seconds.values()), args.workers):,.0f} s")
    print(f"longest first: {finish([s for _, s in longest], args.workers):,.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
