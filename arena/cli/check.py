"""``arena check-bot`` (a rehearsal against a running bot, or one it launches as an event would) and
``arena version``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer

from arena import __version__
from arena.cli.app import app, echo, fail, one_line_errors


@app.command("check-bot")
def check_bot(
    address: str = typer.Argument(
        "", help="HOST:PORT of a running bot, e.g. 127.0.0.1:50051 (or give --command instead)"
    ),
    command: str = typer.Option(
        "",
        "--command",
        help="launch the bot as an event would, e.g. 'python3 mybot.py --address {address}': in the "
        "sandbox, with the limits below",
    ),
    sandbox: str = typer.Option(
        "bubblewrap", "--sandbox", help="with --command: bubblewrap (default) or none"
    ),
    workdir: Path | None = typer.Option(
        None, "--workdir", help="with --command: the directory the sandbox shows the bot (default: its own)"
    ),
    memory_mb: int | None = typer.Option(None, "--memory-mb", min=16, help="with --command: memory limit"),
    cpu_s: int | None = typer.Option(None, "--cpu-s", min=1, help="with --command: CPU seconds in all"),
    games: int = typer.Option(1, "--games", min=1, help="games per variant option set"),
    decision_ms: int = typer.Option(1000, "--decision-ms", min=1, help="time per decision"),
) -> None:
    """Rehearse a bot as an event plays it; exit 0 pass, 1 fail.

    It plays games of every variant the bot claims, then several at once in every seat, and reports every
    violation."""
    from arena.conductor.checkbot import check_bot as check_running
    from arena.conductor.checkbot import check_command
    from arena.sandbox import SandboxMode

    if bool(address) == bool(command):
        raise fail("give the bot's address or --command to launch it, not both and not neither")
    if not command and (workdir is not None or memory_mb is not None or cpu_s is not None):
        raise fail("--workdir, --memory-mb and --cpu-s apply to a bot launched with --command")
    try:
        mode = SandboxMode(sandbox)
    except ValueError:
        raise fail(f"--sandbox={sandbox}: expected bubblewrap or none") from None
    with one_line_errors():
        if command:
            report = asyncio.run(
                check_command(
                    command,
                    sandbox=mode,
                    workdir=workdir,
                    memory_mb=memory_mb,
                    cpu_s=cpu_s,
                    games_per_config=games,
                    decision_ms=decision_ms,
                    progress=echo,
                    keep=True,
                )
            )
        else:
            report = asyncio.run(check_running(address, games, decision_ms, progress=echo, keep=True))
    for line in report.tail():
        echo(line)
    raise typer.Exit(0 if report.passed else 1)


@app.command()
def version() -> None:
    """Print the arena's version and protocol version."""
    from arena.protocol import PROTOCOL_VERSION

    typer.echo(f"euchre-arena {__version__}, protocol v{PROTOCOL_VERSION}")
