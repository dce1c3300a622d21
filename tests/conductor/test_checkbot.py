"""``check_bot`` and ``arena check-bot`` (arena.conductor.checkbot): the Python sample bots pass; each chaos
bot of ``tests/bots/chaos.py`` fails, named by its violation. Each bot is a real process, always stopped.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.conductor.checkbot import check_bot
from arena.event.faults import FaultPolicy
from arena.players.process import ManagedBot
from tests.helpers import CHAOS, arena_cli, check_launched, configured_bot, launched, sample_bot

SAMPLE_BOTS = ["random", "rules", "montecarlo"]


@pytest.mark.parametrize("module", SAMPLE_BOTS)
def test_check_bot_passes_the_sample_bots(module: str, tmp_path: Path) -> None:
    if importlib.util.find_spec(f"sample_bots.{module}") is None:
        pytest.skip(f"sample_bots.{module} does not exist (yet)")
    if module == "montecarlo":
        # The Monte-Carlo bot searches until its sample cap (200) or nearly all of its time is used, which
        # makes the 8 check games take about 90 s at the default 1000 ms. The same class under the same SDK
        # entry point, with a cap of 8 samples, keeps this test to a few seconds and independent of the
        # machine's load (a short decision time instead makes it time out on a busy machine).
        bot = configured_bot(module, "montecarlo", "MonteCarloBot", "samples=8", tmp_path)
    else:
        bot = sample_bot(module, tmp_path)
    report = check_launched(bot)
    assert report.passed, report.render()
    assert report.violations == []
    assert report.identity is not None and report.identity.name == module
    assert set(report.identity.variants) == {"call-ace", "five-handed", "classic"}
    assert report.health == "SERVING"
    assert len(report.games) == 8 and report.decisions > 0
    assert {"BID_ROUND_1", "BID_ROUND_2", "DISCARD", "CALL", "PLAY"} <= report.kinds_seen
    assert "VERDICT: PASS" in report.render()


CHAOS_VIOLATIONS = {
    "slow": r"timeout in game check-1, .* did not answer within 300 ms",
    "crash": r"crashed in game check-1, ",
    "illegal": r"illegal action in game check-1, .* played PLAY\(\w+\) at PLAY; legal were PLAY\(",
    "garbage": r"malformed reply in game check-1, .* sent a malformed action: invalid card 'ZZ'",
    "wrong_version": (
        r"handshake failed: bot at 127\.0\.0\.1:\d+ speaks protocol version 2, the arena speaks 1$"
    ),
    "close_early": r"stream closed in game check-1, .* closed its stream before the game ended",
    "raises": r"error status in game check-1, .*INTERNAL .*raising on purpose",
}


@pytest.mark.parametrize("mode", list(CHAOS_VIOLATIONS))
def test_check_bot_fails_the_chaos_bots_naming_the_violation(mode: str, tmp_path: Path) -> None:
    bot = chaos_bot(mode, tmp_path)

    async def main() -> Any:
        async with launched(bot) as address:
            # a short decision time for the slow bot; the others get the default, so that a loaded machine
            # cannot add a timeout to the violation under test
            return await check_bot(address, games_per_config=1, decision_ms=300 if mode == "slow" else 1000)

    report = asyncio.run(main())
    text = report.render()
    assert not report.passed, text
    assert "VERDICT: FAIL" in text
    pattern = re.compile(CHAOS_VIOLATIONS[mode])
    assert report.violations, text
    assert all(pattern.match(v) for v in report.violations), text
    if mode == "wrong_version":
        assert report.identity is None and report.games == []
    else:
        # the bot forfeits its first game (3 faults allowed, the 4th forfeits) and the check stops there
        assert len(report.violations) == FaultPolicy().max_faults_per_game + 1, text
        assert report.games == [g for g in report.games if "forfeited" in g] and len(report.games) == 1, text


async def run_cli(*args: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "from arena.cli import app; app()",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode()


@pytest.mark.parametrize(("which", "code"), [("random", 0), ("wrong_version", 1)])
def test_cli_check_bot_exit_code(which: str, code: int, tmp_path: Path) -> None:
    bot = sample_bot(which, tmp_path) if which == "random" else chaos_bot(which, tmp_path)

    async def main() -> tuple[int, str]:
        async with launched(bot) as address:
            return await run_cli("check-bot", address)

    rc, out = asyncio.run(main())
    assert rc == code, out
    assert ("VERDICT: PASS" if code == 0 else "VERDICT: FAIL") in out
    lines = [line for line in out.splitlines() if not line.startswith("    ")]  # not a wrapped line's rest
    assert len(lines) == len(set(lines)), f"a line printed twice (output piped):\n{out}"
    out = " ".join(out.split())  # lines are wrapped on words at 80 columns
    if code == 0:
        assert out.count("games at once in every seat") == 2, out
    if code:
        assert "handshake failed" in out and "speaks protocol version 2" in out


def chaos_bot(mode: str, log_dir: Path) -> ManagedBot:
    return ManagedBot(
        f"chaos-{mode}", f"{{python}} {CHAOS} --mode {mode} --port {{port}}", log_dir / f"chaos-{mode}.log"
    )


def test_check_bot_command_fails_a_bot_that_serves_one_stream_at_a_time() -> None:
    """The bot passes every one-seat game; the games played at once (ten streams) time out, and the
    verdict says why. Launched by check-bot itself, as ``--command`` does (no sandbox: not what this
    tests)."""
    result = arena_cli(
        "check-bot",
        "--sandbox",
        "none",
        "--decision-ms",
        "500",
        "--command",
        f"{{python}} {CHAOS} --mode one_stream --port {{port}}",
        timeout=180,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    text = " ".join(result.stdout.split())  # lines are wrapped on words at 80 columns
    assert "VERDICT: FAIL" in text
    assert "with 10 streams open at once: timeout in game parallel-1" in text
    assert "with 2 games at once the bot failed" in text and "serve concurrent PlayGame" in text
    assert "in every seat: game parallel-2" in text, "both parallel games were played"


@pytest.mark.needs_bwrap
def test_check_bot_command_fails_a_bot_that_cannot_start_in_the_sandbox(tmp_path: Path) -> None:
    """A bot that reads a file outside its own directory starts on the author's machine and not in the
    event's sandbox: ``--command`` shows that before the event, with the bot's own words from its log."""
    tmp_path.chmod(0o755)  # as root the sandbox runs the bot as nobody, who must be able to read it
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "model.txt").write_text("weights\n")
    (tmp_path / "bot").mkdir()
    bot = tmp_path / "bot" / "bot.py"
    bot.write_text(
        "import sys\n"
        f"open({str(tmp_path / 'data' / 'model.txt')!r}).read()\n"
        "from arena.bot import run\nfrom sample_bots.random import RandomBot\nrun(RandomBot)\n"
    )
    command = f"{{python}} {bot} --address {{address}}"
    temp = tmp_path / "temp"  # where check-bot makes the bot's log directory
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp))
    outside = arena_cli("check-bot", "--sandbox", "none", "--command", command, env=env)
    assert outside.returncode == 0 and "VERDICT: PASS" in outside.stdout, outside.stdout + outside.stderr
    assert list(temp.iterdir()) == [], "a passing check's log, which nothing names, is not left behind"
    inside = arena_cli("check-bot", "--command", command, env=env)
    assert inside.returncode == 1, inside.stdout + inside.stderr
    text = " ".join(inside.stdout.split())  # lines are wrapped on words at 80 columns
    assert "(in the sandbox)" in text and "the bot did not start" in text
    assert "model.txt" in text and "VERDICT: FAIL" in text
    [kept] = temp.iterdir()  # a failing check's log is kept, where its report says
    assert str(kept / "bot.log") in text


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("127.0.0.1:1", "--command", "x {address}"),
        ("127.0.0.1:1", "--memory-mb", "64"),
        ("--command", "x", "--sandbox", "jail"),
    ],
)
def test_check_bot_bad_arguments_are_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    result = arena_cli("check-bot", *args)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and result.stderr.startswith("error:"), (
        result.stderr
    )
