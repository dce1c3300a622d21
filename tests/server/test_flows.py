"""The ordinary flows over HTTP against a real server: the organiser's first login, invitations, open
sign-up, an upload checked in the sandbox with its verdict on the page, a broken bot's failing verdict with
its stderr, the ladder playing the passed versions, the leaderboard, a game's page, the API and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import httpx
import pytest

from tests.server.conftest import PASSWORD, SAMPLE_BOT, Client, ServerProcess

BROKEN = b"import sys\nprint('my bot is broken: no strategy yet', file=sys.stderr)\nsys.exit(3)\n"


@pytest.fixture(scope="module")
def organiser(server: ServerProcess) -> Client:
    assert server.organiser_link is not None
    client = Client(server.url)
    client.follow(server.organiser_link)
    return client


def standing(server: ServerProcess, name: str) -> dict[str, object] | None:
    board = httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()
    return next((r for r in board["leaderboard"] if r["entrant"] == name), None)


def test_organiser_first_login_and_invitations(server: ServerProcess, organiser: Client) -> None:
    assert server.organiser_link is not None
    client = organiser
    page = client.get("/admin")
    assert page.status_code == 200 and "Organiser" in page.text
    # the login link was single-use
    again = Client(server.url)
    assert again.get(server.organiser_link.split(server.url)[1]).status_code == 404
    links = server.invite("name,email\nada,ada@example.org\nbob,bob@example.org\n")
    assert set(links) == {"ada", "bob"}
    student = Client(server.url)
    student.follow(links["ada"])
    assert "ada's bot" in student.get("/me").text
    assert Client(server.url).get(links["ada"].split(server.url)[1]).status_code == 404


def test_upload_verdict_ladder_and_pages(server: ServerProcess) -> None:
    alice, bob, carol = Client(server.url), Client(server.url), Client(server.url)
    alice.sign_up("alice")
    bob.sign_up("bob-the-builder")
    carol.sign_up("carol")
    started = time.monotonic()
    first = alice.upload("random.py", SAMPLE_BOT.read_bytes())
    assert first.status_code == 303, first.text
    second = bob.upload("random.py", SAMPLE_BOT.read_bytes())
    broken = carol.upload("bot.py", BROKEN)
    page = alice.verdict(first.headers["location"])
    took = time.monotonic() - started
    assert "VERDICT: PASS" in page and "p50" in page, page
    assert took < 60
    assert "VERDICT: PASS" in bob.verdict(second.headers["location"])
    failed = carol.verdict(broken.headers["location"])
    assert "VERDICT: FAIL" in failed and "my bot is broken: no strategy yet" in failed
    assert "did not start" in failed
    assert "start a match" not in failed and "better?" not in failed  # nothing a failed version can do
    # the two passed versions play on the ladder; the failed one never does
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        board = json.loads(Client(server.url).get("/api/leaderboard").text)
        if board["games"] >= 2:
            break
        time.sleep(0.5)
    entrants = {row["entrant"] for row in board["leaderboard"]}
    assert entrants == {"alice", "bob-the-builder"}, board
    home = Client(server.url).get("/")
    assert home.status_code == 200 and "bob-the-builder" in home.text
    game = home.text.split('href="/games/')[1].split('"')[0]
    shown = Client(server.url).get(f"/games/{game}")
    assert shown.status_code == 200 and 'id="replay-data"' in shown.text and "Hands" in shown.text
    me = alice.get("/me").text.split('href="/entrants/')[1].split('"')[0]
    deadline = time.monotonic() + 60
    while "Rating over time" not in (public := Client(server.url).get(f"/entrants/{me}").text):
        assert time.monotonic() < deadline, "no rating history on the entrant's page"
        time.sleep(0.5)
    assert "<polyline" in public and "Head to head" in public and "bob-the-builder" in public


def test_api_token_submit_and_status(server: ServerProcess) -> None:
    dora = Client(server.url)
    dora.sign_up("dora")
    dora.get("/me")
    made = dora.post("/me/token")
    token = made.text.split('<code id="token">')[1].split("<")[0]
    done = subprocess.run(
        [sys.executable, "-m", "arena", "submit", str(SAMPLE_BOT), "--server", server.url, "--token", token],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0 and "VERDICT: PASS" in done.stdout, done.stdout + done.stderr
    status = subprocess.run(
        [sys.executable, "-m", "arena", "status", "--server", server.url, "--token", token],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert status.returncode == 0 and "dora" in status.stdout and "v1\tpassed  (active)" in status.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "arena", "status", "--server", server.url, "--token", "nope"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    # dora joined a ladder already playing: she is seated in its games from now on
    deadline = time.monotonic() + 180  # generous: one table, on a machine that may be busy
    while not (row := standing(server, "dora")) or not row["games"]:
        assert time.monotonic() < deadline, row
        time.sleep(0.5)
    assert bad.returncode == 2 and bad.stderr.startswith("error: the server refused (401)")  # every refusal
    assert len(bad.stderr.strip().splitlines()) == 1
    assert PASSWORD not in done.stdout


def test_a_disabled_entrant_leaves_the_ladder_and_cannot_log_in(
    server: ServerProcess, organiser: Client
) -> None:
    eve = Client(server.url)
    eve.sign_up("eve")
    eve.verdict(eve.upload("random.py", SAMPLE_BOT.read_bytes()).headers["location"])
    user_id = eve.get("/me").text.split('href="/entrants/')[1].split('"')[0]
    organiser.get("/admin")
    assert organiser.post(f"/admin/disable/{user_id}").status_code == 303
    deadline = time.monotonic() + 30
    while standing(server, "eve") is not None:
        assert time.monotonic() < deadline
        time.sleep(0.3)
    assert eve.get("/me").status_code == 401  # the session ended with the account
    assert eve.login("eve").status_code == 403
    assert organiser.post(f"/admin/enable/{user_id}").status_code == 303
    assert eve.login("eve").status_code == 303
