"""Bot processes the arena launches, keeps for the whole tournament, restarts, and always stops.

A launched entrant gets a free port (``{port}`` in its command; ``{python}`` is this interpreter), runs
under ``arena.players.shim`` (which owns its process group, caps its log and applies its limits), and is
ready once the standard gRPC health check answers SERVING. Starting a process costs about 0.1 s, so one
process serves all of the entrant's games. A bot that died is restarted before its next game, after a
back-off that doubles with each crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import socket
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.errors import BotCrashed, BotTimeout, ConfigError
from arena.faults import FaultPolicy


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def expand_command(command: str | Sequence[str], port: int) -> list[str]:
    """The argv of a launch command with ``{port}`` and ``{python}`` filled in.

    :raises ConfigError: when the command is empty or has no ``{port}``.
    """
    parts = shlex.split(command) if isinstance(command, str) else list(command)
    if not parts:
        raise ConfigError("entrant command is empty")
    if not any("{port}" in p for p in parts):
        raise ConfigError(f"entrant command {command!r} must contain {{port}}, where the arena puts the port")
    return [p.replace("{port}", str(port)).replace("{python}", sys.executable) for p in parts]


class ManagedBot:
    """One launched bot process (under its shim)."""

    def __init__(
        self,
        name: str,
        command: str | Sequence[str],
        log_path: Path,
        *,
        host: str = "127.0.0.1",
        startup_timeout_s: float = 10.0,
        memory_mb: int | None = None,
        cpu_s: int | None = None,
        log_cap_bytes: int = 1024 * 1024,
        policy: FaultPolicy | None = None,
    ) -> None:
        self.name = name
        self.command = command
        self.log_path = Path(log_path)
        self.host = host
        self.startup_timeout_s = startup_timeout_s
        self.memory_mb = memory_mb
        self.cpu_s = cpu_s
        self.log_cap_bytes = log_cap_bytes
        self.policy = policy or FaultPolicy()
        self.port = 0
        self.crashes = 0
        self.starts = 0
        self._proc: asyncio.subprocess.Process | None = None
        self._next_start_after = 0.0
        expand_command(command, 0)  # validate early

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        """The shim's pid, which is also the process group of the bot and its children."""
        return self._proc.pid if self._proc is not None else None

    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    async def start(self) -> str:
        """Launch and wait until the bot reports SERVING; returns its address.

        :raises BotCrashed: the process exited during start-up (the log's last lines are in the message).
        :raises BotTimeout: no SERVING within ``startup_timeout_s``.
        """
        await self.stop()
        self.port = free_port(self.host)
        argv = expand_command(self.command, self.port)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        shim = [
            sys.executable,
            "-m",
            "arena.players.shim",
            "--log",
            str(self.log_path),
            "--log-cap",
            str(self.log_cap_bytes),
        ]
        if self.memory_mb:
            shim += ["--memory-mb", str(self.memory_mb)]
        if self.cpu_s:
            shim += ["--cpu-s", str(self.cpu_s)]
        self.starts += 1
        self._proc = await asyncio.create_subprocess_exec(
            *shim,
            "--",
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            await self._wait_serving()
        except BaseException:
            await self.stop()
            raise
        return self.address

    async def _wait_serving(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        async with grpc.aio.insecure_channel(self.address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                if not self.alive():
                    status = self._proc.returncode if self._proc else "?"
                    raise BotCrashed(
                        f"{self.name} exited during start-up (status {status}); "
                        f"log {self.log_path} ends: {self.log_tail()!r}"
                    )
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise BotTimeout(
                        f"{self.name} did not report SERVING within {self.startup_timeout_s:.1f} s; "
                        f"log {self.log_path} ends: {self.log_tail()!r}"
                    )
                with contextlib.suppress(grpc.aio.AioRpcError):
                    reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=min(0.5, remaining))
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                await asyncio.sleep(0.05)

    async def ensure_running(self) -> str:
        """Before a game: the address of a live bot, restarting a dead one after its back-off.

        :raises BotCrashed: or ``BotTimeout`` when the restart fails.
        """
        if self.alive():
            return self.address
        if self.starts:
            self.crashes += 1
            wait = self._next_start_after - time.monotonic()
            self._next_start_after = time.monotonic() + self.policy.backoff_s(self.crashes)
            if wait > 0:
                await asyncio.sleep(wait)
        return await self.start()

    def log_tail(self, limit: int = 400) -> str:
        try:
            data = self.log_path.read_bytes()[-limit:]
        except OSError:
            return ""
        return data.decode("utf-8", "replace").strip()

    async def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the bot and everything it started: close the shim's pipe, then force if need be."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.returncode is None:
            if proc.stdin is not None:
                with contextlib.suppress(Exception):
                    proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), timeout_s)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
