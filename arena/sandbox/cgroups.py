"""Limits that hold for a bot as a whole: every process it starts, across restarts, for the whole event.

Why cgroups: ``setrlimit`` applies per process, so a bot limited to 600 MB could hold several times that
in children, and a CPU-time limit restarted with every process gave a forking or crashing bot a fresh
budget each time. A control group counts all of a bot's processes together and outlives them: the arena
creates one per launched bot when the event starts, every start of the bot joins it, and it is removed when
the event ends. Memory (resident, page cache and the private ``/tmp`` included) and the number of processes
are enforced by the kernel; CPU time is summed by the kernel and enforced by the arena, which stops the bot
for good once its budget for the event is spent.

Creating cgroups needs write access to the cgroup filesystem (root, or a delegated subtree). Both
hierarchies are supported: v1 (one directory per controller) and v2 (one directory). Where neither can be
used, :func:`cgroup_problem` says why and the arena falls back to per-process limits, and says so.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

CONTROLLERS = ("memory", "pids", "cpuacct")
_counter = itertools.count()


@dataclass(frozen=True, slots=True)
class _Layout:
    version: int
    parents: dict[str, Path]  # controller -> our own cgroup directory (v2: the same path for all)


def _mounts(mountinfo: str) -> list[tuple[str, str, str, set[str]]]:
    """(mount root within the hierarchy, mount point, fstype, super options) of every cgroup mount."""
    found = []
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        found.append((fields[3], fields[4], tail[0], set(tail[2].split(","))))
    return found


def _own_paths(cgroup: str) -> dict[str, str]:
    """Controller (or '' for v2) -> this process's cgroup path, from the text of /proc/self/cgroup."""
    out: dict[str, str] = {}
    for line in cgroup.splitlines():
        if line.count(":") >= 2:
            _, controllers, path = line.split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                out[c] = path
    return out


def _join(mount_point: str, mount_root: str, own: str) -> Path:
    rel = os.path.relpath(own, mount_root) if own.startswith(mount_root) else own.lstrip("/")
    return Path(mount_point) / ("" if rel == "." else rel)


@functools.cache
def _layout() -> _Layout | str:
    """Where this process's cgroups are and which hierarchy to use, or why none can be used."""
    try:
        mountinfo = Path("/proc/self/mountinfo").read_text()
        cgroup = Path("/proc/self/cgroup").read_text()
    except OSError:
        return "no cgroup information (not Linux, or /proc is not mounted)"
    return find_layout(mountinfo, cgroup)


def find_layout(mountinfo: str, cgroup: str) -> _Layout | str:
    """The layout described by the texts of /proc/self/mountinfo and /proc/self/cgroup (testable alone)."""
    own = _own_paths(cgroup)
    mounts = _mounts(mountinfo)
    v1: dict[str, Path] = {}
    for root, point, fstype, options in mounts:
        if fstype != "cgroup":
            continue
        for c in CONTROLLERS:
            if c in options and c in own:
                v1[c] = _join(point, root, own[c])
    if set(v1) == set(CONTROLLERS):
        unwritable = [c for c, p in v1.items() if not os.access(p, os.W_OK)]
        if not unwritable:
            return _Layout(1, v1)
        return f"the cgroup v1 directories of {', '.join(unwritable)} are not writable (run as root)"
    for root, point, fstype, _ in mounts:
        if fstype == "cgroup2" and "" in own:
            path = _join(point, root, own[""])
            if not os.access(path, os.W_OK):
                return f"the cgroup v2 directory {path} is not writable (run as root or delegate it)"
            available = (path / "cgroup.controllers").read_text().split()
            missing = [c for c in ("memory", "pids", "cpu") if c not in available]
            if missing:
                return f"cgroup v2 controllers {', '.join(missing)} are not available in {path}"
            try:
                (path / "cgroup.subtree_control").write_text("+memory +pids +cpu")
            except OSError as exc:
                return f"cannot enable the memory, pids and cpu controllers under {path}: {exc.strerror}"
            return _Layout(2, {"": path})
    return "no usable cgroup hierarchy with the memory, pids and cpuacct controllers"


def cgroup_problem() -> str | None:
    """Why per-bot limits cannot be enforced with cgroups here, or None when they can."""
    layout = _layout()
    return layout if isinstance(layout, str) else None


def _sweep(layout: _Layout) -> None:
    """Remove the cgroups an arena that died (``kill -9``) could not remove, killing what is left in them.

    Runs once per process: an arena's own cgroups are removed by the arena itself.
    """
    if _swept:
        return
    _swept.append(True)
    for parent in set(layout.parents.values()):
        for d in parent.glob("euchre-arena-*"):
            pid = d.name.split("-")[2]
            if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                dirs = {c: p / d.name for c, p in layout.parents.items()}
                with contextlib.suppress(OSError):
                    BotCgroup(dirs, layout.version).remove()


_swept: list[bool] = []


class BotCgroup:
    """The cgroup(s) of one launched bot, kept for the whole event."""

    def __init__(self, dirs: dict[str, Path], version: int) -> None:
        self.dirs = dirs
        self.version = version

    @classmethod
    def create(
        cls, name: str, memory_mb: int | None, max_processes: int | None, layout: _Layout | None = None
    ) -> BotCgroup:
        """A new, empty cgroup for bot ``name`` with its limits set (``layout``: this machine's).

        :raises OSError: when cgroups cannot be used here (see :func:`cgroup_problem`).
        """
        if layout is None:
            found = _layout()
            if isinstance(found, str):
                raise OSError(found)
            layout = found
            _sweep(layout)
        leaf = f"euchre-arena-{os.getpid()}-{next(_counter)}-{name}"
        dirs = {c: parent / leaf for c, parent in layout.parents.items()}
        for d in set(dirs.values()):
            d.mkdir()
        group = cls(dirs, layout.version)
        try:
            group._limit(memory_mb, max_processes)
        except OSError:
            group.remove()
            raise
        return group

    def _limit(self, memory_mb: int | None, max_processes: int | None) -> None:
        if self.version == 1:
            if memory_mb:
                size = str(memory_mb * 1024 * 1024)
                (self.dirs["memory"] / "memory.limit_in_bytes").write_text(size)
                swap = self.dirs["memory"] / "memory.memsw.limit_in_bytes"
                if swap.exists():
                    with contextlib.suppress(OSError):
                        swap.write_text(size)  # no swapping out of the limit either
            if max_processes:
                (self.dirs["pids"] / "pids.max").write_text(str(max_processes))
            return
        d = self.dirs[""]
        if memory_mb:
            (d / "memory.max").write_text(str(memory_mb * 1024 * 1024))
            with contextlib.suppress(OSError):
                (d / "memory.swap.max").write_text("0")
        if max_processes:
            (d / "pids.max").write_text(str(max_processes))

    @property
    def procs_files(self) -> list[str]:
        """The files a new process writes its pid into to join (every controller's, v1)."""
        return sorted({str(d / "cgroup.procs") for d in self.dirs.values()})

    def pids(self) -> list[int]:
        d = self.dirs["pids"] if self.version == 1 else self.dirs[""]
        try:
            return [int(x) for x in (d / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def cpu_seconds(self) -> float:
        """CPU time used by every process that ever ran in the group (user and system)."""
        try:
            if self.version == 1:
                return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
            for line in (self.dirs[""] / "cpu.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        except (OSError, ValueError):
            pass
        return 0.0

    def memory_peak_bytes(self) -> int | None:
        """The most memory the group has held at once (what a memory limit is measured against), or None
        where the kernel does not say (cgroup v2 before Linux 5.19)."""
        path = (
            self.dirs["memory"] / "memory.max_usage_in_bytes"
            if self.version == 1
            else self.dirs[""] / "memory.peak"
        )
        try:
            return int(path.read_text())
        except (OSError, ValueError):
            return None

    def kill_all(self, timeout_s: float = 5.0) -> bool:
        """SIGKILL every process in the group until none is left; True when it is empty."""
        kill_file = self.dirs.get("", Path("/nonexistent")) / "cgroup.kill"
        deadline = time.monotonic() + timeout_s
        while True:
            pids = self.pids()
            if not pids:
                return True
            if kill_file.exists():
                with contextlib.suppress(OSError):
                    kill_file.write_text("1")
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left and delete the group (its CPU account goes with it)."""
        self.kill_all()
        for d in set(self.dirs.values()):
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)  # the last processes are still being reaped
