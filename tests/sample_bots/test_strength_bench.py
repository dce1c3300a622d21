"""bench/strength.py prints the sample bots' ladder that the README's table quotes: its SPRT lines must carry
the measured edge (arena match wraps its verdict, and the edge is on the wrapped lines), and bad input must
be one line and exit 2 before any game is played."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def strength(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / "strength.py"), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        check=False,
    )


def test_an_sprt_line_carries_the_edge_and_its_interval(tmp_path: Path) -> None:
    done = strength(
        "--sprt", "rules:random", "--variant", "classic", "--max-deals", "10", "--sprt-output", str(tmp_path),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    verdict = [line for line in done.stdout.splitlines() if line.startswith("  SPRT")]
    assert len(verdict) == 1, done.stdout
    assert "candidate minus baseline" in verdict[0] and "95% interval" in verdict[0], verdict[0]


@pytest.mark.parametrize(
    "args",
    [
        ["--sprt", "champion:nobody"],
        ["--pairs", "rules:nobody", "--games", "1"],
        ["--pairs", "rules", "--games", "1"],
        ["--variant", "no-such-variant", "--games", "1"],
        ["--sprt", "ladder", "--variant", "call-ace-4"],
        ["--sprt", "rules:random", "--max-deals", "6"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], tmp_path: Path) -> None:
    done = strength(*args, "--sprt-output", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("strength.py: "), done.stderr
    assert "Traceback" not in done.stderr and not list(tmp_path.iterdir())
