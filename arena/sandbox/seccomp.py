"""The seccomp filter every sandboxed bot runs under: nothing shared that a bot could mark.

Why: the namespaces give each bot its own processes, network, IPC and ``/tmp``, but some kernel objects are
shared whatever the namespace, and a bot that can mark one can signal another bot (two entrants playing as
a secret team: the cheat that matters most at a five-handed table). Each is refused as a system call:

* the kernel keyring (``add_key``, ``keyctl``, ``request_key``: ``EPERM``, as Docker's default profile
  does). Keys belong to a user id, ``/proc/keys`` lists every key the reader may view, and a key outlives
  the bot;
* file locks of every kind (issue 42): ``flock`` and ``fcntl``'s record locks, open-file-description (OFD)
  locks, their tests (``F_GETLK``) and leases fail with ``ENOLCK`` ("no locks available", what a file
  system without locking answers, which programs already handle). A lock belongs to the file, not to the
  mount: a bot that held ``LOCK_EX`` on read-only files every sandbox sees (the system's, the
  interpreter's) spelled 12 bits that another bot read back by trying the locks;
* file notifications: ``inotify_*``, ``fanotify_*`` and ``fcntl(F_NOTIFY)`` fail with ``EPERM``. A watch
  on those same files saw every open of another sandbox's.

Why refuse rather than give each bot private copies: the shared files are the whole system (``/usr``), the
interpreter and its packages; copying them per bot costs seconds and hundreds of megabytes a start, and an
overlay mount would keep the lower files' inodes (and their locks) shared on many kernels. A bot loses
little: locks on its own private ``/tmp`` go too (SQLite there needs ``?nolock=1`` or ``:memory:``), and a
program that watches files must poll. Arguments are compared on their low 32 bits only, as the kernel reads
``fcntl``'s command (a bot may not pass ``F_SETLK`` with high bits set to slip past).

Why libseccomp: writing BPF by hand means getting every architecture's numbers, the x32 ABI and 32-bit
calls on a 64-bit kernel right; libseccomp (the library Flatpak and systemd build their filters with,
installed with apt itself on Debian and with systemd elsewhere) does that. It is called through ``ctypes``:
six functions do not justify a compiled dependency. The filter is built once per arena process and handed
to bubblewrap as BPF through a pipe (``bwrap --seccomp FD``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import tempfile

REFUSED = ("add_key", "keyctl", "request_key")
"""The system calls a sandboxed bot may not make: the whole keyring interface (``EPERM``)."""
NO_LOCKS = ("flock",)
"""Refused with ``ENOLCK``: whole-file locks."""
NO_NOTIFY = ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark")
"""Refused with ``EPERM``: file notifications."""
FCNTL_CALLS = ("fcntl", "fcntl64")  # fcntl64: the 32-bit ABIs' name
FCNTL_LOCKS = (5, 6, 7, 12, 13, 14, 36, 37, 38, 1024, 1025)
"""``fcntl`` commands refused with ``ENOLCK``: ``F_GETLK``, ``F_SETLK``, ``F_SETLKW``, their 32-bit
``*64`` forms, the OFD forms (``F_OFD_GETLK``, ``F_OFD_SETLK``, ``F_OFD_SETLKW``), ``F_SETLEASE`` and
``F_GETLEASE``."""
F_NOTIFY = 1026  # refused with EPERM, like inotify

_ACT_ALLOW = 0x7FFF0000
_ACT_ERRNO = 0x00050000
_NR_SCMP_ERROR = -1  # seccomp_syscall_resolve_name: unknown (other negatives: calls of another ABI only)
_CMP_MASKED_EQ = 7


class _ArgCmp(ctypes.Structure):
    """libseccomp's ``struct scmp_arg_cmp``."""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


_COMPAT_ARCHES = {"x86_64": ("x86", "x32"), "aarch64": ("arm",)}
"""Other ABIs the machine's kernel runs for a 64-bit process: filtered too (a 32-bit call is no way out)."""


class SeccompUnavailable(OSError):
    """libseccomp cannot be loaded or cannot build the filter here."""


@functools.cache
def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable(f"cannot load libseccomp ({exc})") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_arch_resolve_name.restype = ctypes.c_uint32
    lib.seccomp_arch_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


@functools.cache
def keyring_filter() -> bytes:
    """The BPF program (as bubblewrap reads it): :data:`REFUSED` and :data:`NO_NOTIFY` fail with EPERM,
    :data:`NO_LOCKS` and the :data:`FCNTL_LOCKS` commands of ``fcntl`` with ENOLCK.

    :raises SeccompUnavailable: libseccomp is missing or refuses a step (the message says which).
    """
    lib = _library()
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise SeccompUnavailable("seccomp_init failed")
    try:
        for arch in _COMPAT_ARCHES.get(os.uname().machine, ()):
            token = lib.seccomp_arch_resolve_name(arch.encode())
            if token:
                _check(lib.seccomp_arch_add(ctx, token), f"seccomp_arch_add({arch})", ok=(-errno.EEXIST,))
        refuse, no_lock = _ACT_ERRNO | errno.EPERM, _ACT_ERRNO | errno.ENOLCK
        for names, action in ((REFUSED, refuse), (NO_NOTIFY, refuse), (NO_LOCKS, no_lock)):
            for name in names:
                number = _number(lib, name)
                _check(lib.seccomp_rule_add(ctx, action, number, 0), f"seccomp_rule_add({name})")
        for name in FCNTL_CALLS:
            number = _number(lib, name)
            for command, action in [*((c, no_lock) for c in FCNTL_LOCKS), (F_NOTIFY, refuse)]:
                # Low 32 bits only: the kernel takes the command as an unsigned int.
                compare = _ArgCmp(1, _CMP_MASKED_EQ, 0xFFFFFFFF, command)
                added = lib.seccomp_rule_add_array(ctx, action, number, 1, ctypes.byref(compare))
                _check(added, f"seccomp_rule_add({name}, {command})")
        with tempfile.TemporaryFile() as out:
            _check(lib.seccomp_export_bpf(ctx, out.fileno()), "seccomp_export_bpf")
            out.seek(0)
            return out.read()
    finally:
        lib.seccomp_release(ctx)


def _number(lib: ctypes.CDLL, name: str) -> int:
    number = int(lib.seccomp_syscall_resolve_name(name.encode()))
    if number == _NR_SCMP_ERROR:
        raise SeccompUnavailable(f"libseccomp does not know the system call {name}")
    return number  # negative for a call of another ABI only (fcntl64): libseccomp places it there


def _check(result: int, what: str, ok: tuple[int, ...] = ()) -> None:
    if result < 0 and result not in ok:
        raise SeccompUnavailable(f"{what} failed: {os.strerror(-result)}")


def seccomp_problem() -> str | None:
    """Why the sandbox's filter cannot be built here, or None when it can."""
    try:
        keyring_filter()
    except SeccompUnavailable as exc:
        return f"{exc}: install libseccomp (Debian/Ubuntu: apt-get install libseccomp2)"
    return None


def filter_pipe() -> int:
    """A pipe's read end holding the filter, for one ``bwrap --seccomp FD`` (bubblewrap reads it to EOF).

    The caller passes it to the child and closes it afterwards. The program is a few hundred bytes, far
    below a pipe's buffer, so writing it all before anyone reads cannot block.
    """
    program = keyring_filter()
    read, write = os.pipe()
    try:
        os.write(write, program)
    finally:
        os.close(write)
    return read
