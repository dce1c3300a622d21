"""Login throttling that nobody can turn against somebody else (issue 41), against a real server process.

A class behind one school address: one student guesses another's password and the organiser's; the
victims, from the browsers they logged in with before, still get in, while a client that never logged in
to those accounts stays throttled; and the organiser can always get back in from the server's machine
(``arena login-link``), with links printed at the server's real address.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import PASSWORD, Client, ServerProcess, competition_toml

ATTEMPTS = 5


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """SQLite only: the throttle is in each process's memory, whatever the database."""
    toml = competition_toml("lockout", people={"login_attempts": ATTEMPTS, "signup": "open"})
    process = ServerProcess(tmp_path_factory.mktemp("server"), toml)
    process.start()
    yield process
    process.stop()


def arena(server: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], cwd=server.directory, capture_output=True, text=True
    )


def guess(name: str, server: ServerProcess, times: int) -> list[int]:
    """``times`` wrong passwords for ``name`` from a client that never logged in to it."""
    guesser = Client(server.url)
    return [guesser.login(name, f"wrong-guess-{i:04d}").status_code for i in range(times)]


def test_guessing_locks_out_nobody_who_logged_in_before(server: ServerProcess) -> None:
    assert server.organiser_link is not None
    organiser = Client(server.url)
    organiser.follow(server.organiser_link)  # the organiser's browser: a known device from now on
    victim = Client(server.url)
    victim.sign_up("victim")
    assert victim.post("/logout").status_code == 303

    assert guess("victim", server, ATTEMPTS) == [401] * ATTEMPTS
    assert guess("organiser", server, ATTEMPTS) == [401] * ATTEMPTS
    stranger = Client(server.url)  # guessing from unknown clients stays slow: even the right password waits
    refused = stranger.login("victim", PASSWORD)
    assert refused.status_code == 429 and "too many failed logins" in refused.text
    assert int(refused.headers["retry-after"]) > 0
    assert Client(server.url).login("organiser", PASSWORD).status_code == 429

    back = victim.login("victim", PASSWORD)  # the victim's own browser is not refused for others' guesses
    assert back.status_code == 303, back.text
    assert victim.get("/me").status_code == 200
    assert organiser.post("/logout").status_code == 303
    assert organiser.login("organiser", PASSWORD).status_code == 303
    assert organiser.get("/admin").status_code == 200


def test_a_known_browser_is_throttled_on_its_own_failures(server: ServerProcess) -> None:
    owner = Client(server.url)
    owner.sign_up("forgetful")
    assert owner.post("/logout").status_code == 303
    codes = [owner.login("forgetful", f"not-it-{i:04d}").status_code for i in range(ATTEMPTS)]
    assert codes == [401] * ATTEMPTS
    assert owner.login("forgetful", PASSWORD).status_code == 429  # its own guesses count against it
    other = Client(server.url)
    other.sign_up("neighbour")
    assert other.post("/logout").status_code == 303
    assert other.login("neighbour", PASSWORD).status_code == 303  # nobody else is touched


def test_a_forged_device_cookie_is_untrusted(server: ServerProcess) -> None:
    Client(server.url).sign_up("target")
    assert guess("target", server, ATTEMPTS) == [401] * ATTEMPTS
    mallory = Client(server.url)
    mallory.sign_up("mallory")  # mallory's own, genuine device cookie ...
    cookie = next(c for c in mallory.http.cookies.jar if c.name.startswith("arena_device_"))
    forged = Client(server.url)
    target_cookie = "arena_device_" + hashlib.sha256(b"target").hexdigest()[:16]
    forged.http.cookies.set(target_cookie, str(cookie.value), path="/login")  # ... offered for another name
    assert forged.login("target", PASSWORD).status_code == 429
    unsigned = Client(server.url)  # the target's name, a nonce, a signature made up
    name = base64.urlsafe_b64encode(b"target").decode()
    unsigned.http.cookies.set(target_cookie, f"{name}.made-up-nonce.{'0' * 40}", path="/login")
    assert unsigned.login("target", PASSWORD).status_code == 429


def test_the_organiser_gets_back_in_from_the_servers_machine(server: ServerProcess) -> None:
    assert guess("organiser", server, 2 * ATTEMPTS)[-1] == 429
    done = arena(server, "login-link", str(server.config))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # the server's own address was known: no guess, no warning
    link = done.stdout.strip().rsplit(" ", 1)[-1]
    assert link.startswith(f"{server.url}/link/"), link  # the real port, not 8000
    fresh = Client(server.url)
    fresh.follow(link, "a brand new password")
    assert fresh.get("/admin").status_code == 200
    assert fresh.post("/logout").status_code == 303
    assert fresh.login("organiser", "a brand new password").status_code == 303

    missing = arena(server, "login-link", str(server.config), "--name", "nobody")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "nobody" in missing.stderr


def test_invitations_use_the_servers_address(server: ServerProcess, tmp_path: Path) -> None:
    people = tmp_path / "class.csv"
    people.write_text("ann,ann@school.example\n")
    done = arena(server, "invite", str(server.config), str(people))
    assert done.returncode == 0, done.stderr
    link = done.stdout.strip().split("\t")[2]
    assert link.startswith(f"{server.url}/link/"), link
    assert httpx.get(link, timeout=30).status_code == 200


def test_the_organisers_first_link_survives_restarts(tmp_path: Path) -> None:
    process = ServerProcess(tmp_path, competition_toml("first-link"))
    process.start()
    first = process.organiser_link
    process.stop()
    process.start()
    try:
        assert first is not None and process.organiser_link == first  # the link printed before still works
        Client(process.url).follow(first)
    finally:
        process.stop()
    process.start()
    try:
        assert process.organiser_link is None  # used: no link is printed any more
    finally:
        process.stop()
