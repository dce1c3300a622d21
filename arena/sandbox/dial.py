"""How the arena reaches a sandboxed bot's socket without following anything the bot can replace.

Why: the bot owns its socket directory, so it can swap ``bot.sock`` for a symbolic link to any socket of
the host, and the arena, which may run as root, would connect there (it did, four times). Checking the
path first does not help, since the bot can swap it between the check and the connection. So the arena
opens the socket file once per start of the bot, component by component with ``O_NOFOLLOW`` from the
sandbox's own root (``/proc/<sandbox pid>/root``), checks that what it holds is a socket owned by the bot,
and dials that very inode through ``/proc/self/fd/N`` from then on; gRPC's reconnects resolve the same
descriptor, never the bot's path again.

The descriptor number stays the same for the whole event (a restart puts the new socket under the old
number with ``dup2``): a channel still held by a game after a restart then reaches the same bot's new
process, never whatever file another bot's start might have been given that number.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import PurePosixPath

_DIR = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class SocketRefused(OSError):
    """The bot's socket path holds something the arena will not dial (a link, a file, another's socket)."""


class SandboxPid:
    """The pid (on the host) of a sandbox's first process, read from bubblewrap's ``--info-fd`` pipe.

    Bubblewrap writes a small JSON object there once the sandbox exists; the arena reads it without
    blocking, between its polls for the bot's health.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)
        self._text = b""
        self.pid: int | None = None

    def poll(self) -> int | None:
        """The pid once bubblewrap has said it, else None (not yet, or bubblewrap died before)."""
        if self.pid is None and self.fd >= 0:
            with contextlib.suppress(BlockingIOError):
                while chunk := os.read(self.fd, 4096):
                    self._text += chunk
                self.close()  # end of file: bubblewrap has written all it will
            with contextlib.suppress(ValueError):
                found = json.loads(self._text).get("child-pid")
                self.pid = found if isinstance(found, int) and found > 0 else None
        return self.pid

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def pin_socket(sandbox_pid: int, inside: str, owner: int) -> int | None:
    """A descriptor (``O_PATH``) of the socket at ``inside`` in the sandbox, or None while there is none.

    Every component is opened with ``O_NOFOLLOW`` starting from the sandbox's root, so no link of the
    bot's is followed, and the file found must be a socket owned by user ``owner`` (the bot's).

    :raises SocketRefused: something else is at the path (its message says what).
    :raises OSError: the sandbox is gone (its ``/proc`` entry cannot be opened).
    """
    parts = PurePosixPath(inside).relative_to("/").parts
    held = [os.open(f"/proc/{sandbox_pid}/root", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)]
    try:
        for part in parts[:-1]:
            try:
                held.append(os.open(part, _DIR, dir_fd=held[-1]))
            except FileNotFoundError:
                return None
            except OSError as exc:  # a link (ELOOP) or a file (ENOTDIR) where a directory should be
                raise SocketRefused(f"{inside}: {part} is not a directory ({exc.strerror})") from None
        try:
            fd = os.open(parts[-1], os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=held[-1])
        except FileNotFoundError:
            return None
    finally:
        for d in held:
            os.close(d)
    info = os.fstat(fd)
    problem = None
    if stat.S_ISLNK(info.st_mode):
        problem = "is a symbolic link"
    elif not stat.S_ISSOCK(info.st_mode):
        problem = "is not a socket"
    elif info.st_uid != owner:
        problem = f"belongs to user {info.st_uid}, not to the bot's {owner}"
    if problem is not None:
        os.close(fd)
        raise SocketRefused(f"{inside} {problem}: not dialled")
    return fd


def keep_at(fd: int, number: int | None) -> int:
    """``fd`` under ``number`` (closing ``fd``), or ``fd`` itself when there is no number yet."""
    if number is None or number == fd:
        return fd
    os.dup2(fd, number, inheritable=False)
    os.close(fd)
    return number


def dial_address(number: int) -> str:
    """The gRPC address of the socket pinned under descriptor ``number`` (in this process)."""
    return f"unix:/proc/self/fd/{number}"
