"""The output directory (arena.results.outdir): one arena at a time may write it, and the directory, the
database, the key and the logs are private whatever the umask.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.conductor.tournament import run_event
from arena.event.config import parse_config
from arena.event.deals import KEY_FILE
from arena.results.store import Store
from tests.helpers import ROOT, arena_cli, board, event, file_mode, played, write_toml


def test_a_second_arena_on_the_same_directory_stops_and_the_first_completes_intact(tmp_path: Path) -> None:
    entrants = [*event(tmp_path)["entrant"][:4], {"name": "gate", "class": "tests.bots.inprocess:Gate"}]
    path = write_toml(tmp_path / "e.toml", event(tmp_path, entrant=entrants, rounds=4, concurrency=2))
    gate = tmp_path / "gate"
    gate.mkdir()
    env = {**os.environ, "GATE_DIR": str(gate), "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", "-q", str(path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not (gate / "reached").exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (gate / "reached").exists(), first.stderr.read() if first.stderr else ""
        second = subprocess.run(
            [sys.executable, "-m", "arena", "run", str(path)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 2 and second.stdout == "", (
            "no progress bar for an event that cannot begin"
        )
        assert second.stderr.splitlines() == [
            f"error: another arena is running the event in {str(tmp_path / 'out')!r} (pid {first.pid}): "
            "wait for it to finish or stop it, or use another output directory"
        ]
        leaderboard = arena_cli("leaderboard", str(tmp_path / "out"))  # readers take no lock
        assert leaderboard.returncode == 0, leaderboard.stderr
    finally:
        (gate / "open").touch()
        _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    with Store.open(tmp_path / "out", create=False) as store:
        assert len(store.finished()) == len(store.schedule()) == 4
        assert store.database.all("SELECT COUNT(*) FROM faults")[0][0] == 0
        assert store.database.all("SELECT COUNT(*) FROM game_seats")[0][0] == 20
        hands = store.database.all(
            "SELECT g.hands, COUNT(h.hand_index) FROM games g JOIN hands h USING (game_id) GROUP BY g.game_id"
        )
        assert all(n == m > 0 for n, m in hands)
    assert sum(row["games"] for row in board(tmp_path / "out")) == 20


def test_output_directory_database_key_and_logs_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        out = played(tmp_path, "out")
    finally:
        os.umask(old)
    assert file_mode(out) == 0o700 and file_mode(out / "logs") == 0o700
    for name in ("event.sqlite", KEY_FILE, ".lock"):
        assert file_mode(out / name) == 0o600, name
    with Store.open(out, create=False) as store:
        store.meta("format")  # the -wal and -shm files exist while a connection is open
        for extra in ("event.sqlite-wal", "event.sqlite-shm"):
            assert file_mode(out / extra) == 0o600, extra


@pytest.mark.parametrize("umask", [0o077, 0o022])
def test_the_public_report_is_published_and_the_organisers_copy_stays_private(
    tmp_path: Path, umask: int
) -> None:
    """README says to publish the ``--public`` copy: it is 0644 whatever the umask, where ``arena report -o``
    puts it. The organiser's copy holds the bots' logs: 0600 whatever the umask, in the event's directory
    and anywhere else (a shared /tmp); the directory itself stays 0700."""
    old = os.umask(umask)
    try:
        out = played(tmp_path, "out")
        assert arena_cli("report", str(out)).returncode == 0
        mine = tmp_path / "shared" / "cup.html"
        assert arena_cli("report", str(out), "-o", str(mine)).returncode == 0
        public = tmp_path / "public" / "cup.html"
        assert arena_cli("report", str(out), "--public", "-o", str(public)).returncode == 0
    finally:
        os.umask(old)
    assert file_mode(out / "report.html") == file_mode(mine) == 0o600
    assert file_mode(public) == 0o644
    assert file_mode(out) == 0o700


def test_an_older_loose_output_directory_is_tightened_when_the_arena_opens_it(tmp_path: Path) -> None:
    out = played(tmp_path, "out")
    os.chmod(out, 0o755)
    os.chmod(out / "logs", 0o755)
    for name in ("event.sqlite", KEY_FILE):
        os.chmod(out / name, 0o644)
    asyncio.run(run_event(parse_config(event(tmp_path, rounds=2, output=str(out)))))
    assert file_mode(out) == 0o700 and file_mode(out / "logs") == 0o700
    assert file_mode(out / "event.sqlite") == file_mode(out / KEY_FILE) == 0o600
