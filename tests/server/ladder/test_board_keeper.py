"""The board is computed by its keeper, in a worker thread, never by a page (``Server.keep_board``).

Thirty clients polling the leaderboard as fast as answered saw a p99 of 2 s against a p50 of 0.1 s: a page
whose cached rendering had expired made the board's look itself (TrueSkill over the new games, the rank
ranges), on the event loop, and every request queued behind it (docs/server.md). These tests count, never
time: the app is built in-process and never started (no ladder, no keeper), games are written straight
into its database, and the board's computations are counted by wrapping the one function every
computation calls (``skill_confidence``), which also gives the thread each ran on.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.server.ladder import ratings
from tests.server.conftest import competition_toml
from tests.server.ladder import seed

PAGES = ("/", "/leaderboard/rows", "/api/leaderboard")


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, list[int]]]:
    """A server over 6 seeded entrants and 30 games, its board looked at once (at its construction);
    and the list of the threads each computation of the board ran on."""
    from arena.server.settings import load_competition
    from arena.server.wiring import Server

    monkeypatch.chdir(tmp_path)
    # a look as soon as asked: no time-based pacing may hide a page that computes the board
    for wait in ("REFRESH_S", "LONGEST_WAIT_S", "STARTED_WAIT_S"):
        monkeypatch.setattr(ratings, wait, 0.0)
    threads: list[int] = []
    counted = ratings.skill_confidence

    def counting(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return counted(*args, **kwargs)

    monkeypatch.setattr(ratings, "skill_confidence", counting)
    (tmp_path / "c.toml").write_text(competition_toml("keeper").replace('"bubblewrap"', '"none"'))
    config = load_competition(tmp_path / "c.toml")
    from arena.server.db.database import open_database

    db = open_database(config.database_url)
    versions = seed.entrants(db, 6)
    seed.games(db, versions, 30)
    db.close()
    server = Server(config, "http://127.0.0.1:1")
    server.versions = versions  # type: ignore[attr-defined]
    from arena.server.app import create_app

    server.app = create_app(server)  # type: ignore[attr-defined]  # one app: one page cache for every ask
    try:
        yield server, threads
    finally:
        server.db.close()
        server.lock.release()


async def _ask(server: Any, paths: tuple[str, ...], rounds: int) -> list[httpx.Response]:
    """Each path ``rounds`` times, as spectators (one client keeping its cookie), in-process."""
    transport = httpx.ASGITransport(app=server.app)
    answers = []
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        for _ in range(rounds):
            for path in paths:
                reply = await client.get(path)
                assert reply.status_code == 200, (path, reply.status_code)
                answers.append(reply)
    return answers


def _games_shown(page: str) -> int:
    found = re.search(r'data-games="(\d+)"', page)
    assert found is not None
    return int(found.group(1))


def test_no_page_computes_the_board_however_many_requests_arrive(built: tuple[Any, list[int]]) -> None:
    """New games stored between requests: 120 spectators' requests of the leaderboard, its rows and its
    API compute the board not once (they show its last look); the keeper's one look then computes it
    once, off the event loop, and every page shows it at the next request."""
    server, threads = built
    assert len(threads) == 1 and server.board.games == 30  # the start-up look
    for _ in range(4):
        seed.games(server.db, server.versions, 5)
        asyncio.run(_ask(server, PAGES, 10))
    assert len(threads) == 1, "a page computed the board's statistics"
    assert server.board.games == 30  # as the last look saw them

    async def keeper_look() -> int:
        server.board.publish(await asyncio.to_thread(server.board.look))
        return threading.get_ident()

    loop_thread = asyncio.run(keeper_look())
    assert len(threads) == 2 and threads[1] != loop_thread  # once, in a worker thread
    assert server.board.games == 50
    answers = asyncio.run(_ask(server, PAGES, 1))
    # the cached pages (a second's lifetime) were rendered from the older look: not shown again
    assert [_games_shown(a.text) for a in answers[:2]] == [50, 50]
    assert answers[2].json()["games"] == 50


def test_a_look_without_new_games_computes_nothing(built: tuple[Any, list[int]]) -> None:
    """The keeper looks every few seconds: with no game new, a look counts the games and stops."""
    server, threads = built
    for _ in range(5):
        assert not server.board.publish(server.board.look())
    assert len(threads) == 1
    seed.games(server.db, server.versions, 1)
    assert server.board.publish(server.board.look())
    assert len(threads) == 2 and server.board.games == 31


def test_an_older_look_shown_late_does_not_replace_a_newer(built: tuple[Any, list[int]]) -> None:
    """A keeper's look finished in its thread while a verdict's look was made and shown on the loop: the
    keeper's, older, is not shown over it."""
    server, _threads = built
    seed.games(server.db, server.versions, 3)
    older = server.board.look()
    seed.games(server.db, server.versions, 2)
    server.board.refresh(force=True)
    assert server.board.games == 35
    generation = server.board.generation
    assert not server.board.publish(older)
    assert server.board.games == 35 and server.board.generation == generation
