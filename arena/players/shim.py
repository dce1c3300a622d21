"""Supervisor of one launched bot: ``python -m arena.players.shim [options] -- COMMAND...``.

Why a separate process: the arena must leave no bot process behind, even when it is killed with SIGKILL
and cannot clean up, and even when a bot forks children of its own. ``PR_SET_PDEATHSIG`` alone cannot do
that (a bot's own children do not inherit it). So the arena starts this shim in a new session; the shim
starts the bot in the shim's process group and then watches its standard input, a pipe whose only writer is
the arena. When that pipe closes (the arena asked to stop, exited, or died) the shim sends SIGTERM to the
whole group, waits a grace period, and sends SIGKILL. The shim also holds the bot's output: it copies it
to the log file up to a size cap and drops the rest (saying so once), and it applies the per-process
limits to the bot only.

The arena writes its own lines for the log (a game's start and end marks among them) into the bot's own
output pipe, each framed with a key that only the arena and the shim know (:func:`frame`): one process
writes both into the log, in the order they entered the pipe, which is the order in which they were
written. So each of the bot's lines lands in the game it was written in, however far behind a busy
machine leaves this shim (it once starved a shim for a whole game, whose lines then landed in the next
game's span). The key reaches the shim on its standard input, which the bot never sees; a bot that writes
the frame byte without the key writes its own bytes. A framed line that begins with :data:`SETTLED` is no
line of the log: once everything before it is in the log, the shim writes its token to its standard output,
which the arena reads (``ManagedBot.settle``: the competition server marks a game's span by the log's
size, which must then hold what the bot wrote during the game).

Where the bot has a cgroup, the shim joins it first, before it starts the bot: copying the bot's output is
work done for the bot (a bot that floods its output made the shim spend seconds of CPU), so it counts
toward the bot's CPU budget and memory limit like the bot's own. The bot's processes are made the first
choice of the kernel's out-of-memory killer, so that at the limit the bot is stopped, not its supervisor.

The shim exits with the bot's exit status when the bot exits on its own (after killing any children the
bot left in the group).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import re
import resource
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

GRACE_S = 2.0
STARTING_MARK = "[arena] starting:"  # the launch command's line, with host paths: servers leave it out


BOT_OOM_SCORE_ADJ = 500
"""Added to the bot's processes' out-of-memory score (raising needs no privilege): killed before the shim."""


def _join_cgroups(cgroup_procs: Sequence[str]) -> str | None:
    """Move this process into the bot's cgroups (the bot, started after, is in them from its first
    instruction: a pid written by the arena after the start would race the bot's first fork); why not, or
    None."""
    try:
        for procs in cgroup_procs:
            with open(procs, "w") as f:
                f.write(str(os.getpid()))
    except OSError as exc:
        return f"cannot join the bot's cgroup {procs}: {exc.strerror}"
    return None


def _limits(memory_mb: int | None, cpu_s: int | None, nofile: int | None) -> Callable[[], None]:
    def apply() -> None:
        with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as f:
            f.write(str(BOT_OOM_SCORE_ADJ))
        _die_with_parent()
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        if memory_mb:
            size = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        if cpu_s:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))

    return apply


def _die_with_parent() -> None:
    """Linux: the bot gets SIGKILL if the shim itself dies (e.g. is SIGKILLed), a second line of defence."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass  # not Linux: the pipe watch alone stops the bot


BOT_MARK = b"[bot] "
"""Put before a line of the bot's that could pass for the arena's: see :class:`CappedLog`."""
_SUSPECT = re.compile(rb"(?m)^(?=[\[\x00-\x09\x0b-\x20\x7f-\xff])")
"""The start of a line beginning with ``[``, white space, a control byte or a non-ASCII byte (every way to
look like ``[arena]``: the bracket itself, something a terminal or a page hides before it, a look-alike)."""
LOCK_WAIT_S = 0.5  # how long the arena waits for the log's lock before it gives up a note (best effort)


def mark_bot_lines(data: bytes, at_line_start: bool) -> bytes:
    """``data``, the bot's, with :data:`BOT_MARK` before each line that begins in it and could pass for the
    arena's (``at_line_start``: whether ``data`` itself begins a line of the file)."""
    if at_line_start:
        return _SUSPECT.sub(BOT_MARK, data)
    cut = data.find(b"\n") + 1
    return data if cut == 0 else data[:cut] + _SUSPECT.sub(BOT_MARK, data[cut:])


class CappedLog:
    """The bot's log, at most about ``2 * cap`` bytes on disk for the entrant, however often it restarts.

    The newest output is what explains a crash, so it is kept: when the log reaches ``cap`` bytes it is
    renamed to ``NAME.1`` (replacing the previous one, the oldest output) and a fresh log is begun with a
    line saying so. The size already on disk counts, so restarts share one budget.

    The arena's own lines begin with ``[arena] `` and always begin a line of the file; a bot's line that
    begins a line of the file and starts with ``[``, white space, a control or a non-ASCII byte is written
    after :data:`BOT_MARK`, so no line of the bot's can pass for the arena's (a game's start and end
    marks included, which split the log into games). Two writers can append to the file: this shim and,
    when no shim can take its line, the arena (:meth:`arena.players.process.ManagedBot.note`, through
    :func:`append_arena_line`). Each holds the file's ``flock`` while it writes,
    the arena begins a line of its own (a newline first, when the bot's last line is unfinished), and the
    shim treats any growth it did not write as ending a line, so the bot's next bytes begin one and are
    checked.
    """

    def __init__(self, path: str, cap: int) -> None:
        self.path = path
        self.cap = max(cap, 1024)
        self._lock = threading.Lock()  # the pump and the arena watcher both write
        self.file = self._open()
        self.size = self.file.tell()
        self._end = self.size  # the file's size after this shim's last write
        self._at_line_start = self.size == 0 or self._last_byte() == b"\n"

    def _open(self) -> BinaryIO:
        """Opened for appending and readable by the organiser only (logs can hold a bot's secrets)."""
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        return os.fdopen(fd, "a+b")

    def _last_byte(self) -> bytes:
        size = os.fstat(self.file.fileno()).st_size
        return os.pread(self.file.fileno(), 1, size - 1) if size else b""

    def write(self, data: bytes) -> None:
        """Write the bot's output (marked where it could pass for the arena's)."""
        self._write(data, bot=True)

    def arena_line(self, line: str) -> None:
        """Write one line of the arena's own, at the start of a line of the file."""
        self._write(line.encode(), bot=False)

    def _write(self, data: bytes, *, bot: bool) -> None:
        with self._lock:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_EX)
            try:
                self._write_locked(data, bot)
            finally:
                fcntl.flock(self.file.fileno(), fcntl.LOCK_UN)  # the current file: a rotation locks the new

    def _write_locked(self, data: bytes, bot: bool) -> None:
        self._catch_up()
        if not bot and not self._at_line_start:
            data = b"\n" + data
        while data:
            if self.size >= self.cap:
                self._rotate()
            part = data[: max(1, self.cap - self.size)]
            data = data[len(part) :]
            out = mark_bot_lines(part, self._at_line_start) if bot else part
            self.file.write(out)
            self.file.flush()
            self.size += len(out)
            self._at_line_start = part.endswith(b"\n")
        self._end = os.fstat(self.file.fileno()).st_size

    def _catch_up(self) -> None:
        """The arena may have appended lines since this shim's last write: they end a line."""
        size = os.fstat(self.file.fileno()).st_size
        if size != self._end:
            self.size += size - self._end
            self._end = size
            self._at_line_start = True

    def _rotate(self) -> None:
        old = self.file
        os.replace(self.path, self.path + ".1")
        self.file = self._open()
        fcntl.flock(self.file.fileno(), fcntl.LOCK_EX)  # the old file's lock is let go with it, below
        old.close()
        note = f"[arena] log reached {self.cap} bytes: older output moved to {self.path}.1\n".encode()
        self.file.write(note)
        self.size = len(note)
        self._end = self.size
        self._at_line_start = True

    def close(self) -> None:
        self.file.close()


def append_arena_line(path: Path | str, line: str, wait_s: float = LOCK_WAIT_S) -> bool:
    """Append one line of the arena's to a bot's log from outside its shim: under the log's lock, at the
    start of a line of the file (a newline first if the bot's last line is unfinished). Gives up (False)
    when the lock is not free within ``wait_s`` or the file cannot be written: the caller's notes are best
    effort, and the arena's event loop may not wait on a shim that its bot starves."""
    for _ in range(2):  # a second time if the shim rotated the log between open and lock
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError:
            return False
        try:
            deadline = time.monotonic() + wait_s
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        return False
                    time.sleep(0.002)
            try:
                if os.fstat(fd).st_ino != os.stat(path).st_ino:
                    continue  # rotated: write to the new file
            except OSError:
                continue
            size = os.fstat(fd).st_size
            data = line.encode()
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data
            os.write(fd, data)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)
    return False


FRAME = b"\x1e"
"""First byte of an arena line in the bot's output pipe, before the shim's key (:func:`frame`)."""
KEY_BYTES = 16
SETTLED = b"\x00settled "
"""A framed line that begins so is no line of the log: the shim writes the rest (a token and its newline)
to its standard output once it has written everything before it into the log."""
MAX_FRAME = 3000
"""An arena line's length in the pipe stays below a pipe's atomic write (4,096 bytes on Linux): never cut
by the bot's own writes."""


def frame(key: str, line: str) -> bytes:
    """One line of the arena's, as the arena writes it into the bot's output pipe: the shim knows it from the
    bot's own bytes by ``key``, which the bot never sees (it reaches the shim on the shim's standard
    input)."""
    body = line.rstrip("\n").replace("\n", " ").encode()[:MAX_FRAME]
    return FRAME + key.encode() + b" " + body + b"\n"


class _Frames:
    """The bot's output pipe, split into the bot's own bytes and the arena's framed lines."""

    def __init__(self, key: str | None) -> None:
        self.prefix = None if key is None else FRAME + key.encode() + b" "
        self._held = b""
        self._in_frame = False

    def feed(self, data: bytes) -> list[tuple[bool, bytes]]:
        """(is the arena's, bytes) in the pipe's order; a framed line is whole, without its prefix."""
        if self.prefix is None:
            return [(False, data)] if data else []
        buf = self._held + data
        out: list[tuple[bool, bytes]] = []
        while buf:
            if self._in_frame:
                end = buf.find(b"\n")
                if end < 0:
                    break
                out.append((True, buf[: end + 1]))
                buf = buf[end + 1 :]
                self._in_frame = False
                continue
            at = buf.find(self.prefix)
            if at >= 0:
                if at:
                    out.append((False, buf[:at]))
                buf = buf[at + len(self.prefix) :]
                self._in_frame = True
                continue
            keep = _prefix_tail(buf, self.prefix)  # bytes that may begin a frame the next read completes
            if keep < len(buf):
                out.append((False, buf[: len(buf) - keep]))
                buf = buf[len(buf) - keep :]
            break
        self._held = buf
        return out

    def rest(self) -> bytes:
        """What is held back at the end (a bot's bytes that began like a frame, or a frame cut short)."""
        held, self._held, self._in_frame = self._held, b"", False
        return held


def _prefix_tail(buf: bytes, prefix: bytes) -> int:
    """The length of the longest end of ``buf`` that is a start of ``prefix`` (shorter than it)."""
    start = max(0, len(buf) - len(prefix) + 1)
    at = buf.find(prefix[:1], start)
    while at >= 0:
        if prefix.startswith(buf[at:]):
            return len(buf) - at
        at = buf.find(prefix[:1], at + 1)
    return 0


class _Copier:
    """Copies the bot's output pipe into the log, the arena's framed lines written as its own, from one
    thread; watches the arena's pipe for its end."""

    def __init__(
        self, output: int, key: str | None, log: CappedLog, on_arena_gone: Callable[[], None]
    ) -> None:
        self.output: int | None = output
        self.log = log
        self.on_arena_gone = on_arena_gone
        self.output_done = threading.Event()  # every writer has closed the bot's output
        self._frames = _Frames(key)
        self._arena = sys.stdin.fileno()
        self._lock = threading.Lock()  # this thread, and the main one's last copies once the bot has exited
        os.set_blocking(output, False)

    def run(self) -> None:
        try:
            while True:
                watched = [self._arena] if self.output is None else [self._arena, self.output]
                ready, _, _ = select.select(watched, [], [])
                if self._arena in ready and not _read_some(self._arena):
                    break
                if self.output is not None and self.output in ready:
                    self.copy(max_reads=16)  # then a look at the arena's pipe, however much the bot writes
        except (OSError, ValueError):
            return  # the log is closed: the shim is exiting after its bot
        self.on_arena_gone()

    def copy(self, max_reads: int = 64) -> None:
        """Copy what is in the bot's output pipe now, in at most ``max_reads`` reads (a pipe holds one
        read's worth unless its bot enlarged it; a bot's child writing without end must not hold the shim
        here)."""
        with self._lock:
            for _ in range(max_reads):
                if self.output is None:
                    return
                try:
                    chunk = os.read(self.output, 65536)
                except BlockingIOError:
                    return
                except OSError:
                    chunk = b""
                if not chunk:
                    self._write(self._frames.rest(), arena=False)
                    os.close(self.output)
                    self.output = None
                    self.output_done.set()
                    return
                for arena, data in self._frames.feed(chunk):
                    self._write(data, arena)

    def finish(self) -> None:
        """Copy what is left, and the bytes held back as the start of a frame the bot never finished."""
        self.copy()
        with self._lock:
            self._write(self._frames.rest(), arena=False)

    def _write(self, data: bytes, arena: bool) -> None:
        if arena and data.startswith(SETTLED):
            # Everything before it in the pipe is in the log: say so to the arena (arena.players.process,
            # ManagedBot.settle), on this shim's standard output, which only the arena reads.
            with contextlib.suppress(OSError):
                os.write(1, data[len(SETTLED) :])
        elif arena:
            self.log.arena_line(data.decode("utf-8", "replace"))
        elif data:
            self.log.write(data)


def _read_some(fd: int) -> bool:
    """Read and drop what the arena sent (it sends nothing after the key); False at the pipe's end."""
    try:
        return bool(os.read(fd, 4096))
    except BlockingIOError:
        return True
    except OSError:
        return False


def _read_key(fd: int) -> str | None:
    """The key the arena sends first on the shim's standard input (a line); None when the pipe ends."""
    data = b""
    while not data.endswith(b"\n"):
        try:
            more = os.read(fd, 1)
        except OSError:
            return None
        if not more:
            return None
        data += more
        if len(data) > 4 * KEY_BYTES:
            return None
    return data.decode("ascii", "replace").strip()


def _stop_group(grace_s: float) -> None:
    """SIGTERM everything else in the shim's process group (the bot and what it forked), then SIGKILL."""
    group = os.getpgrp()
    if not os.path.isdir("/proc"):  # no /proc (not Linux): signal the whole group, the shim included, last
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGTERM)  # the shim's own handler ignores it
        time.sleep(grace_s)
        os.killpg(group, signal.SIGKILL)
    _signal_others(group, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and _others(group):
        time.sleep(0.05)
    # SIGKILL is delivered asynchronously: wait until the kernel has really ended every process, so that
    # whoever waits for this shim knows that nothing of the bot is left.
    deadline = time.monotonic() + 10.0
    while _others(group) and time.monotonic() < deadline:
        _signal_others(group, signal.SIGKILL)
        time.sleep(0.01)


def _signal_others(group: int, sig: int) -> None:
    for pid in _others(group):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _others(group: int) -> list[int]:
    """Live processes other than this one in process group ``group``."""
    me = os.getpid()
    return [pid for pid in group_members(group) if pid != me]


def group_members(group: int) -> list[int]:
    """Live (not zombie) processes in process group ``group``, read from Linux /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.players.shim")
    parser.add_argument("--log", required=True, help="log file for the bot's stdout and stderr")
    parser.add_argument("--log-cap", type=int, default=1024 * 1024, help="bytes of log to keep")
    parser.add_argument("--memory-mb", type=int, default=None, help="address-space limit of the bot")
    parser.add_argument("--cpu-s", type=int, default=None, help="CPU-time limit of the bot, seconds")
    parser.add_argument("--grace", type=float, default=GRACE_S, help="seconds between SIGTERM and SIGKILL")
    parser.add_argument("--nofile", type=int, default=None, help="open-file limit of each bot process")
    parser.add_argument(
        "--cgroup-procs", action="append", default=[], help="cgroup.procs file the bot joins (repeatable)"
    )
    parser.add_argument(
        "--pass-fd", type=int, action="append", default=[], help="descriptor the bot inherits (repeatable)"
    )
    parser.add_argument(
        "--clear-env",
        action="store_true",
        help="start the command with an empty environment (the sandbox: its first process keeps what it "
        "was started with in /proc/PID/environ, which an unprivileged bot of the same user can read)",
    )
    parser.add_argument(
        "--output-fds",
        default=None,
        help="READ,WRITE: the bot's output pipe, made by the arena, which writes its own lines into it "
        "framed with the key it sends first on standard input (without: a pipe of the shim's own)",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no bot command given")
    not_joined = _join_cgroups(args.cgroup_procs)
    # A handler (not SIG_IGN, which exec would pass on to the bot) so that SIGTERM to the group spares us.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: None)
    key = None
    if args.output_fds:
        output_read, output_write = (int(fd) for fd in args.output_fds.split(","))
        key = _read_key(sys.stdin.fileno())
        if key is None:
            return 0  # the arena is gone already
    else:
        output_read, output_write = os.pipe()
    log = CappedLog(args.log, args.log_cap)
    try:
        log.arena_line(f"{STARTING_MARK} {' '.join(command)}\n")
        if not_joined:
            log.arena_line(f"[arena] {not_joined}\n")
            return 127
        try:
            bot = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=output_write,
                stderr=output_write,
                preexec_fn=_limits(args.memory_mb, args.cpu_s, args.nofile),
                pass_fds=args.pass_fd,
                env={} if args.clear_env else None,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            log.arena_line(f"[arena] cannot start the bot: {exc}\n")
            return 127
        finally:
            # The bot has its copies: the pipes' other ends see their end with the bot (the output pipe's
            # with the bot and the arena, which keeps a writing end for its own lines).
            for fd in [*args.pass_fd, output_write]:
                os.close(fd)

        def arena_gone() -> None:
            with contextlib.suppress(OSError, ValueError):
                copier.finish()  # what the bot said last, and the arena's last lines
                log.arena_line("[arena] arena gone or stop requested: stopping the bot\n")
            _stop_group(args.grace)
            os._exit(0)

        copier = _Copier(output_read, key, log, arena_gone)
        threading.Thread(target=copier.run, daemon=True).start()
        code = bot.wait()
        if key is None:  # the pipe ends with the bot (unless a child of its holds it)
            copier.output_done.wait(timeout=1.0)
        copier.copy()  # its last words
        log.arena_line(f"[arena] bot exited with status {code}\n")
        _stop_group(0.5)  # children the bot left behind
        copier.finish()  # theirs, and what the arena wrote before it could see the bot gone (an end mark)
    finally:
        log.close()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    # os._exit: a daemon thread is blocked watching stdin; a normal interpreter shutdown would abort on it.
    sys.stdout.flush()
    os._exit(main())
