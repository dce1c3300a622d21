"""Against a real server: the check queue runs ``[checks] parallel`` (2) checks at once, shows each waiting
upload its place, and the ladder starts no game while checks run (at most one a ``YIELD_S``): issue 41's
"20 uploads at once" (docs/server.md, The check).

Two entrants' random bots play the ladder; then three more upload at once a bot that sleeps 3 s before it
serves (so each check lasts at least that long, however fast the machine). The first two uploads are
being checked at the same moment while the third waits as number 3; and while the first two are checked,
the ladder stores no more games than one in flight plus one per ``YIELD_S``. Before, checks ran one at a
time (the second waited as number 2) and the ladder played on beside them (tens of games here).

The bound on the ladder's games is counted from the times this client saw, not from the machine's speed: a
slower machine makes the checks last longer and the bound larger alike."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator

import pytest

from arena.server.ladder.service import YIELD_S
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml

SLOW_BOT = SAMPLE_BOT.read_bytes().replace(
    b"from __future__ import annotations\n",
    b"from __future__ import annotations\n\nimport time\n\ntime.sleep(3)\n",
    1,
)
STATUS = re.compile(r'<p class="verdict[^"]*" id="verdict">([^<]*)</p>')


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    toml = competition_toml("test-queue", None, submissions={"per_hour": 100})
    process = ServerProcess(tmp_path_factory.mktemp("server"), toml)
    process.start()
    yield process
    process.stop()


def _status(client: Client, location: str) -> str:
    found = STATUS.search(client.get(location).text)
    assert found is not None
    return found.group(1)


def _games(server: ServerProcess) -> int:
    return int(server.rows("SELECT COUNT(*) FROM games")[0][0])


def test_two_checks_at_once_a_place_for_the_third_and_the_ladder_waits(server: ServerProcess) -> None:
    for name in ("q1", "q2"):
        client = Client(server.url)
        client.sign_up(name)
        response = client.upload("random.py", SAMPLE_BOT.read_bytes())
        assert "VERDICT: PASS" in client.verdict(response.headers["location"])
    deadline = time.monotonic() + 120
    while _games(server) < 5:  # the ladder plays
        assert time.monotonic() < deadline, "the ladder did not play"
        time.sleep(0.2)

    clients = [Client(server.url) for _ in range(3)]
    for i, client in enumerate(clients):
        client.sign_up(f"slow{i}")
        client.get("/me")
    locations: list[str] = ["", "", ""]

    def upload(i: int) -> None:
        response = clients[i].upload("bot.py", SLOW_BOT)
        assert response.status_code == 303, response.text
        locations[i] = response.headers["location"]

    for i in range(3):  # in this order, so that the third is the third in the queue
        thread = threading.Thread(target=upload, args=(i,))
        thread.start()
        thread.join()
    games_before = _games(server)
    began = time.monotonic()
    deadline = began + 120
    together: list[str] | None = None
    while True:  # until the first verdict of the first two
        assert time.monotonic() < deadline, "no verdict in 120 s"
        statuses = [_status(c, loc) for c, loc in zip(clients, locations, strict=True)]
        if statuses[0].startswith("VERDICT") or statuses[1].startswith("VERDICT"):
            break
        if together is None and all(s.startswith("checking") for s in statuses[:2]):
            together = statuses
        time.sleep(0.05)
    ended, games_during = time.monotonic(), _games(server) - games_before
    assert together is not None, "the first two uploads were never checked at once"
    # (the pages are read one after the other: one check ending just as the next begins shows both as
    # "checking: number 1", which is not two at once)
    assert together == [
        "checking: number 1 in the queue",
        "checking: number 2 in the queue",
        "queued: number 3 in the queue",
    ], together
    assert games_during <= 2 + (ended - began) / YIELD_S, (games_during, ended - began)
    for client, location in zip(clients, locations, strict=True):
        assert "VERDICT: PASS" in client.verdict(location)
