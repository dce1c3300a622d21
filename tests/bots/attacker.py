"""A hostile entrant for the sandbox tests: ``python tests/bots/attacker.py --attacks A,B --address ADDR``.

Each attack is what a cheating contestant would try from inside a launched bot. The bot runs them at
start-up (and the deal attack at its first decision), writes one line ``ATTACK <name> SUCCEEDED|FAILED
<detail>`` per attack to its output (the arena's log of this bot), and otherwise plays the first legal
action. The tests read the log and fail on any ``SUCCEEDED``; the attacks that leave processes behind
(``grandchildren``) are judged by the tests with ``ps``, since the bot cannot see what survives it.

Targets the attacker is told on its command line (a real cheater would have to find them; telling it makes
the test stronger): ``--config``, ``--db``, ``--victim-log``, ``--victim-port`` (a TCP port of another
entrant on the host's loopback), ``--host-pid`` (a process of the organiser's), ``--secret`` (a string in
the organiser's environment and config file), ``--seed`` (the event's public seed), ``--channel`` (the
name two colluding bots agreed on), ``--trap`` (a host socket to point the bot's own socket at),
``--neighbours`` (files of other entrants beside this bot's program).

Issue 23's attacks: ``plant`` and ``collude_*`` are two bots passing a secret through kernel objects a
sandbox might share (``plant`` leaves it in each, a second bot's ``collude_<channel>`` reads it);
``fill_socket_dir`` writes into the directory of the bot's own socket; ``swap_socket`` replaces the socket
by a link to ``--trap`` once the bot serves; ``read_neighbours``; ``balloon`` holds ever more memory;
``flood`` writes ``--flood-mb`` to its output.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from arena.bot import Bot, run
from arena.engine.views import View
from arena.gameinfo import GameInfo

MARKER = "euchre-arena-attacker-survivor"
ARGS = argparse.Namespace()


def report(name: str, succeeded: bool, detail: str) -> None:
    print(f"ATTACK {name} {'SUCCEEDED' if succeeded else 'FAILED'} {detail}", flush=True)


def _try(name: str, attempt: Callable[[], str | None]) -> None:
    """Run one attack: it returns what it got (success) or None / raises (failure)."""
    try:
        got = attempt()
    except Exception as exc:  # every failure mode of an attack is a failure, not a crash of the bot
        report(name, False, f"{type(exc).__name__}: {exc}")
        return
    report(name, got is not None, got or "nothing")


def _visible_pids() -> list[int]:
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit())


def _mine() -> set[int]:
    """This process, its ancestors (inside the sandbox) and its children."""
    mine = {os.getpid()}
    pid = os.getpid()
    with contextlib.suppress(OSError, ValueError, IndexError):
        while pid > 1:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            mine.add(pid)
    return mine


def attack_proc_cmdline() -> str | None:
    """Read the arena's command line and working directory to find the config."""
    for pid in [ARGS.host_pid, *_visible_pids()]:
        with contextlib.suppress(OSError):
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            cwd = os.readlink(f"/proc/{pid}/cwd")
            if pid not in _mine() and ("arena" in cmd or ".toml" in cmd or "pytest" in cmd):
                return f"pid {pid}: {cmd[:80]!r} in {cwd}"
    return None


def attack_proc_environ() -> str | None:
    for pid in [ARGS.host_pid, *_visible_pids()]:
        with contextlib.suppress(OSError):
            if ARGS.secret.encode() in Path(f"/proc/{pid}/environ").read_bytes():
                return f"secret found in /proc/{pid}/environ"
    return None


def attack_proc_mem() -> str | None:
    for pid in [ARGS.host_pid, *(p for p in _visible_pids() if p not in _mine())]:
        with contextlib.suppress(OSError, ValueError):
            maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
            start = int(maps[0].split("-")[0], 16)
            with open(f"/proc/{pid}/mem", "rb") as mem:
                mem.seek(start)
                if mem.read(16):
                    return f"read the memory of pid {pid}"
    return None


def attack_read_config() -> str | None:
    text = Path(ARGS.config).read_text()
    return "read the config file" if ARGS.secret in text else None


def attack_read_db() -> str | None:
    head = Path(ARGS.db).read_bytes()[:16]
    return "read event.sqlite" if head.startswith(b"SQLite") else None


def attack_read_key() -> str | None:
    key = Path(ARGS.db).with_name("deal.key")
    return "read deal.key" if key.read_text() else None


def attack_read_victim_log() -> str | None:
    return "read another bot's log" if Path(ARGS.victim_log).read_bytes() is not None else None


def attack_write_db() -> str | None:
    with open(ARGS.db, "r+b") as db:
        db.seek(100)
        db.write(b"\xff" * 64)
    return "wrote into event.sqlite"


def attack_write_outside() -> str | None:
    here = Path(__file__).resolve().parent
    wrote = []
    targets = [here / "planted.py", Path("/etc/planted"), Path("/usr/planted"), Path.cwd() / "planted"]
    if ARGS.db:
        targets.append(Path(ARGS.db).parent / "planted")  # the output directory: hidden by an empty tmpfs
    for target in targets:
        with contextlib.suppress(OSError):
            target.write_text("planted")
            wrote.append(str(target))
    return f"wrote {', '.join(wrote)}" if wrote else None


def attack_kill_rivals() -> str | None:
    killed = []
    for pid in _visible_pids():
        if pid in _mine():
            continue
        with contextlib.suppress(OSError):
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"sample_bots" in cmd or b"arena" in cmd:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    with contextlib.suppress(OSError):
        os.kill(ARGS.host_pid, 0)  # can it even signal a process of the organiser's?
        killed.append(ARGS.host_pid)
    return f"signalled {killed}" if killed else None


def attack_connect_rival() -> str | None:
    with socket.create_connection(("127.0.0.1", ARGS.victim_port), timeout=2):
        return f"connected to 127.0.0.1:{ARGS.victim_port}"


def attack_read_shadow() -> str | None:
    return "read /etc/shadow" if Path("/etc/shadow").read_text() is not None else None


def attack_grandchildren() -> str | None:
    """Leave processes that escape a process-group kill: setsid, setpgid and a double-forked daemon."""
    sleeper = f"import time\nwhile True: time.sleep(1)  # {MARKER}"
    for how in ("setsid", "setpgid"):
        subprocess.Popen(
            [sys.executable, "-c", sleeper, MARKER],
            start_new_session=how == "setsid",
            process_group=0 if how == "setpgid" else None,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    if os.fork() == 0:  # the classic daemon: fork, setsid, fork, parent exits
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", sleeper, MARKER])
        os._exit(0)
    print(f"ATTACK grandchildren STARTED {MARKER}", flush=True)
    return None  # judged by the test with ps


def attack_memory_children() -> str | None:
    """Four children each holding ~200 MB: together past a 400 MB limit for the bot."""
    code = (
        "import sys,time\nb=bytearray(200*1024*1024)\nfor i in range(0,len(b),4096): b[i]=1\n"
        "print('HOLDING', flush=True)\ntime.sleep(4)\nprint('HELD', flush=True)"
    )
    argv = [sys.executable, "-c", code]
    kids = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(4)]
    held = sum(1 for k in kids if "HELD" in (k.communicate(timeout=60)[0] or ""))
    return f"{held} children held 200 MB each" if held * 200 > ARGS.memory_mb else None


def attack_cpu_children() -> str | None:
    """Children that burn CPU and say how much each has used, until they are stopped."""
    code = (
        "import os,time\nt=time.process_time()\nwhile True:\n"
        "    while time.process_time()-t<0.25: pass\n    t=time.process_time()\n"
        "    print('CPU', os.getpid(), round(time.process_time(),2), flush=True)"
    )
    for _ in range(3):
        subprocess.Popen([sys.executable, "-c", code])
    return None  # judged by the test from the CPU lines


def attack_fork_bomb() -> str | None:
    count = 0
    try:
        while count < 2000:
            pid = os.fork()
            if pid == 0:
                time.sleep(2)
                os._exit(0)
            count += 1
    except OSError as exc:
        print(f"fork failed after {count}: {exc}", flush=True)
    with contextlib.suppress(ChildProcessError):
        while True:
            os.wait()  # then serve, so that the rest of the event can go on
    return f"forked {count} processes" if count > ARGS.max_processes else None


def attack_fill_tmp() -> str | None:
    written = 0
    with contextlib.suppress(OSError), open("/tmp/fill", "wb") as f:
        while written < 2048 * 1024 * 1024:
            f.write(b"\0" * (1024 * 1024))
            f.flush()
            written += 1024 * 1024
    return f"wrote {written >> 20} MB to /tmp" if written > ARGS.tmp_mb * 1024 * 1024 else None


# Two bots passing a secret: the kernel objects a sandbox might leave shared between them.
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.shmat.restype = ctypes.c_void_p
LIBC.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
KEYRING_CALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}  # add_key, keyctl
KEY_SPEC_USER_KEYRING = -4
KEYCTL_SETPERM, KEYCTL_SEARCH, KEYCTL_READ, KEYCTL_INVALIDATE = 5, 10, 11, 21
IPC_CREAT, IPC_NOWAIT, IPC_RMID = 0o1000, 0o4000, 0
MESSAGE = 256


def _ok(result: int, what: str) -> int:
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def _sysv_key() -> int:
    return 0x45570000 + sum(ARGS.channel.encode()) % 0xFFFF


def _secret() -> bytes:
    return f"collusion-{ARGS.channel}".encode()


def _keyctl(*args: object) -> int:
    return int(LIBC.syscall(KEYRING_CALLS[os.uname().machine][1], *args))


def attack_plant() -> str | None:
    """Leave the secret in every channel, keep it there while the bot lives; say which took it."""
    planted, secret = [], _secret()
    with contextlib.suppress(OSError, KeyError):
        add_key = KEYRING_CALLS[os.uname().machine][0]
        name = ARGS.channel.encode()
        serial = LIBC.syscall(add_key, b"user", name, secret, len(secret), KEY_SPEC_USER_KEYRING)
        _ok(serial, "add_key")
        _ok(_keyctl(KEYCTL_SETPERM, serial, 0x3F3F3F3F), "keyctl setperm")  # everyone may view and read
        planted.append("keyring")
    with contextlib.suppress(OSError):
        queue = _ok(LIBC.msgget(_sysv_key(), IPC_CREAT | 0o666), "msgget")
        message = ctypes.create_string_buffer(8 + MESSAGE)
        ctypes.memmove(ctypes.addressof(message) + 8, secret, len(secret))
        message[0] = 1  # mtype
        _ok(LIBC.msgsnd(queue, message, MESSAGE, IPC_NOWAIT), "msgsnd")
        planted.append("sysv_msg")
    with contextlib.suppress(OSError):
        segment = _ok(LIBC.shmget(_sysv_key(), 4096, IPC_CREAT | 0o666), "shmget")
        address = LIBC.shmat(segment, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "shmat")
        ctypes.memmove(address, secret, len(secret))
        planted.append("sysv_shm")
    with contextlib.suppress(OSError):
        Path(f"/dev/shm/{ARGS.channel}").write_bytes(secret)  # what shm_open() opens
        planted.append("posix_shm")
    with contextlib.suppress(OSError, AttributeError):
        queue = _ok(LIBC.mq_open(f"/{ARGS.channel}".encode(), os.O_CREAT | os.O_RDWR, 0o666, None), "mq_open")
        _ok(LIBC.mq_send(queue, secret, len(secret), 0), "mq_send")
        planted.append("mqueue")
    with contextlib.suppress(OSError):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(f"\0{ARGS.channel}")
        server.listen()

        def answer() -> None:
            while True:
                conn, _ = server.accept()
                conn.sendall(secret)
                conn.close()

        threading.Thread(target=answer, daemon=True).start()
        planted.append("abstract_socket")
    print(f"PLANTED {','.join(planted)}", flush=True)
    return None  # judged by the other bot's collude_* attacks


def attack_collude_keyring() -> str | None:
    found = _keyctl(KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", ARGS.channel.encode(), 0)
    if found < 0:  # not in this user's keyring: look for it among every key this process may view
        lines = Path("/proc/keys").read_text().splitlines()
        found = next((int(x.split()[0], 16) for x in lines if f" {ARGS.channel}:" in x), -1)
    buffer = ctypes.create_string_buffer(MESSAGE)
    size = _ok(_keyctl(KEYCTL_READ, found, buffer, MESSAGE), "keyctl read")
    if ARGS.cleanup:
        _keyctl(KEYCTL_INVALIDATE, found)
    return f"read key {found}" if buffer.raw[:size] == _secret() else None


def attack_collude_sysv_msg() -> str | None:
    queue = _ok(LIBC.msgget(_sysv_key(), 0), "msgget")
    message = ctypes.create_string_buffer(8 + MESSAGE)
    _ok(LIBC.msgrcv(queue, message, MESSAGE, 0, IPC_NOWAIT), "msgrcv")
    if ARGS.cleanup:
        LIBC.msgctl(queue, IPC_RMID, None)
    return "read the message queue" if message.raw[8:].startswith(_secret()) else None


def attack_collude_sysv_shm() -> str | None:
    segment = _ok(LIBC.shmget(_sysv_key(), 0, 0), "shmget")
    address = LIBC.shmat(segment, None, 0o10000)  # SHM_RDONLY
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "shmat")
    if ARGS.cleanup:
        LIBC.shmctl(segment, IPC_RMID, None)
    got = ctypes.string_at(address, len(_secret()))
    return "read the shared memory segment" if got == _secret() else None


def attack_collude_posix_shm() -> str | None:
    path = Path(f"/dev/shm/{ARGS.channel}")
    data = path.read_bytes()
    if ARGS.cleanup:
        path.unlink()
    return f"read {path}" if data == _secret() else None


def attack_collude_mqueue() -> str | None:
    queue = _ok(LIBC.mq_open(f"/{ARGS.channel}".encode(), os.O_RDONLY | os.O_NONBLOCK), "mq_open")
    buffer = ctypes.create_string_buffer(16384)
    size = _ok(LIBC.mq_receive(queue, buffer, 16384, None), "mq_receive")
    if ARGS.cleanup:
        LIBC.mq_unlink(f"/{ARGS.channel}".encode())
    return "read the message queue" if buffer.raw[:size] == _secret() else None


def attack_collude_abstract_socket() -> str | None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(5)
        conn.connect(f"\0{ARGS.channel}")
        return "read the abstract socket" if conn.recv(MESSAGE) == _secret() else None


# Issue 42: marks on files every sandbox sees (the interpreter's standard library, read-only): a 12-bit
# secret spelled by which of 12 files carry a lock (or are opened, for inotify), read back by another bot.
MARKED_FILES = 12
HELD: list[object] = []  # descriptors that hold the sender's locks while the bot lives
F_OFD_GETLK, F_OFD_SETLK = 36, 37
LOCK_KINDS = ("flock", "posix", "ofd")


def _marked_files() -> list[Path]:
    stdlib = Path(os.__file__).parent
    return sorted(p for p in stdlib.glob("*.py") if p.is_file() and not p.is_symlink())[:MARKED_FILES]


def _secret_bits() -> list[int]:
    """The channel's 12-bit secret (never all zeros nor all ones: each file tells something)."""
    import hashlib

    value = int(hashlib.sha256(_secret()).hexdigest(), 16) & 0xFFF
    value = value if 0 < value < 0xFFF else 0xA5C
    return [(value >> i) & 1 for i in range(MARKED_FILES)]


def _flock_struct(kind: int) -> bytes:
    import struct

    return struct.pack("hhqqi4x", kind, 0, 0, 0, 0)  # l_type, l_whence, l_start, l_len (0: all), l_pid


def attack_mark_locks() -> str | None:
    """Hold a lock of each kind on the files of the secret's 1 bits, for as long as the bot lives."""
    import fcntl

    taken = []
    for kind in LOCK_KINDS:
        try:
            for path, bit in zip(_marked_files(), _secret_bits(), strict=True):
                if not bit:
                    continue
                f = open(path, "rb")  # noqa: SIM115 - held open: the lock lives with the descriptor
                HELD.append(f)
                if kind == "flock":
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                else:  # a read lock: the file is read-only; another's F_GETLK for a write lock sees it
                    command = fcntl.F_SETLK if kind == "posix" else F_OFD_SETLK
                    fcntl.fcntl(f, command, _flock_struct(fcntl.F_RDLCK))
            taken.append(kind)
        except OSError as exc:
            print(f"MARK {kind} refused: {exc}", flush=True)
    print(f"MARKED {','.join(taken)}", flush=True)
    return None  # judged by the other bot's read_locks


def _probe(kind: str, path: Path) -> bool:
    """Whether another process holds a lock of ``kind`` on ``path``. :raises OSError: the probe failed."""
    import fcntl
    import struct

    with open(path, "rb") as f:
        if kind == "flock":
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
            return False
        command = fcntl.F_GETLK if kind == "posix" else F_OFD_GETLK
        got = fcntl.fcntl(f, command, _flock_struct(fcntl.F_WRLCK))
        return struct.unpack("hhqqi4x", got)[0] != fcntl.F_UNLCK


def _bits_report(name: str, seen: list[int]) -> str | None:
    """SUCCEEDED when the bits read are the secret; the detail says how many of the 12 came through."""
    right = sum(1 for a, b in zip(seen, _secret_bits(), strict=True) if a == b)
    print(f"BITS {name} {right} of {MARKED_FILES}", flush=True)
    return f"read {right} of {MARKED_FILES} bits" if seen == _secret_bits() else None


def _locks(kind: str) -> str | None:
    seen = [int(_probe(kind, path)) for path in _marked_files()]
    return _bits_report(f"locks_{kind}", seen)


def attack_read_locks_flock() -> str | None:
    return _locks("flock")


def attack_read_locks_posix() -> str | None:
    return _locks("posix")


def attack_read_locks_ofd() -> str | None:
    return _locks("ofd")


def attack_read_proc_locks() -> str | None:
    """``/proc/locks`` lists the locks of every process the reader may see, by inode."""
    inodes = {os.stat(p).st_ino: i for i, p in enumerate(_marked_files())}
    seen = [0] * MARKED_FILES
    for line in Path("/proc/locks").read_text().splitlines():
        inode = int(line.split()[-3].rsplit(":", 1)[1]) if ":" in line.split()[-3] else -1
        if inode in inodes:
            seen[inodes[inode]] = 1
    return _bits_report("proc_locks", seen)


def attack_lock_high_bits() -> str | None:
    """``fcntl(F_SETLK)`` with high bits set in the command: the kernel reads only the low 32 bits, so a
    filter that compared all 64 would let it through."""
    fcntl_call = {"x86_64": 72, "aarch64": 25}[os.uname().machine]
    lock = ctypes.create_string_buffer(_flock_struct(0), 32)  # F_RDLCK = 0
    with open(_marked_files()[0], "rb") as f:
        got = LIBC.syscall(fcntl_call, f.fileno(), ctypes.c_uint64(0xDEAD_0000_0000_0006), lock)
        _ok(got, "fcntl(F_SETLK | high bits)")
    return "set a lock through fcntl with high bits in the command"


def attack_signal_opens() -> str | None:
    """Open the files of the secret's 1 bits again and again for ``--window-s`` (a watcher sees opens)."""

    def keep_opening() -> None:
        deadline = time.monotonic() + ARGS.window_s
        while time.monotonic() < deadline:
            for path, bit in zip(_marked_files(), _secret_bits(), strict=True):
                if bit:
                    with contextlib.suppress(OSError), open(path, "rb") as f:
                        f.read(1)
            time.sleep(0.05)

    threading.Thread(target=keep_opening, daemon=True).start()
    print("SIGNALLING", flush=True)
    return None  # judged by the other bot's watch_opens


def attack_watch_opens() -> str | None:
    """Watch the 12 files with inotify (never opening them) for ``--window-s``, in the background; the
    verdict comes as a later ``ATTACK watch_opens_result`` line. Here: whether the watch could be set."""
    import struct

    watches = {}
    try:
        fd = _ok(LIBC.inotify_init1(os.O_NONBLOCK), "inotify_init1")
        for i, path in enumerate(_marked_files()):
            mask = 0x20 | 0x01  # IN_OPEN | IN_ACCESS
            watches[_ok(LIBC.inotify_add_watch(fd, str(path).encode(), mask), "inotify_add_watch")] = i
    except OSError as exc:
        report("watch_opens_result", False, f"{type(exc).__name__}: {exc}")
        raise

    def collect() -> None:
        seen = [0] * MARKED_FILES
        deadline = time.monotonic() + ARGS.window_s
        while time.monotonic() < deadline:
            with contextlib.suppress(BlockingIOError):
                data = os.read(fd, 65536)
                at = 0
                while at + 16 <= len(data):
                    wd, _mask, _cookie, size = struct.unpack_from("iIII", data, at)
                    if wd in watches:
                        seen[watches[wd]] = 1
                    at += 16 + size
            time.sleep(0.05)
        _try("watch_opens_result", lambda: _bits_report("inotify", seen))

    threading.Thread(target=collect, daemon=True).start()
    print("WATCHING", flush=True)
    return None


def attack_fanotify() -> str | None:
    """fanotify sees every open on a mount (needs CAP_SYS_ADMIN, which no bot has; refused anyway)."""
    fd = LIBC.syscall({"x86_64": 300, "aarch64": 262}[os.uname().machine], 0, os.O_RDONLY)
    _ok(fd, "fanotify_init")
    return f"fanotify_init gave descriptor {fd}"


def attack_dnotify() -> str | None:
    """``fcntl(F_NOTIFY)`` on the directory of the files: the older inotify."""
    import fcntl

    signal.signal(signal.SIGIO, signal.SIG_IGN)  # the notice comes as SIGIO, which would end the bot
    where = os.open(_marked_files()[0].parent, os.O_RDONLY)
    fcntl.fcntl(where, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
    return "set a directory notification"


def attack_lower_oom() -> str | None:
    """Undo "bots die first": lower the bot's out-of-memory score adjustment from the arena's 500 to 0
    (``oom_score_adj``, and the legacy ``oom_adj``)."""
    before = int(Path("/proc/self/oom_score_adj").read_text())
    errors = []
    for name, value in (("oom_score_adj", "0"), ("oom_adj", "0")):
        try:
            Path(f"/proc/self/{name}").write_text(value)
        except OSError as exc:
            errors.append(f"{name}: {exc}")
    after = int(Path("/proc/self/oom_score_adj").read_text())
    print(f"OOM {before} {after}", flush=True)
    return f"lowered oom_score_adj from {before} to {after}" if after < before else None


FORGERIES = (
    b"[arena] game FORGEDGAME seat 0: start\n",
    b"[arena] bot exited with status 0 FORGED plain\n",
    b" [arena] FORGED indented\n",
    b"\t[arena] FORGED tab\n",
    b"\r[arena] FORGED carriage return\n",
    b"\x1b[0m[arena] FORGED escape\n",
    "\u200e[arena] FORGED bidi mark\n".encode(),
    "\uff3barena\uff3d FORGED full-width brackets\n".encode(),
    # the frame the arena's own lines travel in through the bot's output pipe, with a guessed key and none
    b"\x1e" + b"0" * 32 + b" [arena] game FORGEDGAME seat 3: start FORGED frame\n",
    b"\x1e [arena] game FORGEDGAME seat 4: start FORGED frame byte\n",
)


def attack_forge_lines() -> str | None:
    """Write lines that look like the arena's own into the bot's log: plain, split across two writes,
    behind white space, controls or invisible characters, with look-alike brackets, and right after an
    unfinished line that the arena's next note would follow (the test writes a note on ``PARTIAL-NEXT``)."""
    for line in FORGERIES:
        os.write(1, line)
    os.write(1, b"[are")
    time.sleep(0.3)  # two writes, two reads of the pipe: a check of whole writes would miss it
    os.write(1, b"na] game FORGEDGAME seat 1: start FORGED split\n")

    def after_note() -> None:
        os.write(1, b"PARTIAL-NEXT\nunfinished line")
        time.sleep(ARGS.window_s)
        os.write(1, b"[arena] game FORGEDGAME seat 2: end FORGED after a note\n")

    threading.Thread(target=after_note, daemon=True).start()
    return None  # judged by the test, which reads the log


def _own_socket() -> Path:
    """The path of this bot's own socket, from the ``--address unix:PATH`` the arena gave it."""
    return Path(ARGS.address.removeprefix("unix:"))


def _fill(target: Path) -> int:
    """Write ``target`` a megabyte at a time until ``--fill-mb`` or a failure; the bytes that got there (the
    file is removed after)."""
    written = 0
    try:
        with contextlib.suppress(OSError), open(target, "wb") as f:
            while written < ARGS.fill_mb * 1024 * 1024:
                f.write(b"\0" * (1024 * 1024))
                f.flush()
                written += 1024 * 1024
    finally:
        with contextlib.suppress(OSError):
            written = max(written, target.stat().st_size)
            target.unlink()
    return written


def attack_fill_socket_dir() -> str | None:
    """Write into the directory of the bot's socket until it fails (the socket dir was a host directory)."""
    written = _fill(_own_socket().parent / "fill")
    print(f"FILLED {written}", flush=True)
    return f"wrote {written >> 20} MB beside the socket" if written > 1024 * 1024 else None


def attack_fill_dev() -> str | None:
    """Write into ``/dev`` itself and into ``/dev/shm`` until each fails (both lay on bubblewrap's ``/dev``
    tmpfs, of half the host's memory, writable where bubblewrap runs unprivileged)."""
    found = []
    for target, allowed_mb in ((Path("/dev/fill"), 0), (Path("/dev/shm/fill"), ARGS.shm_mb)):
        written = _fill(target)
        print(f"FILLED {target} {written}", flush=True)
        if written > allowed_mb * 1024 * 1024:
            found.append(f"wrote {written >> 20} MB to {target}")
    return "; ".join(found) or None


def attack_swap_socket() -> str | None:
    """Once the bot's server has bound its socket, move it aside and put a link to ``--trap`` in its place."""

    def swap() -> None:
        path = _own_socket()
        while not path.exists():
            time.sleep(0.001)
        path.rename(path.with_name("real.sock"))
        path.symlink_to(ARGS.trap)
        print(f"SWAPPED {path} -> {ARGS.trap}", flush=True)

    threading.Thread(target=swap, daemon=True).start()
    return None  # judged by the test: its trap socket is never dialled


def attack_read_neighbours() -> str | None:
    read = []
    for path in ARGS.neighbours.split(","):
        with contextlib.suppress(OSError):
            Path(path).read_bytes()
            read.append(path)
    return f"read {', '.join(read)}" if read else None


def attack_balloon() -> str | None:
    """Hold ever more memory, 32 MB at a time, saying how much after each step."""
    held = []
    while len(held) * 32 < ARGS.balloon_mb:
        block = bytearray(32 * 1024 * 1024)
        for i in range(0, len(block), 4096):
            block[i] = 1  # resident, not only reserved
        held.append(block)
        print(f"BALLOON {len(held) * 32}", flush=True)
    return f"held {len(held) * 32} MB"


def attack_flood() -> str | None:
    chunk = b"x" * (1024 * 1024 - 1) + b"\n"
    for _ in range(ARGS.flood_mb):
        os.write(1, chunk)
    print("FLOODED", flush=True)
    return None  # judged by the test: the CPU is the bot's, the log stays within its cap


ATTACKS: dict[str, Callable[[], str | None]] = {
    name[len("attack_") :]: fn for name, fn in list(globals().items()) if name.startswith("attack_")
}


class Attacker(Bot):
    name = "attacker"

    def __init__(self) -> None:
        self.deal_tried = False

    def on_game_start(self, game: GameInfo) -> None:
        self.game = game

    def act(self, view: View) -> object:
        if "rebuild_deal" in ARGS.attacks and not self.deal_tried and view.hand is not None:
            self.deal_tried = True
            _try("rebuild_deal", lambda: self._rebuild(view))
        return view.legal_actions[0]

    def _rebuild(self, view: View) -> str | None:
        """Rebuild the deal from the public seed and the game id with the project's own functions."""
        from arena.engine.cards import card_text
        from arena.engine.state import GameState
        from arena.event.schedule import game_seed

        state = GameState(self.game.config, seed=game_seed(ARGS.seed, self.game.game_id))
        mine = {str(c) for c in view.hand or ()}
        dealt = {card_text(c) for c in state.dealt[self.game.seat]}
        if view.hand_index == 0 and mine and mine <= dealt:
            return f"rebuilt this seat's hand {sorted(mine)} from seed and game id"
        return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attacks", default="")
    parser.add_argument("--config", default="/nonexistent")
    parser.add_argument("--db", default="/nonexistent")
    parser.add_argument("--victim-log", default="/nonexistent")
    parser.add_argument("--victim-port", type=int, default=1)
    parser.add_argument("--host-pid", type=int, default=1)
    parser.add_argument("--secret", default="no-secret-given")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memory-mb", type=int, default=400)
    parser.add_argument("--max-processes", type=int, default=256)
    parser.add_argument("--tmp-mb", type=int, default=256)
    parser.add_argument("--channel", default="euchre-collusion")
    parser.add_argument("--cleanup", action="store_true", help="collude_*: remove what was found")
    parser.add_argument("--fill-mb", type=int, default=200)
    parser.add_argument("--shm-mb", type=int, default=64)
    parser.add_argument("--trap", default="/nonexistent")
    parser.add_argument("--neighbours", default="")
    parser.add_argument("--balloon-mb", type=int, default=1280)
    parser.add_argument("--flood-mb", type=int, default=1024)
    parser.add_argument("--window-s", type=float, default=6.0, help="signal_opens, watch_opens: how long")
    args, rest = parser.parse_known_args()
    ARGS.address = rest[rest.index("--address") + 1] if "--address" in rest else ""
    ARGS.__dict__.update(vars(args))
    ARGS.attacks = [a for a in args.attacks.split(",") if a]
    for name in ARGS.attacks:
        if name != "rebuild_deal":
            _try(name, ATTACKS[name])
    run(Attacker, rest)


if __name__ == "__main__":
    main()
