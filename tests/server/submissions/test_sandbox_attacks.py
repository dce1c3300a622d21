"""A submitted bot that attacks the server from inside its sandbox: it tries to read the database, the
session-signing key and the deal key, to reach the web port and the database's port (PostgreSQL), and
to see the server's processes. Each attempt must fail (the bot reports what it got on stderr, which its
version page shows), the bot still passes its check, and the server goes on serving."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy.engine import make_url

from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess

pytestmark = pytest.mark.needs_bwrap

ATTACK = """
import os, socket, sys

def attempt(what, action):
    try:
        got = action()
    except Exception as exc:
        print(f"ATTACK {what}: blocked ({type(exc).__name__})", file=sys.stderr)
    else:
        print(f"ATTACK {what}: GOT {got!r:.60}", file=sys.stderr)

def read(path):
    with open(path, "rb") as f:
        return f.read(64)

def connect(port):
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(b"GET /healthz HTTP/1.0\\r\\n\\r\\n")
        return s.recv(100)

attempt("database", lambda: read(DATA + "/server.sqlite"))
attempt("session key", lambda: read(DATA + "/session.key"))
attempt("deal key", lambda: read(DATA + "/deal.key"))
attempt("web port", lambda: connect(PORT))
attempt("database port", lambda: connect(DB_PORT))
attempt("server process", lambda: os.kill(SERVER_PID, 0) or "signalled")
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid(), os.getppid())]
print(f"ATTACK processes visible: {len(others)}", file=sys.stderr)
"""


def test_a_bot_attacking_the_server_from_its_sandbox(server: ServerProcess) -> None:
    assert server.proc is not None
    data = next(server.directory.glob("results/*"))
    # On PostgreSQL the bot tries its port; on SQLite a port nothing listens on (blocked either way).
    db_port = make_url(server.database).port if server.database else 5432
    head = (
        f"DATA = {str(data.resolve())!r}\nPORT = {server.port}\nSERVER_PID = {server.proc.pid}\n"
        f"DB_PORT = {db_port}\n"
    )
    bot = SAMPLE_BOT.read_text().replace("from __future__ import annotations\n", "")  # must come first
    source = (head + ATTACK + bot).encode()
    attacker = Client(server.url)
    attacker.sign_up("mallory")
    page = attacker.verdict(attacker.upload("bot.py", source).headers["location"])
    assert "VERDICT: PASS" in page
    for what in ("database", "session key", "deal key", "web port", "database port", "server process"):
        assert f"ATTACK {what}: blocked" in page, what
    assert "GOT" not in page
    assert "ATTACK processes visible: 0" in page
    assert httpx.get(f"{server.url}/healthz").text == "ok"
    assert server.rows("SELECT count(*) FROM users") != [(0,)]  # the database is whole
