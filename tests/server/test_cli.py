"""`arena serve` and `arena invite` refusing bad input with one line and exit code 2: a bad competition
file, no bubblewrap (unless the competition says sandbox = "none"), a second server on the same
directory, a CSV of nobody; and the database's migrations matching its declared tables."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from arena.server.db.database import open_database
from arena.server.db.models import Base
from tests.postgres import Postgres
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml


def arena(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=60
    )


def one_line(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert done.returncode == code, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("toml", "says"),
    [
        ('name = "x"\ncolour = "red"\n[game]\nvariant = "classic"\n', "unknown key 'colour'"),
        ('name = "x"\n', "game.variant is missing"),
        ('name = "x"\n[game]\nvariant = "classic"\n[ladder]\ntau = -1\n', "ladder.tau=-1"),
        ('name = "x"\n[game]\nvariant = "classic"\n[submissions]\nruntimes = ["cobol"]\n', "runtimes"),
        ('name = "x"\n[game]\nvariant = "classic"\n[people]\nsignup = "maybe"\n', "people.signup"),
        ('name = "bad name!"\n[game]\nvariant = "classic"\n', "name='bad name!'"),
        ("name = ", "is not valid TOML"),
        ('name = "x"\n[game]\nvariant = "classic"\n[executor]\nkind = "ray"\n', "executor.kind='ray'"),
        ('name = "x"\n[game]\nvariant = "classic"\n[executor]\nworkers = 0\n', "executor.workers=0"),
        (
            'name = "x"\n[game]\nvariant = "classic"\n[executor]\nworkers = 2\nscheduler = "tcp://h:1"\n',
            "give only one of workers, scheduler or scheduler_file",
        ),
        ('name = "x"\n[game]\nvariant = "classic"\n[executor]\ntls_cert = "c.pem"\n', "executor.tls_cert"),
        ('name = "x"\n[game]\nvariant = "classic"\n[executor]\nthreads = 2\n', "threads"),
    ],
)
def test_a_bad_competition_is_one_line_and_exit_2(tmp_path: Path, toml: str, says: str) -> None:
    (tmp_path / "c.toml").write_text(toml)
    assert says in one_line(arena("serve", "c.toml", cwd=tmp_path))


def test_no_bubblewrap_no_server(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('name = "x"\nsandbox = "bubblewrap"\n[game]\nvariant = "classic"\n')
    empty = tmp_path / "bin"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    line = one_line(arena("serve", "c.toml", "--port", "1", cwd=tmp_path, env=env))
    assert "cannot sandbox the submitted bots" in line and 'sandbox = "none"' in line


def test_a_second_server_on_the_same_directory(server: ServerProcess) -> None:
    if server.database is not None:
        pytest.skip(
            "on PostgreSQL a second process on one directory is welcome: tests/server/db/test_multi.py"
        )
    line = one_line(arena("serve", str(server.config), "--port", "1", cwd=server.directory))
    assert "another arena is running" in line
    assert server.alive()


def test_invite_refuses_an_empty_list_and_a_taken_name(server: ServerProcess) -> None:
    (server.directory / "nobody.csv").write_text("name,email\n")
    line = one_line(arena("invite", str(server.config), "nobody.csv", cwd=server.directory))
    assert "lists nobody" in line
    assert set(server.invite("zoe,zoe@example.org\n")) == {"zoe"}
    (server.directory / "twice.csv").write_text("yan\nyan\n")
    assert "more than once" in one_line(
        arena("invite", str(server.config), "twice.csv", cwd=server.directory)
    )


def test_submit_note_from_the_terminal(server: ServerProcess) -> None:
    """`arena submit --note`: a bad note is the server's own reason on one line, exit 2, and no version;
    a good one is stored with the version (the API shows it)."""
    nora = Client(server.url)
    nora.sign_up("nora")
    token = nora.post("/me/token").text.split('<code id="token">')[1].split("<")[0]
    send = ("submit", str(SAMPLE_BOT), "--server", server.url, "--token", token, "--no-wait", "--note")
    line = one_line(arena(*send, "x" * 121, cwd=server.directory))
    assert "(400)" in line and "at most 120 characters; this one has 121" in line
    line = one_line(arena(*send, "faster\x07bidding", cwd=server.directory))
    assert "(400)" in line and "printable characters" in line
    assert (
        httpx.get(f"{server.url}/api/status", headers={"Authorization": f"Bearer {token}"}).json()["versions"]
        == []
    )
    done = arena(*send, "bids lower with 3 trumps", cwd=server.directory)
    assert done.returncode == 0 and "uploaded nora v1" in done.stdout, done.stdout + done.stderr
    status = httpx.get(f"{server.url}/api/status", headers={"Authorization": f"Bearer {token}"}).json()
    assert [v["note"] for v in status["versions"]] == ["bids lower with 3 trumps"]


def test_submit_too_large_is_the_servers_limit_and_exit_2(server: ServerProcess, tmp_path: Path) -> None:
    """A compiled bot over the server's upload limit: one line naming the limit, exit 2 (it used to be
    "cannot reach ... Broken pipe" and exit 1 while the server had answered 413), and no version."""
    olga = Client(server.url)
    olga.sign_up("olga")
    token = olga.post("/me/token").text.split('<code id="token">')[1].split("<")[0]
    big = tmp_path / "bot"
    big.write_bytes(os.urandom(3 * 64 * 1024))  # the test competition accepts 64 KB
    done = arena("submit", str(big), "--server", server.url, "--token", token, "--runtime", "executable",
                 cwd=server.directory)  # fmt: skip
    line = one_line(done)
    assert "at most 64 KB" in line and "max_upload_kb" in line, line
    status = httpx.get(f"{server.url}/api/status", headers={"Authorization": f"Bearer {token}"}).json()
    assert status["versions"] == [] and status["limits"] == {"max_upload_kb": 64}
    wrong = arena("submit", str(SAMPLE_BOT), "--server", server.url, "--token", "not-a-token",
                  cwd=server.directory)  # fmt: skip
    assert "(401)" in one_line(wrong)  # every refusal is the server's reason and exit 2


def test_the_migrations_create_exactly_the_declared_tables(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    with db.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    db.close()
    again = open_database(f"sqlite:///{tmp_path / 'fresh.sqlite'}")  # an up-to-date database: no-op
    again.close()


def test_head_is_the_newest_migration_and_a_database_at_it_is_opened_without_alembic(tmp_path: Path) -> None:
    """``database.HEAD`` lets a start skip alembic (a tenth of the server's start): it must be the newest
    revision, or a database one migration behind would be opened unmigrated."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from arena.server.db import database

    config = Config()
    config.set_main_option("script_location", str(database.MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_heads() == [database.HEAD]
    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    database.open_database(url).close()  # created and migrated
    code = (
        "import sys; from arena.server.db.database import open_database; "
        f"open_database({url!r}).close(); print(sorted(m for m in sys.modules if m.startswith('alembic')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


@pytest.mark.needs_postgres
def test_the_migrations_create_exactly_the_declared_tables_on_postgresql(postgres: Postgres) -> None:
    db = open_database(postgres.url("migrations"))
    with db.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    db.close()


def _unreachable_urls() -> list[str]:
    from tests.server.conftest import free_port

    port = free_port()  # nothing listens there
    return [
        f"postgresql+psycopg://arena:hunter2secret@127.0.0.1:{port}/x",
        "postgresql+nosuchdriver://arena:hunter2secret@127.0.0.1/x",
        "postgresql://arena:hunter2secret@127.0.0.1:notaport/x",
    ]


@pytest.mark.parametrize("index", range(3))
def test_a_bad_database_url_is_one_line_that_never_shows_its_password(tmp_path: Path, index: int) -> None:
    url = _unreachable_urls()[index]
    toml = competition_toml("x", url).replace('sandbox = "bubblewrap"', 'sandbox = "none"')
    (tmp_path / "c.toml").write_text(toml)
    done = arena("serve", "c.toml", "--port", "1", cwd=tmp_path)
    line = one_line(done)
    assert "hunter2secret" not in done.stdout + done.stderr, line
    assert "database" in line


@pytest.mark.needs_postgres
def test_a_wrong_postgresql_password_is_one_line_without_it(tmp_path: Path, postgres: Postgres) -> None:
    url = postgres.url("wrongpassword").replace(postgres.password, "hunter2secret")
    toml = competition_toml("x", url).replace('sandbox = "bubblewrap"', 'sandbox = "none"')
    (tmp_path / "c.toml").write_text(toml)
    done = arena("serve", "c.toml", cwd=tmp_path)
    line = one_line(done)
    assert "hunter2secret" not in done.stdout + done.stderr and "password authentication failed" in line


@pytest.mark.needs_postgres
def test_a_second_server_with_another_deal_key_on_the_same_postgresql_database_is_refused(
    tmp_path: Path, postgres: Postgres
) -> None:
    """Several processes may share a database (test_multi.py), but only with one data directory: a
    second directory has another deal key, and two ladders would deal apart. Refused, while the first runs
    and after it stopped alike (the key is bound in the database)."""
    url = postgres.url("shared")
    toml = competition_toml("x", url).replace('sandbox = "bubblewrap"', 'sandbox = "none"')
    (tmp_path / "a").mkdir()
    first = ServerProcess(tmp_path / "a", toml, url)
    first.start()
    try:
        (tmp_path / "b").mkdir()
        (tmp_path / "b" / "c.toml").write_text(toml)
        line = one_line(arena("serve", "c.toml", "--port", "1", cwd=tmp_path / "b"))
        assert (
            "is not the one this database's games were dealt with" in line and postgres.password not in line
        )
        assert first.alive()
    finally:
        first.stop()
    line = one_line(arena("serve", "c.toml", "--port", "1", cwd=tmp_path / "b"))
    assert "same data directory" in line
    first.start()  # its own directory is still welcome
    first.stop()


def test_a_database_from_a_newer_arena_is_refused(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "results" / "x" / "server.sqlite"
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        raw.execute("INSERT INTO alembic_version VALUES ('9999')")
    (tmp_path / "c.toml").write_text(
        competition_toml("x").replace('sandbox = "bubblewrap"', 'sandbox = "none"')
    )
    assert "written by a newer euchre-arena" in one_line(arena("serve", "c.toml", cwd=tmp_path))


def test_the_example_competition_is_valid() -> None:
    from arena.server.settings import load_competition
    from tests.helpers import ROOT

    config = load_competition(ROOT / "examples" / "server" / "competition.toml")
    assert config.name == "class-ladder" and config.ladder.tau > 0
