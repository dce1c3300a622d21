"""The loop watch (arena.players.loopwatch): a reply held up in the arena's own transport at the deadline is
the harness's fault, not the bot's, which relies on finding gRPC's wake-up socket on either event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import time
from pathlib import Path

import grpc
import pytest

from arena.engine import GameConfig, GameState
from arena.engine.views import build_view
from arena.errors import BotError, DecisionFailed, HarnessLate
from arena.gameinfo import GameInfo
from arena.players.base import DecisionTiming
from arena.players.connection import BotConnection
from arena.players.loopwatch import _grpc_wakeup_fd
from arena.players.process import ManagedBot
from arena.players.remote import RemotePlayer
from arena.protocol import loops
from tests.helpers import CHAOS


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

    async def scenario() -> DecisionFailed:
        await bot.start()
        connection = BotConnection(bot.address)
        player = RemotePlayer(connection, "margin", watch=BusyTransport())  # type: ignore[arg-type]
        try:
            state = GameState(GameConfig.create("five-handed"), seed=1)
            info = GameInfo("g", state.config, state.current_player(), tuple("abcde"), 100, 0)
            await player.start(info, [])
            with pytest.raises(DecisionFailed) as error:
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
        assert isinstance(error, HarnessLate) and not isinstance(error, BotError), "the arena's fault"
    else:
        assert isinstance(error, BotError)


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
