"""A launched bot's endpoint (arena.players.endpoint): a restart hands out a new channel and closes the old
one only when the last seat that holds it lets go.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import grpc

from arena.players.connection import BotConnection
from arena.players.endpoint import RestartingEndpoint
from arena.players.process import ManagedBot
from tests.helpers import CHAOS


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
