"""Safe unpacking of an upload: one file, a zip or a tar.gz, into a version's own directory.

Everything is checked before or while it is written, never after, in the spirit of PEP 706's ``data``
filter and of PyPI's upload checks:

* the upload's size is capped (the web layer refuses a larger body before reading it);
* member names must be relative, without ``..``, backslashes or drive letters, and not too deep;
* links (symbolic or hard) are refused outright, whichever way they point: a bot needs none, and a link
  inside an archive is the classic way to make a later member write outside the directory; device files,
  FIFOs and sockets are refused too;
* the number of files and the bytes they unpack to are capped from the archive's own declarations before
  anything is written (a zip bomb is refused without being unpacked), and again while writing, counting
  the bytes actually decompressed (a tar.gz's stream is read through a counting reader, so a gzip bomb
  with no honest tar header stops at the cap too);
* files are created with ``O_EXCL | O_NOFOLLOW`` under directories this code made, mode 0644 (0755 for
  the ``run`` program and for members marked executable), so nothing can be written through a link.

Each refusal is a :class:`~arena.server.errors.Refused` naming the member and the rule, shown on the
upload's page as it is.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from arena.server.errors import Refused
from arena.server.settings import Runtime

ENTRY = {
    Runtime.PYTHON: "bot.py",
    Runtime.EXECUTABLE: "run",
    Runtime.EXECUTABLE_PORT: "run",
    Runtime.NODE: "bot.js",
}
"""The file each runtime starts: ``python bot.py``, ``./run`` or ``node bot.js``, with ``--address A`` (or
``--port P``: ``executable-port``)."""
PROGRAMS = frozenset({Runtime.EXECUTABLE, Runtime.EXECUTABLE_PORT})
"""The runtimes whose entry is itself the program: made executable whatever the upload's modes say."""
MAX_DEPTH = 16
CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    upload_bytes: int
    files: int
    unpacked_bytes: int


@dataclass(frozen=True, slots=True)
class Member:
    """One archive member as both formats describe it."""

    name: str
    kind: str  # "file" | "dir" | "link" | "device"
    size: int
    executable: bool


def _refuse(message: str, status: int = 400) -> Refused:
    return Refused(status, f"upload refused: {message}")


def safe_name(raw: str) -> PurePosixPath | None:
    """The member's relative path, or None for the archive's root (``./``).

    :raises Refused: an absolute path, ``..``, a backslash or drive letter, or too deep a path.
    """
    if "\\" in raw or "\x00" in raw:
        raise _refuse(f"member {raw!r} has a backslash or NUL in its name")
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        raise _refuse(f"member {raw!r} has an absolute path")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise _refuse(f"member {raw!r} climbs out of the directory with '..'")
    if len(parts) > MAX_DEPTH or any(len(p) > 255 for p in parts):
        raise _refuse(f"member {raw!r} is nested too deeply or has too long a name")
    return PurePosixPath(*parts) if parts else None


class _CountingReader(io.RawIOBase):
    """A stream that stops with a refusal once more than ``cap`` bytes came out of it."""

    def __init__(self, inner: io.BufferedIOBase, cap: int) -> None:
        self.inner = inner
        self.cap = cap
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.inner.read(len(buffer))
        self.count += len(data)
        if self.count > self.cap:
            raise _refuse(f"the archive unpacks to more than {self.cap} bytes (a compression bomb?)", 413)
        buffer[: len(data)] = data
        return len(data)


def _zip_members(archive: zipfile.ZipFile) -> Iterator[tuple[Member, zipfile.ZipInfo]]:
    for info in archive.infolist():
        mode = info.external_attr >> 16 if info.create_system == 3 else 0
        if info.flag_bits & 0x1:
            raise _refuse(f"member {info.filename!r} is encrypted")
        if stat.S_ISLNK(mode):
            kind = "link"
        elif stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # 0: zip tools omit it
            kind = "device"
        else:
            kind = "dir" if info.is_dir() else "file"
        yield Member(info.filename, kind, info.file_size, bool(mode & 0o111)), info


def _tar_kind(info: tarfile.TarInfo) -> str:
    if info.issym() or info.islnk():
        return "link"
    if info.isdir():
        return "dir"
    if info.isreg():
        return "file"
    return "device"


def _check(member: Member, files: int, declared: int, limits: Limits) -> None:
    if member.kind == "link":
        raise _refuse(f"member {member.name!r} is a link: links are not accepted in an upload")
    if member.kind == "device":
        raise _refuse(f"member {member.name!r} is a device file, FIFO or socket: only files and directories")
    if files > limits.files:
        raise _refuse(f"the archive holds more than {limits.files} files", 413)
    if declared > limits.unpacked_bytes:
        raise _refuse(
            f"the archive unpacks to more than {limits.unpacked_bytes} bytes (a compression bomb?): "
            "nothing was unpacked",
            413,
        )


class _Writer:
    """Writes members under ``root``, counting the bytes actually written."""

    def __init__(self, root: Path, limits: Limits) -> None:
        self.root = root
        self.limits = limits
        self.written = 0

    def directory(self, relative: PurePosixPath) -> Path:
        path = self.root
        for part in relative.parts:
            path = path / part
            if path.is_symlink():  # cannot happen (no links are written); a guard, not a rule
                raise _refuse(f"{relative} passes through a link")
            path.mkdir(mode=0o755, exist_ok=True)
        return path

    def file(self, relative: PurePosixPath, source: IO[bytes], executable: bool) -> None:
        parent = self.directory(relative.parent)
        target = parent / relative.name
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        except FileExistsError:
            raise _refuse(f"member {str(relative)!r} appears twice, or as a file and a directory") from None
        except IsADirectoryError:
            raise _refuse(f"member {str(relative)!r} is both a file and a directory") from None
        with os.fdopen(fd, "wb") as out:
            while chunk := source.read(CHUNK):
                self.written += len(chunk)
                if self.written > self.limits.unpacked_bytes:
                    raise _refuse(f"the archive unpacks to more than {self.limits.unpacked_bytes} bytes", 413)
                out.write(chunk)
        os.chmod(target, 0o755 if executable else 0o644)


def _unpack_zip(data: bytes, writer: _Writer) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        raise _refuse("this is not a zip archive that can be read") from None
    with archive:
        members = list(_zip_members(archive))
        files = declared = 0
        for member, _ in members:  # every check before the first byte is written
            safe_name(member.name)
            files += member.kind == "file"
            declared += member.size
            _check(member, files, declared, writer.limits)
        for member, info in members:
            name = safe_name(member.name)
            if name is None:
                continue
            if member.kind == "dir":
                writer.directory(name)
                continue
            try:
                with archive.open(info) as source:
                    writer.file(name, source, member.executable)
            except (zipfile.BadZipFile, zlib.error, EOFError):
                raise _refuse(f"member {member.name!r} is damaged") from None


def _unpack_tar(data: bytes, writer: _Writer) -> None:
    # Members are checked as the stream reaches them; a refusal then removes what was written (the caller
    # unpacks into a fresh directory and deletes it on any refusal).
    stream = _CountingReader(
        gzip.GzipFile(fileobj=io.BytesIO(data)), writer.limits.unpacked_bytes + (1 << 20)
    )
    files = declared = 0
    try:
        with tarfile.open(fileobj=io.BufferedReader(stream), mode="r|") as archive:
            for info in archive:
                member = Member(info.name, _tar_kind(info), info.size, bool(info.mode & 0o111))
                name = safe_name(member.name)
                files += member.kind == "file"
                declared += member.size
                _check(member, files, declared, writer.limits)
                if name is None:
                    continue
                if member.kind == "dir":
                    writer.directory(name)
                    continue
                source = archive.extractfile(info)
                if source is None:  # pragma: no cover - a regular member always has a reader
                    raise _refuse(f"member {member.name!r} cannot be read")
                writer.file(name, source, member.executable)
    except (tarfile.TarError, OSError, EOFError, zlib.error):
        raise _refuse("this is not a tar.gz archive that can be read to its end") from None


def _hoist(root: Path, entry: str) -> None:
    """An archive of one folder (``mybot/bot.py``): move that folder's contents up to the root."""
    if (root / entry).exists():
        return
    children = list(root.iterdir())
    if len(children) == 1 and children[0].is_dir() and (children[0] / entry).exists():
        inner = children[0]
        for child in inner.iterdir():
            child.rename(root / child.name)
        inner.rmdir()


def unpack(data: bytes, filename: str, dest: Path, runtime: Runtime, limits: Limits) -> None:
    """Unpack the upload ``data`` (named ``filename`` by the browser) into the new directory ``dest``.

    A zip (by its magic bytes) or a gzip stream (a tar.gz) is unpacked; anything else is the one program
    file, saved under the runtime's entry name. Afterwards ``dest`` holds the runtime's entry file at its
    top (an archive of a single folder is accepted too).

    :raises Refused: 413 for what is too large, 400 for anything unsafe or missing; ``dest`` is then gone.
    """
    if len(data) > limits.upload_bytes:
        raise _refuse(f"the upload has {len(data)} bytes; at most {limits.upload_bytes} are accepted", 413)
    if not data:
        raise _refuse("the file is empty")
    entry = ENTRY[runtime]
    dest.mkdir(mode=0o755, parents=True)
    try:
        writer = _Writer(dest, limits)
        if data[:4] == b"PK\x03\x04":
            _unpack_zip(data, writer)
        elif data[:2] == b"\x1f\x8b":
            _unpack_tar(data, writer)
        else:
            writer.file(PurePosixPath(entry), io.BytesIO(data), runtime in PROGRAMS)
        _hoist(dest, entry)
        path = dest / entry
        if not path.is_file() or path.is_symlink():
            raise _refuse(
                f"the {runtime} runtime starts {entry!r}, and the archive has none at its top "
                f"(upload one file, or an archive with {entry} at its top or in its only folder)"
            )
        if runtime in PROGRAMS:
            os.chmod(path, 0o755)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
