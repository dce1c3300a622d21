"""The ``arena`` command. Thin on purpose: every command parses its arguments, calls one function that a
test could call directly, and prints."""

from __future__ import annotations

import typer

from arena import __version__

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="euchre-arena: tournaments of five-handed Euchre bots over gRPC.",
)


@app.command("check-bot")
def check_bot(
    address: str = typer.Argument(..., help="HOST:PORT of a running bot, e.g. 127.0.0.1:50051"),
    games: int = typer.Option(1, "--games", min=1, help="games per variant option set"),
    decision_ms: int = typer.Option(
        1000, "--decision-ms", min=1, help="time per decision, as in a tournament"
    ),
) -> None:
    """Play some hands of every variant the bot claims and report every violation; exit 0 pass, 1 fail."""
    from arena.checkbot import run_check

    report = run_check(address, games, decision_ms)
    typer.echo(report.render())
    raise typer.Exit(0 if report.passed else 1)


@app.command()
def version() -> None:
    """Print the arena's version and protocol version."""
    from arena.protocol import PROTOCOL_VERSION

    typer.echo(f"euchre-arena {__version__}, protocol v{PROTOCOL_VERSION}")
