"""The executor seam: what the conductor asks of whatever plays its tables, and the errors of starting.

The conductor (``arena.conductor``) keeps the schedule, the store (it is the only writer), the ratings,
disqualification and resume; an executor starts the entrants and plays the games it is handed, returning
each as the store will keep it (``arena.results.record.GameRecord``). The conductor never knows where a
game ran: :class:`~arena.executor.local.LocalExecutor` plays on this process's event loop,
:class:`~arena.executor.dask.DaskExecutor` on Dask workers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Protocol

from arena.errors import ConfigError
from arena.event.config import EntrantSpec
from arena.event.table import TableSpec, TableWatch
from arena.executor.logspan import Span
from arena.players.connection import BotIdentity
from arena.results.record import GameRecord

Announce = Callable[[str], None]
StartProgress = Callable[[int, int], None]


class WrongVariant(ConfigError):
    """The bot answered but does not play the event's variant: retrying cannot help."""


class StartFailed(ConfigError):
    """Entrants could not start and the event is strict: ``problems`` holds (entrant, why) for each."""

    def __init__(self, problems: Sequence[tuple[str, str]]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(f"{name}: {why}" for name, why in self.problems))

    def __reduce__(self) -> tuple[type[StartFailed], tuple[list[tuple[str, str]]]]:
        return (StartFailed, (self.problems,))  # raised on a Dask worker, re-raised in the conductor


class Executor(Protocol):
    """Starts the event's entrants and plays the tables it is handed (see the module's docstring).

    ``identities``: what each entrant's bot said of itself at its handshake. ``excluded``: entrants never
    to be seated (another protocol version or variant), with why. ``add`` and ``remove`` change the
    entrants while the executor runs: an event never does, a competition's ladder does
    (``arena.server.ladder``). ``play``'s ``watch`` follows the game move by move where it is played on
    this process (local); an executor that plays elsewhere (Dask) may ignore it.
    """

    identities: dict[str, BotIdentity]
    excluded: dict[str, str]

    async def start(
        self, names: Sequence[str], progress: StartProgress | None = None, announce: Announce | None = None
    ) -> None: ...

    def unavailable(self) -> dict[str, str]: ...

    def notices(self) -> list[str]: ...

    async def add(self, specs: Sequence[EntrantSpec]) -> None: ...

    async def remove(self, names: Sequence[str]) -> None: ...

    async def play(
        self,
        spec: TableSpec,
        disqualified: Collection[str],
        public_seed: int,
        watch: TableWatch | None = None,
    ) -> GameRecord: ...

    def keep_logs(self) -> None:
        """From now on, read each game's span of its seats' logs where the game is played, for
        ``logs_of``, if that is not this machine (the competition server's logs pages; a no-op where the
        logs are this machine's files, which the caller can mark itself: ``arena.executor.logspan``)."""

    def logs_of(self, game_id: str) -> dict[str, Span]:
        """The spans kept for the game ``game_id`` that ``play`` returned, by seat name, once ({} if
        none): the seats whose bots were launched, and had a log, where the game was played."""
        ...

    async def settle_logs(self, names: Collection[str]) -> None:
        """Return once the logs of these entrants' launched bots on this machine hold everything the bots
        wrote before the call (``ManagedBot.settle``), so that a mark of a log's size made next ends
        what its bot has said (a no-op where the bots run elsewhere, whose machine marks their logs)."""

    async def stop(self) -> None: ...
