"""kill -9 of the server mid-ladder, then a restart: no stored game lost or counted twice, the ladder goes
on, and the ratings shown are those of a replay of exactly the stored games."""

from __future__ import annotations

import time
from typing import Any

import httpx

from arena.stats.rating import rate
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess

TAU = 25.0 / 300


def stored(server: ServerProcess) -> list[tuple[Any, ...]]:
    return server.rows("SELECT seq, id, hands FROM games ORDER BY seq")


def replayed_ratings(server: ServerProcess) -> dict[str, tuple[float, float]]:
    """TrueSkill with the ladder's drift over the stored games, read straight from the database."""
    from arena.stats.rating import RatedGame

    games = server.rows("SELECT id, seq, rated FROM games ORDER BY seq")
    seats = server.rows("SELECT game_id, seat, name, rank, score, forfeited FROM game_seats")
    names = {
        f"v{vid}": name
        for vid, name in server.rows("SELECT v.id, u.name FROM versions v JOIN users u ON u.id = v.user_id")
    }
    by_game: dict[str, list[tuple[Any, ...]]] = {}
    for row in sorted(seats, key=lambda r: (r[0], r[1])):
        by_game.setdefault(row[0], []).append(row)
    rated = [
        RatedGame(seq, gid, tuple(r[2] for r in by_game[gid]), tuple(r[3] for r in by_game[gid]),
                  tuple(r[4] for r in by_game[gid]), tuple(r[2] for r in by_game[gid] if r[5]), bool(ok))
        for gid, seq, ok in games
    ]  # fmt: skip
    ratings, _ = rate(rated, sorted(names), TAU)
    return {names[k]: (r.mu, r.sigma) for k, r in ratings.items() if k in names}


def board(server: ServerProcess) -> dict[str, Any]:
    reply: dict[str, Any] = httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()
    return reply


def wait_games(server: ServerProcess, at_least: int, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while len(stored(server)) < at_least:
        assert time.monotonic() < deadline, f"fewer than {at_least} games in {timeout_s} s"
        time.sleep(0.3)


def test_kill_9_mid_ladder_then_restart(server: ServerProcess) -> None:
    organiser = Client(server.url)
    assert server.organiser_link is not None
    organiser.follow(server.organiser_link)
    for name in ("north", "south"):
        c = Client(server.url)
        c.sign_up(name)
        c.verdict(c.upload("random.py", SAMPLE_BOT.read_bytes()).headers["location"])
    wait_games(server, 3)
    server.kill()  # whatever was in flight is lost; nothing stored may be
    before = stored(server)
    assert [seq for seq, _, _ in before] == list(range(1, len(before) + 1))
    server.start()
    wait_games(server, len(before) + 2)
    after = stored(server)
    assert after[: len(before)] == before  # every game stored before the kill, unchanged
    assert len({gid for _, gid, _ in after}) == len(after)  # none twice
    assert [seq for seq, _, _ in after] == list(range(1, len(after) + 1))
    organiser.get("/admin")
    assert organiser.post("/admin/ladder/pause").status_code == 303
    deadline = time.monotonic() + 60
    while True:  # paused: the games in flight finish and are stored, and the page catches up
        shown = board(server)
        if shown["paused"] and not shown["in_flight"] and shown["games"] == len(stored(server)):
            break
        assert time.monotonic() < deadline, shown
        time.sleep(0.3)
    replay = replayed_ratings(server)
    rows = {r["entrant"]: r for r in shown["leaderboard"]}
    assert set(rows) == set(replay) == {"north", "south"}
    for name, (mu, sigma) in replay.items():
        assert abs(rows[name]["mu"] - mu) < 1e-3 and abs(rows[name]["sigma"] - sigma) < 1e-3, name
    assert rows["north"]["games"] == len(stored(server))  # both sit in every game (the rest is house)
