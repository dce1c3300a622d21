"""An event of 100 launched sample bots with the default settings (bubblewrap sandbox, default start-up
timeout, default bound on bots starting at once) on a 2-core machine, one round (20 tables), through
``arena run``: a class of bots starts on a small machine.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.helpers import arena_cli, rows, write_toml


@pytest.mark.needs_bwrap  # the default sandbox is part of what is tested
def test_an_event_of_100_launched_sample_bots_with_default_settings(tmp_path: Path) -> None:
    """Default sandbox, start-up timeout and bound on starts; one round of 20 tables. Before issue 13, 26 of
    30 such bots missed their start-up timeout and the event aborted."""
    entrants = [
        {"name": f"bot{i:03d}", "command": "{python} -m sample_bots.random --address {address}"}
        for i in range(100)
    ]
    path = write_toml(
        tmp_path / "cup.toml",
        {"name": "cup", "rounds": 1, "game": {"variant": "five-handed"}, "entrant": entrants},
    )
    began = time.monotonic()
    result = arena_cli("run", "-q", str(path), timeout=600)
    took = time.monotonic() - began
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert "bots: 100 started in" in out
    assert not [line for line in out.splitlines() if line.startswith("warning: bot")], out[-3000:]
    assert rows(tmp_path / "results" / "cup", "SELECT COUNT(*) FROM games") == [(20,)]
    assert rows(tmp_path / "results" / "cup", "SELECT COUNT(*) FROM disqualified") == [(0,)]
    assert took < 300, f"100 bots took {took:.0f} s"
