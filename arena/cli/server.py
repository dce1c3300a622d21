"""``arena serve`` (the competition server), ``arena invite`` (links for a class), and ``arena submit`` /
``arena status`` (an entrant's terminal, through the JSON API). docs/server.md is the walk-through."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

if TYPE_CHECKING:
    from arena.server.accounts.service import Accounts
    from arena.server.settings import CompetitionConfig

from arena.cli.app import app, fail, one_line_errors
from arena.errors import ConfigError
from arena.text import printable
from arena.userfiles import LIST_LIMIT, UPLOAD_LIMIT, check_user_file, read_user_text

T = TypeVar("T")

_NEEDS_EXTRA = "the competition server needs its libraries: pip install -e '.[server]'"


def _competition(path: Path) -> CompetitionConfig:
    try:
        from arena.server.settings import load_competition
    except ImportError:
        raise fail(_NEEDS_EXTRA) from None
    return load_competition(path)


@app.command()
def serve(
    competition: Path = typer.Argument(..., help="the competition (TOML); see docs/server.md"),
    host: str = typer.Option("127.0.0.1", help="address to listen on"),
    port: int = typer.Option(8000, min=1, max=65535, help="port to listen on"),
    role: str = typer.Option(
        "all",
        help="all: pages, checks and ladder; web: pages and API only; ladder: checks and games too "
        "(web and ladder: several processes on one PostgreSQL database, docs/server.md)",
    ),
) -> None:
    """Run the competition server: pages, checks and the live ladder."""
    with one_line_errors():
        if role not in ("all", "web", "ladder"):
            raise fail(f"--role {role!r}: expected all, web or ladder")
        config = _competition(competition)
        from arena.server.app import serve as run_server
        from arena.server.db.multi import Role

        run_server(config, host, port, lambda line: typer.echo(line), Role(role))


def _rows(path: Path) -> list[tuple[str, str]]:
    try:
        text = read_user_text(path, "list of people", LIST_LIMIT)  # a regular file, checked before it is read
    except ConfigError as exc:
        raise fail(str(exc)) from None
    try:
        rows = [r for r in csv.reader(io.StringIO(text, newline="")) if r and any(c.strip() for c in r)]
    except csv.Error as exc:
        raise fail(f"{str(path)!r} is not a CSV file of name,e-mail rows: {exc}") from None
    if rows and [c.strip().lower() for c in rows[0][:2]] in (["name", "email"], ["name", "e-mail"], ["name"]):
        rows = rows[1:]
    if not rows:
        raise fail(f"{str(path)!r} lists nobody: one row per person, name,e-mail (or an id)")
    return [(r[0].strip(), r[1].strip() if len(r) > 1 else "") for r in rows]


def _links(
    config: CompetitionConfig, what: Path, make: Callable[[Accounts], T], host: str | None, port: int | None
) -> tuple[T, str]:
    """``make``'s links, made on the competition's database from this machine, and the address to print
    them with (a warning first when that address is only a guess).

    :raises ConfigError: what the accounts refuse, named by ``what``.
    """
    from arena.errors import ConfigError
    from arena.server.accounts.service import Accounts
    from arena.server.db.database import open_database
    from arena.server.errors import Refused

    db = open_database(config.database_url)
    try:
        made = make(Accounts(db, config))
    except Refused as exc:
        raise ConfigError(f"{what}: {exc.message}") from None
    finally:
        db.close()
    base, warning = config.link_base(host, port)
    if warning:
        typer.echo(f"warning: {warning}", err=True)
    return made, base


@app.command()
def invite(
    competition: Path = typer.Argument(..., help="the competition (TOML)"),
    people: Path = typer.Argument(..., help="CSV: one row per person, name,e-mail (or an id)"),
    host: str | None = typer.Option(
        None, help="the server's address in the links (default: url in the TOML, else where it last ran)"
    ),
    port: int | None = typer.Option(None, help="the server's port in the links (the same default)"),
) -> None:
    """Print one single-use invitation link per person, to hand out."""
    with one_line_errors():
        config = _competition(competition)
        rows = _rows(people)
        made, base = _links(config, people, lambda accounts: accounts.invite(rows), host, port)
        for one in made:
            typer.echo(f"{one.name}\t{one.email}\t{base}/link/{one.token}")


@app.command("login-link")
def login_link(
    competition: Path = typer.Argument(..., help="the competition (TOML)"),
    name: str = typer.Option("organiser", help="the account to let back in"),
    host: str | None = typer.Option(
        None, help="the server's address in the link (default: url in the TOML, else where it last ran)"
    ),
    port: int | None = typer.Option(None, help="the server's port in the link (the same default)"),
) -> None:
    """A one-time link to set a new password (organiser or anyone).

    Whoever cannot log in gets back in from the server's machine, however many wrong passwords others
    tried."""
    with one_line_errors():
        config = _competition(competition)
        token, base = _links(config, competition, lambda accounts: accounts.login_link(name), host, port)
        typer.echo(f"{name}: set a new password at {base}/link/{token}")


def _token(token: str | None) -> str:
    token = token or os.environ.get("ARENA_TOKEN")
    if not token:
        raise fail("an API token is needed: --token TOKEN or ARENA_TOKEN (make one on your page, /me)")
    return token


def _violations(server: str, version: dict[str, Any], indent: str = "  ") -> list[str]:
    """Each violation of a version's check, and beside it the page of the request the bot received at
    that decision (``/versions/ID/check/GAME/N``: its download is what ``arena ask`` sends again)."""
    check = version.get("check") or {}
    at = check.get("violation_decisions") or []
    lines = []
    for k, line in enumerate(check.get("violations") or []):
        lines.append(f"{indent}violation: {printable(str(line))}")
        where = at[k] if k < len(at) else None
        if isinstance(where, list) and len(where) == 2:
            url = f"{server.rstrip('/')}/versions/{version['id']}/check/{where[0]}/{where[1]}"
            lines.append(f"{indent}  the request it received (for arena ask): {printable(url)}")
    return lines


@app.command()
def submit(
    file: Path = typer.Argument(..., help="bot.py, a program, or a .zip / .tar.gz"),
    server: str = typer.Option(..., "--server", help="the server's URL, e.g. http://127.0.0.1:8000"),
    token: str | None = typer.Option(None, "--token", help="your API token (or ARENA_TOKEN)"),
    runtime: str = typer.Option(
        "python", help="python, executable, executable-port or node (as the competition offers)"
    ),
    wait: bool = typer.Option(True, "--wait/--no-wait", help="wait for the check's verdict"),
    note: str = typer.Option("", "--note", help="what changed in this version (at most 120 characters)"),
) -> None:
    """Upload a new version and wait for its verdict.

    Exit code: 0 pass, 1 fail, 2 the server refused the upload."""
    from arena.cli.client import submit as send
    from arena.cli.client import wait_verdict

    with one_line_errors():
        check_user_file(file, "upload", UPLOAD_LIMIT)  # not /dev/zero, a FIFO or a directory
        key = _token(token)
        version = send(server, key, file, runtime, note)
        typer.echo(f"uploaded {version['entrant']} {version['version']}: checking")
        if not wait:
            return
        version = wait_verdict(server, key, version["id"])
        for line in _violations(server, version):
            typer.echo(line)
        typer.echo(f"VERDICT: {'PASS' if version['status'] == 'passed' else 'FAIL'} ({version['status']})")
    raise typer.Exit(0 if version["status"] == "passed" else 1)


@app.command()
def status(
    server: str = typer.Option(..., "--server", help="the server's URL"),
    token: str | None = typer.Option(None, "--token", help="your API token (or ARENA_TOKEN)"),
) -> None:
    """Your versions, their checks, and your place on the ladder."""
    from arena.cli.client import status as ask

    with one_line_errors():
        reply = ask(server, _token(token))
    row = reply["standing"]
    typer.echo(
        f"{reply['entrant']}: "
        + (
            f"place {row.get('place', row['rank'])} on the ladder with {row['version']}, {row['games']} games"
            if row
            else "not on the ladder"
        )
    )
    for v in reply["versions"]:
        typer.echo(f"  {v['version']}\t{v['status']}{'  (active)' if v['active'] else ''}\t{v['filename']}")
        for line in _violations(server, v, "    "):
            typer.echo(line)
