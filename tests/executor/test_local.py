"""Starting the entrants (arena.executor.local): a bot that cannot start and an address that does not answer
do not stop the event (named with their log, retried, played by the autopilot, marked), ``--strict``
refuses it instead, and an entrant that comes up during the event is seated from then on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import pickle
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.conductor.tournament import run_event
from arena.event.config import parse_config
from arena.executor import StartFailed
from tests.helpers import CHAOS, FOUR_SAMPLE_BOTS, ROOT, Watch, arena_cli, free_port, rows, write_toml

# Prints two lines on stderr and exits: a bot that cannot start (a missing model file, say).
CRASHY = {
    "name": "crashy",
    "command": "{python} -c \"import sys; print('loading model', file=sys.stderr); "
    "print('no such file: model.bin', file=sys.stderr); sys.exit(3)\" {address}",
    "sandbox": "none",
}


# ------------------------------------------------------------------ broken entrants


def broken_event(tmp_path: Path, ghost_port: int) -> Path:
    ghost = {"name": "ghost", "address": f"127.0.0.1:{ghost_port}"}  # nobody listens there
    return write_toml(
        tmp_path / "event.toml",
        {
            "name": "b",
            "seed": 3,
            "rounds": 4,
            "concurrency": 2,
            "output": str(tmp_path / "out"),
            "game": {"variant": "five-handed"},
            "faults": {"decision_ms": 2000, "restart_backoff_s": 0.1, "restart_backoff_max_s": 0.4},
            "entrant": [CRASHY, ghost, *FOUR_SAMPLE_BOTS],
        },
    )


def test_an_event_with_a_bot_that_cannot_start_and_an_address_that_does_not_answer(tmp_path: Path) -> None:
    """It completes; both are named with their log's last lines (real newlines), retried, marked in the
    standings, their seats played by the autopilot and not rated; the rest are rated. Since no launched
    entrant ever came up, it is no plain success: exit 1 and a last line that says so (issue 42)."""
    path = broken_event(tmp_path, free_port())
    result = arena_cli("run", "-q", str(path))
    out = result.stdout + result.stderr
    assert result.returncode == 1, out[-3000:]
    assert "error: no launched entrant came up (crashy)" in " ".join(out.split()), out[-3000:]
    assert "\\n" not in out, "a log tail is printed with real newlines"
    lines = out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("warning: crashy: "))
    assert "exited during start-up (status 3)" in lines[first]
    block = lines[first + 1 : first + 6]
    assert block.index("    loading model") + 1 == block.index("    no such file: model.bin"), block
    assert any(line.startswith("warning: ghost: ") for line in lines)
    assert "retrying in the background" in out
    out_dir = tmp_path / "out"
    reasons = dict(rows(out_dir, "SELECT entrant, reason FROM disqualified"))
    assert set(reasons) == {"crashy", "ghost"}
    assert all(r.startswith("never came up: ") for r in reasons.values()), reasons
    assert len(list((out_dir / "logs").glob("crashy.log"))) == 1
    games = rows(out_dir, "SELECT seats, excluded FROM games")
    assert len(games) == 4
    for seats, excluded in games:
        assert sorted(json.loads(excluded)) == sorted(set(json.loads(seats)) & {"crashy", "ghost"})
    assert rows(out_dir, "SELECT COUNT(*) FROM faults") == [(0,)], "the autopilot never faults"
    board = {b["name"]: b for b in json.loads(arena_cli("leaderboard", str(out_dir), "--json").stdout)}
    assert board["crashy"]["disqualified"] and board["ghost"]["disqualified"]
    assert board["crashy"]["mu"] == board["ghost"]["mu"] == 25.0, "never rated"
    assert all(board[e["name"]]["mu"] != 25.0 for e in FOUR_SAMPLE_BOTS), "the rest are rated"


def test_strict_refuses_the_event_with_one_error_line_per_broken_entrant(tmp_path: Path) -> None:
    path = broken_event(tmp_path, free_port())
    result = arena_cli("run", "-q", "--strict", str(path))
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and "\\n" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if not line.startswith("    ")]
    assert [e.split(":")[1].strip() for e in errors] == ["crashy", "ghost"], result.stderr
    assert all(e.startswith("error: ") for e in errors)
    assert "    no such file: model.bin" in result.stderr.splitlines()


@pytest.mark.parametrize("bot", ["fine", "wrong_version"])
def test_an_entrant_that_comes_up_during_the_event_is_seated_from_then_on(bot: str, tmp_path: Path) -> None:
    """Its address answers only once the third game has finished: the games that start after it is up
    seat it, and it is not marked. One that turns out to speak another protocol version when it comes up
    is never seated, and is marked as at the start."""
    port = free_port()
    late: list[subprocess.Popen[bytes]] = []

    def on_game(game: Any, result: Any) -> None:
        if len(done) == 2:
            argv = [sys.executable, str(CHAOS), "--mode", bot, "--port", str(port)]
            late.append(subprocess.Popen(argv, cwd=ROOT))
            # Hold the event here until the bot listens (however slowly it starts on a loaded machine), so
            # that plenty of games are left to seat it once the arena's next try finds it.
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with socket.socket() as s, contextlib.suppress(OSError):
                    s.connect(("127.0.0.1", port))
                    break
                time.sleep(0.1)
        done.append(game.game_id)

    done: list[str] = []
    notices: list[str] = []
    cfg = parse_config(
        {
            "name": "late",
            "rounds": 40,
            "concurrency": 1,
            "output": str(tmp_path / "out"),
            "game": {"variant": "five-handed"},
            "faults": {"decision_ms": 5000, "restart_backoff_s": 0.05, "restart_backoff_max_s": 0.1},
            "entrant": [{"name": "late", "address": f"127.0.0.1:{port}"}, *FOUR_SAMPLE_BOTS],
        }
    )
    try:
        watch = Watch(on_game)
        asyncio.run(run_event(cfg, watch))
        notices.extend(watch.notices)
    finally:
        for proc in late:
            proc.terminate()
            proc.wait(timeout=30)
    out = tmp_path / "out"
    games = rows(out, "SELECT game_id, seats, excluded FROM games ORDER BY seq")
    with_late = [(g, json.loads(e)) for g, s, e in games if "late" in json.loads(s)]
    assert with_late[0][1] == ["late"], "not up at the start: autopilot"
    marks = rows(out, "SELECT entrant, reason FROM disqualified")
    if bot == "wrong_version":
        assert all(e == ["late"] for _, e in with_late), "never seated"
        assert any(n.startswith("warning: late is up but not seated") for n in notices), notices
        assert len(marks) == 1 and "not seated" in marks[0][1] and "protocol version 2" in marks[0][1]
        return
    assert with_late[-1][1] == [], f"seated once up; notices: {notices}"
    seated = [not e for _, e in with_late]
    assert seated == sorted(seated), "once seated, seated in every later game"
    assert any(n.startswith("late is up") for n in notices)
    assert marks == []
    assert rows(out, "SELECT identity IS NOT NULL FROM entrants WHERE name = 'late'") == [(1,)]


def test_start_failures_survive_pickling() -> None:
    error = pickle.loads(pickle.dumps(StartFailed([("a", "x\n    y"), ("b", "z")])))
    assert error.problems == [("a", "x\n    y"), ("b", "z")]
