"""The event loop of the arena and of SDK bots: uvloop where it is installed, asyncio's own otherwise.

Why uvloop in the arena: at 25 tables the arena's process is CPU-bound, and about a fifth of its CPU per
decision is the event loop's own work (waking on gRPC's completions, running the tasks' steps), and uvloop
does that work in C (docs/performance.md: the figure, and ``bench/profile_arena.py``, which measures it). It
is optional (the ``uvloop`` extra; no Windows build), so ``auto`` falls back to asyncio without it, and
``ARENA_LOOP=asyncio`` keeps asyncio's loop even where uvloop is installed.

One thing the arena needs from its loop that no loop offers publicly: the socket through which gRPC's
completion-queue thread wakes the loop (``LoopWatch.transport_pending`` looks whether it holds unread
wake-ups before it blames a late reply on a bot). On asyncio's loop it is found in the selector's map; uvloop
has no such map, so the arena runs a subclass of uvloop's loop that notes the socket when gRPC registers it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from arena.errors import ConfigError

T = TypeVar("T")
CHOICES = ("auto", "uvloop", "asyncio")
GRPC_WAKEUP_CALLBACK = "_handle_events"
"""The name of the method gRPC's ``PollerCompletionQueue`` registers with ``loop.add_reader``."""

_uvloop_class: type[asyncio.AbstractEventLoop] | None = None


def _watched_uvloop() -> type[asyncio.AbstractEventLoop] | None:
    """uvloop's loop, with gRPC's wake-up socket noted as ``grpc_wakeup_fd`` (None without uvloop)."""
    global _uvloop_class
    if _uvloop_class is None:
        try:
            import uvloop
        except ImportError:
            return None

        class WatchedLoop(uvloop.Loop):
            grpc_wakeup_fd: int | None = None

            def add_reader(self, fd: Any, callback: Any, *args: Any) -> None:  # type: ignore[override]
                target = getattr(callback, "func", callback)  # a functools.partial, or the method itself
                if getattr(target, "__name__", "") == GRPC_WAKEUP_CALLBACK:
                    self.grpc_wakeup_fd = fd if isinstance(fd, int) else fd.fileno()
                super().add_reader(fd, callback, *args)

        _uvloop_class = WatchedLoop
    return _uvloop_class


def loop_choice(choice: str | None = None) -> str:
    """``choice``, or ``ARENA_LOOP``, or ``auto``: checked.

    :raises ConfigError: an unknown choice, or ``uvloop`` where it is not installed.
    """
    value = (choice if choice is not None else os.environ.get("ARENA_LOOP", "")).strip() or "auto"
    if value not in CHOICES:
        raise ConfigError(f"ARENA_LOOP={value!r}: expected one of {', '.join(map(repr, CHOICES))}")
    if value == "uvloop" and _watched_uvloop() is None:
        raise ConfigError("ARENA_LOOP=uvloop: uvloop is not installed (the 'uvloop' extra)")
    return value


def loop_factory(choice: str | None = None) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The factory of the loop to run on (None: asyncio's default); the SDK's ``--loop`` uses it too.

    :raises ConfigError: see :func:`loop_choice`.
    """
    if loop_choice(choice) == "asyncio":
        return None
    return _watched_uvloop()


def run(main: Coroutine[Any, Any, T], choice: str | None = None) -> T:
    """``asyncio.run(main)`` on the arena's loop.

    :raises ConfigError: see :func:`loop_choice` (``main`` is closed unrun).
    """
    try:
        factory = loop_factory(choice)
    except ConfigError:
        main.close()
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
