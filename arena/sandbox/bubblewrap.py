"""The bubblewrap command line that confines one launched bot.

Why bubblewrap: it is the unprivileged sandbox Flatpak and many CI systems rely on, packaged by every Linux
distribution, and it builds exactly the namespaces we need without a daemon. What the bot gets:

* its own PID namespace: it sees only its own processes, cannot signal, trace or read the memory of the
  arena or of another bot, and when the bot's main process (or bubblewrap) dies the kernel kills every
  process left in the namespace, a grandchild that called ``setsid()`` or daemonised included;
* its own network namespace with nothing but a loopback of its own: it can reach no other bot and no
  service of the host, and its abstract Unix sockets are its own. The arena talks to it over a Unix
  socket in ``/run/arena``, a small tmpfs of the sandbox's own (``{address}`` in the command), which the
  arena reaches through the sandbox's root without following anything the bot could replace
  (:mod:`arena.sandbox.dial`); a bot that can only listen on TCP (``{port}``) gets a small relay inside the
  sandbox (:mod:`arena.sandbox.relay`) between that socket and its port;
* its own IPC namespace (System V IPC and POSIX message queues) and its own ``/dev`` (POSIX shared memory);
* its own ``/proc``, read-only: it cannot lower the out-of-memory score adjustment the shim gave it;
* a filesystem of the system directories (``/usr``, ``/etc``; of ``/opt`` only the directory its runtime
  lives in) read-only, its own program (the file, or the package of a
  ``-m`` module; its ``workdir`` when the config names one) read-only, the Python interpreter, its
  installed packages and the SDK read-only, private writable tmpfs mounts (``/tmp``, the socket
  directory), and nothing of the host that it could write (the output directory and the config file are
  hidden even when they lie inside a bound directory);
* an environment cleared to PATH, LANG, HOME=/tmp and what the entrant's config adds;
* an identity of its own: when the arena runs as root, a user id of its own for the whole event
  (:func:`bot_uid`), with no capabilities and ``no_new_privs``, so it cannot read files only root may read
  (``/etc/shadow``) nor share anything kept per user with another bot; otherwise a user namespace of its
  own in which it may not create further user namespaces; and in both cases a seccomp filter that refuses
  what no namespace separates: the kernel keyring, file locks and file notifications
  (:mod:`arena.sandbox.seccomp`).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import secrets
import shutil
import stat
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import arena
from arena.errors import ConfigError
from arena.sandbox.seccomp import seccomp_problem


class SandboxMode(StrEnum):
    """How launched bots are confined (``sandbox`` in the config, ``--sandbox``)."""

    BUBBLEWRAP = "bubblewrap"  # namespaces, a read-only view, a private /tmp, cgroup limits
    NONE = "none"  # an ordinary child process: trusted bots only


SOCKET_DIR = "/run/arena"  # inside the sandbox: where the bot's gRPC Unix socket lives
SOCKET_NAME = "bot.sock"
SOCKET_DIR_BYTES = 64 * 1024  # the socket directory's tmpfs: a socket needs no data, a bot may write no more
SHM_BYTES = 64 * 1024 * 1024
"""``/dev/shm``'s own tmpfs: room for POSIX semaphores and shared memory (``multiprocessing`` needs it), and
no more. Without it ``/dev/shm`` is a directory of bubblewrap's ``/dev`` tmpfs, sized at half the host's
memory and writable by a bot wherever bubblewrap runs unprivileged (and its pages are capped only where a
memory cgroup holds the bot)."""
SANDBOX_UID = 65534  # nobody: the user of every bot where the range below is not mapped here
BOT_UID_BASE = 0x7A000000
"""First user id handed to bots when the arena runs as root: inside the block that systemd leaves unused
(between its container range, which ends below 0x70000000, and 2^31), so no account or file has it."""
BOT_UID_SPAN = 1 << 20  # ids to draw from: two concurrent events rarely draw the same one
SYSTEM_DIRS = ("/usr", "/etc")
"""Shown whole, read-only: the system (libraries, certificates, locales, the alternatives links)."""
OPTIONAL_DIR = "/opt"
"""Not shown, but for the directories of it a bot's runtime lives in (:func:`runtime_dirs`): it holds
add-on software and, often, the organiser's own files (a bot read an organiser's notes there)."""
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
    workdir: Path | None = None  # the config's workdir: the directory shown to the bot, read-only
    view: Path | None = None  # what of its own the bot is shown, when already found (else bot_view finds it)
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
        return "as root, the sandbox needs setpriv (util-linux) to give bots users of their own: install it"
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
    return seccomp_problem()  # the filter: without it two bots could share keys, locks, notifications


@functools.cache
def bwrap_can_disable_userns() -> bool:
    """Whether this bubblewrap has ``--disable-userns`` (0.8.0 and later)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"--disable-userns" in done.stdout + done.stderr


def arena_python() -> str:
    """This interpreter as a sandbox can run it: ``sys.executable`` with the links of its directory
    resolved, not those of the file itself.

    Why: the sandbox shows the interpreter, its packages and the SDK at their real paths
    (:func:`sdk_paths` resolves them), so a virtual environment reached through a symbolic link
    (``/home/me/venv`` -> ``/data/venvs/arena``) had its ``{python}`` at a path the sandbox did not have:
    "setpriv: failed to execute .../bin/python", status 127. The file is not resolved: a virtual
    environment's ``python`` is a link to the base interpreter, and Python finds the environment (its
    ``pyvenv.cfg``) from the name it was started by.
    """
    folder, name = os.path.split(sys.executable)
    return os.path.join(os.path.realpath(folder), name)


def runtime_dirs(argv: Sequence[str]) -> list[Path]:
    """The directories of ``/opt`` a command's program runs from: ``/opt/NAME`` for a program whose real
    path (through ``PATH`` and every link, e.g. ``/usr/bin/java`` -> ``/etc/alternatives/java`` ->
    ``/opt/jdk/bin/java``) lies in it. The rest of ``/opt`` is not shown."""
    if not argv:
        return []
    program = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=DEFAULT_PATH)
    if program is None:
        return []
    real = Path(os.path.realpath(program))
    if not real.is_relative_to(OPTIONAL_DIR) or real == Path(OPTIONAL_DIR):
        return []
    return [Path(OPTIONAL_DIR) / real.relative_to(OPTIONAL_DIR).parts[0]]


def program_problem(argv: Sequence[str], cwd: Path | None = None) -> str | None:
    """What is wrong with the program file a launch command names, or None (nothing to say).

    The file is the command itself when it is a path (``./alice``, ``bots/alice``), or an interpreter's
    script (``python bots/alice.py``, ``node bot.js``: the first argument that is not an option and looks
    like a file, having a ``/`` or a suffix). It must exist, be a regular file and be readable: a missing
    file is named as such, sandboxed or not (under the sandbox the arena once said only that it could not
    tell the bot's program). Relative paths are taken from ``cwd``.
    """
    here = Path(cwd) if cwd is not None else Path.cwd()
    args = list(argv)
    if not args:
        return None
    candidates: list[str] = []
    if "/" in args[0] and not _is_system_program(args[0]):
        candidates.append(args[0])
    else:
        skip = False
        for arg in args[1:]:
            if skip:
                skip = False
                continue
            if arg in ("-m", "-c"):
                break  # a module or inline code: no file to check
            if arg.startswith("-"):
                skip = arg in ("-W", "-X")  # options of Python's that take a value
                continue
            if "/" in arg or Path(arg).suffix:
                candidates.append(arg)
            break
    for name in candidates:
        path = here / name
        try:
            info = path.stat()
        except FileNotFoundError:
            return f"its program file {name!r} does not exist (looked in {here})"
        except OSError as exc:
            return f"its program file {name!r} cannot be read: {exc.strerror}"
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            return f"its program file {name!r} is {kind}"
        if not os.access(path, os.R_OK):
            return f"its program file {name!r} cannot be read (permission denied)"
    return None


def bot_uid() -> int:
    """A user id for one bot, for the whole event, when the arena runs as root.

    Why not ``nobody`` for all: whatever the kernel keeps per user (the keyring, the counts of inotify
    instances and of message-queue bytes, the processes a user may have) would be shared by every bot and
    could carry a message from one to another. Drawn at random from :data:`BOT_UID_BASE` on, so that two
    events running at once are unlikely to meet; ``nobody`` where that range is not mapped (a container
    with a narrow user namespace), the seccomp filter and the namespaces still separating the rest.
    """
    uid = BOT_UID_BASE + secrets.randbelow(BOT_UID_SPAN)
    return uid if _mapped(uid) else SANDBOX_UID


def _mapped(uid: int) -> bool:
    try:
        lines = Path("/proc/self/uid_map").read_text().splitlines()
    except OSError:
        return False
    for line in lines:
        inside, _, count = (int(x) for x in line.split())
        if inside <= uid < inside + count:
            return True
    return False


def bot_view(argv: Sequence[str], workdir: Path | None, cwd: Path | None = None) -> Path:
    """What of the bot's own the sandbox shows it, read-only: its program, not the folder around it.

    ``workdir`` when given (a directory); else the top-level package of ``python -m pkg.mod`` (the module
    file itself for ``python -m mod``), the first argument that names an existing file (``python bot.py``,
    ``node bot.js``: that file alone), or the program itself when it is not a system or interpreter path.
    Why the file and not its folder: entrants of a class often sit side by side (``bots/alice.py``,
    ``bots/bob.py``), with the organiser's notes beside them, and each may see only its own. A bot that
    needs files beside its program names the folder as its ``workdir``. Relative paths are taken from
    ``cwd`` (where the bot will run).

    :raises ConfigError: when none of these names a file or directory.
    """
    here = Path(cwd) if cwd is not None else Path.cwd()
    if workdir is not None:
        path = (here / workdir).resolve()
        if not path.is_dir():
            raise ConfigError(f"workdir {str(workdir)!r} is not a directory")
        return path
    args = list(argv)
    if args and not _is_system_program(args[0]) and (here / args[0]).is_file():
        return (here / args[0]).resolve()
    for i, arg in enumerate(args[1:], start=1):
        if arg == "-m" and i + 1 < len(args):
            found = _module_path(args[i + 1])
            if found is not None:
                return found
            break
        if not arg.startswith("-") and (here / arg).is_file():
            return (here / arg).resolve()
    problem = program_problem(args, here)
    if problem is not None:
        raise ConfigError(problem)
    raise ConfigError(
        f"cannot tell the bot's program from its command {' '.join(args)!r}: set workdir to the directory "
        "the sandbox should show it (read-only)"
    )


def _is_system_program(program: str) -> bool:
    if "/" not in program:
        return True
    resolved = Path(program)
    real = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)}
    prefixes = {sys.prefix, sys.base_prefix, *real, *SYSTEM_DIRS, OPTIONAL_DIR}  # /opt: a runtime's
    return resolved in (Path(sys.executable), Path(arena_python())) or any(
        resolved.is_relative_to(p) for p in prefixes
    )


def _module_path(module: str) -> Path | None:
    """The directory of the top-level package of ``module`` (or the module's own file), if importable."""
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
        return Path(spec.origin).resolve()
    return None


def sdk_paths() -> list[Path]:
    """What a bot needs besides its own program: the interpreter, its packages, the SDK and the protos."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    package = Path(arena.__file__).resolve().parent
    paths.add(package)
    samples = _module_path("sample_bots")  # shipped with the SDK: bots may build on them
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
    *,
    bot_path: Path,
    runtimes: Sequence[Path] = (),
    cwd: Path | None = None,
    uid: int = SANDBOX_UID,
    seccomp_fd: int | None = None,
    info_fd: int | None = None,
) -> list[str]:
    """The full command that runs ``argv`` inside the sandbox.

    :data:`SOCKET_DIR` inside is a tmpfs of :data:`SOCKET_DIR_BYTES`, writable by the bot: it creates its
    Unix socket there and the arena reaches it through the sandbox's root (``info_fd``, where bubblewrap
    writes the sandbox's pid; :mod:`arena.sandbox.dial`). ``bot_path`` is the bot's own program or
    directory (:func:`bot_view`), ``uid`` the user the bot runs as when the arena runs as root
    (:func:`bot_uid`), ``runtimes`` the directories of ``/opt`` its program runs from
    (:func:`runtime_dirs`), ``seccomp_fd`` a pipe holding the seccomp filter (:func:`~arena.sandbox.seccomp.
    filter_pipe`); both descriptors must be passed to bubblewrap.
    """
    bwrap = shutil.which("bwrap") or "bwrap"
    cwd = (cwd or Path.cwd()).resolve()
    out = [bwrap]
    if os.geteuid() != 0:
        # Unprivileged bubblewrap makes a user namespace anyway; saying so lets the bot be kept from making
        # more of them (where a nested one could remount what hides the host's files).
        out.append("--unshare-user")
        if bwrap_can_disable_userns():
            out.append("--disable-userns")
    if seccomp_fd is not None:
        out += ["--seccomp", str(seccomp_fd)]
    if info_fd is not None:
        out += ["--info-fd", str(info_fd)]
    out += [
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
    # /proc read-only: a process may lower its own oom_score_adj (the shim's 500, "bots die first") without
    # any privilege; on a read-only mount no file of /proc can be opened for writing, and the bot, with no
    # capability, cannot remount it.
    out += ["--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev"]
    out += ["--perms", "1777", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    out += ["--perms", "1777", "--size", str(spec.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp"]
    made: set[Path] = {Path("/tmp")}
    binds = [Path(d) for d in SYSTEM_DIRS if os.path.isdir(d)]
    binds += [*sdk_paths(), *runtimes, bot_path]
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
            out += ["--tmpfs", str(hidden), "--remount-ro", str(hidden)]  # unprivileged, the bot owns it
        else:
            out += ["--ro-bind", "/dev/null", str(hidden)]
    if not any(cwd.is_relative_to(b) for b in binds):
        out += _parents(cwd, made)
        if cwd not in made:
            out += ["--perms", "0555", "--dir", str(cwd)]
    out += ["--perms", "0555", "--dir", "/run"]
    out += ["--perms", "0777", "--size", str(SOCKET_DIR_BYTES), "--tmpfs", SOCKET_DIR]
    # The sandbox's root is a tmpfs of bubblewrap's, sized at half the host's memory; the directories made
    # on it (the parents of what is bound, the working directory, /run) belong to the bot where bubblewrap
    # runs unprivileged. Read-only, no bot can fill memory through them; /tmp, /dev/shm and the socket's
    # directory are mounts of their own, sized, and stay writable.
    out += ["--remount-ro", "/"]
    out += ["--chdir", str(cwd), "--clearenv"]
    env = {"PATH": DEFAULT_PATH, "LANG": "C.UTF-8", "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(spec.env)
    for key, value in env.items():
        out += ["--setenv", key, value]
    if os.geteuid() == 0:
        # bubblewrap run by root keeps uid 0 (without capabilities) unless told otherwise: hand the bot to
        # its own user, with the two capabilities setpriv needs for that and nothing after it.
        out += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--"]
        out += [shutil.which("setpriv") or "setpriv", f"--reuid={uid}", f"--regid={uid}"]
        out += ["--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    elif prlimit := shutil.which("prlimit"):
        # Unprivileged, the bot shares the arena's user and often has no cgroup: RLIMIT_NPROC set inside
        # its own user namespace counts only that namespace's processes (the kernel counts per namespace),
        # so it caps this bot's processes and threads as pids.max would, and no other bot's.
        out += ["--", prlimit, f"--nproc={spec.max_processes}:{spec.max_processes}"]
    out += ["--", *argv]
    return out


def _parents(path: Path, made: set[Path]) -> list[str]:
    """``--dir`` for each missing ancestor of ``path``, world-traversable (bubblewrap's default is 0700) and
    writable by nobody: where bubblewrap runs unprivileged the bot owns what it makes."""
    out: list[str] = []
    for parent in reversed(path.parents):
        if parent == Path("/") or parent in made:
            continue
        out += ["--perms", "0555", "--dir", str(parent)]
        made.add(parent)
    return out


def readable_by_sandbox_user(path: Path) -> bool:
    """Whether a bot's user (any user but the owner) could read ``path`` (a directory: list and enter it)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(mode & 0o004) and (not path.is_dir() or bool(mode & 0o001))
