"""An ``arena run`` process stopped mid-event, by ``kill -9`` or by SIGTERM, and run again: it resumes where
it stopped, and the event ends as an uninterrupted one would.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers import (
    ROOT,
    arena_cli,
    board,
    chaos_entrant,
    chaos_event,
    event,
    processes_mentioning,
    rows,
    stored_games,
    stored_hands,
    write_toml,
)

KILLED_ROUNDS = 8
"""Games of the event killed once four are stored (two at a time, and SIGKILL at once: at most five then),
so that some are left to resume."""


def test_killed_with_sigkill_mid_event_then_resumed_gives_the_uninterrupted_leaderboard(
    tmp_path: Path,
) -> None:
    """Resume after ``kill -9`` (the output lock dies with the arena) deals the rest with the stored secret
    key: the event equals an uninterrupted one run afterwards with that key, published (issue 9)."""
    others = [
        {"name": "rules", "class": "sample_bots.rules:RulesBot"},
        {"name": "random-b", "class": "sample_bots.random:RandomBot"},
        {"name": "rules-b", "command": "{python} -m sample_bots.rules --port {port}"},
        {"name": "random-c", "class": "sample_bots.random:RandomBot"},
    ]
    # The killed event's first-legal player waits 15 ms a decision (no CPU): a CI run once stored all 8 games
    # between two polls of a starved test process. The uninterrupted event's plays the same cards at once.
    broken = write_toml(
        tmp_path / "broken.toml",
        event(
            tmp_path,
            entrant=[chaos_entrant("margin", "--reply-ms", "15", name="first"), *others],
            rounds=KILLED_ROUNDS,
            concurrency=2,
            output=str(tmp_path / "broken"),
            sandbox="none",
        ),
    )
    log = tmp_path / "arena.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "run", "-q", str(broken)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and stored_games(tmp_path / "broken") < 4 and proc.poll() is None:
        time.sleep(0.05)
    ended = proc.poll()
    assert ended is None, f"the arena ended (exit {ended}) before the kill: {log.read_text()[-2000:]}"
    os.kill(proc.pid, signal.SIGKILL)  # the arena alone: its bots must not outlive it
    proc.wait(10)
    interrupted_at = stored_games(tmp_path / "broken")
    assert 4 <= interrupted_at < KILLED_ROUNDS, (
        f"not killed mid-event ({interrupted_at} stored): {log.read_text()[-2000:]}"
    )
    resumed = arena_cli("run", str(broken), timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{interrupted_at} of {KILLED_ROUNDS} games already stored" in resumed.stdout
    whole = write_toml(
        tmp_path / "whole.toml",
        event(
            tmp_path,
            entrant=[chaos_entrant("fine", name="first"), *others],
            rounds=KILLED_ROUNDS,
            concurrency=2,
            output=str(tmp_path / "whole"),
            sandbox="none",
        ),
    )
    key = (tmp_path / "broken" / "deal.key").read_text().strip()
    assert arena_cli("run", "-q", str(whole), "--deal-key", key, timeout=300).returncode == 0
    assert board(tmp_path / "broken") == board(tmp_path / "whole")
    assert stored_hands(tmp_path / "broken") == stored_hands(tmp_path / "whole")


def sigterm_midway(tmp_path: Path, sigint: signal.Handlers) -> None:
    """``arena run`` started with SIGINT set to ``sigint`` (a shell script's ``arena run ... &`` starts it
    ignored), sent SIGTERM once two games are stored: it stops like Ctrl-C, and the same command resumes."""
    marker = str(tmp_path / "marker")
    # 20 ms a decision (far inside the 300 ms limit) keeps the event from ending between two polls on a
    # fast machine: a CI run once stored all 12 games before the signal landed
    bot = chaos_entrant("margin", "--reply-ms", "20", "--state", marker)
    path = chaos_event(tmp_path, bot, rounds=12, concurrency=2)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", "-q", str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )
    db = tmp_path / "out" / "event.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.02)
        try:
            if db.exists() and rows(tmp_path / "out", "SELECT COUNT(*) FROM games")[0][0] >= 2:
                break
        except sqlite3.Error:
            continue
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr
    assert "terminated (SIGTERM)" in stderr and "run the same command to resume" in stderr
    stored = rows(tmp_path / "out", "SELECT COUNT(*) FROM games")[0][0]
    assert 2 <= stored < 12
    assert processes_mentioning(marker) == [], "the launched bot was stopped"
    resumed = arena_cli("run", "-q", str(path))
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"{stored} of 12 games already stored" in resumed.stdout + resumed.stderr
    assert rows(tmp_path / "out", "SELECT COUNT(*) FROM games") == [(12,)]


def test_sigterm_stops_the_event_like_sigint_and_it_resumes(tmp_path: Path) -> None:
    sigterm_midway(tmp_path, signal.SIG_DFL)  # whatever the suite itself was started with


def test_sigterm_stops_the_event_also_when_sigint_is_ignored(tmp_path: Path) -> None:
    sigterm_midway(tmp_path, signal.SIG_IGN)
