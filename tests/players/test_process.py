"""Launched bots (arena.players.process) misbehaving as real processes over loopback: every game completes,
the fault is recorded with the right kind, the other seats are untouched; slow and failed starts, restarts
with backoff, the log cap, and no process left behind, even when the arena is killed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.engine import GameConfig
from arena.errors import BotCrashed, BotTimeout, FaultKind, ProtocolMismatch
from arena.event.faults import FaultPolicy
from arena.event.table import TableResult, TableSpec, play_table
from arena.players.connection import BotConnection
from arena.players.inprocess import InProcessPlayer
from arena.players.process import ManagedBot, RestartBackoff
from arena.players.remote import RemotePlayer
from arena.players.shim import group_members
from arena.results.record import Fault
from sample_bots.random import RandomBot
from tests.helpers import CHAOS

POLICY = FaultPolicy(decision_ms=300, max_faults_per_game=3)


def charged(result: TableResult) -> list[Fault]:
    """The bot's faults, without the arena's own lateness (``harness``: a loaded machine's, never charged,
    and not what these tests are about)."""
    return [f for f in result.faults if f.charged]


def chaos_bot(mode: str, log_dir: Path, **kwargs: object) -> ManagedBot:
    return ManagedBot(
        f"chaos-{mode}",
        f"{{python}} {CHAOS} --mode {mode} --port {{port}}",
        log_dir / f"{mode}.log",
        **kwargs,
    )  # type: ignore[arg-type]


async def play_against(bot: ManagedBot, variant: str = "five-handed", seed: int = 11) -> TableResult:
    """Seat 0: the bot under test (over gRPC); the other seats: in-process random bots."""
    await bot.ensure_running()
    connection = BotConnection(bot.address)
    try:
        config = GameConfig.create(variant)
        players = [RemotePlayer(connection, bot.name)] + [
            InProcessPlayer(RandomBot, f"random-{s}") for s in range(1, config.num_players)
        ]
        spec = TableSpec("g1", config, seed, tuple(p.name for p in players), POLICY)
        return await play_table(spec, players)
    finally:
        await connection.close()


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("slow", FaultKind.TIMEOUT),
        ("crash", FaultKind.CRASHED),
        ("illegal", FaultKind.ILLEGAL_ACTION),
        ("raises", FaultKind.ERROR_STATUS),
        ("garbage", FaultKind.MALFORMED_REPLY),
        ("wrong_message", FaultKind.MALFORMED_REPLY),
        ("wrong_id", FaultKind.MALFORMED_REPLY),
        ("huge", FaultKind.OVERSIZED),
        ("flood", FaultKind.MALFORMED_REPLY),
        ("close_early", FaultKind.STREAM_CLOSED),
    ],
)
def test_misbehaving_bot_is_faulted_and_the_game_completes(
    mode: str, kind: FaultKind, tmp_path: Path
) -> None:
    bot = chaos_bot(mode, tmp_path)

    async def scenario() -> tuple[TableResult, int | None]:
        try:
            result = await play_against(bot)
            return result, bot.pid
        finally:
            await bot.stop()

    result, pgid = asyncio.run(scenario())
    assert result.outcome is not None and result.decisions > 0
    kinds = Counter(f.kind for f in charged(result))
    assert set(kinds) == {kind}, result.faults
    assert {f.seat for f in charged(result)} == {0}, "only the misbehaving seat is faulted"
    assert kinds[kind] == POLICY.max_faults_per_game + 1, "faults stop at the forfeit: the autopilot plays on"
    assert result.forfeited == (0,)
    assert result.ranks[0] == max(result.ranks), "the forfeiter ranks last"
    assert sorted(result.ranks[1:])[0] == 1, "someone else wins"
    fault = charged(result)[0]
    assert fault.entrant == "chaos-" + mode and fault.game_id == "g1" and fault.substitute
    assert pgid is not None and group_members(pgid) == []


def test_fault_detail_names_what_went_wrong(tmp_path: Path) -> None:
    bot = chaos_bot("illegal", tmp_path)

    async def scenario() -> TableResult:
        try:
            return await play_against(bot)
        finally:
            await bot.stop()

    fault = charged(asyncio.run(scenario()))[0]
    assert "played PLAY(" in fault.detail and "legal were" in fault.detail
    assert fault.substitute.startswith("PLAY(")


def test_wrong_protocol_version_is_refused_with_both_versions(tmp_path: Path) -> None:
    bot = chaos_bot("wrong_version", tmp_path)

    async def scenario() -> None:
        await bot.start()
        connection = BotConnection(bot.address)
        try:
            await connection.hello()
        finally:
            await connection.close()
            await bot.stop()

    with pytest.raises(ProtocolMismatch, match=r"version 2.*speaks 1"):
        asyncio.run(scenario())


def test_slow_starting_bot_is_waited_for(tmp_path: Path) -> None:
    """The bot serves only 3 s after it was launched: the start waits for it (so it takes at least that
    long, whatever the machine's load), and the game then finds it serving."""
    bot = chaos_bot("slow_start", tmp_path, startup_timeout_s=15)

    async def scenario() -> tuple[float, TableResult]:
        try:
            began = time.monotonic()
            await bot.start()
            took = time.monotonic() - began
            return took, await play_against(bot)
        finally:
            await bot.stop()

    took, result = asyncio.run(scenario())
    assert took >= 3.0, f"started in {took:.2f} s: the start was not slow, or was not waited for"
    assert charged(result) == [] and result.decisions > 0


def test_bot_that_never_starts_fails_clearly_and_is_cleaned_up(tmp_path: Path) -> None:
    bot = chaos_bot("never_start", tmp_path, startup_timeout_s=2)
    pgids: list[int] = []

    async def scenario() -> None:
        task = asyncio.create_task(bot.start())
        while bot.pid is None and not task.done():
            await asyncio.sleep(0.01)
        if bot.pid is not None:
            pgids.append(bot.pid)
        await task

    with pytest.raises(BotTimeout, match=r"did not report SERVING within 2\.0 s"):
        asyncio.run(scenario())
    assert pgids and group_members(pgids[0]) == []


def test_bot_that_exits_at_once_reports_its_log(tmp_path: Path) -> None:
    bot = ManagedBot(
        "broken", "{python} -c 'import sys; print(\"boom\"); sys.exit(4)' {port}", tmp_path / "b.log"
    )
    with pytest.raises(BotCrashed, match=r"(?s)status 4.*boom"):
        asyncio.run(bot.start())


@pytest.mark.parametrize("mode", ["ignore_sigterm", "fork"])
def test_stop_leaves_no_process(mode: str, tmp_path: Path) -> None:
    bot = chaos_bot(mode, tmp_path)

    async def scenario() -> tuple[int, list[int]]:
        await bot.start()
        assert bot.pid is not None
        await asyncio.sleep(0.3)
        before = group_members(bot.pid)
        result = await play_against(bot)
        assert charged(result) == []
        pgid = bot.pid
        await bot.stop()
        return pgid, before

    pgid, before = asyncio.run(scenario())
    assert len(before) >= (3 if mode == "fork" else 2), "shim, bot (and the forked child)"
    assert group_members(pgid) == []


def test_crashed_bot_is_restarted_with_backoff_before_its_next_game(tmp_path: Path) -> None:
    bot = chaos_bot("crash", tmp_path, backoff=RestartBackoff(first_s=0.2))

    async def scenario() -> tuple[int, int]:
        try:
            first = await play_against(bot)
            assert any(f.kind is FaultKind.CRASHED for f in first.faults)
            await asyncio.sleep(0.2)
            assert not bot.alive()
            second = await play_against(bot, seed=12)
            assert second.decisions > 0
            return bot.starts, bot.crashes
        finally:
            await bot.stop()

    starts, crashes = asyncio.run(scenario())
    assert starts == 2 and crashes == 1


def test_log_cap_holds_across_restarts_and_keeps_the_newest_output(tmp_path: Path) -> None:
    """Issue 11: 1 MiB per process start let 10 restarts write 10.5 MB; the cap is now the entrant's."""
    chatty = (
        '{python} -c \'import sys,time; sys.stdout.write("x" * 100000 + "END-OF-OUTPUT\\n"); '
        "sys.stdout.flush(); time.sleep(30)' {port}"
    )
    cap = 4096
    bot = ManagedBot("chatty", chatty, tmp_path / "chatty.log", log_cap_bytes=cap, startup_timeout_s=1.5)
    for _ in range(4):
        with pytest.raises(BotTimeout):
            asyncio.run(bot.start())
    files = sorted(tmp_path.glob("chatty.log*"))
    assert [f.name for f in files] == ["chatty.log", "chatty.log.1"]
    assert sum(f.stat().st_size for f in files) <= 2 * cap + 1024
    newest = (tmp_path / "chatty.log").read_text() + (tmp_path / "chatty.log.1").read_text()
    assert "END-OF-OUTPUT" in newest and "older output moved to" in newest
    assert (tmp_path / "chatty.log").stat().st_mode & 0o077 == 0  # the organiser's only


def test_no_bot_survives_the_arena_being_killed_with_sigkill(tmp_path: Path) -> None:
    victim = subprocess.Popen(
        [sys.executable, str(CHAOS.parent / "arena_victim.py"), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = victim.stdout.readline() if victim.stdout else ""
        assert line.startswith("PGIDS"), line
        pgids = [int(x) for x in line.split()[1:]]
        time.sleep(1.0)  # games under way
        assert all(len(group_members(g)) >= 2 for g in pgids)
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(group_members(g) for g in pgids):
            time.sleep(0.1)
        assert [group_members(g) for g in pgids] == [[], []]
    finally:
        if victim.poll() is None:
            os.killpg(victim.pid, signal.SIGKILL)
