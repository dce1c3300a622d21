"""A person plays a seat on the competition server (issue 43, item 2), against a real ``arena serve``:

- Playwright (Debian's chromium) plays a whole game of every variant by clicking and pressing keys on the
  server's ``/play`` page (``arena play``'s own page), a five-handed one on a 390 px phone, against an
  entrant's active version and the house bots; the stored hands replay exactly through a fresh engine
  dealt from the server's key, and the leaderboard is byte-equal before and after (never rated);
- the seated bot's owner sees the game and what the bot wrote to stderr during it; another student gets
  404 for every part of it, a visitor 401, and a second game of one person while the first is on, 409;
- the autopilot plays a seat left idle (a competition with a 0.05 s deadline: no move is ever sent, so
  the handover cannot depend on timing), and the game is still played to its end and kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.engine.config import GameConfig
from arena.event.deals import deal_seed, read_key_file
from arena.play.session import replay_game
from tests.helpers import poll
from tests.play.moves import answer, check_turn
from tests.server.conftest import PASSWORD, Client, ServerProcess, competition_toml
from tests.server.matches.test_matches import uploaded

VARIANTS = ["classic", "call-ace", "five-handed"]
TALKER = b"""import sys
from arena.bot import Bot, run


class Talker(Bot):
    name = "talker"

    async def act(self, view):
        print(f"talker decides at hand {view.hand_index} in {__file__}", file=sys.stderr, flush=True)
        return view.legal_actions[0]


if __name__ == "__main__":
    run(Talker)
"""
NEXT = """(prev) => {
  const b = document.body.dataset;
  return b.over === "stored" || (b.decision !== undefined && b.decision !== "0" && b.decision !== prev);
}"""


def _start(tmp: Path, variant: str, **ladder: Any) -> tuple[ServerProcess, dict[str, Client]]:
    """A server of ``variant`` (paused ladder: only unrated games play), with alice (who plays), dave (a
    bot that talks on stderr), bob (another student), the organiser and a visitor."""
    sections: dict[str, Any] = {
        "game": {"variant": variant, "target": 5},
        "ladder": {"person_pace_s": 0.0, **ladder},
    }
    server = ServerProcess(tmp, competition_toml(f"people-{variant}", None, **sections))
    server.start()
    clients = {n: Client(server.url) for n in ("alice", "bob", "dave", "organiser", "visitor")}
    for name in ("alice", "bob", "dave"):
        clients[name].sign_up(name)
    assert server.organiser_link is not None
    clients["organiser"].follow(server.organiser_link)
    clients["organiser"].get("/admin")
    assert clients["organiser"].post("/admin/ladder/pause").status_code == 303
    return server, clients


def _board(server: ServerProcess) -> bytes:
    return httpx.get(f"{server.url}/api/leaderboard", timeout=30).content


def _stored(server: ServerProcess, plan_id: int) -> dict[str, Any]:
    rows = server.rows(f"SELECT status, result FROM unrated_matches WHERE id = {plan_id}")
    assert rows and rows[0][0] == "done", rows
    return dict(json.loads(rows[0][1]))


def _replays(server: ServerProcess, result: dict[str, Any]) -> None:
    """The kept hands are what a fresh engine gives, dealt from the server's key and the game's seed."""
    key = read_key_file(next(server.directory.glob("results/*")))
    hands = result["hands"]
    assert hands
    config = GameConfig.from_dict(hands[0]["config"])
    assert replay_game(config, deal_seed(key, result["public_seed"]), hands) == hands


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium for the module, launched as the report's test launches it."""
    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright (the test extra) is not installed"
    )
    from tests.report.test_browser import ARGS, CHROMIUM

    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


def _browser_page(browser: Any, server: ServerProcess, viewport: dict[str, int]) -> Any:
    page = browser.new_page(viewport=viewport)
    page.goto(f"{server.url}/login")
    page.fill("input[name=name]", "alice")
    page.fill("input[name=password]", PASSWORD)
    page.click("form button")
    page.wait_for_url(re.compile(r".*/me$"))
    return page


@pytest.mark.needs_chromium
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_by_clicks_on_the_server_replays_and_is_never_rated(
    browser: Any, tmp_path_factory: pytest.TempPathFactory, variant: str
) -> None:
    server, people = _start(tmp_path_factory.mktemp("people"), variant)
    try:
        uploaded(people["dave"], TALKER)
        before = _board(server)
        phone = variant == "five-handed"
        viewport = {"width": 390, "height": 844} if phone else {"width": 1280, "height": 900}
        page = _browser_page(browser, server, viewport)
        errors: list[str] = []
        page.on(
            "console", lambda m: errors.append(m.text) if m.type == "error" and "422" not in m.text else None
        )
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/play")
        page.check("input[name=opponent]")  # dave's bot
        page.select_option("select[name=seat]", "1")
        page.click("form.card button")
        page.wait_for_url(re.compile(r".*/play/\d+$"))
        plan_id = int(page.url.rsplit("/", 1)[1])
        page.wait_for_selector("#rule:has-text('60 s for each decision')")
        key = page.evaluate("document.body.dataset.key")
        _nobody_else_acts(people, plan_id, key)
        assert "alice (a person)" in (page.text_content("#sub") or "")
        prev, turn, ways = "", 0, set()
        seen: list[list[Any]] = []  # (hand, the cards the page was shown) at each of alice's decisions
        while True:
            page.wait_for_function(NEXT, arg=prev, timeout=120_000)
            if page.evaluate("document.body.dataset.over") == "stored":
                break
            prev = page.evaluate("document.body.dataset.decision")
            legal = page.evaluate("window.arenaPlay.state().view.legal_actions")
            seen.append(
                page.evaluate(
                    "[window.arenaPlay.state().view.hand_index, window.arenaPlay.state().view.hand]"
                )
            )
            check_turn(page, legal, prev, turn, viewport["width"] if phone else None)
            ways.add(answer(page, turn))
            turn += 1
        assert {"key", "enter"} <= ways and ways & {"card", "click"}
        assert (page.text_content(".centre .final") or "").startswith("Final")
        news = page.eval_on_selector_all("#log li", "ls => ls.map(l => l.textContent)")
        assert any("dave v1" in line for line in news), news  # the seats by their labels, as on the table
        assert not [line for line in news if re.search(r"\bs\d+\b|house-\d|\bp\d+\b", line)], news
        assert page.is_hidden("#finish")  # nothing to stop: the server goes on
        page.click("#stored-link")
        page.wait_for_url(re.compile(rf".*/play/{plan_id}/game$"))
        assert "unrated" in (page.text_content("#status") or "")
        assert errors == []
        page.close()

        result = _stored(server, plan_id)
        _replays(server, result)
        assert sum(1 for h in result["hands"] for a in h["actions"] if a["seat"] == 1) == turn  # each move
        for hand_index, cards in seen:  # the page showed alice her own cards only (and the up-card taken)
            dealt = result["hands"][hand_index]
            assert set(cards or ()) <= {*dealt["dealt"][1], dealt["up_card"]}, (hand_index, cards)
        assert any(cards for _, cards in seen)
        assert result["labels"][1] == "alice (a person)" and "dave v1" in result["labels"]
        assert server.rows(f"SELECT rated FROM unrated_games WHERE match_id = {plan_id}") == [(False,)]
        assert _board(server) == before  # no rating, board or TrueSkill changed
        assert server.rows("SELECT count(*) FROM game_seats WHERE name LIKE 'p%'") == [(0,)]
    finally:
        server.stop()


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, dict[str, Client]]]:
    """A classic server whose people have 0.05 s for each decision: the autopilot plays every seat left."""
    server, people = _start(tmp_path_factory.mktemp("quick"), "classic", person_deadline_s=0.05)
    try:
        yield server, people
    finally:
        server.stop()


def _play(client: Client, **form: str) -> httpx.Response:
    client.get("/play")
    return client.post("/play", form)


def test_the_autopilot_plays_a_seat_left_idle_and_the_game_ends_kept(
    quick: tuple[ServerProcess, dict[str, Client]],
) -> None:
    server, people = quick
    alice = people["alice"]
    dave_version = uploaded(people["dave"], TALKER)
    ((dave_id,),) = server.rows("SELECT id FROM users WHERE name = 'dave'")
    before = _board(server)
    asked = _play(alice, opponent=str(dave_id))
    assert asked.status_code == 303, asked.text
    plan_id = int(asked.headers["location"].rsplit("/", 1)[1])

    def over() -> dict[str, Any] | None:
        state = alice.http.get(f"/play/{plan_id}/state").json()
        return state if state["stored"] else None

    state = poll(over, 180)
    assert state["final"] is not None
    assert state["away"] and state["deadline_s"] == 0.05
    result = _stored(server, plan_id)
    assert result["handovers"] and result["handovers"][0]["decision"] > 0
    _replays(server, result)
    assert _board(server) == before

    # the seated bot's owner sees the game and its log; the organiser too; nobody else
    # the bot's stderr reaches its log through the shim's pipe, a little after the game's end on a busy
    # machine: the page shows it within the game's span or just after it; polled, not timed
    page = poll(
        lambda: (
            r if "talker decides at hand" in (r := people["dave"].get(f"/play/{plan_id}/game")).text else None
        ),
        60,
    )
    assert page.status_code == 200 and "The autopilot played" in page.text
    # the bot's own path is shown as the owner knows it, never as a path of the server's machine
    assert "in &lt;your upload&gt;/bot.py" in page.text and str(server.directory) not in page.text
    assert f'href="/play/{plan_id}/game"' in people["dave"].get("/play").text  # listed for its owner
    assert people["organiser"].get(f"/play/{plan_id}/game").status_code == 200
    for path in (f"/play/{plan_id}/game", f"/play/{plan_id}", f"/play/{plan_id}/state"):
        assert people["bob"].get(path).status_code == 404, path
    assert dave_version > 0


def test_a_visitor_cannot_start_or_follow_one(quick: tuple[ServerProcess, dict[str, Client]]) -> None:
    _server, people = quick
    visitor = people["visitor"]
    assert visitor.get("/play").status_code == 401
    assert _play(visitor).status_code == 401
    assert visitor.http.get("/play/1/state").status_code == 401
    assert visitor.http.post("/play/1/move", json={"action": "PASS"}).status_code == 401
    assert visitor.get("/play/1/game").status_code == 404
    # the organiser (no bot of its own) may play too: anyone logged in
    organiser = people["organiser"]
    assert organiser.get("/play").status_code == 200
    started = _play(organiser)
    assert started.status_code == 303 and started.headers["location"].startswith("/play/"), started.text


def _nobody_else_acts(people: dict[str, Client], plan_id: int, key: str) -> None:
    """While alice's game waits for her move: another student gets the same 404 as for no game, even with
    a key of their own; alice's own request without her page's key is refused; a second game, 409."""
    alice, bob = people["alice"], people["bob"]
    move = {"action": "PASS"}
    bob.get("/play")
    bob_key = {"X-Play-Key": bob.csrf}
    for path in (f"/play/{plan_id}", f"/play/{plan_id}/state", f"/play/{plan_id}/game"):
        assert bob.http.get(path).status_code == 404, path
    assert bob.http.post(f"/play/{plan_id}/move", json=move, headers=bob_key).status_code == 404
    assert bob.http.post(f"/play/{plan_id}/back", headers=bob_key).status_code == 404
    assert alice.http.post(f"/play/{plan_id}/move", json=move).status_code == 403
    # the browser's key is its session's own: alice's other session (this client) has its own key
    assert alice.http.post(f"/play/{plan_id}/move", json=move, headers={"X-Play-Key": key}).status_code == 403
    found = re.search(r'data-key="([^"]+)"', alice.get(f"/play/{plan_id}").text)
    assert found is not None
    own = {"X-Play-Key": found.group(1)}
    bad = alice.http.post(f"/play/{plan_id}/move", json={"action": "FLY"}, headers=own)
    assert bad.status_code in (400, 409), bad.text  # no action (400), or not alice's turn yet (409)
    again = _play(alice)
    assert again.status_code == 409, again.text
    assert f"your game {plan_id} is still on" in again.text


def test_a_game_in_flight_when_the_server_stops_is_ended_and_another_may_start(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """kill -9 mid-game: after the restart the game is ended (its plan says why, nothing is kept), its
    address leads to its page, and the person may start another (no game is left 'on' forever)."""
    server, people = _start(tmp_path_factory.mktemp("restart"), "classic")
    try:
        alice = people["alice"]
        asked = _play(alice)
        assert asked.status_code == 303, asked.text
        plan_id = int(asked.headers["location"].rsplit("/", 1)[1])
        poll(lambda: True if alice.http.get(f"/play/{plan_id}/state").json()["decision"] else None)
        server.kill()
        server.start()
        alice.login("alice")
        result = _stored(server, plan_id)
        assert result == {"decision": "ended: the server stopped during the game"}
        assert server.rows(f"SELECT count(*) FROM unrated_games WHERE match_id = {plan_id}") == [(0,)]
        back = alice.get(f"/play/{plan_id}")
        assert back.status_code == 303 and back.headers["location"] == f"/play/{plan_id}/game"
        assert "ended: the server stopped" in alice.get(f"/play/{plan_id}/game").text
        assert _play(alice).status_code == 303
    finally:
        server.stop()
