"""Issue 11 (hardening), item by item, as real processes through ``arena run``: a crashing, flooding or
out-of-date bot never aborts an event nor costs more than it should, and SIGTERM is as clean as SIGINT.

The bots under test are ``tests/bots/chaos.py`` modes; the other seats are in-process sample bots, so every
fault in a result belongs to the chaos bot. Deadlines are short where the test is about crashes and floods
(they only bound how long a broken seat can stall) and generous where it is about timing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.engine import GameConfig, GameState, View
from arena.engine.events import Event
from arena.engine.views import build_view
from arena.errors import BotError
from arena.event.faults import FaultPolicy
from arena.event.table import TableSpec, play_table
from arena.gameinfo import GameInfo, GameResult
from arena.players.base import DecisionTiming, Player, Reply
from arena.players.connection import BotConnection
from arena.players.endpoint import RestartingEndpoint
from arena.players.inprocess import InProcessPlayer
from arena.players.loopwatch import _grpc_wakeup_fd
from arena.players.process import ManagedBot
from arena.players.remote import RemotePlayer
from arena.protocol import loops
from sample_bots.random import RandomBot

ROOT = Path(__file__).resolve().parents[2]
CHAOS = ROOT / "tests" / "bots" / "chaos.py"
OTHERS = [
    {"name": "rules", "class": "sample_bots.rules:RulesBot"},
    {"name": "random", "class": "sample_bots.random:RandomBot"},
    {"name": "rules-b", "class": "sample_bots.rules:RulesBot"},
    {"name": "random-b", "class": "sample_bots.random:RandomBot"},
]


def chaos(mode: str, *extra: str, name: str = "chaos") -> dict[str, Any]:
    return {"name": name, "command": f"{{python}} {CHAOS} --mode {mode} {' '.join(extra)} --port {{port}}"}


def config(tmp_path: Path, bot: dict[str, Any], **settings: Any) -> Path:
    """A five-handed event of ``bot`` and four in-process sample bots, written as TOML."""
    data: dict[str, Any] = {
        "name": "h",
        "seed": 1,
        "rounds": 4,
        "concurrency": 4,
        "output": str(tmp_path / "out"),
        "sandbox": "none",  # the sandbox is not what these test (tests/sandbox/ does); a restart costs less
    } | settings
    faults = {"decision_ms": 300, "restart_backoff_s": 0.05, "restart_backoff_max_s": 0.2}
    faults |= data.pop("faults", {})
    lines = [f"{k} = {json.dumps(v)}" for k, v in data.items()]
    lines += ["[game]", 'variant = "five-handed"', "[faults]"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in faults.items()]
    for entrant in [bot, *OTHERS]:
        lines.append("[[entrant]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in entrant.items()]
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "event.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def arena(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def rows(directory: Path, sql: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"file:{directory / 'event.sqlite'}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


# ------------------------------------------------------------------ 1. crash with games in flight


def test_a_bot_crashing_with_games_in_flight_never_aborts_the_event(tmp_path: Path) -> None:
    """The bot dies at the first decision of every process, while four games are in flight: restarts must
    not close channels those games still use (which aborted the event with ``Channel is closed``). Ten
    seeds, five events at a time (they mostly wait for restarts)."""

    def one(seed: int) -> tuple[int, subprocess.CompletedProcess[str]]:
        out = tmp_path / f"s{seed}"
        path = config(out, chaos("crash_first"), seed=seed, rounds=4, output=str(out / "out"))
        return seed, arena("run", "-q", str(path))

    with ThreadPoolExecutor(max_workers=5) as pool:
        results = list(pool.map(one, range(1, 11)))
    for seed, result in results:
        out = tmp_path / f"s{seed}" / "out"
        assert result.returncode == 0, f"seed {seed}: {result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr
        assert rows(out, "SELECT COUNT(*) FROM games") == [(4,)], f"seed {seed}"
        kinds = {k for (k,) in rows(out, "SELECT kind FROM faults")}
        assert "crashed" in kinds, f"seed {seed}: {kinds}"


# ------------------------------------------------------------------ 2. one crash is not a disqualification


def test_one_crash_costs_one_fault_per_game_asked_while_down_and_no_forfeit(tmp_path: Path) -> None:
    state = tmp_path / "crashed-once"
    # A generous deadline: on a loaded machine the restarted bot's first replies may take a while, and a
    # timeout there is not what this test counts (crashed, once per game asked while the bot was down).
    bot = chaos("crash_once", "--state", str(state))
    path = config(tmp_path, bot, rounds=8, faults={"decision_ms": 3000})
    result = arena("run", "-q", str(path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert state.exists(), "the bot did crash"
    out = tmp_path / "out"
    assert rows(out, "SELECT COUNT(*) FROM games") == [(8,)]
    per_game = Counter(g for g, k in rows(out, "SELECT game_id, kind FROM faults") if k != "harness")
    assert per_game and max(per_game.values()) == 1, per_game
    assert len(per_game) <= 4, "only the games in flight at the crash can be charged"
    assert rows(out, "SELECT SUM(forfeited) FROM game_seats WHERE entrant = 'chaos'") == [(0,)]
    assert rows(out, "SELECT COUNT(*) FROM disqualified") == [(0,)]


# ------------------------------------------------------------------ 3. floods and wrong decision ids


@pytest.mark.parametrize("mode", ["stale_flood", "stale_id", "early"])
def test_replies_that_answer_nothing_asked_are_malformed_and_floods_are_cut_off(
    mode: str, tmp_path: Path
) -> None:
    path = config(tmp_path, chaos(mode), rounds=1, concurrency=1, faults={"decision_ms": 1000})
    started = time.monotonic()
    result = arena("run", "-q", str(path))
    took = time.monotonic() - started
    assert result.returncode == 0, result.stderr[-2000:]
    kinds = Counter(k for (k,) in rows(tmp_path / "out", "SELECT kind FROM faults"))
    assert set(kinds) == {"malformed_reply"}, kinds
    assert took < 60, f"a flood must not slow the event down ({took:.0f} s)"
    details = [d for (d,) in rows(tmp_path / "out", "SELECT detail FROM faults")]
    assert all("nobody asked for" in d or "the arena asked" in d for d in details), details
    assert sum(kinds.values()) == 4, "the seat forfeits at its 4th fault; the game goes on without it"


# ------------------------------------------------------------------ 6. SIGTERM, protocol version


def processes_mentioning(marker: str) -> list[int]:
    """Pids whose command line mentions ``marker`` (the test's own directory)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_sigterm_stops_the_event_like_sigint_and_it_resumes(tmp_path: Path) -> None:
    marker = str(tmp_path / "marker")
    path = config(tmp_path, chaos("fine", "--state", marker), rounds=12, concurrency=2)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", "-q", str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    db = tmp_path / "out" / "event.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            if db.exists() and rows(tmp_path / "out", "SELECT COUNT(*) FROM games")[0][0] >= 2:
                break
        except sqlite3.Error:
            continue
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr
    assert "terminated (SIGTERM)" in stderr and "run the same command to resume" in stderr
    stored = rows(tmp_path / "out", "SELECT COUNT(*) FROM games")[0][0]
    assert 2 <= stored < 12
    assert processes_mentioning(marker) == [], "the launched bot was stopped"
    resumed = arena("run", "-q", str(path))
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"{stored} of 12 games already stored" in resumed.stdout + resumed.stderr
    assert rows(tmp_path / "out", "SELECT COUNT(*) FROM games") == [(12,)]


def test_a_bot_speaking_another_protocol_version_is_not_seated_unless_strict(tmp_path: Path) -> None:
    path = config(tmp_path, chaos("wrong_version"), rounds=2, concurrency=2)
    strict = arena("run", "-q", "--strict", str(path))
    assert strict.returncode == 2 and "Traceback" not in strict.stderr
    assert "protocol version 2" in strict.stderr and len(strict.stderr.strip().splitlines()) == 1
    result = arena("run", "-q", str(path))
    assert result.returncode == 0, result.stderr[-2000:]
    out = tmp_path / "out"
    assert rows(out, "SELECT COUNT(*) FROM games") == [(2,)]
    (reason,) = rows(out, "SELECT reason FROM disqualified WHERE entrant = 'chaos'")[0]
    assert "not seated" in reason and "protocol version 2" in reason
    assert rows(out, "SELECT COUNT(*) FROM faults") == [(0,)], "the autopilot plays its seats"
    assert all(json.loads(e) == ["chaos"] for (e,) in rows(out, "SELECT excluded FROM games"))


# ------------------------------------------------------------------ 6. timing on a busy machine


def test_a_bot_replying_well_inside_its_deadline_is_never_charged_a_timeout(tmp_path: Path) -> None:
    """The issue's case: replies 150 ms before a 500 ms deadline, games four at a time, on this (shared,
    busy) machine. Whatever lateness the arena causes is its own (``harness``), never a counted fault."""
    path = config(tmp_path, chaos("margin", "--reply-ms", "350"), rounds=4, faults={"decision_ms": 500})
    result = arena("run", "-q", str(path))
    assert result.returncode == 0, result.stderr[-2000:]
    kinds = Counter(k for (k,) in rows(tmp_path / "out", "SELECT kind FROM faults"))
    assert set(kinds) <= {"harness"}, kinds


def test_the_demo_shows_no_faults_of_our_own_sample_bots(tmp_path: Path) -> None:
    """Our sample bots keep a safety margin (montecarlo searches half of its time) that holds on this busy
    machine, so the README's first command shows a clean fault column.

    On a machine already loaded past its CPUs (other test runs, a CPU stress beside the suite) 400 ms
    leaves a bot that uses its time no margin it can keep: the arena cannot time what the scheduler does not
    run. There the demo is given 2000 ms, which still checks that the bots keep their margin."""
    out = tmp_path / "demo"
    decision_ms = "400" if os.getloadavg()[0] < (os.cpu_count() or 1) else "2000"
    args = ("demo", "-q", "--rounds", "4", "--output", str(out), "--decision-ms", decision_ms)
    result = arena(*args, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    faults = rows(out, "SELECT entrant, kind, detail FROM faults WHERE kind != 'harness'")
    assert faults == [], f"at {decision_ms} ms, load {os.getloadavg()}"


# ------------------------------------------------------------------ 1. the mechanism, directly


def test_a_restart_closes_the_old_channel_only_when_the_last_seat_lets_go(tmp_path: Path) -> None:
    bot = ManagedBot("fine", f"{{python}} {CHAOS} --mode fine --port {{port}}", tmp_path / "fine.log")

    def usable(connection: BotConnection) -> bool:
        try:
            connection.play_game().cancel()
            return True
        except (grpc.aio.UsageError, RuntimeError):
            return False

    async def scenario() -> None:
        await bot.start()
        endpoint = RestartingEndpoint(bot, BotConnection(bot.address))
        try:
            (first, gen), (again, _) = endpoint.acquire(), endpoint.acquire()
            assert first is again
            assert bot.pid is not None
            os.killpg(bot.pid, signal.SIGKILL)
            await endpoint.revive(suspect=True)
            assert endpoint.generation > gen and endpoint.connection is not first
            assert usable(first), "two seats still hold the old channel"
            endpoint.release(first)
            await asyncio.sleep(0.05)
            assert usable(first), "one seat still holds it"
            endpoint.release(again)
            await asyncio.sleep(0.05)
            assert not usable(first), "nobody holds it any more: closed"
        finally:
            await endpoint.close()
            await bot.stop()

    asyncio.run(scenario())


class BusyTransport:
    """A watch that reports no loop lag, but a transport holding unread I/O: every look costs 40 ms."""

    def max_lag_ms(self, since: float) -> float:
        return 0.0

    def transport_pending(self) -> bool:
        time.sleep(0.04)
        return True


@pytest.mark.parametrize(("reply_ms", "kind"), [(130, "harness"), (1500, "timeout")])
def test_a_reply_the_transport_held_at_the_deadline_is_the_harnesss_fault(
    reply_ms: int, kind: str, tmp_path: Path
) -> None:
    """100 ms to decide; the transport holds unread I/O at the deadline, and the loop drains it for about
    400 ms more (ten looks). A reply found in that drain is the arena's fault; one that comes much later is a
    timeout. The window is wide because on a loaded machine the bot's 130 ms reply arrives a few hundred ms
    late itself (it was seen at 205 ms under two CPU burners)."""
    command = f"{{python}} {CHAOS} --mode margin --reply-ms {reply_ms} --port {{port}}"
    bot = ManagedBot("margin", command, tmp_path / "m.log")

    async def scenario() -> BotError:
        await bot.start()
        connection = BotConnection(bot.address)
        player = RemotePlayer(connection, "margin", watch=BusyTransport())  # type: ignore[arg-type]
        try:
            state = GameState(GameConfig.create("five-handed"), seed=1)
            info = GameInfo("g", state.config, state.current_player(), tuple("abcde"), 100, 0)
            await player.start(info, [])
            with pytest.raises(BotError) as error:
                await player.decide(build_view(state, state.current_player()), 1, DecisionTiming(100, 0))
            return error.value
        finally:
            await player.close()
            await connection.close()
            await bot.stop()

    error = asyncio.run(scenario())
    assert error.kind.value == kind, error
    if kind == "harness":
        assert "reached the arena's transport" in str(error)


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_the_grpc_wakeup_socket_is_found_on_either_loop(loop: str) -> None:
    """``transport_pending`` relies on finding gRPC's wake-up socket; a gRPC or uvloop upgrade that moves
    it must fail here rather than silently turn the check off. The socket found must be the one gRPC
    wakes the loop through: while the loop is blocked, a call that completes (its deadline passes: the
    server accepts connections and never speaks) leaves it readable, and nothing did before."""
    if loop == "uvloop":
        pytest.importorskip("uvloop")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    async def scenario() -> tuple[bool, bool]:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{listener.getsockname()[1]}")
        try:
            fd = _grpc_wakeup_fd(asyncio.get_running_loop())
            assert fd is not None, "gRPC's wake-up socket not found"
            call = channel.unary_unary("/x.Y/Z")(b"", timeout=0.5)
            await asyncio.sleep(0.1)  # the call starts; nothing completes yet
            before = bool(select.select([fd], [], [], 0)[0])
            deadline, pending = time.monotonic() + 20, False
            while not pending and time.monotonic() < deadline:  # the loop is blocked meanwhile
                pending = bool(select.select([fd], [], [], 0.05)[0])
            with contextlib.suppress(grpc.aio.AioRpcError):
                await call
            return before, pending
        finally:
            await channel.close()

    try:
        before, pending = loops.run(scenario(), loop)
    finally:
        listener.close()
    assert not before and pending


SPAWNER = """
import asyncio, sys
import arena  # first, as in the arena and in every bot: it turns gRPC's fork support off
import grpc
from arena.protocol import loops

async def main():
    server = grpc.aio.server()
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")

    async def busy():  # gRPC's threads at work while the children start
        while True:
            try:
                await channel.unary_unary("/x.Y/Z")(b"", timeout=1)
            except grpc.aio.AioRpcError:
                pass

    calls = [asyncio.create_task(busy()) for _ in range(20)]

    async def child():
        proc = await asyncio.create_subprocess_exec("true")
        return await proc.wait()

    codes = []
    for _ in range(10):
        codes += await asyncio.gather(*(child() for _ in range(20)))
    for call in calls:
        call.cancel()
    print(sum(1 for c in codes if c != 0), len(codes))

loops.run(main(), sys.argv[1])
"""


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_children_started_while_grpc_is_busy_do_not_crash(loop: str) -> None:
    """The arena starts its bots' launchers, and a bot may start helpers, while gRPC calls are in flight.
    With gRPC's fork support on, 4-8 % of such children died of SIGSEGV before they ran (uvloop's spawn is a
    plain fork, which runs gRPC's fork handlers); ``import arena`` turns it off."""
    if loop == "uvloop":
        pytest.importorskip("uvloop")
    env = {k: v for k, v in os.environ.items() if k != "GRPC_ENABLE_FORK_SUPPORT"}
    result = subprocess.run(
        [sys.executable, "-c", SPAWNER, loop], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["0", "200"], result.stdout + result.stderr[-2000:]
    assert "fork_posix" not in result.stderr, result.stderr[-2000:]


def test_an_unknown_arena_loop_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena", "demo", "--output", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ARENA_LOOP": "trio"},
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: ARENA_LOOP='trio': expected one of 'auto', 'uvloop', 'asyncio'"
    ]


class Broken(Player):
    """A seat whose every method raises something that is not a ``BotError`` (an arena bug, a gRPC
    surprise): the table must still complete, and charge the bot nothing for it."""

    name = "broken"

    async def start(self, info: GameInfo, events: Sequence[Event]) -> None:
        raise grpc.aio.UsageError("Channel is closed")

    def queue_events(self, events: Sequence[Event]) -> None:
        raise RuntimeError("queue")

    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        raise grpc.aio.UsageError("Channel is closed")

    async def finish(self, final: GameResult) -> None:
        raise RuntimeError("finish")

    async def close(self) -> None:
        raise RuntimeError("close")


def test_no_exception_from_one_seat_escapes_its_table() -> None:
    config = GameConfig.create("five-handed")
    players: list[Player] = [Broken()] + [
        InProcessPlayer(RandomBot, f"random-{s}") for s in range(1, config.num_players)
    ]
    spec = TableSpec("g", config, 4, tuple(p.name for p in players), FaultPolicy(max_faults_per_game=3))
    result = asyncio.run(play_table(spec, players))
    assert result.outcome is not None and result.decisions > 0
    assert result.faults and {f.kind.value for f in result.faults} == {"harness"}
    assert "Channel is closed" in result.faults[0].detail
    assert result.forfeited == (), "the arena's own failures never count against the bot"
