"""check-bot says in one line when a failure is the bot's crash, with the end of its log: a bot that exits
in mid-game and one that exits on ``Hello`` (whose gRPC error alone, "UNAVAILABLE Stream removed", says
nothing of a crash). Real processes; launched without the sandbox (what is tested is the wording).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.conductor.checkbot import _crash_reason, check_bot, check_command
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


@pytest.mark.parametrize(
    ("log", "reason"),
    [
        (
            "go-first listening on unix:/run/arena/bot.sock\n"
            "panic: protobuf tag not enough fields in HelloRequest.state: \n\ngoroutine 7 [running]:\n"
            + "main.x()\n\t/src/bot.go:1 +0x1\n" * 40
            + "[arena] bot exited with status 2\n",
            "panic: protobuf tag not enough fields in HelloRequest.state:",
        ),
        (
            'Traceback (most recent call last):\n  File "bot.py", line 3, in act\n'
            "ZeroDivisionError: division by zero\n[arena] bot exited with status 1\n",
            "ZeroDivisionError: division by zero",
        ),
        (
            'Exception in thread "main" java.lang.IllegalStateException: boom\n\tat Bot.main(Bot.java:9)\n',
            'Exception in thread "main" java.lang.IllegalStateException: boom',
        ),
        ("chaos listening on 127.0.0.1:5\n[arena] bot exited with status 3\n", ""),
    ],
)
def test_the_crash_line_names_why_the_runtime_died(tmp_path: Path, log: str, reason: str) -> None:
    """The reason a runtime prints as it dies, which its stack trace pushes out of the log's last lines."""
    path = tmp_path / "bot.log"
    path.write_text(log)
    assert _crash_reason(path) == reason
