"""Files a person hands the arena, checked before a byte is read: one place for every such file.

Configs, competition files, student lists, keys, certificates and entrant programs come from a person,
and a path can name anything: ``arena run /dev/zero`` read until the kernel's out-of-memory killer ended
it (23.9 GB in 8 s), a FIFO or ``/dev/urandom`` hung for good. Each of these is refused with one line
(``ConfigError``, exit 2) before anything is read or written:

* the path must name a regular file (following links: a config may be a link to one). It is opened
  without blocking, so a FIFO with no writer is seen for what it is instead of waiting for one, and the
  check is made on the open file, not on the path (which could be swapped between look and read);
* it may hold at most ``limit`` bytes: its size is checked before the read, and the read itself stops one
  byte past the limit, for files whose size the kernel does not know (``/proc``) or that grow.

This module sits at the bottom of the house (it imports only the arena's errors), so that the options'
TOML reader, the event (deal keys, certificates, programs) and the command line (student lists) share it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from arena.errors import ConfigError

KIB = 1024
MIB = 1024 * KIB
CONFIG_LIMIT = 4 * MIB
"""A tournament's or competition's config: a few kilobytes even with a hundred entrants."""
LIST_LIMIT = 16 * MIB
"""A list of people (CSV): a hundred thousand rows."""
KEY_LIMIT = 64 * KIB
"""A key or certificate file (PEM, or a deal key's 64 hex digits): a chain of certificates at most."""
UPLOAD_LIMIT = 1024 * MIB
"""A program or archive ``arena submit`` sends: the largest ``max_upload_kb`` a competition may set."""
STATE_LIMIT = 64 * MIB
"""A state file the arena or the server wrote for itself (a final's ``final.json``, the ladder's ratings
snapshot): far below this even after a year of games; beyond it the file is not one the arena wrote."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _size(n: int) -> str:
    return f"{n / MIB:,.1f} MB" if n >= MIB else f"{n:,} bytes"


@contextmanager
def opened_user_file(path: str | Path, noun: str) -> Iterator[BinaryIO]:
    """``path`` open for reading once the open file is known to be a regular file (not a FIFO, device,
    directory or socket: opened without blocking, checked on the descriptor). For a reader that takes
    only part of a file (a log's newest bytes, a span of it): it bounds its own reads.

    :raises ConfigError: it does not exist, cannot be opened or is not a regular file (one line naming it).
    """
    where = f"{noun} {str(path)!r}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise ConfigError(f"{where} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {where}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise ConfigError(f"cannot read {where}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ConfigError(f"{where} is {_kind(mode)}, not a regular file")
    with os.fdopen(fd, "rb", buffering=0) as f:
        yield f


def read_user_file(path: str | Path, noun: str, limit: int) -> bytes:
    """The bytes of ``path``, a file a person gave the arena as its ``noun`` ("config file", "deal key").

    :raises ConfigError: it does not exist, cannot be read, is not a regular file (a directory, FIFO,
        device, socket) or holds more than ``limit`` bytes; the message names the file and says which.
    """
    where = f"{noun} {str(path)!r}"
    with opened_user_file(path, noun) as f:
        try:
            size = os.fstat(f.fileno()).st_size
            if size > limit:
                raise ConfigError(f"{where} is {_size(size)}: more than a {noun} may be ({_size(limit)})")
            chunks: list[bytes] = []
            got = 0
            while got <= limit:
                chunk = f.read(min(limit + 1 - got, MIB))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
        except OSError as exc:
            raise ConfigError(f"cannot read {where}: {exc.strerror or exc}") from None
    if got > limit:
        raise ConfigError(f"{where} holds more than a {noun} may ({_size(limit)})")
    return b"".join(chunks)


def read_user_tail(path: str | Path, noun: str, limit: int) -> bytes:
    """The newest ``limit`` bytes of ``path`` (a log), without reading the rest: a regular file only.

    :raises ConfigError: as :func:`opened_user_file`, or a read fails.
    """
    with opened_user_file(path, noun) as f:
        try:
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - limit))
            return f.read(limit) or b""
        except OSError as exc:
            raise ConfigError(f"cannot read {noun} {str(path)!r}: {exc.strerror or exc}") from None


def read_user_text(path: str | Path, noun: str, limit: int) -> str:
    """:func:`read_user_file` as UTF-8 text (its newlines as written: no translation).

    :raises ConfigError: as :func:`read_user_file`, or the file is not UTF-8 text.
    """
    data = read_user_file(path, noun, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"{noun} {str(path)!r}"
        raise ConfigError(f"{where} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def check_user_file(path: str | Path, noun: str, limit: int | None = None) -> Path:
    """That ``path`` is a regular file this process may read (and at most ``limit`` bytes), without reading
    it: for files another program reads (an entrant's program, a certificate Dask loads). Returns it.

    :raises ConfigError: as :func:`read_user_file` (one line naming the file and what is wrong with it).
    """
    where = f"{noun} {str(path)!r}"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(f"{where} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {where}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{where} is {_kind(info.st_mode)}, not a regular file")
    if limit is not None and info.st_size > limit:
        raise ConfigError(f"{where} is {_size(info.st_size)}: more than a {noun} may be ({_size(limit)})")
    if not os.access(path, os.R_OK):
        raise ConfigError(f"cannot read {where}: permission denied")
    return Path(path)
