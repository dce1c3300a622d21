"""Two `arena serve` processes on one PostgreSQL database and one data directory (arena.server.multi): they
play the ladder at once without numbering two games alike, storing one twice or losing one; an upload to
one is checked and played by the other; their leaderboards agree; kill -9 of one leaves the other playing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.postgres import Postgres
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml


def stored(server: ServerProcess) -> list[tuple[Any, ...]]:
    return server.rows("SELECT seq, id, public_seed FROM games ORDER BY seq")


def seatings(server: ServerProcess) -> dict[str, tuple[str, ...]]:
    rows = server.rows("SELECT game_id, seat, name FROM game_seats ORDER BY game_id, seat")
    found: dict[str, list[str]] = {}
    for game_id, _seat, name in rows:
        found.setdefault(game_id, []).append(name)
    return {k: tuple(v) for k, v in found.items()}


def board(server: ServerProcess) -> dict[str, Any]:
    reply: dict[str, Any] = httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()
    return reply


def until(what: str, ok: Any, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while not ok():
        assert time.monotonic() < deadline, f"not within {timeout_s} s: {what}"
        time.sleep(0.3)


def sound(games: list[tuple[Any, ...]], server: ServerProcess) -> None:
    """Numbered 1..n without a gap, no game stored twice (ids, public seeds), every game seated."""
    assert [seq for seq, _, _ in games] == list(range(1, len(games) + 1))
    assert len({gid for _, gid, _ in games}) == len({seed for _, _, seed in games}) == len(games)
    seats = seatings(server)  # read after the games: it may hold one stored since
    assert all(len(seats[gid]) == 5 for _, gid, _ in games)


@pytest.mark.needs_postgres
def test_two_processes_share_one_database(tmp_path: Path, postgres: Postgres) -> None:
    url = postgres.url("multi")
    toml = competition_toml("multi", url, ladder={"tables": 2})
    a = ServerProcess(tmp_path, toml, url)  # one directory for both: deal.key, session.key, uploads
    b = ServerProcess(tmp_path, toml, url)
    a.start()
    b.start()
    try:
        organiser = Client(a.url)
        link = b.organiser_link or a.organiser_link  # each start makes a new one (the last is valid)
        assert link is not None
        organiser.follow(link)
        for name in ("north", "south"):
            c = Client(a.url)
            c.sign_up(name)
            location = c.upload("random.py", SAMPLE_BOT.read_bytes()).headers["location"]
            on_b = Client(b.url)  # the same session cookie, signed with the shared key, works on b
            on_b.http.cookies = c.http.cookies
            assert "VERDICT: PASS" in on_b.verdict(location)
        until("6 games stored", lambda: len(stored(a)) >= 6)
        east = Client(a.url)
        east.sign_up("east")
        assert "VERDICT: PASS" in east.verdict(
            east.upload("random.py", SAMPLE_BOT.read_bytes()).headers["location"]
        )
        (east_version,) = a.rows(
            "SELECT v.id FROM versions v JOIN users u ON u.id = v.user_id WHERE u.name = 'east'"
        )

        organiser.get("/admin")
        assert organiser.post("/admin/ladder/pause").status_code == 303  # on a: b reads it from the database

        def settled() -> bool:
            n = len(stored(a))
            return all((s := board(p))["paused"] and not s["in_flight"] and s["games"] == n for p in (a, b))

        until("both paused, nothing in flight, both boards up to date", settled)
        sound(stored(a), a)
        assert board(a)["leaderboard"] == board(b)["leaderboard"]  # one replay of the same games

        assert organiser.post("/admin/ladder/resume").status_code == 303
        paused_at = len(stored(a))
        until("a game after the resume", lambda: len(stored(a)) > paused_at)
        a.kill()  # kill -9 of a and its bots: its games in flight are lost, nothing stored may be
        before = stored(b)
        sound(before, b)
        until(
            "b goes on, with east (uploaded to a) in its games",
            lambda: (
                len(stored(b)) >= len(before) + 3
                and any(f"v{east_version[0]}" in seatings(b)[gid] for _, gid, _ in stored(b)[len(before) :])
            ),
        )
        after = stored(b)
        assert after[: len(before)] == before
        sound(after, b)
        for process in (a, b):  # no game lost to a clash of numbers, no check or table stopped by a bug
            log = process.log.read_text()
            assert "was not played" not in log and "Traceback" not in log, log[-3000:]
    finally:
        a.stop()
        b.stop()


def test_roles_need_a_shared_database(tmp_path: Path) -> None:
    """On SQLite one process serves everything: a web-only process is refused in one line."""
    import subprocess
    import sys

    (tmp_path / "c.toml").write_text(competition_toml("solo"))
    done = subprocess.run(
        [sys.executable, "-m", "arena", "serve", "c.toml", "--role", "web", "--port", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert len(lines) == 1 and "needs a PostgreSQL database" in lines[0]
