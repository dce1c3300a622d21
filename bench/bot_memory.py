"""What the sample bots need in memory: ``python bench/bot_memory.py [--games 6]`` (root, cgroups, bwrap).

Why: launched bots get a default memory limit (``DEFAULT_MEMORY_MB`` in arena/event/config.py), which
must hold every sample bot with a margin. The five kinds of sample bot (``random``, ``rules``, ``noisy``,
``montecarlo`` and the Node bot) sit at one five-handed table, each launched in its sandbox with its own
cgroup and no memory limit, and play ``--games`` games; then each bot's peak memory is read from its cgroup
(everything the limit counts: the shim, bubblewrap, the bot's processes, their page cache and ``/tmp``).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository's arena, not bench/arena.py

BOTS = {
    "random": "{python} -m sample_bots.random --address {address}",
    "rules": "{python} -m sample_bots.rules --address {address}",
    "noisy": "{python} -m sample_bots.noisy --address {address}",
    "montecarlo": "{python} -m sample_bots.montecarlo --address {address}",
    "node": "node sample_bots/node/bot.js --address {address}",
}


async def measure(games: int, logs: Path) -> dict[str, int | None]:
    from arena.engine import GameConfig
    from arena.event.faults import FaultPolicy
    from arena.event.table import TableSpec, play_table
    from arena.players.connection import BotConnection
    from arena.players.process import ManagedBot
    from arena.players.remote import RemotePlayer
    from arena.sandbox import SandboxSpec

    root = Path(__file__).resolve().parent.parent
    bots = {
        name: ManagedBot(name, command, logs / f"{name}.log", sandbox=SandboxSpec(), cwd=root)
        for name, command in BOTS.items()
        if name != "node" or shutil.which("node")
    }
    try:
        connections = {name: BotConnection(await bot.start()) for name, bot in bots.items()}
        config = GameConfig.create("five-handed")
        names = list(connections)
        for g in range(games):
            seats = names[g % len(names) :] + names[: g % len(names)]
            players = [RemotePlayer(connections[n], n) for n in seats]
            spec = TableSpec(f"g{g}", config, 1000 + g, tuple(seats), FaultPolicy())
            await play_table(spec, players)
        peaks = {}
        for name, bot in bots.items():
            group = bot._cgroup
            peaks[name] = group.memory_peak_bytes() if group is not None else None
        for c in connections.values():
            await c.close()
        return peaks
    finally:
        for bot in bots.values():
            await bot.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        peaks = asyncio.run(measure(args.games, Path(tmp)))
    print(f"peak memory of each sample bot's cgroup over {args.games} five-handed games:")
    for name, peak in peaks.items():
        print(f"{name:>11} {'?' if peak is None else f'{peak / 2**20:.0f} MB'}")


if __name__ == "__main__":
    main()
