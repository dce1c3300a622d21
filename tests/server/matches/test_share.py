"""Against a real server: a burst of activations while the ladder plays leaves the ladder its share of
every stretch of games (issue 41: "20 activations at once", docs/server.md "Spare capacity").

Three entrants' first versions play the ladder (one table) until it has stored 40 games; then each uploads
a new version at once, which becomes active and starts its SPRT match against the one it replaced. Over
the games stored from then on (ladder and unrated, in the order the one table played them), every run of
consecutive games within half a minute has at most ``match_share`` of unrated games plus one (the issue's
"± one game"; the rule gives fewer than that at each slot it hands out, and one run here once reached it).
Before, the share was kept over the whole last minute only, so the ladder's games just before the burst
were credit: the matches then took every slot in a row (about a quarter of the last minute's ladder
games, 75 unrated games and no ladder game for 35 s in bench/server.py's run), which any window starting
at the burst saw as a majority. The ladder always has a game waiting here (its field is three running
versions), so no slot is spare.

Nothing here hangs on the machine's speed: the rule is counted in slots, the ladder's 40 games before the
burst are counted, not timed, and the assertion is over the games in the order they were played. SQLite
only: the share is kept in the process, the same on either database."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml

SHARE = 0.25
UNRATED = 30  # unrated games to watch after the burst
SPAN_S = 30.0  # windows of stored games at most this long (the share's window is 60 s of starts)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    ladder = {"match_on_activate": True, "match_share": SHARE}
    toml = competition_toml("test-share", None, ladder=ladder, submissions={"per_hour": 100})
    process = ServerProcess(tmp_path_factory.mktemp("server"), toml)
    process.start()
    yield process
    process.stop()


def _upload(client: Client) -> None:
    response = client.upload("random.py", SAMPLE_BOT.read_bytes())
    assert response.status_code == 303, response.text
    assert "VERDICT: PASS" in client.verdict(response.headers["location"], timeout_s=300)


def _wait(server: ServerProcess, sql: str, at_least: int, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while server.rows(sql)[0][0] < at_least:
        assert time.monotonic() < deadline, f"{sql}: fewer than {at_least} in {timeout_s} s"
        time.sleep(0.2)


def test_a_burst_of_activations_leaves_the_ladder_its_share_of_every_stretch(server: ServerProcess) -> None:
    clients = [Client(server.url) for _ in range(3)]
    for i, client in enumerate(clients):
        client.sign_up(f"share{i}")
        _upload(client)
    _wait(server, "SELECT COUNT(*) FROM games", 40)  # the ladder alone, long enough to be "credit"
    began = server.rows("SELECT MAX(created_at) FROM games")[0][0]
    threads = [threading.Thread(target=_upload, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _wait(server, "SELECT COUNT(*) FROM unrated_games", UNRATED)
    games = sorted(
        [(t, False) for (t,) in server.rows(f"SELECT created_at FROM games WHERE created_at > {began}")]
        + [(t, True) for (t,) in server.rows("SELECT created_at FROM unrated_games")]
    )
    for i in range(len(games)):
        unrated = 0
        for j in range(i, len(games)):
            if games[j][0] - games[i][0] > SPAN_S:
                break
            unrated += games[j][1]
            n = j - i + 1
            assert unrated <= SHARE * n + 1, (
                f"{unrated} unrated games among {n} stored in a row "
                f"({games[j][0] - games[i][0]:.1f} s, from {games[i][0] - began:.1f} s after the burst)"
            )
    assert sum(unrated for _, unrated in games) >= UNRATED  # the matches got slots
    assert sum(not unrated for _, unrated in games) >= 2 * UNRATED  # and the ladder the rest
