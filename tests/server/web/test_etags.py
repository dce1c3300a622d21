"""Cheap answers to polling clients: the leaderboard, its live parts and its JSON carry a strong entity tag,
and a request that names it (``If-None-Match``) gets a 304 with no body while the page is unchanged
(``arena.server.web.site.Web.answer``). Against a real server process on loopback.

The tag is the digest of the page's text (``arena.server.web.cache.etag_of``), so it moves whenever
anything the page shows moves (a new game stored, the ladder's state line), and a logged-in visitor's
page (their name, their CSRF token) never shares a tag with a spectator's or another visitor's.
"""

from __future__ import annotations

import time

import httpx
import pytest

from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess

SQLITE_ONLY = True  # the tags are the web's, alike on both databases (tests/server/conftest.py)
POLLED = ("/", "/leaderboard/rows", "/leaderboard/recent", "/api/leaderboard")


def _stored(server: ServerProcess) -> int:
    return int(server.rows("SELECT count(*) FROM games")[0][0])


def _board_games(server: ServerProcess) -> int:
    return int(httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()["games"])


def _settled(server: ServerProcess, organiser: Client, paused: bool) -> None:
    """The ladder paused (or resumed) by the organiser; when paused, no game in flight and the board
    showing every stored game: nothing the polled pages show moves until it is resumed."""
    organiser.get("/admin")
    assert organiser.post(f"/admin/ladder/{'pause' if paused else 'resume'}").status_code == 303
    if not paused:
        return
    deadline = time.monotonic() + 120
    while True:
        state = httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()
        if not state["in_flight"] and state["games"] == _stored(server):
            return
        assert time.monotonic() < deadline, state
        time.sleep(0.2)


@pytest.fixture(scope="module")
def people(server: ServerProcess) -> dict[str, Client]:
    """Two entrants with the sample bot (the ladder plays from two), the organiser: a ladder that has
    played."""
    entrant, second, organiser = Client(server.url), Client(server.url), Client(server.url)
    assert server.organiser_link is not None
    organiser.follow(server.organiser_link)
    for client, name in ((entrant, "poller"), (second, "second")):
        client.sign_up(name)
        page = client.upload("bot.py", SAMPLE_BOT.read_bytes())
        assert page.status_code == 303, page.text
        assert "VERDICT: PASS" in client.verdict(page.headers["location"])
    deadline = time.monotonic() + 120
    while _board_games(server) < 2:
        assert time.monotonic() < deadline, "the ladder played no 2 games in 120 s"
        time.sleep(0.3)
    return {"entrant": entrant, "organiser": organiser}


def test_an_unchanged_page_is_a_304_with_no_body_and_a_new_game_changes_its_tag(
    server: ServerProcess, people: dict[str, Client]
) -> None:
    organiser = people["organiser"]
    _settled(server, organiser, paused=True)
    spectator = httpx.Client(base_url=server.url, timeout=30)
    tags = {}
    for path in POLLED:
        first = spectator.get(path)
        assert first.status_code == 200 and first.content, path
        tag = first.headers["etag"]
        assert tag.startswith('"') and not tag.startswith("W/"), (path, tag)  # strong
        assert "private" in first.headers["cache-control"] and "no-cache" in first.headers["cache-control"]
        again = spectator.get(path, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b"", path
        assert again.headers["etag"] == tag
        # another spectator (a cookie of its own) holding the same page is answered alike
        other = httpx.get(f"{server.url}{path}", headers={"If-None-Match": f'"x", {tag}'}, timeout=30)
        assert other.status_code == 304, path
        assert spectator.get(path, headers={"If-None-Match": '"not-it"'}).status_code == 200
        tags[path] = tag
    before = _stored(server)
    _settled(server, organiser, paused=False)
    deadline = time.monotonic() + 120
    while _board_games(server) <= before:  # a new game stored and shown on the board
        assert time.monotonic() < deadline, "no new game shown in 120 s"
        time.sleep(0.2)
    _settled(server, organiser, paused=True)
    for path in POLLED:
        fresh = spectator.get(path, headers={"If-None-Match": tags[path]})
        assert fresh.status_code == 200 and fresh.content, path
        assert fresh.headers["etag"] != tags[path], path


def test_a_logged_in_page_never_shares_a_tag_with_a_spectator_s_or_another_visitor_s(
    server: ServerProcess, people: dict[str, Client]
) -> None:
    """The organiser's, an entrant's and a spectator's leaderboard differ (the menu, the name, the CSRF
    token): so do their tags, and none of them gets a 304 for another's tag; each gets one for its own.
    The live parts name nobody: there the three pages are the same bytes, and so is their tag."""
    organiser, entrant = people["organiser"], people["entrant"]
    _settled(server, organiser, paused=True)
    spectator = Client(server.url)
    clients = {"organiser": organiser, "entrant": entrant, "spectator": spectator}
    for path in ("/", "/leaderboard/rows", "/leaderboard/recent"):
        pages = {who: client.get(path) for who, client in clients.items()}
        tags = {who: page.headers["etag"] for who, page in pages.items()}
        if path == "/":
            assert "log out poller" in pages["entrant"].text and "log out" not in pages["spectator"].text
            assert 'href="/admin"' in pages["organiser"].text
            assert len(set(tags.values())) == 3, tags
        for who, client in clients.items():
            for other, tag in tags.items():
                same = pages[other].content == pages[who].content
                assert (tag == tags[who]) == same, (path, who, other)  # one tag per text, one text per tag
                answer = client.http.get(path, headers={"If-None-Match": tag})
                if same:
                    assert answer.status_code == 304, (path, who, other)
                else:  # another visitor's page: never "keep yours" on its tag
                    assert answer.status_code == 200 and answer.content == pages[who].content, (path, who)
    _settled(server, organiser, paused=False)
