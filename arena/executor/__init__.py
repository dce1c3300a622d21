"""Where a game is played: one :class:`Executor` protocol (``base``), the local executor (``local``: this
process's event loop) and the Dask executor (``dask``: the conductor's side; ``dask_worker``: the worker's).
"""

from __future__ import annotations

from pathlib import Path

from arena.errors import ConfigError
from arena.event.config import EntrantKind, ExecutorKind, TournamentConfig
from arena.executor.base import Announce, Executor, StartFailed, StartProgress, WrongVariant

__all__ = [
    "Announce",
    "Executor",
    "StartFailed",
    "StartProgress",
    "WrongVariant",
    "launch_refusal",
    "make_executor",
]


def launch_refusal(config: TournamentConfig) -> None:
    """Refuse, before the event writes anything, what would refuse it once its bots start: launched
    entrants to be sandboxed where bubblewrap cannot run (here: the local executor and a local Dask cluster;
    a cluster the organiser started runs bots on its own machines, which say so themselves).

    :raises ConfigError: the same line the executor would give at start.
    """
    from arena.sandbox import SandboxMode, bubblewrap_problem

    spec = config.executor
    if spec.kind is ExecutorKind.DASK and (spec.scheduler or spec.scheduler_file):
        return
    entrants = [*config.entrants, config.house]
    sandboxed = [
        e.name
        for e in entrants
        if e.kind is EntrantKind.COMMAND and config.sandbox_of(e) is SandboxMode.BUBBLEWRAP
    ]
    if sandboxed and (problem := bubblewrap_problem()) is not None:
        raise ConfigError(f"cannot sandbox {', '.join(sandboxed)}: {problem}")


def make_executor(config: TournamentConfig, log_dir: Path, strict: bool) -> Executor:
    """The executor the config's ``[executor]`` asks for (Dask is imported only by events that use it)."""
    if config.executor.kind is ExecutorKind.DASK:
        from arena.executor.dask import DaskExecutor

        return DaskExecutor(config, log_dir, strict)
    from arena.executor.local import LocalExecutor

    return LocalExecutor(config, log_dir, strict)
