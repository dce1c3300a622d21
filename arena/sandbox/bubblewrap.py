"""The bubblewrap command line that confines one launched bot.

Why bubblewrap: it is the unprivileged sandbox Flatpak and many CI systems rely on, packaged by every Linux
distribution, and it builds exactly the namespaces we need without a daemon. What the bot gets:

* its own PID namespace: it sees only its own processes, cannot signal, trace or read the memory of the
  arena or of another bot, and when the bot's main process (or bubblewrap) dies the kernel kills every
  process left in the namespace, a grandchild that called ``setsid()`` or daemonised included;
* its own network namespace with nothing but a loopback of its own: it can reach no other bot and no
  service of the host. The arena talks to it over a Unix socket in a directory bound into the sandbox
  (``{address}`` in the command); a bot that can only listen on TCP (``{port}``) gets a small relay inside
  the sandbox (:mod:`arena.sandbox.relay`) between that socket and its port;
* a filesystem of the system directories and its own directory, read-only, the Python interpreter, its
  installed packages and the SDK read-only, a private writable ``/tmp``, and nothing else of the host (the
  output directory and the config file are hidden even when they lie inside a bound directory);
* an environment cleared to PATH, LANG, HOME=/tmp and what the entrant's config adds;
* when the arena runs as root: the bot runs as user ``nobody`` with no capabilities and ``no_new_privs``,
  so it cannot read files only root may read (``/etc/shadow``) even though ``/etc`` is visible.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import arena
from arena.errors import ConfigError


class SandboxMode(StrEnum):
    """How launched bots are confined (``sandbox`` in the config, ``--sandbox``)."""

    BUBBLEWRAP = "bubblewrap"  # namespaces, a read-only view, a private /tmp, cgroup limits
    NONE = "none"  # an ordinary child process: trusted bots only


SOCKET_DIR = "/run/arena"  # inside the sandbox: where the bot's gRPC Unix socket lives
SOCKET_NAME = "bot.sock"
SANDBOX_UID = 65534  # nobody: the user a bot runs as when the arena runs as root
SYSTEM_DIRS = ("/usr", "/etc", "/opt")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), "
    'or set sandbox = "none" to run launched bots without isolation (trusted bots only)'
)


@dataclass(frozen=True, slots=True)
class SandboxSpec:
    """How one launched bot is confined (``mode = "none"``: not at all)."""

    mode: SandboxMode = SandboxMode.BUBBLEWRAP
    workdir: Path | None = None  # the bot's own directory, read-only; None: the directory of its program
    env: Mapping[str, str] = field(default_factory=dict)
    hide: tuple[Path, ...] = ()  # host paths never visible, even inside a bound directory
    tmp_mb: int = 256  # size of the private /tmp (its pages also count toward the memory limit)
    max_processes: int = 256  # processes and threads of the bot together (cgroup pids.max)
    max_open_files: int = 1024  # per process (RLIMIT_NOFILE): no cgroup limits open files

    @property
    def sandboxed(self) -> bool:
        return self.mode == SandboxMode.BUBBLEWRAP  # ==, not is: a plain "bubblewrap" must confine too


@functools.cache
def bubblewrap_problem() -> str | None:
    """Why bubblewrap cannot confine bots on this machine, or None when it can (probed once)."""
    if not sys.platform.startswith("linux"):
        return f"the bubblewrap sandbox needs Linux (this is {sys.platform}); " + INSTALL_HINT
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "the bubblewrap sandbox needs the bwrap program, which is not on PATH: " + INSTALL_HINT
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "as root, the sandbox needs setpriv (util-linux) to run bots as nobody: install util-linux"
    probe = [bwrap, "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--die-with-parent", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot run here ({exc}): " + INSTALL_HINT
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        return (
            f"bwrap is installed but cannot create namespaces here ({reason[0]}); a container may need "
            "user namespaces enabled (e.g. docker run --security-opt seccomp=unconfined), " + INSTALL_HINT
        )
    return None


def bot_directory(argv: Sequence[str], workdir: Path | None, cwd: Path | None = None) -> Path:
    """The directory the bot's program lives in, bound read-only into its sandbox.

    ``workdir`` when given; else the module's top-level package for ``python -m pkg.mod``, the first
    argument that names an existing file (``python bot.py``, ``node bot.js``), or the program itself when it
    is not a system or interpreter path. Relative paths are taken from ``cwd`` (where the bot will run).

    :raises ConfigError: when none of these names a directory.
    """
    here = Path(cwd) if cwd is not None else Path.cwd()
    if workdir is not None:
        path = (here / workdir).resolve()
        if not path.is_dir():
            raise ConfigError(f"workdir {str(workdir)!r} is not a directory")
        return path
    args = list(argv)
    if args and not _is_system_program(args[0]) and (here / args[0]).is_file():
        return (here / args[0]).resolve().parent
    for i, arg in enumerate(args[1:], start=1):
        if arg == "-m" and i + 1 < len(args):
            found = _module_directory(args[i + 1])
            if found is not None:
                return found
            break
        if not arg.startswith("-") and (here / arg).is_file():
            return (here / arg).resolve().parent
    raise ConfigError(
        f"cannot tell the bot's directory from its command {' '.join(args)!r}: set workdir to the directory "
        "the sandbox should show it (read-only)"
    )


def _is_system_program(program: str) -> bool:
    if "/" not in program:
        return True
    resolved = Path(program)
    prefixes = {sys.prefix, sys.base_prefix, *SYSTEM_DIRS}
    return resolved == Path(sys.executable) or any(resolved.is_relative_to(p) for p in prefixes)


def _module_directory(module: str) -> Path | None:
    """The directory of the top-level package of ``module`` (or of the module itself), if importable."""
    top = module.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    if spec.origin and os.path.isfile(spec.origin):
        return Path(spec.origin).resolve().parent
    return None


def sdk_paths() -> list[Path]:
    """What a bot needs besides its own directory: the interpreter, its packages, the SDK and the protos."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    package = Path(arena.__file__).resolve().parent
    paths.add(package)
    samples = _module_directory("sample_bots")  # shipped with the SDK: bots may build on them
    if samples is not None:
        paths.add(samples)
    proto = package.parent / "proto"
    if proto.is_dir():
        paths.add(proto)  # the .proto files a bot in another language loads at run time
    for entry in sys.path:
        if entry and entry.endswith(("site-packages", "dist-packages")) and os.path.isdir(entry):
            paths.add(Path(entry).resolve())
    return sorted(p for p in paths if not any(p.is_relative_to(s) for s in SYSTEM_DIRS))


def bwrap_argv(
    argv: Sequence[str],
    spec: SandboxSpec,
    socket_dir: Path,
    *,
    bot_dir: Path,
    cwd: Path | None = None,
) -> list[str]:
    """The full command that runs ``argv`` inside the sandbox.

    ``socket_dir`` (on the host) appears as :data:`SOCKET_DIR` inside, writable: the bot creates its Unix
    socket there and the arena connects to it from outside.
    """
    bwrap = shutil.which("bwrap") or "bwrap"
    cwd = (cwd or Path.cwd()).resolve()
    out = [
        bwrap,
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "euchre-bot",
        "--die-with-parent",
        "--new-session",
    ]
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            out += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            out += ["--ro-bind", link, link]
    # The private /tmp first: a directory bound below (a bot kept under /tmp) must stay visible on top of it.
    out += ["--proc", "/proc", "--dev", "/dev"]
    out += ["--perms", "1777", "--size", str(spec.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp"]
    made: set[Path] = {Path("/tmp")}
    binds = [Path(d) for d in SYSTEM_DIRS if os.path.isdir(d)]
    binds += [*sdk_paths(), bot_dir]
    kept: list[Path] = []
    for path in sorted(set(binds), key=lambda p: len(p.parts)):
        if not any(path.is_relative_to(k) for k in kept):
            kept.append(path)  # a directory inside one already bound is visible through it
    binds = kept
    for path in binds:
        out += _parents(path, made)
        out += ["--ro-bind", str(path), str(path)]
        made.add(path)
    for hidden in spec.hide:
        hidden = Path(hidden).resolve()
        if not any(hidden.is_relative_to(b) for b in binds) or not hidden.exists():
            continue
        if hidden.is_dir():
            out += ["--tmpfs", str(hidden)]
        else:
            out += ["--ro-bind", "/dev/null", str(hidden)]
    if not any(cwd.is_relative_to(b) for b in binds):
        out += _parents(cwd, made)
        if cwd not in made:
            out += ["--perms", "0755", "--dir", str(cwd)]
    out += ["--perms", "0755", "--dir", "/run", "--bind", str(socket_dir), SOCKET_DIR]
    out += ["--chdir", str(cwd), "--clearenv"]
    env = {"PATH": DEFAULT_PATH, "LANG": "C.UTF-8", "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(spec.env)
    for key, value in env.items():
        out += ["--setenv", key, value]
    if os.geteuid() == 0:
        # bubblewrap run by root keeps uid 0 (without capabilities) unless told otherwise: hand the bot to
        # nobody, with the two capabilities setpriv needs for that and nothing after it.
        out += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--"]
        out += [shutil.which("setpriv") or "setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}"]
        out += ["--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    out += ["--", *argv]
    return out


def _parents(path: Path, made: set[Path]) -> list[str]:
    """``--dir`` for each missing ancestor of ``path``, world-traversable (bubblewrap's default is 0700)."""
    out: list[str] = []
    for parent in reversed(path.parents):
        if parent == Path("/") or parent in made:
            continue
        out += ["--perms", "0755", "--dir", str(parent)]
        made.add(parent)
    return out


def readable_by_sandbox_user(path: Path) -> bool:
    """Whether user nobody could read ``path`` (a directory: list and enter it) on the host."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(mode & 0o004) and (not path.is_dir() or bool(mode & 0o001))
