"""Isolation of launched bots: what a bot process may see, reach and use.

A launched bot is untrusted code. Under ``sandbox = "bubblewrap"`` (the default) it runs in its own PID,
network, IPC and UTS namespaces, as a user of its own, with a filesystem view of the system and its own
program, read-only, and a private ``/tmp`` (:mod:`arena.sandbox.bubblewrap`), and without the kernel
keyring, file locks or file notifications (:mod:`arena.sandbox.seccomp`); its gRPC server listens on a
Unix socket in a tmpfs of the sandbox's own, which the arena dials without following the bot's links
(:mod:`arena.sandbox.dial`); its processes together are held to memory, CPU-time and process-count limits
for the whole event (:mod:`arena.sandbox.cgroups`). ``sandbox = "none"`` runs the bot as an ordinary child
process, for trusted bots and machines without bubblewrap. ``docs/security.md`` is the threat model.
"""

from __future__ import annotations

from arena.sandbox.bubblewrap import (
    SOCKET_DIR,
    SandboxMode,
    SandboxSpec,
    bubblewrap_problem,
    bwrap_argv,
)
from arena.sandbox.cgroups import BotCgroup, cgroup_problem

__all__ = [
    "SOCKET_DIR",
    "BotCgroup",
    "SandboxMode",
    "SandboxSpec",
    "bubblewrap_problem",
    "bwrap_argv",
    "cgroup_problem",
]
