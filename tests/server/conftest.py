"""The competition server as its tests meet it: a real `arena serve` process on loopback, and clients.

One server per test module (starting one costs about a second; its checks and ladder are what the tests
watch). Its competition sandboxes the bots with bubblewrap where it can run, and says ``sandbox = "none"``
where it cannot (the server refuses to start otherwise: tests/server/test_cli.py), so every flow runs on
any machine; what needs the sandbox itself is marked ``needs_bwrap``.

``Client`` is a browser without JavaScript, over httpx: it keeps the cookie, reads each form's CSRF token
from the page, and follows nothing it was not told to.
"""

from __future__ import annotations

import html
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import missing
from tests.helpers import ROOT
from tests.postgres import Postgres

SAMPLE_BOT = ROOT / "sample_bots" / "random.py"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
LINK = re.compile(r"(http://\S+/link/\S+)")
PASSWORD = "correct horse battery"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def competition_toml(name: str, database: str | None = None, **sections: dict[str, Any]) -> str:
    """A small competition: five-handed, fast checks, sandboxed where bubblewrap runs; its state in
    ``database`` (a URL), or in the default SQLite file."""
    sandbox = "none" if missing("needs_bwrap") else "bubblewrap"
    tables: dict[str, dict[str, Any]] = {
        "game": {"variant": "five-handed", "target": 5},
        "faults": {"decision_ms": 3000},
        "people": {"signup": "open"},
        "submissions": {"max_upload_kb": 64, "max_files": 20, "max_unpacked_kb": 256, "per_hour": 50},
        # no SPRT match of each new version: the tests of matches ask for them
        # (tests/server/matches/test_matches.py)
        "ladder": {"tables": 1, "house": "sample_bots.random:RandomBot", "match_on_activate": False},
    }
    for key, value in sections.items():
        tables.setdefault(key, {}).update(value)
    lines = [f'name = "{name}"', f'sandbox = "{sandbox}"']
    if database is not None:
        lines.append(f'database = "{database}"')
    for key, table in tables.items():
        lines.append(f"[{key}]")
        for k, v in table.items():
            lines.append(f"{k} = {_toml(v)}")
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


class ServerProcess:
    """`arena serve` in a directory of its own; ``start`` again after ``kill`` to test a restart."""

    def __init__(
        self, directory: Path, toml: str, database: str | None = None, args: tuple[str, ...] = ()
    ) -> None:
        self.directory = directory
        self.args = args  # more of `arena serve`'s options (--role web)
        self.database = database
        """The URL the competition names, or None for its default SQLite file."""
        self.config = directory / "competition.toml"
        self.config.write_text(toml)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[str] | None = None
        self.organiser_link: str | None = None
        self.log = directory / "serve.log"

    def start(self, timeout_s: float = 60) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.log = self.directory / f"serve-{time.time_ns()}.log"
        self.organiser_link = None  # as this start prints it (none once the organiser has a password)
        command = [sys.executable, "-m", "arena", "serve", str(self.config), "--port", str(self.port)]
        with self.log.open("w") as out:  # a file, not a pipe: nobody must have to keep reading it
            self.proc = subprocess.Popen(
                [*command, *self.args],
                cwd=self.directory,
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
                env=env,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and "serving " not in self.log.read_text():
            if self.proc.poll() is not None:
                raise AssertionError(f"arena serve exited: {self.log.read_text()}")
            time.sleep(0.05)
        for line in self.log.read_text().splitlines():
            if (found := LINK.search(line)) is not None:
                self.organiser_link = found.group(1)
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise AssertionError("the server did not answer /healthz")

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """``sql`` on the server's database, read as an outsider would (a new connection; read-only for
        SQLite, whose file the server holds)."""
        from sqlalchemy import create_engine, text

        url = self.database
        if url is None:
            path = next(self.directory.glob("results/*/server.sqlite"))
            url = f"sqlite:///file:{path}?mode=ro&uri=true"
        engine = create_engine(url)
        try:
            with engine.connect() as connection:
                return [tuple(row) for row in connection.execute(text(sql))]
        finally:
            engine.dispose()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9 of the server's whole process group (its bots too, as a power cut would)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def invite(self, rows: str) -> dict[str, str]:
        """`arena invite` with a CSV of ``rows``: name -> link."""
        csv = self.directory / "people.csv"
        csv.write_text(rows)
        done = subprocess.run(
            [sys.executable, "-m", "arena", "invite", str(self.config), str(csv), "--port", str(self.port)],
            cwd=self.directory,
            capture_output=True,
            text=True,
            check=True,
        )
        return {line.split("\t")[0]: line.split("\t")[2] for line in done.stdout.splitlines()}


class Client:
    """A browser without scripts (see the module's docstring)."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=60, follow_redirects=False)
        self.csrf = ""

    def get(self, path: str) -> httpx.Response:
        response = self.http.get(path)
        if (found := CSRF.search(response.text)) is not None:
            self.csrf = found.group(1)
        return response

    def post(
        self, path: str, data: dict[str, str] | None = None, csrf: bool = True, **kw: Any
    ) -> httpx.Response:
        fields = dict(data or {})
        if csrf:
            if not self.csrf:
                self.get("/login")
            fields["csrf"] = self.csrf
        return self.http.post(path, data=fields, **kw)

    def follow(self, link: str, password: str = PASSWORD) -> httpx.Response:
        path = httpx.URL(link).path
        self.get(path)
        response = self.post(path, {"password": password, "again": password})
        assert response.status_code == 303, response.text
        self.get(response.headers["location"])
        return response

    def sign_up(self, name: str, password: str = PASSWORD) -> httpx.Response:
        self.get("/signup")
        response = self.post("/signup", {"name": name, "password": password})
        assert response.status_code == 303, response.text
        self.get("/me")
        return response

    def login(self, name: str, password: str = PASSWORD) -> httpx.Response:
        self.get("/login")
        return self.post("/login", {"name": name, "password": password})

    def upload(self, name: str, data: bytes, runtime: str = "python") -> httpx.Response:
        self.get("/me")
        files = {"file": (name, data, "application/octet-stream")}
        return self.post("/submit", {"runtime": runtime}, files=files)

    def verdict(self, version_url: str, timeout_s: float = 120) -> str:
        """The version page once its verdict is known (polled as the page's own refresh would)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            page = self.get(version_url).text
            if "VERDICT:" in page:
                return page
            time.sleep(0.3)
        raise AssertionError(f"no verdict for {version_url} in {timeout_s} s")


HREF = re.compile(r'href="(/[^"#]*)"')


def crawl(client: Client, starts: list[str], limit: int = 300) -> dict[str, tuple[int, str]]:
    """Every same-site page reachable by links from ``starts``, as ``client`` sees them: path -> (status,
    the page that linked it). Downloads (reports, exports, JSON) are fetched but not followed."""
    seen: dict[str, tuple[int, str]] = {}
    todo = [(path, "(start)") for path in starts]
    while todo and len(seen) < limit:
        path, source = todo.pop(0)
        path = html.unescape(path)
        if path in seen or path.startswith(("/static/", "/logout")):
            continue
        response = client.http.get(path)
        seen[path] = (response.status_code, source)
        if response.status_code == 200 and "text/html" in response.headers.get("content-type", ""):
            todo += [(link, path) for link in HREF.findall(response.text) if link not in seen]
    return seen


DATABASES = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.needs_postgres),
]
"""Every module that uses ``server`` runs once per database (docs/server.md: SQLite by default, PostgreSQL
for a larger competition), so both pass the same tests."""


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    cluster = Postgres()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="module", params=DATABASES)
def server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    sections = getattr(request.module, "COMPETITION", {})
    name = request.module.__name__.rsplit(".", 1)[-1].replace("_", "-")
    database = None
    if request.param == "postgresql":
        if getattr(request.module, "SQLITE_ONLY", False):
            pytest.skip("pages and bots alike on both databases: this module runs on SQLite only (time)")
        database = request.getfixturevalue("postgres").url(name.replace("-", "_"))
    toml = competition_toml(name, database, **sections)
    process = ServerProcess(tmp_path_factory.mktemp("server"), toml, database)
    process.start()
    yield process
    process.stop()
