"""``arena ask``: a decision of a stored game, exactly as its seat was asked it, shown, exported or sent
again to a bot (one started by hand, e.g. under a debugger, or launched as check-bot launches it)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import typer

from arena.cli.app import app, echo, fail, one_line_errors
from arena.errors import BotError, ConfigError


@app.command()
def ask(
    source: Path = typer.Argument(
        ..., help="an event's output directory (or check-bot's kept games), or a file written by --output"
    ),
    game: str = typer.Argument("", help="game id (e.g. r001-t01) or its number in schedule order"),
    decision: int | None = typer.Option(
        None,
        "--decision",
        "-d",
        min=1,
        help="the decision's number in the game (arena replay and faults --json give it)",
    ),
    hand: int | None = typer.Option(
        None, "--hand", min=1, help="the hand it must be in, from 1 as arena replay counts (a check)"
    ),
    whole_hand: bool = typer.Option(
        False, "--whole-hand", help="every decision of that seat in that hand, in order, on one stream"
    ),
    address: str = typer.Option("", "--address", help="send to the bot running at HOST:PORT or unix:PATH"),
    command: str = typer.Option(
        "", "--command", help="launch the bot as check-bot does, e.g. 'python3 mybot.py --address {address}'"
    ),
    sandbox: str = typer.Option(
        "bubblewrap", "--sandbox", help="with --command: bubblewrap (default) or none"
    ),
    workdir: Path | None = typer.Option(
        None, "--workdir", help="with --command: the directory the sandbox shows the bot (default: its own)"
    ),
    wait_s: float = typer.Option(
        60.0, "--wait-s", min=0, help="how long to wait for each reply (0: for ever, for a debugger)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print the export (JSON) instead of text"),
    output: Path | None = typer.Option(None, "--output", "-o", help="also write the export (JSON) here"),
) -> None:
    """A stored decision, again: the request a seat received.

    Shows the request (the seat's own view only), exports it, or sends it again to a bot and prints the
    reply, its time and what the game played there; exit 0, or 1 when the bot failed to answer a request
    legally."""
    from arena.conductor import ask as asking
    from arena.sandbox import SandboxMode

    if address and command:
        raise fail("give --address or --command, not both")
    if not command and workdir is not None:
        raise fail("--workdir applies to a bot launched with --command")
    try:
        mode = SandboxMode(sandbox)
    except ValueError:
        raise fail(f"--sandbox={sandbox}: expected bubblewrap or none") from None
    with one_line_errors():
        if source.is_file():
            if game or decision is not None or hand is not None or whole_hand:
                raise ConfigError(f"{str(source)!r} is an export: it says which decisions; give no game")
            chosen = asking.load_export(source)
        else:
            if not game:
                raise ConfigError(
                    "give the game (its id or number, as arena games lists them) and --decision"
                )
            game_id, decisions = asking.stored_decisions(source, game)
            chosen = asking.choose(decisions, game_id, decision, hand, whole_hand)
        document = asking.export(chosen)
        if output is not None:
            try:
                output.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"cannot write {str(output)!r}: {exc.strerror or exc}") from None
        answers: list[asking.Answer] | None = None
        heading = ""
        if address or command:
            answers, heading = asyncio.run(_asked(address, command, mode, workdir, chosen, wait_s))
    if as_json:
        if answers is not None:
            for entry, answer in zip(document["decisions"], answers, strict=True):
                entry["answer"] = _answer_dict(answer)
        typer.echo(json.dumps(document, indent=1))
    else:
        if output is not None:
            echo(f"wrote {output} ({len(chosen)} decision{'s' * (len(chosen) != 1)})")
        if heading:
            echo(heading)
        for i, d in enumerate(chosen):
            echo(_describe(d))
            if answers is None:
                if output is None:
                    typer.echo(asking.request_text(d), nl=False)
            else:
                echo(_now(answers[i]))
    raise typer.Exit(1 if answers is not None and any(a.problem for a in answers) else 0)


async def _asked(
    address: str, command: str, mode: Any, workdir: Path | None, chosen: list[Any], wait_s: float
) -> tuple[list[Any], str]:
    from arena.conductor import ask as asking

    if address:
        try:
            identity, answers = await asking.ask_bot(address, chosen, wait_s)
        except BotError as exc:
            raise BotError(f"cannot ask the bot at {address}: {exc}") from None
        where = f"at {address}"
    else:
        logs = Path(tempfile.mkdtemp(prefix="arena-ask-"))
        try:
            async with asking.launched(command, mode, workdir, logs) as bot:
                pid = _program_pid(bot.pid) if not bot.sandbox.sandboxed else None
                shown = f"pid {pid}; " if pid else ""
                where = f"launched as `{command}` ({shown}log {bot.log_path})"
                try:
                    identity, answers = await asking.ask_bot(bot.address, chosen, wait_s)
                except BotError as exc:
                    raise BotError(f"cannot ask the bot: {exc}\n{bot.log_excerpt()}") from None
                if any(a.action is None for a in answers) and not bot.alive():
                    where += f"\nthe bot crashed (its process exited): {bot.log_excerpt()}"
        except BotError as exc:
            raise BotError(f"the bot did not start or answer: {exc}") from None
    name = f"{identity.name!r} version {identity.version!r}"
    return answers, f"asked the bot {name} {where}"


def _program_pid(shim: int | None) -> int | None:
    """The pid of the bot's program, the only child of the shim that launched it (Linux's /proc), or None."""
    if shim is None:
        return None
    try:
        children = Path(f"/proc/{shim}/task/{shim}/children").read_text().split()
    except OSError:
        return None
    return int(children[0]) if len(children) == 1 else None


def _describe(d: Any) -> str:
    played = (
        f"in the game: {d.fault.kind.value} after {d.fault.elapsed_ms:.0f} ms ({d.fault.detail}); "
        f"the arena played {d.played} instead"
        if d.fault is not None
        else f"in the game: {d.played}" + (f" in {d.elapsed_ms:g} ms" if d.elapsed_ms is not None else "")
    )
    exact = "" if d.exact else " (time_bank_ms recomputed from rounded times)"
    return (
        f"game {d.game_id}, hand {d.hand_index + 1}, decision {d.decision_id}: seat {d.seat} ({d.entrant}), "
        f"{d.kind}; legal: {' '.join(d.legal)}{exact}\n  {played}"
    )


def _now(a: Any) -> str:
    if a.action is None:
        return f"  now: {a.problem} (after {a.elapsed_ms:.1f} ms)"
    text = f"  now: {a.action} in {a.elapsed_ms:.1f} ms"
    if a.decision.fault is None:  # the game has the bot's own answer to compare with
        same = a.action == a.decision.played
        text += " (the same as in the game)" if same else f" (in the game it played {a.decision.played})"
    return text + (f"; {a.problem}" if a.problem else "")


def _answer_dict(a: Any) -> dict[str, Any]:
    return {"action": a.action, "elapsed_ms": round(a.elapsed_ms, 2), "problem": a.problem}
