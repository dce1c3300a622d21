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
from collections.abc import Coroutine, Iterator
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


def _organiser_cookie(server: Any) -> dict[str, str]:
    """A logged-in organiser's session cookie, made as logging in makes one (in-process: no password)."""
    from arena.server.db.models import ORGANISER, User
    from arena.server.web.site import COOKIE, _sign

    with server.db.session() as s:
        user = User(name=ORGANISER, role=ORGANISER, created_at=0.0)
        s.add(user)
        s.flush()
        user_id = user.id
    token = server.accounts.new_session(user_id)
    return {COOKIE: f"{token}.{_sign(server.session_key, token)}"}


async def _answered_while_a_look_holds_the_lock(
    server: Any, client: httpx.AsyncClient, request: Coroutine[Any, Any, httpx.Response], begun: list[int]
) -> list[str]:
    """``request`` sent while a look in progress holds the board's lock: the order in which it and a health
    check sent after it (once ``begun`` holds the thread its look or read began on) are answered. A
    watchdog lets the lock go after 30 s, only for the failure this guards against: a loop stuck on it."""
    order: list[str] = []
    lock, guard, freed = server.board._lock, threading.Lock(), threading.Event()

    def let_go() -> None:  # the look ends (once, whoever says it first)
        with guard:
            if not freed.is_set():
                freed.set()
                lock.release()

    def watchdog() -> None:
        if not freed.wait(30):
            let_go()

    async def asked() -> None:
        reply = await request
        assert reply.status_code in (200, 303), (reply.status_code, reply.text[:300])
        order.append("request answered")

    lock.acquire()  # a look in progress
    threading.Thread(target=watchdog, daemon=True).start()
    task = asyncio.create_task(asked())
    for _ in range(6000):  # until the request's look or read has begun (and waits on the lock)
        if begun:
            break
        await asyncio.sleep(0.01)
    assert begun, "the request never came to the board"
    assert (await client.get("/healthz")).status_code == 200
    order.append("health check answered")
    let_go()
    await task
    return order


def _counted(monkeypatch: pytest.MonkeyPatch, *names: str) -> list[int]:
    """The threads the board's ``names`` methods run on, in order."""
    threads: list[int] = []
    for name in names:
        original = getattr(ratings.Board, name)

        def counting(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            threads.append(threading.get_ident())
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(ratings.Board, name, counting)
    return threads


@pytest.mark.parametrize("path", ["/admin", "/entrants/1/analytics", "/api/entrants/1/analytics"])
def test_the_replay_s_readers_wait_for_a_look_in_a_thread_not_on_the_event_loop(
    built: tuple[Any, list[int]], monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """The organiser's page (every stored game, for the collusion check) and an entrant's analytics (every
    step of its rating) read the board's replay under its lock, which a look holds for as long as it takes.
    With the lock held (a look in progress), such a request waits in a worker thread: meanwhile the event
    loop answers others (the ladder's games and every page share it). Shown by order, not by time: the
    health check is answered while the request still waits, and the request is answered once the look
    ends; and the replay's readers ran on a thread other than the loop's. On the loop, the loop itself
    would wait for the lock: nothing would be answered until a watchdog let the lock go."""
    server, _threads = built
    readers = _counted(monkeypatch, "every_game", "steps")
    cookies = _organiser_cookie(server)

    async def scenario() -> tuple[list[str], int]:
        transport = httpx.ASGITransport(app=server.app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1", cookies=cookies
        ) as client:
            order = await _answered_while_a_look_holds_the_lock(server, client, client.get(path), readers)
        return order, threading.get_ident()

    order, loop_thread = asyncio.run(scenario())
    assert order == ["health check answered", "request answered"]
    assert readers and loop_thread not in readers


def test_a_verdict_s_look_waits_for_a_look_in_progress_in_a_thread_not_on_the_event_loop(
    built: tuple[Any, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change of the field (here the organiser disables an entrant; a check's verdict takes the same
    path) shows on the board before the request is answered: its look waits for the board's lock, which a
    look in progress holds (seconds, over a large ladder's replay after a restart). It waits in a worker
    thread: the health check is answered meanwhile, and the organiser's request once the look ends.
    Before, it waited on the event loop, and nothing was answered until the look in progress ended."""
    server, _threads = built
    cookies = _organiser_cookie(server)
    looks = _counted(monkeypatch, "look")

    async def scenario() -> tuple[list[str], int]:
        transport = httpx.ASGITransport(app=server.app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1", cookies=cookies
        ) as client:
            page = (await client.get("/admin")).text
            found = re.search(r'name="csrf" value="([^"]+)"', page)
            assert found is not None, page[:500]
            looks.clear()
            disable = client.post("/admin/disable/1", data={"csrf": found.group(1)})
            order = await _answered_while_a_look_holds_the_lock(server, client, disable, looks)
        return order, threading.get_ident()

    order, loop_thread = asyncio.run(scenario())
    assert order == ["health check answered", "request answered"]
    assert looks and loop_thread not in looks
