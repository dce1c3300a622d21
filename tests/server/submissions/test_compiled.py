"""A compiled bot goes through the server as docs/bot-authors.md says ("How a compiled bot goes through the
server"): the Go kit's program uploaded as one file with the runtime ``executable`` (started as
``./run --address unix:...`` in the sandbox), the Java kit's ``bot.tar.gz`` with ``executable-port``
(``./run --port P``: Debian's grpc-java cannot listen on a Unix socket, so the arena relays to the port).
Each passes its check on a real server; with both, they play a ladder game without a fault. Skipped where a
kit's toolchain is missing (tests/conftest.py says what to install).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import pytest

from tests.helpers import ROOT
from tests.sample_bots.test_starter_kits import build_with_make, kit_directory
from tests.server.conftest import Client, ServerProcess

COMPETITION = {
    "submissions": {
        "runtimes": ["python", "executable", "executable-port"],
        "max_upload_kb": 16384,  # a Go program is some 8 MB
        "max_unpacked_kb": 65536,
    },
    # the protocol is what is checked, not the speed: a JVM starved of CPU by a busy machine is slow
    "checks": {"decision_ms": 5000},
    "faults": {"decision_ms": 5000},
}
SQLITE_ONLY = True  # the bots are under test here, not the database
WAIT_S = 300.0


@pytest.fixture(scope="module")
def go_program() -> Iterator[bytes]:
    """The Go kit's program, built by its Makefile as the page says."""
    with kit_directory("go") as where:
        yield (build_with_make(where, "go", ("bot.go", "Makefile")) / "bot").read_bytes()


@pytest.fixture(scope="module")
def java_archive() -> Iterator[bytes]:
    """The Java kit's ``bot.tar.gz`` (``make bot.tar.gz``: its ``run`` and ``bot.jar``)."""
    with kit_directory("java") as where:
        build_with_make(where, "java", ("Bot.java", "Makefile", "run"))
        made = subprocess.run(
            ["make", "-s", f"PROTO_ROOT={ROOT / 'proto'}", "bot.tar.gz"],
            cwd=where,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert made.returncode == 0, made.stdout + made.stderr
        yield (where / "bot.tar.gz").read_bytes()


def uploaded(
    server: ServerProcess, name: str, filename: str, data: bytes, runtime: str
) -> tuple[Client, str]:
    """A new entrant's upload, and its version page once checked (the test fails on a failed check)."""
    client = Client(server.url)
    client.sign_up(name)
    response = client.upload(filename, data, runtime)
    assert response.status_code == 303, response.text
    page = client.verdict(response.headers["location"], timeout_s=WAIT_S)
    assert "VERDICT: PASS" in page, page
    return client, response.headers["location"]


@pytest.mark.needs_grpc_go
def test_the_go_kit_uploaded_as_one_file_passes_its_check(server: ServerProcess, go_program: bytes) -> None:
    uploaded(server, "gopher", "bot", go_program, "executable")


@pytest.mark.needs_grpc_java
def test_the_java_kit_uploaded_as_its_archive_passes_its_check(
    server: ServerProcess, java_archive: bytes
) -> None:
    uploaded(server, "duke", "bot.tar.gz", java_archive, "executable-port")


@pytest.mark.needs_grpc_go
@pytest.mark.needs_grpc_java
def test_the_go_and_java_kits_play_a_ladder_game_without_a_fault(
    server: ServerProcess, go_program: bytes, java_archive: bytes
) -> None:
    names = {"gopher", "duke"}
    for name, filename, data, runtime in (
        ("gopher", "bot", go_program, "executable"),
        ("duke", "bot.tar.gz", java_archive, "executable-port"),
    ):
        if not server.rows(f"SELECT id FROM users WHERE name = '{name}'"):
            uploaded(server, name, filename, data, runtime)
    versions = [
        int(v)
        for (v,) in server.rows(
            "SELECT versions.id FROM versions JOIN users ON users.id = versions.user_id "
            "WHERE users.name IN ('gopher', 'duke') AND versions.active"
        )
    ]
    assert len(versions) == len(names)
    together = (
        f"SELECT game_id, sum(faults) FROM game_seats WHERE version_id IN ({versions[0]}, {versions[1]}) "
        "GROUP BY game_id HAVING count(*) = 2"
    )
    deadline = time.monotonic() + WAIT_S
    while not (games := server.rows(together)):
        assert time.monotonic() < deadline, "no ladder game of the Go and the Java bot"
        time.sleep(1)
    assert all(faults == 0 for _, faults in games), games
