"""A person's game on a server of several processes (issue 43, item 2; docs/server.md "several processes"):
two real ``arena serve`` processes on one PostgreSQL database, one ``--role web`` (pages only: it plays
nothing) and one ``--role all``, as a proxy with no stickiness would reach them. The person starts the game
on the web process and every request of the page goes to one process or the other in turn, through the
page's own API: each state poll and each move is answered whichever process it reaches (a move is checked
where it arrives, 422 or 409 with the reason, and judged again by the process that plays the game), and the
game ends kept, its hands replaying exactly through a fresh engine.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.postgres import Postgres
from tests.server.conftest import Client, ServerProcess, competition_toml
from tests.server.matches.test_people import _replays, _stored

# moves that parse and that are never all legal at once: the first not legal now is sent to be refused
CANDIDATES = ["PASS", "ORDER_UP", "PLAY(9C)", "PLAY(AS)", "PLAY(JH)", "PLAY(TD)", "NAME(S)", "DISCARD(KC)"]


def _as(client: Client, url: str) -> Client:
    """The same person (the same session cookie, signed with the shared key) on another process."""
    other = Client(url)
    other.http.cookies = client.http.cookies
    return other


@pytest.mark.needs_postgres
def test_a_person_plays_a_whole_game_through_two_processes(tmp_path: Path, postgres: Postgres) -> None:
    url = postgres.url("people_processes")
    toml = competition_toml(
        "people-processes",
        url,
        game={"variant": "classic", "target": 5},
        ladder={"person_pace_s": 0.0, "person_deadline_s": 600.0},
    )
    web = ServerProcess(tmp_path, toml, url, ("--role", "web"))  # pages only: plays nothing
    player = ServerProcess(tmp_path, toml, url, ("--role", "all"))
    for process in (player, web):
        process.start()
    try:
        organiser = Client(web.url)
        assert web.organiser_link is not None  # the last one made is the valid one
        organiser.follow(web.organiser_link)
        organiser.get("/admin")
        assert organiser.post("/admin/ladder/pause").status_code == 303  # only unrated games play

        alice_web = Client(web.url)
        alice_web.sign_up("alice")
        alice_web.get("/play")
        asked = alice_web.post("/play", {"seat": "1"})  # asked on the process that plays nothing
        assert asked.status_code == 303, asked.text
        plan_id = int(asked.headers["location"].rsplit("/", 1)[1])
        alice = [alice_web, _as(alice_web, player.url)]
        keys = []
        for client in alice:  # the page of either process carries the session's own key
            found = re.search(r'data-key="([^"]+)"', client.get(f"/play/{plan_id}").text)
            assert found is not None
            keys.append({"X-Play-Key": found.group(1)})
        assert keys[0] == keys[1]

        requests = 0
        moves = {0: 0, 1: 0}
        refused = 0
        version = -1
        last_decision = 0
        deadline = time.monotonic() + 600
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:
            which = requests % 2  # each request to the other process, as a proxy without stickiness may
            requests += 1
            got = alice[which].http.get(f"/play/{plan_id}/state", params={"since": version}, timeout=60)
            assert got.status_code == 200, got.text
            state = got.json()
            assert state["version"] >= version  # never older than what the page had, whichever process
            version = state["version"]
            assert state["error"] is None, state["error"]
            if state["stored"]:
                break
            decision = state["decision"]
            if not decision or decision == last_decision:
                continue
            legal = state["view"]["legal_actions"]
            other = alice[1 - which]
            path = f"/play/{plan_id}/move"
            wrong = next((c for c in CANDIDATES if c not in legal), None)
            if wrong is not None:  # checked where it arrives, with the engine's reason; the decision stays
                bad = other.http.post(path, json={"action": wrong, "decision": decision}, headers=keys[0])
                assert bad.status_code == 422, bad.text
                assert "legal now: " in bad.json()["error"], bad.text
                refused += 1
            target = 0 if moves[0] <= moves[1] else 1  # the moves alternate between the processes
            sent = alice[target].http.post(
                path, json={"action": legal[0], "decision": decision}, headers=keys[0], timeout=60
            )
            assert sent.status_code == 200, sent.text
            assert sent.json() == {"action": legal[0]}
            moves[target] += 1
            again = alice[1 - target].http.post(
                path, json={"action": legal[0], "decision": decision}, headers=keys[0], timeout=60
            )
            assert again.status_code == 409, again.text  # that decision is over, whichever process hears
            last_decision = decision
        assert state.get("stored") == {"url": f"/play/{plan_id}/game"}, state
        assert state["final"] is not None and not state["away"]
        assert moves[0] > 0 and moves[1] > 0 and refused > 0, (moves, refused)

        result = _stored(web, plan_id)
        assert result["decision"] == "played" and result["handovers"] == []
        _replays(web, result)
        seat_moves = sum(1 for h in result["hands"] for a in h["actions"] if a["seat"] == 1)
        assert seat_moves == moves[0] + moves[1]  # each move the page sent, and only those, in the record
        for client in alice:  # over: either process leads the page to the kept game
            back = client.get(f"/play/{plan_id}")
            assert back.status_code == 303 and back.headers["location"] == f"/play/{plan_id}/game"
            assert client.get(f"/play/{plan_id}/game").status_code == 200
        over = alice[1].http.post(f"/play/{plan_id}/move", json={"action": "PASS"}, headers=keys[0])
        assert over.status_code == 409 and "over" in over.json()["error"], over.text
    finally:
        for process in (web, player):
            process.stop()


@pytest.mark.needs_postgres
def test_a_game_whose_playing_process_dies_is_ended_by_the_next_and_a_move_meanwhile_is_answered(
    tmp_path: Path, postgres: Postgres
) -> None:
    """kill -9 of the process that plays the game while the person's decision is pending: a move posted to
    the web process is checked (legal) and queued, and since no process takes it, answered 503 with the
    reason (never a hang); the next ``all`` process to start picks up the plan and ends the game as the
    one-process server does on a restart (not resumed, nothing kept), the page says why, and the person
    may start another."""
    url = postgres.url("people_dies")
    toml = competition_toml(
        "people-dies",
        url,
        game={"variant": "classic", "target": 5},
        ladder={"person_pace_s": 0.0, "person_deadline_s": 600.0},
    )
    web = ServerProcess(tmp_path, toml, url, ("--role", "web"))
    player = ServerProcess(tmp_path, toml, url, ("--role", "all"))
    for process in (player, web):
        process.start()
    try:
        organiser = Client(web.url)
        assert web.organiser_link is not None
        organiser.follow(web.organiser_link)
        organiser.get("/admin")
        assert organiser.post("/admin/ladder/pause").status_code == 303
        alice = Client(web.url)
        alice.sign_up("alice")
        alice.get("/play")
        asked = alice.post("/play", {})
        assert asked.status_code == 303, asked.text
        plan_id = int(asked.headers["location"].rsplit("/", 1)[1])
        found = re.search(r'data-key="([^"]+)"', alice.get(f"/play/{plan_id}").text)
        assert found is not None
        key = {"X-Play-Key": found.group(1)}
        version, state = -1, {}
        deadline = time.monotonic() + 300
        while not state.get("decision") and time.monotonic() < deadline:
            state = alice.http.get(f"/play/{plan_id}/state", params={"since": version}, timeout=60).json()
            version = state["version"]
        assert state.get("decision"), state
        player.kill()  # the seat is gone with it
        move = {"action": state["view"]["legal_actions"][0], "decision": state["decision"]}
        sent = alice.http.post(f"/play/{plan_id}/move", json=move, headers=key, timeout=60)
        assert sent.status_code == 503 and "did not take the move" in sent.json()["error"], sent.text

        player.start()  # another process that plays: it picks up the plan, and ends it
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and web.rows(
            f"SELECT status FROM unrated_matches WHERE id = {plan_id}"
        ) != [("done",)]:
            time.sleep(0.2)
        assert _stored(web, plan_id) == {"decision": "ended: the server stopped during the game"}
        assert web.rows(f"SELECT count(*) FROM unrated_games WHERE match_id = {plan_id}") == [(0,)]
        state = alice.http.get(f"/play/{plan_id}/state", params={"since": version}, timeout=60).json()
        assert state["error"] == "ended: the server stopped during the game" and not state["decision"]
        late = alice.http.post(f"/play/{plan_id}/move", json=move, headers=key)
        assert late.status_code == 409, late.text
        assert alice.get(f"/play/{plan_id}").status_code == 303
        assert alice.post("/play", {}).status_code == 303  # another game may start
    finally:
        for process in (web, player):
            process.stop()
