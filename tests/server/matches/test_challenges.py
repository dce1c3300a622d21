"""Against a real server, on both databases: a challenge's games are played and shown to the challenger,
and never touch a rating (the leaderboard's figures byte-equal before and after they are stored); the day's
limit holds; nobody else sees a challenge, a form without its CSRF token is refused, and a challenge plays
only the asker's own active version (the form has no way to name another)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.helpers import poll
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess
from tests.server.matches.test_matches import token, uploaded

COMPETITION = {"ladder": {"challenges_per_day": 2, "challenge_games": 3}}


def _board(server: ServerProcess) -> httpx.Response:
    return httpx.get(f"{server.url}/api/leaderboard", timeout=30)


def test_challenges_are_played_shown_limited_private_and_never_rated(server: ServerProcess) -> None:
    ann, bob = Client(server.url), Client(server.url)
    ann.sign_up("ann")
    bob.sign_up("bob")
    uploaded(ann, SAMPLE_BOT.read_bytes())
    uploaded(bob, SAMPLE_BOT.read_bytes())
    organiser = Client(server.url)
    assert server.organiser_link is not None
    organiser.follow(server.organiser_link)
    organiser.get("/admin")
    assert organiser.post("/admin/ladder/pause").status_code == 303
    poll(lambda: True if _board(server).json()["in_flight"] == 0 else None)
    # the board refreshes at most so often: wait until it counts every rated game stored before the pause
    stored = server.rows("SELECT count(*) FROM games")[0][0]
    poll(lambda: True if _board(server).json()["games"] == stored else None)
    before = _board(server).content  # two rows (and any games the ladder played before the pause)
    assert len(_board(server).json()["leaderboard"]) == 2
    games_before = server.rows("SELECT id, seq, hands FROM games ORDER BY seq")
    ((bob_id,),) = server.rows("SELECT id FROM users WHERE name = 'bob'")

    page = ann.get("/challenges").text
    assert "bob v1" in page
    asked = ann.post("/challenges", {"opponent": str(bob_id), "games": "3"})
    assert asked.status_code == 303, asked.text
    location = asked.headers["location"]
    match_id = int(location.rsplit("/", 1)[1])
    headers = token(ann)

    def done() -> Any:
        got = httpx.get(f"{server.url}/api/matches/{match_id}", headers=headers, timeout=30).json()
        return got if got["status"] == "done" else None

    found = poll(done)
    assert found["kind"] == "challenge" and found["games"] == 3 and found["field"] == ["bob v1"]
    assert all(sorted(n for n in r["seats"] if " v" in n) == ["ann v1", "bob v1"] for r in found["results"])
    assert server.rows(f"SELECT count(*) FROM unrated_games WHERE match_id = {match_id}") == [(3,)]
    # never rated: the board's figures and the ladder's games exactly as before
    assert _board(server).content == before
    assert server.rows("SELECT id, seq, hands FROM games ORDER BY seq") == games_before
    shown = ann.get("/challenges").text
    assert f'href="/matches/{match_id}"' in shown and "3 of 3 games" in shown
    assert "3 of 3 games" in ann.get(location).text

    # private: the opponent, a spectator and another token get 404; the opponent's list has none of it
    assert bob.get(location).status_code == 404
    assert Client(server.url).get(location).status_code == 404
    bob_headers = token(bob)
    assert (
        httpx.get(f"{server.url}/api/matches/{match_id}", headers=bob_headers, timeout=30).status_code == 404
    )
    assert httpx.get(f"{server.url}/api/challenges", headers=bob_headers, timeout=30).json() == {
        "challenges": []
    }
    # no CSRF token, a forged one, an opponent who is nobody, oneself: refused, nothing stored
    count = server.rows("SELECT count(*) FROM unrated_matches")
    assert ann.post("/challenges", {"opponent": str(bob_id), "games": "1"}, csrf=False).status_code == 403
    forged = ann.http.post("/challenges", data={"opponent": str(bob_id), "games": "1", "csrf": "x"})
    assert forged.status_code == 403
    assert ann.post("/challenges", {"opponent": "9999", "games": "1"}).status_code == 404
    ((ann_id,),) = server.rows("SELECT id FROM users WHERE name = 'ann'")
    assert ann.post("/challenges", {"opponent": str(ann_id), "games": "1"}).status_code == 400
    assert ann.post("/challenges", {"opponent": str(bob_id), "games": "4"}).status_code == 400  # > 3
    assert server.rows("SELECT count(*) FROM unrated_matches") == count

    # the day's limit: two challenges, the third refused with a Retry-After (the API alike)
    api = f"{server.url}/api/challenges"
    second = httpx.post(api, headers=headers, data={"opponent": str(bob_id), "games": "1"}, timeout=30)
    assert second.status_code == 201 and second.json()["kind"] == "challenge"
    third = httpx.post(api, headers=headers, data={"opponent": str(bob_id), "games": "1"}, timeout=30)
    assert third.status_code == 429 and int(third.headers["retry-after"]) > 0
    assert ann.post("/challenges", {"opponent": str(bob_id), "games": "1"}).status_code == 429
    listed = httpx.get(api, headers=headers, timeout=30).json()["challenges"]
    assert [c["id"] for c in listed] == [second.json()["id"], match_id]
    assert organiser.post("/admin/ladder/resume").status_code == 303
