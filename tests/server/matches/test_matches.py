"""Against a real server: a newly active version's SPRT match against the one it replaced decides "better"
for a bot that plays well (the sample rules bot) over one that always takes its last legal action, and "not
better" the other way round; its version page shows the LLR, the bounds and the games. A stranger can
neither start nor see another entrant's match (404, as for an id that does not exist); a form without its
CSRF token is refused. The driver's other cases (undecided at the budget, a restart) are in
tests/server/matches/test_match_driver.py, with a fake executor.

Its own server, on SQLite only (time: real bots play about a hundred games here; the same tables and
queries run on PostgreSQL in tests/server/matches/test_challenges.py), with a fixed deal key: a match's deals
follow from the key and the match's id, and every bot here is deterministic given its game (the random house
bots are seeded by the game's id), so each match's games, and so its decision, are the same on every run; they
do not hang on how fast the machine is, only on the bots' answers within their time."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from arena.event.deals import write_key_file
from tests.helpers import ROOT
from tests.server.conftest import Client, ServerProcess, competition_toml

COMPETITION = {
    "ladder": {
        "match_on_activate": True,
        "match_min_deals": 2,
        "match_deals": 6,
        "match_h1": 0.3,
        "match_share": 0.5,
    }
}
RULES_BOT = (ROOT / "sample_bots" / "rules.py").read_bytes()
LAST_BOT = b"""from arena.bot import Bot, run
from arena.engine import Action, View


class LastBot(Bot):
    name = "last"

    async def act(self, view: View) -> Action:
        return view.legal_actions[-1]


if __name__ == "__main__":
    run(LastBot)
"""
KEY = bytes(range(32))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("server")
    process = ServerProcess(directory, competition_toml("test-matches", None, **COMPETITION))
    data = directory / "results" / "test-matches"
    data.mkdir(parents=True, mode=0o700)
    write_key_file(data, KEY)
    process.start()
    yield process
    process.stop()


TOKEN = re.compile(r'<code id="token">([^<]+)</code>')


def token(client: Client) -> dict[str, str]:
    client.get("/me")
    found = TOKEN.search(client.post("/me/token").text)
    assert found is not None
    return {"Authorization": f"Bearer {found.group(1)}"}


def uploaded(client: Client, data: bytes) -> int:
    response = client.upload("bot.py", data)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert "VERDICT: PASS" in client.verdict(location)
    return int(location.rsplit("/", 1)[1])


def decided(server: ServerProcess, headers: dict[str, str], version_id: int, timeout_s: float = 240) -> Any:
    """The version's newest match once it has ended (polled as its page's refresh would)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = httpx.get(f"{server.url}/api/versions/{version_id}/matches", headers=headers, timeout=30)
        assert got.status_code == 200, got.text
        matches = got.json()["matches"]
        if matches and matches[0]["status"] == "done":
            return matches[0]
        time.sleep(0.3)
    raise AssertionError(f"no decision for version {version_id} in {timeout_s} s")


def test_a_better_version_is_found_better_and_a_worse_one_not_better(server: ServerProcess) -> None:
    ada = Client(server.url)
    ada.sign_up("ada")
    headers = token(ada)
    weak = uploaded(ada, LAST_BOT)
    strong = uploaded(ada, RULES_BOT)  # active once passed: its match against v1 starts by itself
    match = decided(server, headers, strong)
    assert (match["version"], match["baseline"], match["decision"]) == ("ada v2", "ada v1", "better")
    sprt = match["sprt"]
    assert sprt["result"] == "H1" and sprt["llr"] >= sprt["upper"] and match["games"] >= sprt["deals"] * 10
    page = ada.get(f"/versions/{strong}").text
    llr = f"LLR {sprt['llr']:+.2f} of bounds [{sprt['lower']:+.2f}, {sprt['upper']:+.2f}]"
    assert "better" in page and llr in page and f"{match['games']} games" in page
    detail = ada.get(f"/matches/{match['id']}")
    assert detail.status_code == 200 and 'id="decision">better<' in detail.text and llr in detail.text
    assert f"{sprt['deals']} of 6 deals · {match['games']} games" in detail.text
    worse = uploaded(ada, LAST_BOT)  # v3, the weak bot again, against v2
    match = decided(server, headers, worse)
    assert (match["baseline"], match["decision"], match["sprt"]["result"]) == ("ada v2", "not better", "H0")
    # asked on the page (a form with its CSRF token): v1 against v3, by the page's own form
    asked = ada.post(f"/versions/{weak}/match", {"baseline": str(worse)})
    assert asked.status_code == 303 and asked.headers["location"].startswith("/matches/")
    # no match ever reaches the ladder's games or the board
    assert server.rows("SELECT count(*) FROM games WHERE id LIKE 'M%'") == [(0,)]
    assert server.rows("SELECT count(*) FROM game_seats WHERE name LIKE 's%'") == [(0,)]
    assert httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()["games"] == 0


def test_a_stranger_can_neither_start_nor_see_another_entrants_match(server: ServerProcess) -> None:
    (version_id, match_id) = server.rows(
        "SELECT version_id, id FROM unrated_matches WHERE kind = 'sprt' ORDER BY id LIMIT 1"
    )[0]
    eve = Client(server.url)
    eve.sign_up("eve")
    headers = token(eve)
    mine = eve.get(f"/matches/{match_id}")
    assert mine.status_code == 404 and "ada" not in mine.text
    assert eve.post(f"/versions/{version_id}/match").status_code == 404
    assert Client(server.url).get(f"/matches/{match_id}").status_code == 404  # a spectator alike
    for path in (f"/api/matches/{match_id}", f"/api/versions/{version_id}/matches"):
        assert httpx.get(f"{server.url}{path}", headers=headers, timeout=30).status_code == 404
    api = httpx.post(f"{server.url}/api/versions/{version_id}/matches", headers=headers, data={}, timeout=30)
    assert api.status_code == 404
    assert httpx.get(f"{server.url}/api/matches/{match_id}", timeout=30).status_code == 401
    ada = Client(server.url)
    assert ada.login("ada").status_code == 303
    before = server.rows("SELECT count(*) FROM unrated_matches")
    assert ada.post(f"/versions/{version_id}/match", csrf=False).status_code == 403
    refused = ada.http.post(f"/versions/{version_id}/match", data={"csrf": "forged"})
    assert refused.status_code == 403
    assert server.rows("SELECT count(*) FROM unrated_matches") == before
    assert ada.get(f"/matches/{match_id}").status_code == 200  # its owner sees it


def test_a_match_resumes_after_kill_9_where_its_stored_games_end(server: ServerProcess) -> None:
    ada = Client(server.url)
    assert ada.login("ada").status_code == 303
    headers = token(ada)
    (v1,), (v2,) = server.rows("SELECT id FROM versions ORDER BY id LIMIT 2")
    deadline = time.monotonic() + 240
    while True:  # the page's match of the test above first ends (one match at a time)
        asked = httpx.post(
            f"{server.url}/api/versions/{v2}/matches", headers=headers, data={"baseline": str(v1)}, timeout=30
        )
        if asked.status_code == 201 or time.monotonic() > deadline:
            break
        assert asked.status_code == 429, asked.text
        time.sleep(0.3)
    assert asked.status_code == 201, asked.text
    match_id = asked.json()["id"]
    count = f"SELECT count(*) FROM unrated_games WHERE match_id = {match_id}"
    while server.rows(count)[0][0] < 2 and time.monotonic() < deadline:  # of at least 20 (2 deals)
        time.sleep(0.05)
    server.kill()
    stored = server.rows(f"SELECT idx, scores FROM unrated_games WHERE match_id = {match_id} ORDER BY idx")
    assert stored and server.rows(f"SELECT status FROM unrated_matches WHERE id = {match_id}") == [
        ("running",)
    ]
    server.start()
    match = decided(server, headers, v2)
    assert match["id"] == match_id and match["decision"] == "better"
    after = server.rows(f"SELECT idx, scores FROM unrated_games WHERE match_id = {match_id} ORDER BY idx")
    assert after[: len(stored)] == stored  # kept, none played twice (one row per place), none skipped
    assert [idx for idx, _ in after] == list(range(len(after))) and match["games"] == len(after)
