"""Each test file's seconds in a whole run of the suite, for the order the suite runs its files in
(tests/conftest.py: the longest first, so that both workers finish together).

    pytest --junitxml /tmp/suite.xml          # a whole run (its JUnit report has each test's seconds)
    python bench/test_order.py /tmp/suite.xml # writes tests/durations.json

A test's seconds in the report are its setup's, its call's and its teardown's (a module's server is
started in its first test's setup). Files the report does not have keep no entry: the suite gives them
the median file's seconds.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def file_seconds(report: Path) -> dict[str, float]:
    """Seconds by test file (``tests/x/test_y.py``) from a JUnit XML report of pytest."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "")
        parts = module.split(".")
        # classname is the module's dotted path, then the class when the test is in one
        for cut in range(len(parts), 0, -1):
            path = Path(*parts[:cut]).with_suffix(".py")
            if (ROOT / path).is_file():
                seconds[path.as_posix()] += float(case.get("time", 0) or 0)
                break
    return dict(seconds)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python bench/test_order.py JUNIT.xml", file=sys.stderr)
        return 2
    try:
        seconds = file_seconds(Path(argv[0]))
    except (OSError, ET.ParseError) as exc:
        print(f"error: cannot read {argv[0]}: {exc}", file=sys.stderr)
        return 2
    ordered = dict(sorted(((k, round(v, 1)) for k, v in seconds.items()), key=lambda kv: -kv[1]))
    (ROOT / "tests" / "durations.json").write_text(json.dumps(ordered, indent=1) + "\n")
    total = sum(ordered.values())
    print(f"{len(ordered)} files, {total:.0f} s in all; the longest: {next(iter(ordered), '-')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
