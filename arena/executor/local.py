"""The live side of every entrant: launched processes, connections to running bots, in-process classes.

Starting a class of bots has to work on a small machine and survive broken entrants:

* Bots start in parallel, but at most ``starting_at_once`` of them at a time (by default twice the CPUs):
  a sandboxed bot costs about half a second of CPU to start, and a hundred started at once on two cores
  starved each other past their start-up timeout. Each bot's ``startup_timeout_s`` counts from when its
  own start begins, not from the event's.
* An entrant that cannot start (its process exits, never reports SERVING, its program is missing) or
  whose address does not answer does not stop the event: it is reported by name with its log's last lines,
  its seats are played by the autopilot (those games are not rated for it), and it is tried again in the
  background with the fault policy's restart back-off. Games that start after it comes up seat it. One that
  never comes up is marked in the standings by the conductor (as disqualified). ``strict`` refuses the event
  instead, as it does for a bot speaking another protocol version.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from arena.bot import Bot
from arena.errors import ArenaError, ConfigError, ProtocolMismatch
from arena.event.config import DEFAULT_MEMORY_MB, EntrantKind, EntrantSpec, TournamentConfig
from arena.event.table import TableSpec, TableWatch, play_table, record_of
from arena.executor.base import Announce, StartFailed, StartProgress, WrongVariant
from arena.executor.logspan import Span
from arena.players.autopilot import AutopilotPlayer
from arena.players.base import Player
from arena.players.connection import BotConnection, BotIdentity
from arena.players.endpoint import Endpoint, RestartingEndpoint
from arena.players.inprocess import InProcessPlayer, load_bot_class
from arena.players.process import ManagedBot, expand_command
from arena.players.remote import RemotePlayer
from arena.results import botlog
from arena.results.record import GameRecord
from arena.sandbox import SandboxMode, SandboxSpec, bubblewrap_problem
from arena.sandbox.bubblewrap import bot_view, sdk_paths

STARTING_AT_ONCE = max(2, 2 * (os.cpu_count() or 1))
"""How many launched bots may be starting at the same time (each one's start is mostly CPU)."""


class LocalExecutor:
    """The live side of every entrant: launched processes, connections, in-process classes."""

    def __init__(
        self,
        config: TournamentConfig,
        log_dir: Path,
        strict: bool = False,
        starting_at_once: int = STARTING_AT_ONCE,
    ) -> None:
        self.config = config
        self.log_dir = log_dir
        self.strict = strict
        self.specs: dict[str, EntrantSpec] = {e.name: e for e in config.entrants}
        self.managed: dict[str, ManagedBot] = {}
        self.endpoints: dict[str, Endpoint] = {}
        self.classes: dict[str, type[Bot]] = {}
        self.identities: dict[str, BotIdentity] = {}
        self.excluded: dict[str, str] = {}  # entrant -> why it is never seated (wrong protocol or variant)
        self.down: dict[str, str] = {}  # entrant -> why it is not up (yet): retried in the background
        self.sandboxes: dict[str, SandboxSpec] = {}
        self.shared_views: dict[Path, list[str]] = {}  # a directory -> the entrants who are all shown it
        self._gate = asyncio.Semaphore(starting_at_once)
        self._retries: dict[str, asyncio.Task[None]] = {}
        self._announce: Announce = lambda _line: None

    def spec(self, name: str) -> EntrantSpec:
        if name in self.specs:
            return self.specs[name]
        return replace(self.config.house, name=name)

    def sandbox_specs(self, names: Sequence[str]) -> dict[str, SandboxSpec]:
        """How each launched entrant in ``names`` is confined.

        Each bot is shown its own program (or package, or ``workdir``: ``bot_view``), and each sandbox hides
        the output directory, the config file and the other entrants' programs, even when they lie inside
        a directory the bot is shown. A bot whose program cannot be found is not refused here: that is its
        own start-up problem (``ManagedBot`` reports it), not the event's.

        :raises ConfigError: a sandbox is asked for where bubblewrap cannot run.
        """
        launched = [self.spec(n) for n in names if self.spec(n).kind is EntrantKind.COMMAND]
        sandboxed = [s.name for s in launched if self.config.sandbox_of(s) is SandboxMode.BUBBLEWRAP]
        if sandboxed and (problem := bubblewrap_problem()) is not None:
            raise ConfigError(f"cannot sandbox {', '.join(sandboxed)}: {problem}")
        dirs: dict[str, Path] = {}
        for s in launched:
            workdir = self.config.path(s.workdir) if s.workdir else None
            if s.name in sandboxed:
                with contextlib.suppress(ConfigError):
                    dirs[s.name] = bot_view(expand_command(s.target, 0), workdir, self.config.base)
        self.shared_views = _shared(dirs)
        hide = [self.config.output.resolve(), *([self.config.source] if self.config.source else [])]
        out = {}
        for s in launched:
            own = dirs.get(s.name)
            # Another entrant's directory is hidden unless it holds this bot's own (one cannot be shown
            # a directory inside a hidden one); the sample bots' package is part of the SDK anyway.
            others = tuple(d for n, d in dirs.items() if n != s.name and not (own and own.is_relative_to(d)))
            out[s.name] = SandboxSpec(
                mode=self.config.sandbox_of(s),
                workdir=self.config.path(s.workdir) if s.workdir else None,
                view=own,  # found above, so that the bot's launcher need not look for it again
                env=dict(s.env),
                hide=(*hide, *others),
            )
        return out

    async def start(
        self,
        names: Sequence[str],
        progress: StartProgress | None = None,
        announce: Announce | None = None,
    ) -> None:
        """Launch, connect and shake hands with every entrant in ``names``, ``starting_at_once`` at a time.

        An entrant that speaks another protocol version or plays another variant is not seated
        (``excluded``); one that cannot start or be reached is ``down`` and retried in the background until
        it is up (``announce`` is told when it is, or when it turns out to be excluded). ``strict`` refuses
        the event instead, naming every entrant that failed.

        :param progress: called with (entrants tried so far, entrants) as each one's first start ends.
        :raises StartFailed: when strict, for every entrant that failed.
        :raises ConfigError: bubblewrap is asked for and cannot run here, or an in-process class cannot be
            loaded (both are the organiser's to fix, for every entrant alike).
        """
        if announce is not None:
            self._announce = announce
        self.sandboxes |= self.sandbox_specs(names)
        tried = 0
        if progress is not None:
            progress(0, len(names))

        async def one(name: str) -> None:
            nonlocal tried
            try:
                await self._start_one(name)
            finally:
                tried += 1
                if progress is not None:
                    progress(tried, len(names))

        results = await asyncio.gather(*(one(n) for n in names), return_exceptions=True)
        for name, r in zip(names, results, strict=True):
            if isinstance(r, BaseException) and not isinstance(r, ArenaError | OSError):
                raise r
            if isinstance(r, ConfigError) and self.spec(name).kind is EntrantKind.CLASS:
                raise r
        problems = []
        for name, r in zip(names, results, strict=True):
            if r is None:
                continue
            if self.strict:
                problems.append((name, str(r)))
            elif isinstance(r, ProtocolMismatch | WrongVariant):
                self.excluded[name] = f"not seated: {r}"
            else:
                self.down[name] = str(r)
                self._retries[name] = asyncio.get_running_loop().create_task(self._retry(name))
        if problems:
            raise StartFailed(problems)  # the caller stops what did start

    async def _start_one(self, name: str) -> None:
        """One start of one entrant; on failure nothing of it is left running (so it can be tried again)."""
        spec = self.spec(name)
        if spec.kind is EntrantKind.CLASS:
            self.classes[name] = load_bot_class(spec.target)
            return
        managed = self.managed.get(name)
        if spec.kind is EntrantKind.COMMAND:
            if managed is None:
                managed = ManagedBot(
                    name,
                    spec.target,
                    self.log_dir / f"{name}.log",
                    startup_timeout_s=spec.startup_timeout_s,
                    memory_mb=spec.memory_mb or DEFAULT_MEMORY_MB,
                    cpu_s=spec.cpu_s,
                    backoff=self.config.faults.restart,
                    sandbox=self.sandboxes[name],
                    cwd=self.config.base,
                    start_gate=self._gate,
                )
                self.managed[name] = managed
            address = await managed.start()
        else:
            address = spec.target
        connection = BotConnection(address)
        try:
            identity = await connection.hello()
            variant = self.config.game.variant.value
            if variant not in identity.variants:
                raise WrongVariant(
                    f"bot {identity.name!r} does not play {variant} (it plays "
                    f"{', '.join(identity.variants) or 'nothing'})"
                )
        except BaseException:
            await connection.close()
            if managed is not None:
                await managed.stop()
            raise
        self.identities[name] = identity
        self.endpoints[name] = (
            RestartingEndpoint(managed, connection) if managed is not None else Endpoint(connection)
        )

    async def _retry(self, name: str) -> None:
        """Try a down entrant again after the restart back-off, doubling, until it is up or excluded."""
        attempt = 0
        while name in self.down:
            attempt += 1
            await asyncio.sleep(self.config.faults.backoff_s(attempt))
            try:
                await self._start_one(name)
            except (ArenaError, OSError) as exc:
                if isinstance(exc, ProtocolMismatch | WrongVariant):
                    del self.down[name]
                    self.excluded[name] = f"not seated: {exc}"
                    self._announce(f"warning: {name} is up but not seated: {exc}")
                    return
                self.down[name] = str(exc)
                continue
            del self.down[name]
            self._announce(f"{name} is up (try {attempt + 1}): it plays the games that start from now on")

    async def add(self, specs: Sequence[EntrantSpec]) -> None:
        """Entrants that join while the executor runs (a competition's ladder: a version becomes active),
        started as ``start`` starts the event's."""
        started = self.endpoints.keys() | self.classes.keys() | self.down.keys() | self.excluded.keys()
        new = [spec for spec in specs if spec.name not in started]  # asked twice (a worker's lane reopened)
        for spec in new:
            self.specs[spec.name] = spec
        if new:
            await self.start([spec.name for spec in new])

    async def remove(self, names: Sequence[str]) -> None:
        """Entrants that leave while the executor runs (a ladder's version replaced or disabled): their bots
        are stopped and they are forgotten. An event's entrants never leave; a ladder's do."""
        for name in names:
            retry = self._retries.pop(name, None)
            if retry is not None:
                retry.cancel()
            endpoint = self.endpoints.pop(name, None)
            managed = self.managed.pop(name, None)
            for known in (self.specs, self.down, self.excluded, self.identities, self.sandboxes):
                known.pop(name, None)
            if endpoint is not None:
                await endpoint.close()
            if managed is not None:
                await managed.close()

    def unavailable(self) -> dict[str, str]:
        """Entrants not seated in a game starting now, with why: not up (yet), or never to be seated (also
        one found to speak another protocol only when it came up during the event)."""
        return self.excluded | self.down

    def player(self, name: str, disqualified: bool, seed: int) -> Player:
        """A fresh player for one seat of one game.

        A launched bot that crashed is restarted by its endpoint when a seat next needs it, not here: the
        games already in flight share the restart, and the channels they hold stay open until they let go.
        """
        if disqualified or name in self.excluded or name in self.down:
            return AutopilotPlayer(name, seed)
        if name in self.classes:
            return InProcessPlayer(self.classes[name], name)
        return RemotePlayer(self.endpoints[name], name)

    async def play(
        self,
        spec: TableSpec,
        disqualified: Collection[str],
        public_seed: int,
        watch: TableWatch | None = None,
        people: Mapping[str, Player] | None = None,
        around: Callable[[Player], Player] | None = None,
    ) -> GameRecord:
        """Play one scheduled game here, on this process's event loop: the executor seam's one call.

        ``public_seed`` (the schedule's, not the secret deal seed) seeds the autopilot of disqualified
        seats, so that their play is the same whoever runs the table. The game comes back as the store
        will keep it, made here (``arena.results.record``: on a Dask worker, not on the conductor).
        ``watch`` follows the game move by move (``arena.event.table.TableWatch``: a live table).
        ``people`` seats the given players (a person's seat, ``arena.play.seat.HumanSeat``) in place of the
        entrants of those names: only here, on this process, where the person's moves arrive; ``around``
        wraps every other seat's player (a person's game paces the bots: ``arena.play.seat.PacedPlayer``).
        """
        seated = people or {}
        players = [
            seated[name] if name in seated else self.player(name, name in disqualified, public_seed)
            for name in spec.seat_names
        ]
        # Each launched bot's log gets a line as its seat begins and ends the game, so the organiser's
        # report can show what the bot printed during each game (arena.results.botlog).
        logged = [
            (seat, self.managed[name])
            for seat, name in enumerate(spec.seat_names)
            if name in self.managed and isinstance(players[seat], RemotePlayer)
        ]
        if around is not None:
            players = [p if n in seated else around(p) for p, n in zip(players, spec.seat_names, strict=True)]
        for seat, bot in logged:
            bot.note(botlog.start_line(spec.game_id, seat))
        try:
            return record_of(await play_table(spec, players, watch))
        finally:
            for seat, bot in logged:
                bot.note(botlog.end_line(spec.game_id, seat))

    def keep_logs(self) -> None:
        """The logs are this machine's files: the ladder marks them itself
        (``arena.server.ladder.gamelogs``)."""

    def logs_of(self, game_id: str) -> dict[str, Span]:
        return {}

    async def settle_logs(self, names: Collection[str]) -> None:
        bots = [self.managed[n] for n in set(names) if n in self.managed]
        await asyncio.gather(*(bot.settle() for bot in bots))

    async def stop(self) -> None:
        for task in self._retries.values():
            task.cancel()
        await asyncio.gather(*self._retries.values(), return_exceptions=True)
        self._retries.clear()
        await asyncio.gather(*(e.close() for e in self.endpoints.values()), return_exceptions=True)
        await asyncio.gather(*(b.close() for b in self.managed.values()), return_exceptions=True)

    def notices(self) -> list[str]:
        """What an organiser should know about how the launched bots are confined, one line each."""
        if not self.managed:
            return []
        modes: dict[SandboxMode, list[str]] = {}
        for name, spec in self.sandboxes.items():
            modes.setdefault(spec.mode, []).append(name)
        lines = []
        if confined := modes.get(SandboxMode.BUBBLEWRAP):
            lines.append(f"sandbox: bubblewrap for {_names(confined)}")
        if bare := modes.get(SandboxMode.NONE):
            lines.append(f"sandbox: none for {_names(bare)} (not isolated: trusted bots only)")
        notes = sorted({b.limits_note for b in self.managed.values() if b.limits_note})
        lines += [f"limits: {n}" for n in notes]
        if self.shared_views:
            groups = "; ".join(f"{_names(n)} are all shown {d}" for d, n in sorted(self.shared_views.items()))
            lines.append(
                f"warning: {groups}: each can read the others' files there (give each a workdir of its own)"
            )
        return lines


def _shared(views: dict[str, Path]) -> dict[Path, list[str]]:
    """Directories shown to more than one entrant (a shared ``workdir`` or package), with who sees them.

    A view inside another entrant's is hidden from that entrant (``sandbox_specs``), so only equal views
    let entrants read each other. The SDK's directories are left out: every bot is shown them.
    """
    sdk = sdk_paths()  # shown to every bot anyway (the sample bots are part of it)
    by_view: dict[Path, list[str]] = {}
    for name, view in views.items():
        if not any(view.is_relative_to(p) for p in sdk):
            by_view.setdefault(view, []).append(name)
    return {view: sorted(names) for view, names in by_view.items() if len(names) > 1}


def _names(names: Collection[str], most: int = 12) -> str:
    """A list of entrant names for one line: a hundred of them would fill the terminal."""
    ordered = sorted(names)
    if len(ordered) <= most:
        return ", ".join(ordered)
    return f"{', '.join(ordered[:most])} and {len(ordered) - most} more"
