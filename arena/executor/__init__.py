"""Where a game is played: one :class:`Executor` protocol (``base``), the local executor (``local``: this
process's event loop) and the Dask executor (``dask``: the conductor's side; ``dask_worker``: the worker's).
"""

from __future__ import annotations

from pathlib import Path

from arena.event.config import ExecutorKind, TournamentConfig
from arena.executor.base import Announce, Executor, StartFailed, StartProgress, WrongVariant

__all__ = ["Announce", "Executor", "StartFailed", "StartProgress", "WrongVariant", "make_executor"]


def make_executor(config: TournamentConfig, log_dir: Path, strict: bool) -> Executor:
    """The executor the config's ``[executor]`` asks for (Dask is imported only by events that use it)."""
    if config.executor.kind is ExecutorKind.DASK:
        from arena.executor.dask import DaskExecutor

        return DaskExecutor(config, log_dir, strict)
    from arena.executor.local import LocalExecutor

    return LocalExecutor(config, log_dir, strict)
