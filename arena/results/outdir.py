"""The output directory of an event: one writer at a time, readable by the organiser only.

Two arenas writing one directory would interleave two schedules' games in one database (today's symptom
was an ``IntegrityError`` traceback at best). ``EventLock`` is an ``flock`` on ``OUTPUT/.lock`` held for the
whole run: the kernel releases it when the process dies however it dies, ``kill -9`` included, so a killed
event resumes without anybody deleting a stale lock file. Read-only commands (leaderboard, replay) do not
take it; SQLite's own locking keeps their reads consistent.

Results, the deal key and the bots' logs hold what no entrant may see during the event (every hand record,
the key that makes the deals), so the directory is 0700 and the files in it 0600, tightened when an older
directory is opened again. (Isolating launched bots from the organiser's user is the sandbox's job; these
modes keep other users of the machine out, and are the floor that the sandbox builds on.)
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from pathlib import Path

from arena.errors import ConfigError

LOCK_NAME = ".lock"
DIR_MODE = 0o700
FILE_MODE = 0o600
LOG_DIR = "logs"
PRIVATE_FILES = ("event.sqlite", "event.sqlite-wal", "event.sqlite-shm", "deal.key", LOCK_NAME)


EVENT_MARKS = ("event.sqlite", "deal.key", LOCK_NAME, "server.sqlite")
"""Files only an arena puts in a directory: one of them there, and the directory is an event's (or an
``arena serve`` competition's: its own database, ``server.sqlite``)."""
OWN_NAMES = (*PRIVATE_FILES, LOG_DIR, "report.html")


def check_own(directory: Path) -> None:
    """Refuse an output directory that is not the arena's to take: the working directory itself, or an
    existing directory of other files that holds no event.

    Why: ``prepare`` makes the directory private (0700) and fills it with the event's files. On the
    working directory (``--output .``, or an empty ``--output`` before it was refused as text) or on a
    project checkout, a home directory, ``/tmp`` ..., that would lock others out of it and mix results into
    someone's files. A directory that already holds an event (any of ``EVENT_MARKS``), an empty one, and
    one with nothing but the arena's own names are the arena's.

    :raises ConfigError: the working directory, or a directory of other files.
    """
    try:
        if directory.resolve() == Path.cwd().resolve():
            raise ConfigError(
                f"output {str(directory)!r} is the current directory: name a directory of its own for the "
                "event's results (e.g. results/NAME); the arena makes it private (mode 0700)"
            )
        if not directory.is_dir() or any((directory / mark).exists() for mark in EVENT_MARKS):
            return
        others = sorted(entry.name for entry in directory.iterdir() if entry.name not in OWN_NAMES)
    except OSError as exc:
        raise ConfigError(f"cannot look at the output directory {str(directory)!r}: {exc.strerror}") from None
    if others:
        raise ConfigError(
            f"output {str(directory)!r} holds other files ({others[0]!r} ...) and no event: name a new or "
            "empty directory for the event's results (the arena makes it private, mode 0700)"
        )


def prepare(directory: Path) -> None:
    """Create ``directory`` (0700; missing parents get the usual mode) or tighten an existing one, with its
    result files (0600) and its logs directory (0700); never a directory that is not the arena's to take
    (``check_own``).

    :raises ConfigError: the path is not a directory, is not the arena's to take, or cannot be created or
        restricted.
    """
    check_own(directory)
    try:
        directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        os.chmod(directory, DIR_MODE)
        for name in PRIVATE_FILES:
            with contextlib.suppress(FileNotFoundError):
                os.chmod(directory / name, FILE_MODE)
        logs = directory / LOG_DIR
        logs.mkdir(mode=DIR_MODE, exist_ok=True)
        os.chmod(logs, DIR_MODE)
    except FileExistsError:
        where = directory / LOG_DIR if directory.is_dir() else directory
        raise ConfigError(f"{str(where)!r} exists and is not a directory") from None
    except OSError as exc:
        raise ConfigError(f"cannot prepare the output directory {str(directory)!r}: {exc.strerror}") from None


def discard_event(directory: Path) -> None:
    """Delete the event stored in ``directory`` (database and deal key; the logs stay), under the lock."""
    for name in ("event.sqlite", "event.sqlite-wal", "event.sqlite-shm", "deal.key"):
        (directory / name).unlink(missing_ok=True)


def create_private(path: Path) -> None:
    """Create ``path`` empty with mode 0600 if it does not exist, so that a file another library creates
    there later (SQLite: the database, and its -wal/-shm, which take the database's mode) is private from
    its first byte, whatever the umask."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))


class EventLock:
    """An exclusive ``flock`` on ``DIR/.lock``; ``with EventLock(directory):`` around a whole run.

    The descriptor is not inherited by launched bots (Python opens files non-inheritable), so a bot that
    outlives a killed arena cannot keep the directory locked.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._fd: int | None = None

    def acquire(self, shared: bool = False) -> None:
        """``shared``: a lock several holders may share (the server processes of one PostgreSQL database,
        arena.server.db.multi), which still keeps out an exclusive one such as ``arena run``.

        :raises ConfigError: another arena holds the lock (its pid is in the message when known)."""
        path = self.directory / LOCK_NAME
        try:
            # Never through a link: the lock is a plain file of ours, in a directory only we may write.
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
        except OSError as exc:
            what = (
                "a directory" if exc.errno == errno.EISDIR else "a link" if exc.errno == errno.ELOOP else None
            )
            why = f"it is {what}, not the arena's lock file" if what else exc.strerror or str(exc)
            raise ConfigError(
                f"cannot lock {str(path)!r}: {why}; remove it or use another output directory"
            ) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or a device planted there
            os.close(fd)
            raise ConfigError(f"cannot lock {str(path)!r}: it is not a regular file; remove it")
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise ConfigError(f"cannot lock {str(path)!r}: {exc.strerror}") from None
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise ConfigError(
                f"another arena is running the event in {str(self.directory)!r}{who}: wait for it to finish "
                "or stop it, or use another output directory"
            ) from None
        with contextlib.suppress(OSError):  # the pid only names the holder; a full disk must not stop us
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor releases the flock
            self._fd = None

    def __enter__(self) -> EventLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
