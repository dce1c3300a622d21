"""``arena check-bot`` (a rehearsal against one running bot) and ``arena version``."""

from __future__ import annotations

import typer

from arena import __version__
from arena.cli.app import app


@app.command("check-bot")
def check_bot(
    address: str = typer.Argument(..., help="HOST:PORT of a running bot, e.g. 127.0.0.1:50051"),
    games: int = typer.Option(1, "--games", min=1, help="games per variant option set"),
    decision_ms: int = typer.Option(1000, "--decision-ms", min=1, help="time per decision"),
) -> None:
    """Play some games of every variant the bot claims and report every violation; exit 0 pass, 1 fail."""
    from arena.conductor.checkbot import run_check

    report = run_check(address, games, decision_ms)
    typer.echo(report.render())
    raise typer.Exit(0 if report.passed else 1)


@app.command()
def version() -> None:
    """Print the arena's version and protocol version."""
    from arena.protocol import PROTOCOL_VERSION

    typer.echo(f"euchre-arena {__version__}, protocol v{PROTOCOL_VERSION}")
