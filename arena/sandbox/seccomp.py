"""The seccomp filter every sandboxed bot runs under: the kernel keyring is refused.

Why: the kernel keyring is not namespaced. Keys belong to a user id and ``/proc/keys`` lists every key
the reader may view, so a bot that adds a key and opens its permissions to everyone hands it to any other
process, another sandbox included, and a key outlives the bot (a key left by an earlier event was read).
Namespaces cannot separate it, so the system calls themselves are refused, as Docker's default profile
does for the same reason: ``add_key``, ``keyctl`` and ``request_key`` fail with ``EPERM``; every other
call is allowed (the namespaces and the file view do the rest).

Why libseccomp: writing BPF by hand means getting every architecture's numbers, the x32 ABI and 32-bit
calls on a 64-bit kernel right; libseccomp (the library Flatpak and systemd build their filters with,
installed with apt itself on Debian and with systemd elsewhere) does that. It is called through ``ctypes``:
five functions do not justify a compiled dependency. The filter is built once per arena process and handed
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
"""The system calls a sandboxed bot may not make: the whole keyring interface."""

_ACT_ALLOW = 0x7FFF0000
_ACT_ERRNO = 0x00050000
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
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


@functools.cache
def keyring_filter() -> bytes:
    """The BPF program (as bubblewrap reads it) that refuses :data:`REFUSED` with EPERM.

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
        for name in REFUSED:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                raise SeccompUnavailable(f"libseccomp does not know the system call {name}")
            refuse = _ACT_ERRNO | errno.EPERM
            _check(lib.seccomp_rule_add(ctx, refuse, number, 0), f"seccomp_rule_add({name})")
        with tempfile.TemporaryFile() as out:
            _check(lib.seccomp_export_bpf(ctx, out.fileno()), "seccomp_export_bpf")
            out.seek(0)
            return out.read()
    finally:
        lib.seccomp_release(ctx)


def _check(result: int, what: str, ok: tuple[int, ...] = ()) -> None:
    if result < 0 and result not in ok:
        raise SeccompUnavailable(f"{what} failed: {os.strerror(-result)}")


def seccomp_problem() -> str | None:
    """Why the keyring filter cannot be built here, or None when it can."""
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
