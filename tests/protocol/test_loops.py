"""The event loops (arena.protocol.loops): children started while gRPC is busy do not crash on either loop
(``import arena`` turns gRPC's fork support off).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT

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
