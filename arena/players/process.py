"""Bot processes the arena launches, keeps for the whole tournament, restarts, and always stops.

A launched entrant runs under ``arena.players.shim`` (which owns its process group, caps its log and
applies per-process limits) and, by default, inside a bubblewrap sandbox (:mod:`arena.sandbox`): then its
gRPC server listens on a Unix socket inside the sandbox (``{address}`` in its command) or, for bots that
only take a TCP port (``{port}``), behind a relay inside the sandbox, and the arena dials that socket
through the sandbox's root without following the bot's links (:mod:`arena.sandbox.dial`); and its
processes, the shim included, share one cgroup for the whole event, so memory, process-count and CPU-time
limits hold for the bot as a whole across restarts. Unsandboxed
(``sandbox = "none"``), ``{address}`` is ``127.0.0.1:PORT`` and the bot is an ordinary child process.
``{python}`` is this interpreter. A bot is ready once the standard gRPC health check answers SERVING.
Starting a process costs about 0.1 s, so one process serves all of the entrant's games. A bot that died is
restarted before its next game, after a back-off that doubles with each crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import shlex
import signal
import socket
import sys
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.errors import BotCrashed, BotTimeout, ConfigError
from arena.players.shim import KEY_BYTES, SETTLED, STARTING_MARK, append_arena_line, frame
from arena.sandbox import SOCKET_DIR, BotCgroup, SandboxMode, SandboxSpec, bwrap_argv, cgroup_problem
from arena.sandbox.bubblewrap import (
    SOCKET_NAME,
    arena_python,
    bot_uid,
    bot_view,
    program_problem,
    readable_by_sandbox_user,
    runtime_dirs,
)
from arena.sandbox.dial import SandboxPid, SocketRefused, dial_address, keep_at, pin_socket
from arena.sandbox.seccomp import filter_pipe
from arena.text import printable
from arena.userfiles import read_user_tail

_SDK_MODULES = {"arena", "grpc", "grpc_health", "google", "sample_bots"}
"""Modules of the bot SDK and its dependencies: a bot that cannot import one runs the wrong Python."""

# Health polling during start-up: gRPC's reconnect back-off would otherwise grow between attempts (to
# seconds), and a bot that binds its port late would be seen long after it serves.
_FAST_RECONNECT = [
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 100),
]


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def split_command(command: str | Sequence[str]) -> list[str]:
    """The argv of a launch command, not yet expanded.

    :raises ConfigError: when it is empty, cannot be split (an unbalanced quote) or has neither ``{port}``
        nor ``{address}``.
    """
    try:
        parts = shlex.split(command) if isinstance(command, str) else list(command)
    except ValueError as exc:
        raise ConfigError(f"entrant command {command!r} cannot be split into arguments: {exc}") from None
    if not parts:
        raise ConfigError("entrant command is empty")
    if not any("{port}" in p or "{address}" in p for p in parts):
        raise ConfigError(
            f"entrant command {command!r} must contain {{address}} or {{port}}, where the arena puts the "
            "address (or TCP port) the bot must listen on"
        )
    return parts


def expand_command(command: str | Sequence[str], port: int, address: str | None = None) -> list[str]:
    """The argv of a launch command with ``{port}``, ``{address}`` and ``{python}`` filled in.

    :raises ConfigError: see :func:`split_command`.
    """
    address = address or f"127.0.0.1:{port}"
    python = arena_python()  # its directory's links resolved: the path the sandbox shows it at
    return [
        p.replace("{port}", str(port)).replace("{address}", address).replace("{python}", python)
        for p in split_command(command)
    ]


@dataclass(frozen=True, slots=True)
class RestartBackoff:
    """How long a crashed bot waits before its next start: ``first_s``, doubling with each crash, up to
    ``max_s`` (the fault policy's ``restart_backoff_s`` and ``restart_backoff_max_s``)."""

    first_s: float = 0.5
    max_s: float = 30.0

    def delay_s(self, crashes: int) -> float:
        """The wait before restart number ``crashes`` (1-based)."""
        return min(self.max_s, self.first_s * 2 ** max(0, crashes - 1))


class ManagedBot:
    """One launched bot process (under its shim, and by default in its sandbox)."""

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
        backoff: RestartBackoff | None = None,
        sandbox: SandboxSpec | None = None,
        cwd: Path | None = None,
        start_gate: asyncio.Semaphore | None = None,
        log_label: str | None = None,
    ) -> None:
        self.name = name
        # How a reason names the log: by default its path (the terminal user's own file, to open); a
        # server names it without its host path, which the entrant can neither open nor should see.
        self.log_label = log_label
        # Shared by the event's bots: how many may be starting at once (a start is mostly CPU, and bots
        # that all start together on a small machine miss their start-up timeouts together).
        self.start_gate = start_gate
        self.command = command
        self.log_path = Path(log_path)
        self.host = host
        self.startup_timeout_s = startup_timeout_s
        self.memory_mb = memory_mb
        self.cpu_s = cpu_s
        self.log_cap_bytes = log_cap_bytes
        self.backoff = backoff or RestartBackoff()
        self.sandbox = sandbox or SandboxSpec(mode=SandboxMode.NONE)
        self.cwd = Path(cwd).resolve() if cwd is not None else None  # None: the arena's own
        self.port = 0
        self.crashes = 0
        self.starts = 0
        self.cpu_budget_spent = False
        self.limits_note = ""  # what the limits hold for, said once at start-up
        self._proc: asyncio.subprocess.Process | None = None
        self._next_start_after = 0.0
        self._cgroup: BotCgroup | None = None
        self._cpu_watch: asyncio.Task[None] | None = None
        self._lines: tuple[int, str] | None = None  # where the arena writes its lines into the bot's output
        self._settling: dict[str, asyncio.Future[bool]] = {}  # settle's tokens the shim has not answered
        self._answers: asyncio.Task[None] | None = None  # reads the shim's answers
        argv = expand_command(command, 0)  # validate early
        self._view: Path | None = None
        # Sandboxed: the user the bot runs as (as the host sees it), the descriptor its socket is pinned
        # under (the same number for the whole event) and where bubblewrap says the sandbox's pid.
        self._uid = bot_uid() if os.geteuid() == 0 else os.geteuid()
        self._socket_fd: int | None = None
        self._sandbox_pid: SandboxPid | None = None
        if not self.sandbox.sandboxed and (problem := program_problem(argv, self.cwd)) is not None:
            raise ConfigError(f"{name}: {problem}")  # as the sandbox's bot_view says it
        if self.sandbox.sandboxed:
            self._view = self.sandbox.view or bot_view(argv, self.sandbox.workdir, self.cwd)
            if os.geteuid() == 0 and not readable_by_sandbox_user(self._view):
                fix = "chmod -R o+rX" if self._view.is_dir() else "chmod o+r"
                raise ConfigError(
                    f"{name}: the sandbox runs bots as users of their own, who cannot read {self._view}: "
                    f"make it readable ({fix} {shlex.quote(str(self._view))}) or set workdir"
                )

    @property
    def address(self) -> str:
        """Where the arena dials the bot: its pinned Unix socket when sandboxed, else HOST:PORT."""
        if self.sandbox.sandboxed:
            assert self._socket_fd is not None, "a sandboxed bot has no address before its first start"
            return dial_address(self._socket_fd)
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        """The shim's pid, which is also the process group of the bot and its children."""
        return self._proc.pid if self._proc is not None else None

    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    def _prepare_cgroup(self) -> None:
        """Once per event: the cgroup that outlives every restart."""
        if self._cgroup is None:
            problem = cgroup_problem()
            if problem is None:
                self._cgroup = BotCgroup.create(
                    self.name, self.memory_mb, self.sandbox.max_processes if self.sandbox.sandboxed else None
                )
                # Removed by close(); if the owner only ever calls stop(), when the bot object goes away.
                weakref.finalize(self, self._cgroup.remove)
                self.limits_note = "per bot (cgroups): all of its processes together, for the whole event"
            else:
                self.limits_note = f"per process only ({problem})"

    def _argv(self, pass_fds: list[int]) -> list[str]:
        """The command of one start; descriptors the sandbox needs are added to ``pass_fds``."""
        if not self.sandbox.sandboxed:
            self.port = free_port(self.host)
            return expand_command(self.command, self.port)
        assert self._view is not None
        inside = f"{SOCKET_DIR}/{SOCKET_NAME}"
        self.port = 50051  # the sandbox has a loopback of its own: any port is free there
        parts = split_command(self.command)
        argv = expand_command(self.command, self.port, f"unix:{inside}")
        runtimes = runtime_dirs(argv)  # of /opt, only what its program runs from
        if not any("{address}" in p for p in parts):
            relay = [arena_python(), "-m", "arena.sandbox.relay", "--socket", inside]
            argv = [*relay, "--port", str(self.port), "--", *argv]
        seccomp = filter_pipe()
        info_read, info_write = os.pipe()
        self._sandbox_pid = SandboxPid(info_read)
        pass_fds += [seccomp, info_write]
        return bwrap_argv(
            argv,
            self.sandbox,
            bot_path=self._view,
            runtimes=runtimes,
            cwd=self.cwd,
            uid=self._uid,
            seccomp_fd=seccomp,
            info_fd=info_write,
        )

    async def start(self) -> str:
        """Launch and wait until the bot reports SERVING; returns its address.

        :raises BotCrashed: the process exited during start-up (the log's last lines are in the message),
            or the bot has spent its CPU budget for the event.
        :raises BotTimeout: no SERVING within ``startup_timeout_s``.
        """
        await self.stop()
        if self.cpu_budget_spent:
            raise BotCrashed(f"{self.name} has spent its CPU budget of {self.cpu_s} s for the event")
        async with self.start_gate or contextlib.nullcontext():
            return await self._start()

    async def _start(self) -> str:
        """``start`` once its turn has come: ``startup_timeout_s`` counts from here."""
        self._prepare_cgroup()
        pass_fds: list[int] = []
        try:
            argv = self._argv(pass_fds)
            await self._spawn(argv, pass_fds)
        finally:
            for fd in pass_fds:
                os.close(fd)  # the shim and bubblewrap hold their own copies
        try:
            await self._wait_serving()
            if not self.sandbox.sandboxed:
                self._check_port_owner()
        except BaseException:
            await self.stop()
            raise
        if self._cgroup is not None and self.cpu_s and self._cpu_watch is None:
            self._cpu_watch = asyncio.create_task(self._watch_cpu(self._cgroup, self.cpu_s))
        return self.address

    async def _spawn(self, argv: list[str], pass_fds: list[int]) -> None:
        """Start the shim, which starts ``argv`` (handing it ``pass_fds``)."""
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
        if self._cgroup is not None:
            for procs in self._cgroup.procs_files:
                shim += ["--cgroup-procs", procs]
        elif self.memory_mb:
            shim += ["--memory-mb", str(self.memory_mb)]  # per process: the fallback without cgroups
        if self.cpu_s and self._cgroup is None:
            shim += ["--cpu-s", str(self.cpu_s)]
        if self.sandbox.sandboxed:
            shim += ["--nofile", str(self.sandbox.max_open_files), "--clear-env"]
        for fd in pass_fds:
            shim += ["--pass-fd", str(fd)]
        # The bot's output pipe is the arena's, so that the arena's own lines enter it among the bot's
        # (arena.players.shim, "frame"). The arena writes through a file of its own on the pipe, opened
        # again by its /proc link, so that its writes never block while the bot's stay blocking.
        output_read, output_write = os.pipe()
        try:
            lines: int | None = os.open(
                f"/proc/self/fd/{output_write}", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC
            )
        except OSError:
            lines = None  # no /proc: each line goes to the file directly
        shim += ["--output-fds", f"{output_read},{output_write}"]
        self.starts += 1
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *shim,
                "--",
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,  # its answers to settle
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,
                cwd=self.cwd,
                pass_fds=[*pass_fds, output_read, output_write],
            )
        except BaseException:
            if lines is not None:
                os.close(lines)
            raise
        finally:
            os.close(output_read)
            os.close(output_write)
        key = secrets.token_hex(KEY_BYTES)
        assert self._proc.stdin is not None
        self._proc.stdin.write(f"{key}\n".encode())
        self._lines = None if lines is None else (lines, key)
        # one start's tokens: a stopped shim's reader, ending late, must not answer the next start's
        self._settling = {}
        self._answers = asyncio.create_task(self._read_answers(self._proc, self._settling))

    async def _read_answers(
        self, proc: asyncio.subprocess.Process, settling: dict[str, asyncio.Future[bool]]
    ) -> None:
        """The shim's answers to ``settle``, each a token on a line, until its standard output ends."""
        assert proc.stdout is not None
        try:
            while line := await proc.stdout.readline():
                waiting = settling.pop(line.decode("ascii", "replace").strip(), None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(True)
        except (OSError, ValueError):
            pass
        finally:
            _unsettle(settling)

    async def settle(self, timeout_s: float = 2.0) -> bool:
        """Wait until the shim has copied into the log everything the bot wrote before this call, so that
        the log's size now ends what the bot has said so far (a game's span, ``arena.executor.logspan``).
        A token goes down the bot's output pipe behind that output, and the shim answers it once it has
        written what came before. False, at once or after ``timeout_s``, when no shim answers (none running,
        or one its bot keeps from the processor that long): the caller then takes the log as it stands."""
        if self._lines is None or not self.alive():
            return False
        fd, key = self._lines
        token = secrets.token_hex(8)
        answered: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        settling = self._settling
        settling[token] = answered
        try:
            os.write(fd, frame(key, (SETTLED + token.encode()).decode()))
            return await asyncio.wait_for(answered, timeout_s)
        except (OSError, TimeoutError):
            return False
        finally:
            settling.pop(token, None)

    def _remaining_s(self, deadline: float) -> float:
        """Start-up time left.

        :raises BotCrashed: the process has exited.
        :raises BotTimeout: no time is left.
        """
        if not self.alive():
            status = self._proc.returncode if self._proc else "?"
            hint = self._sdk_hint()
            raise BotCrashed(
                f"{self.name} exited during start-up (status {status}){hint}; {self.log_excerpt()}"
            )
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise BotTimeout(
                f"{self.name} did not report SERVING within {self.startup_timeout_s:.1f} s; "
                f"{self.log_excerpt()}"
            )
        return remaining

    async def _pin_socket(self, deadline: float) -> None:
        """Sandboxed: wait for the bot's socket and pin it (:mod:`arena.sandbox.dial`), before any dial.

        :raises BotCrashed: the path holds something else than the bot's own socket, which is not dialled.
        """
        assert self._sandbox_pid is not None
        while True:
            self._remaining_s(deadline)
            pid = self._sandbox_pid.poll()
            if pid is not None:
                try:
                    fd = pin_socket(pid, f"{SOCKET_DIR}/{SOCKET_NAME}", self._uid)
                except SocketRefused as exc:
                    raise BotCrashed(f"{self.name}: {exc}; {self.log_excerpt()}") from None
                except OSError:
                    fd = None  # the sandbox is gone: the next round says how the process ended
                if fd is not None:
                    self._socket_fd = keep_at(fd, self._socket_fd)
                    return
            await asyncio.sleep(0.02)

    async def _wait_serving(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        if self.sandbox.sandboxed:
            await self._pin_socket(deadline)
        async with grpc.aio.insecure_channel(self.address, options=_FAST_RECONNECT) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                remaining = self._remaining_s(deadline)
                with contextlib.suppress(grpc.aio.AioRpcError):
                    reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=min(0.5, remaining))
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                await asyncio.sleep(0.05)

    def _check_port_owner(self) -> None:
        """Unsandboxed: the port that answered must belong to our bot, not to another process.

        :raises BotCrashed: when a process outside the bot's process group holds the listening socket
            (another program on that port, e.g. a second bot sharing it through ``SO_REUSEPORT``).
        """
        if self._proc is None:
            return
        owners = listening_pids(self.port)
        if owners is None:
            return  # cannot tell here (not Linux)
        ours = {p for p in owners if _pgid(p) == self._proc.pid}
        strangers = sorted(owners - ours)
        if strangers or not ours:
            raise BotCrashed(
                f"{self.name}: port {self.port} is answered by another process (pid "
                f"{', '.join(map(str, strangers)) or 'unknown'}), not by the bot the arena started"
            )

    async def _watch_cpu(self, group: BotCgroup, budget_s: int) -> None:
        """Stop the bot for good once all its processes together have used ``budget_s`` of CPU."""
        while True:
            await asyncio.sleep(0.25)
            used = group.cpu_seconds()
            if used >= budget_s:
                self.cpu_budget_spent = True
                group.kill_all()
                # directly: the shim, in the bot's cgroup, has just been killed with it
                append_arena_line(
                    self.log_path, f"[arena] CPU budget of {budget_s} s for the event spent ({used:.1f} s)\n"
                )
                return

    async def ensure_running(self) -> str:
        """Before a game: the address of a live bot, restarting a dead one after its back-off.

        :raises BotCrashed: or ``BotTimeout`` when the restart fails.
        """
        if self.alive():
            return self.address
        if self.starts:
            self.crashes += 1
            wait = self._next_start_after - time.monotonic()
            self._next_start_after = time.monotonic() + self.backoff.delay_s(self.crashes)
            if wait > 0:
                await asyncio.sleep(wait)
        return await self.start()

    def _sdk_hint(self) -> str:
        """When the bot died because its Python cannot import the SDK (a ``python3`` that is not the one the
        arena is installed in: the sandbox's own system Python, or another environment's), what to write
        instead: one clause for the failure's first line, or nothing."""
        missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", self.log_tail(4000))
        if missing is None or missing[1].split(".")[0] not in _SDK_MODULES:
            return ""
        program = expand_command(self.command, 0)[0]
        if "{python}" in split_command(self.command)[0]:
            return ""  # the arena's own interpreter: the SDK is there, something else is wrong
        return (
            f": its command runs {program!r}, which cannot import the SDK (No module named "
            f"{missing[1]!r}); write {{python}} in the command for the arena's own Python"
        )

    def log_excerpt(self, lines: int = 8) -> str:
        """Where the log is and its last lines, each on a line of its own under it, indented: read in a
        terminal under one ``error:`` or ``warning:`` line (never as one line with ``\\n`` in it).

        With a ``log_label`` the log is named by it and the shim's ``[arena] starting:`` line (the launch
        command, full of host paths) is left out: the lines are the bot's own and how it ended."""
        # Newlines only (a bot's carriage return or U+2028 does not begin a line), each line made printable.
        text = self.log_tail(4000).split("\n")
        if self.log_label is not None:
            text = [line for line in text if not line.startswith(STARTING_MARK)]
        tail = [printable(line[:200]) for line in text[-lines:]]
        name = f"its log {self.log_path}" if self.log_label is None else self.log_label
        if not tail:
            return f"{name} is empty"
        return f"{name} ends:" + "".join(f"\n    {line}" for line in tail)

    def note(self, line: str) -> None:
        """Append one line of the arena's own to the bot's log, at the start of a line.

        While the shim runs, the line goes into the bot's output pipe, framed with the shim's key
        (:func:`arena.players.shim.frame`), so that it lands among the bot's lines in the order they were
        written. Otherwise (no shim, or a pipe the shim has left full) it is appended to the file directly,
        under the lock the shim writes under (:func:`arena.players.shim.append_arena_line`). Best effort: a
        log that cannot be written, or whose lock is held too long, loses it; so does a line written in the
        moment a shim exits after its bot."""
        if self._lines is not None and self.alive():
            fd, key = self._lines
            try:
                os.write(fd, frame(key, line))
                return
            except OSError:
                pass  # the shim is gone (EPIPE), or the pipe is full: the file directly
        append_arena_line(self.log_path, line)

    def log_tail(self, limit: int = 400) -> str:
        try:
            data = read_user_tail(self.log_path, "bot log", limit)  # a regular file, its newest bytes only
        except ConfigError:
            return ""
        return data.decode("utf-8", "replace").strip()

    async def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the bot and everything it started; returns once every one of its processes is gone.

        The shim is asked first (its pipe closes) and waits for the whole group; then, as a last line,
        the process group and the bot's cgroup are killed and waited for.
        """
        if self._sandbox_pid is not None:
            self._sandbox_pid.close()
            self._sandbox_pid = None
        proc, self._proc = self._proc, None
        if self._lines is not None:
            os.close(self._lines[0])
            self._lines = None
        if self._answers is not None:
            self._answers.cancel()
            self._answers = None
        _unsettle(self._settling)
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
        await asyncio.to_thread(_kill_group, proc.pid)
        if self._cgroup is not None:
            await asyncio.to_thread(self._cgroup.kill_all)

    async def close(self) -> None:
        """At the end of the event: stop the bot, remove its cgroup and let go of its socket."""
        if self._cpu_watch is not None:
            self._cpu_watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._cpu_watch
            self._cpu_watch = None
        await self.stop()
        if self._cgroup is not None:
            await asyncio.to_thread(self._cgroup.remove)
            self._cgroup = None
        if self._socket_fd is not None:
            os.close(self._socket_fd)
            self._socket_fd = None


def _unsettle(settling: dict[str, asyncio.Future[bool]]) -> None:
    """No answer will come (that start's shim is gone or stopped): every ``settle`` waiting on it returns
    False."""
    for waiting in settling.values():
        if not waiting.done():
            waiting.set_result(False)
    settling.clear()


def _kill_group(pgid: int, timeout_s: float = 10.0) -> None:
    """SIGKILL what is left of process group ``pgid`` and wait until it is really gone."""
    from arena.players.shim import group_members  # Linux /proc reader, shared with the shim

    if not os.path.isdir("/proc"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        return
    deadline = time.monotonic() + timeout_s
    while (members := group_members(pgid)) and time.monotonic() < deadline:
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except (ProcessLookupError, PermissionError):
        return None


def listening_pids(port: int) -> set[int] | None:
    """Pids holding a TCP socket that listens on ``port`` (Linux /proc), or None when /proc cannot tell."""
    inodes: set[str] = set()
    found_table = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        found_table = True
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    if not found_table:
        return None
    pids: set[int] = set()
    targets = {f"socket:[{i}]" for i in inodes}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{entry}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{entry}/fd/{fd}") in targets:
                        pids.add(int(entry))
                        break
    return pids
