"""An arena process for the SIGKILL test: ``python tests/bots/arena_victim.py LOG_DIR``.

It launches a bot that forks a child and a bot that ignores SIGTERM, prints ``PGIDS a b`` (their process
groups), then plays games against them until it is killed. The test kills it with SIGKILL and checks that
nothing of either process group survives.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from arena.engine import GameConfig
from arena.event.faults import FaultPolicy
from arena.event.table import TableSpec, play_table
from arena.players.connection import BotConnection
from arena.players.process import ManagedBot
from arena.players.remote import RemotePlayer

HERE = Path(__file__).resolve().parent


async def main(log_dir: Path) -> None:
    bots = [
        ManagedBot(
            mode, f"{{python}} {HERE / 'chaos.py'} --mode {mode} --port {{port}}", log_dir / f"{mode}.log"
        )
        for mode in ("fork", "ignore_sigterm")
    ]
    for bot in bots:
        await bot.start()
    print("PGIDS", *(bot.pid for bot in bots), flush=True)
    connections = [BotConnection(bot.address) for bot in bots]
    config = GameConfig.create("call-ace", num_players=4)
    game = 0
    while True:
        game += 1
        players = [RemotePlayer(connections[s % 2], f"p{s}") for s in range(4)]
        spec = TableSpec(
            f"g{game}", config, game, tuple(p.name for p in players), FaultPolicy(decision_ms=500)
        )
        await play_table(spec, players)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
