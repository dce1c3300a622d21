"""The Node.js sample bot (``sample_bots/node``) speaks protocol v1: handshake, whole games, clean stop.

The bot runs as a real ``node`` process and the arena side is the real one (``BotConnection``,
``RemotePlayer``, ``play_table``), so this is the cross-language check of the .proto and its conventions.
Skipped where Node.js or the bot's ``node_modules`` (``npm ci`` in ``sample_bots/node``) is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.engine import GameConfig
from arena.engine.scoring import Termination
from arena.event.table import TableResult, TableSpec, play_table
from arena.players.connection import BotConnection
from arena.players.remote import RemotePlayer
from arena.protocol import PROTOCOL_VERSION
from tests.helpers import ROOT, V1_METHOD, V1ALPHA_METHOD, list_services

BOT_DIR = ROOT / "sample_bots" / "node"
NODE = shutil.which("node")
START_TIMEOUT_S = 15.0

pytestmark = pytest.mark.needs_node


@contextlib.contextmanager
def launched(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """Start ``node bot.js --port 0``, read the port from its first line; always stop the process."""
    assert NODE is not None
    stderr_path = tmp_path / "node-bot.stderr"
    with stderr_path.open("w") as stderr:
        proc = subprocess.Popen(
            [NODE, str(BOT_DIR / "bot.js"), "--port", "0"], stdout=subprocess.PIPE, stderr=stderr, text=True
        )
    try:
        assert proc.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
        try:
            line = lines.get(timeout=START_TIMEOUT_S)
        except queue.Empty:
            line = ""
        prefix = "node-random listening on 127.0.0.1:"
        assert line.startswith(prefix), (
            f"expected {prefix!r}PORT, got {line!r}; stderr: {stderr_path.read_text()!r}"
        )
        yield proc, int(line[len(prefix) :])
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with launched(tmp_path_factory.mktemp("node-bot")) as (_, port):
        yield f"127.0.0.1:{port}"


def test_handshake(address: str) -> None:
    async def main() -> None:
        connection = BotConnection(address)
        try:
            identity = await connection.hello()
        finally:
            await connection.close()
        assert identity.name == "node-random"
        assert identity.protocol_version == PROTOCOL_VERSION == 1
        assert set(identity.variants) == {"call-ace", "five-handed", "classic"}

    asyncio.run(main())


@pytest.mark.parametrize("service", ["", "euchre.arena.v1.Player"])
def test_health_check_reports_serving(address: str, service: str) -> None:
    """A launcher waits for the standard gRPC health check (grpc.health.v1) to answer SERVING."""

    async def main() -> int:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            return reply.status

    assert asyncio.run(main()) == health_pb2.HealthCheckResponse.SERVING


async def _play(address: str, config: GameConfig, seed: int) -> TableResult:
    connection = BotConnection(address)
    try:
        await connection.hello()
        names = tuple(f"node{s}" for s in range(config.num_players))
        players = [RemotePlayer(connection, name) for name in names]
        spec = TableSpec(f"node-{config.variant.value}-{seed}", config, seed, names)
        return await play_table(spec, players)
    finally:
        await connection.close()


CONFIGS = {
    "five-handed": GameConfig.create("five-handed"),
    "call-ace": GameConfig.create("call-ace"),
    "classic": GameConfig.create("classic"),
    # More of the protocol: the card "JKR" (and JOKER_NAME decisions when the Joker is turned up), and
    # TRUMP_NO_TRUMP among the legal actions of round 2.
    "call-ace-6p-joker": GameConfig.create("call-ace", num_players=6, use_joker=True),
    "call-ace-no-trump": GameConfig.create("call-ace", allow_no_trump=True),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_node_bot_plays_whole_games_in_every_seat(address: str, name: str) -> None:
    config = CONFIGS[name]
    for seed in range(2):
        result = asyncio.run(_play(address, config, seed))
        assert result.faults == (), [f.to_dict() for f in result.faults]
        assert result.forfeited == ()
        assert result.outcome.termination is Termination.TARGET_REACHED
        assert max(result.scores) >= config.target
        assert len(result.scores) == len(result.ranks) == config.num_players
        assert result.winners and all(result.ranks[s] == 1 for s in result.winners)
        assert result.hands and result.decisions > 0
        # Every decision was answered by the bot itself (a substitute leaves no latency), in every seat.
        assert sum(len(seat) for seat in result.latencies_ms) == result.decisions
        assert all(result.latencies_ms)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_node_bot_exits_cleanly_on_signal(tmp_path: Path, sig: signal.Signals) -> None:
    with launched(tmp_path) as (proc, _):
        proc.send_signal(sig)
        assert proc.wait(timeout=5) == 0


@pytest.mark.parametrize("method", ["v1", "v1alpha"])
def test_node_bot_serves_reflection(address: str, method: str) -> None:
    """``@grpc/reflection`` answers both reflection versions and lists the game and health services."""

    services = list_services(address, V1_METHOD if method == "v1" else V1ALPHA_METHOD)
    assert {"euchre.arena.v1.Player", "grpc.health.v1.Health"} <= services
