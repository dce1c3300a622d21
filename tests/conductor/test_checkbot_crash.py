"""check-bot says in one line when a failure is the bot's crash, with the end of its log: a bot that exits
in mid-game and one that exits on ``Hello`` (whose gRPC error alone, "UNAVAILABLE Stream removed", says
nothing of a crash). Real processes; launched without the sandbox (what is tested is the wording).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from arena.conductor.checkbot import check_bot, check_command
from arena.players.process import ManagedBot
from arena.sandbox import SandboxMode
from tests.helpers import CHAOS, arena_cli, launched


def command(mode: str) -> str:
    return f"{sys.executable} {CHAOS} --mode {mode} --port {{port}}"


def test_a_bot_that_exits_in_mid_game_is_said_to_have_crashed_with_its_log() -> None:
    report = asyncio.run(check_command(command("crash"), sandbox=SandboxMode.NONE))
    assert not report.passed
    assert report.crash.startswith("the bot crashed: its process exited during the check; its log "), (
        report.crash
    )
    assert "bot exited with status 3" in report.crash  # the log's end, which the shim closes with the status
    tail = "\n".join(report.tail())
    assert tail.index("the bot crashed") < tail.index("violation(s):"), tail


def test_a_bot_that_exits_on_hello_is_said_to_have_crashed() -> None:
    report = asyncio.run(check_command(command("crash_hello"), sandbox=SandboxMode.NONE))
    assert report.identity is None and report.violations[0].startswith("handshake failed: "), report.render()
    assert report.crash.startswith("the bot crashed: its process exited during the check"), report.render()


def test_a_running_bot_that_drops_the_connection_on_hello_is_said_to_have_crashed_probably(
    tmp_path: Path,
) -> None:
    bot = ManagedBot("crash-hello", command("crash_hello"), tmp_path / "bot.log")

    async def main() -> Any:
        async with launched(bot) as address:
            return await check_bot(address)

    report = asyncio.run(main())
    assert report.violations[0].startswith("handshake failed: "), report.render()
    assert "UNAVAILABLE" in report.violations[0]
    assert report.crash.startswith(
        "crashed? the bot accepted the connection and then dropped it during Hello"
    )


def test_a_bot_nobody_runs_is_not_said_to_have_crashed() -> None:
    """Connection refused is not a crash on Hello: nothing was listening."""
    report = asyncio.run(check_bot("127.0.0.1:9", games_per_config=1))
    assert report.violations and report.violations[0].startswith("handshake failed: ")
    assert report.crash == ""


def test_the_cli_prints_the_crash_line() -> None:
    done = arena_cli("check-bot", "--command", command("crash_hello"), "--sandbox", "none", timeout=120)
    assert done.returncode == 1
    out = " ".join(done.stdout.split())
    assert "the bot crashed: its process exited during the check; its log " in out, done.stdout
    assert "VERDICT: FAIL" in out
