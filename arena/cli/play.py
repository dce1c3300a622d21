"""``arena play``: play a seat yourself against bots, in the browser, on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from arena.cli.app import app, echo, one_line_errors
from arena.errors import ConfigError
from arena.protocol import loops

if TYPE_CHECKING:
    from arena.play.session import PlaySession


def _option_value(text: str) -> Any:
    """A rule option's value as TOML would read it: a whole number, true/false, or the text."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _options(given: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in given or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--option {item!r}: expected KEY=VALUE, e.g. --option target=5")
        out[key.strip()] = _option_value(value.strip())
    return out


def _listen(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1 only (``port`` 0: a free one).

    :raises ConfigError: the port is taken or not ours to use.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(16)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}; try --port 0") from None
    return sock


async def _serve(session: PlaySession, sock: socket.socket, url: str, browser: bool, key: str) -> int:
    """Serve the page while the game is played; returns the exit code (130: interrupted)."""
    import uvicorn

    from arena.play.web import create_play_app

    server = uvicorn.Server(
        uvicorn.Config(
            create_play_app(session, key),
            log_level="warning",
            lifespan="off",
            access_log=False,
            timeout_graceful_shutdown=2,  # a page's long poll never holds the exit up
        )
    )
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    await asyncio.sleep(0)
    echo(f"arena play: your table is at {url}")
    if browser:
        import webbrowser

        if not webbrowser.open(url):
            echo("(no browser could be opened here: open the address above yourself)")
    game = asyncio.create_task(session.run())
    try:
        await asyncio.wait({game, serving}, return_when=asyncio.FIRST_COMPLETED)
        if not game.done():  # the server stopped first: Ctrl-C
            game.cancel()
            await asyncio.gather(game, return_exceptions=True)
            typer.echo("\ninterrupted: the game was not finished, and is not stored", err=True)
            return 130
        result = game.result()  # raises what stopped the game (a StoreError: one line)
        names = session.seat_names
        order = sorted(range(len(names)), key=lambda s: result.ranks[s])
        echo(
            "game over: "
            + ", ".join(f"{names[s]} {result.scores[s]} (rank {result.ranks[s]})" for s in order)
        )
        echo(f"stored in {session.stored}; replay it with: arena replay {session.stored} play")
        echo("the page stays open: click Finish there, or press Ctrl-C here")
        finished = asyncio.create_task(session.finished.wait())
        await asyncio.wait({finished, serving}, return_when=asyncio.FIRST_COMPLETED)
        finished.cancel()
        return 0
    finally:
        server.should_exit = True
        await asyncio.gather(serving, return_exceptions=True)
        if not game.done():
            game.cancel()


@app.command()
def play(
    variant: str = typer.Option("five-handed", help="call-ace, five-handed or classic"),
    bots: str = typer.Option(
        "rules",
        help="the bots in the other seats, comma-separated in seat order: random, rules, noisy, montecarlo, "
        "champion or package.module:Class (one name fills every seat)",
    ),
    seat: int = typer.Option(0, help="your seat (0 deals first)"),
    name: str = typer.Option("human", help="your name in the stored game"),
    seed: int | None = typer.Option(None, min=0, max=2**63 - 1, help="fixes the deals (default: random)"),
    deadline: float = typer.Option(
        60.0,
        help="seconds for each of your decisions; then the autopilot plays your seat until you come back",
    ),
    autopilot: str = typer.Option("rules", help="the bot that plays your seat when you are away"),
    pace: float = typer.Option(0.6, help="seconds each bot waits before it acts, so you can follow"),
    option: list[str] | None = typer.Option(
        None, "--option", help="a rule option KEY=VALUE (repeat), e.g. --option target=5"
    ),
    port: int = typer.Option(0, min=0, max=65535, help="the port on 127.0.0.1 (0: a free one)"),
    output: Path = typer.Option(
        Path("results/play"), help="each game is stored in a new numbered directory under this one"
    ),
    no_browser: bool = typer.Option(False, "--no-browser", help="only print the address; open no browser"),
) -> None:
    """Play a seat yourself against bots, in your browser.

    The arena's own table referees the game (a move that is not legal is refused with the reason), your page
    shows what a bot in your seat is given, and the finished game is stored so that arena replay shows it.
    Served on 127.0.0.1 only, at an address with a key of its own."""
    from arena.play.session import PlaySession, PlaySettings
    from arena.play.web import new_key

    # A bot given as module:Class is looked for in the current directory too, where a student's bot.py is
    # (a console script's sys.path starts with the script's own directory, not the current one).
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    with one_line_errors():
        settings = PlaySettings(
            variant=variant,
            bots=tuple(b for b in bots.split(",") if b.strip()) or ("rules",),
            seat=seat,
            name=name,
            seed=seed,
            deadline_s=deadline,
            autopilot=autopilot,
            pace_s=pace,
            output=output,
            options=_options(option),
        )
        session = PlaySession(settings)
        sock = _listen(port)
    key = new_key()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/?key={key}"
    try:
        with one_line_errors():
            code = loops.run(_serve(session, sock, url, not no_browser, key))
    except KeyboardInterrupt:
        typer.echo("\ninterrupted: the game was not finished, and is not stored", err=True)
        raise typer.Exit(130) from None
    raise typer.Exit(code)
