"""``arena demo`` as a newcomer runs it: a real process, end to end, with the report at the end and a clean
fault column for our own sample bots.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers import arena_cli, board, rows


def test_demo_runs_end_to_end(tmp_path: Path) -> None:
    result = arena_cli(
        "demo", "--rounds", "2", "--output", str(tmp_path / "demo"), "-q", "--decision-ms", "150", timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "montecarlo" in result.stdout and "demo: 2 games" in result.stdout
    assert len(board(tmp_path / "demo")) == 5
    # issue 12: written at the end; a path too long for 80 columns goes whole on the line after "report:"
    said = " ".join(result.stdout.split())
    assert f"report: {tmp_path / 'demo' / 'report.html'}" in said
    assert (tmp_path / "demo" / "report.html").stat().st_size > 500_000


def test_the_demo_shows_no_faults_of_our_own_sample_bots(tmp_path: Path) -> None:
    """Our sample bots keep a safety margin (montecarlo searches half of its time) that holds on this busy
    machine, so the README's first command shows a clean fault column.

    On a machine already loaded past its CPUs (other test runs, a CPU stress beside the suite) 400 ms
    leaves a bot that uses its time no margin it can keep: the arena cannot time what the scheduler does not
    run. There the demo is given 2000 ms, which still checks that the bots keep their margin."""
    out = tmp_path / "demo"
    decision_ms = "400" if os.getloadavg()[0] < (os.cpu_count() or 1) else "2000"
    args = ("demo", "-q", "--rounds", "4", "--output", str(out), "--decision-ms", decision_ms)
    result = arena_cli(*args, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    faults = rows(out, "SELECT entrant, kind, detail FROM faults WHERE kind != 'harness'")
    assert faults == [], f"at {decision_ms} ms, load {os.getloadavg()}"
