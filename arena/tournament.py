"""The conductor: schedule → tables (concurrently) → store → ratings, and resume.

The schedule is a pure function of the event seed, and every deal a pure function of the seed and the
event's secret deal key (``arena/deals.py``); games run ``concurrency`` at a time and each finished game is
stored in one transaction; ratings are recomputed from the store in schedule order at the end. So an
interrupted event resumes by playing only the games the store lacks, and ends with exactly the leaderboard
an uninterrupted run would have given (with deterministic bots). One arena at a time owns the output
directory (``arena/outdir.py``).
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from arena import outdir
from arena.bot import Bot
from arena.config import EntrantSpec, TournamentConfig
from arena.deals import deal_seed, resolve_key
from arena.engine.events import Event
from arena.engine.views import View
from arena.errors import ArenaError, ConfigError, ProtocolMismatch
from arena.gameinfo import GameInfo, GameResult
from arena.players.base import DecisionTiming, Player, Reply
from arena.players.endpoint import RestartingEndpoint
from arena.players.inprocess import InProcessPlayer, load_bot_class
from arena.players.process import ManagedBot, expand_command
from arena.players.remote import BotConnection, BotIdentity, Endpoint, RemotePlayer
from arena.ranking import Confidence
from arena.rating import Standing
from arena.sandbox import SandboxSpec, bubblewrap_problem
from arena.sandbox.bubblewrap import bot_directory
from arena.schedule import ScheduledGame, make_schedule
from arena.standings import Board, compute_board
from arena.store import SeatStats, Store
from arena.table import TableResult, TableSpec, play_table


class AutopilotPlayer(Player):
    """Plays for a disqualified entrant: seeded random legal actions, never a fault."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.rng = random.Random(f"euchre-arena/autopilot/{seed}/{name}")

    async def start(self, info: GameInfo, events: Sequence[Event]) -> None:
        return None

    def queue_events(self, events: Sequence[Event]) -> None:
        return None

    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        return Reply(self.rng.choice(view.legal_actions), 0.0)

    async def finish(self, final: GameResult) -> None:
        return None


class EntrantRuntime:
    """The live side of every entrant: launched processes, connections, in-process classes."""

    def __init__(self, config: TournamentConfig, log_dir: Path, strict: bool = False) -> None:
        self.config = config
        self.log_dir = log_dir
        self.strict = strict
        self.specs: dict[str, EntrantSpec] = {e.name: e for e in config.entrants}
        self.managed: dict[str, ManagedBot] = {}
        self.endpoints: dict[str, Endpoint] = {}
        self.classes: dict[str, type[Bot]] = {}
        self.identities: dict[str, BotIdentity] = {}
        self.excluded: dict[str, str] = {}  # entrant -> why it is not seated (wrong protocol version)
        self.sandboxes: dict[str, SandboxSpec] = {}

    def spec(self, name: str) -> EntrantSpec:
        if name in self.specs:
            return self.specs[name]
        return replace(self.config.house, name=name)

    def sandbox_specs(self, names: Sequence[str]) -> dict[str, SandboxSpec]:
        """How each launched entrant in ``names`` is confined.

        Each sandbox hides the output directory, the config file and the other entrants' directories, even
        when they lie inside a directory the bot is shown.

        :raises ConfigError: a sandbox is asked for where bubblewrap cannot run, or a bot's directory
            cannot be found.
        """
        launched = [self.spec(n) for n in names if self.spec(n).kind == "command"]
        sandboxed = [s.name for s in launched if self.config.sandbox_of(s) == "bubblewrap"]
        if sandboxed and (problem := bubblewrap_problem()) is not None:
            raise ConfigError(f"cannot sandbox {', '.join(sandboxed)}: {problem}")
        dirs: dict[str, Path] = {}
        for s in launched:
            workdir = self.config.path(s.workdir) if s.workdir else None
            if s.name in sandboxed:
                dirs[s.name] = bot_directory(expand_command(s.target, 0), workdir, self.config.base)
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
                env=dict(s.env),
                hide=(*hide, *others),
            )
        return out

    async def start(self, names: Sequence[str]) -> None:
        """Launch, connect and shake hands with every entrant in ``names``, all at once.

        An entrant that speaks another protocol version is not seated (``excluded``; docs/protocol.md): one
        out-of-date bot must not stop everyone else's event. ``strict`` refuses the event instead.

        :raises ConfigError: an entrant cannot start or does not play the variant (or, when strict, speaks
            another protocol).
        """
        self.sandboxes = self.sandbox_specs(names)
        results = await asyncio.gather(*(self._start_one(n) for n in names), return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, ArenaError | OSError):
                raise r
        problems = []
        for name, r in zip(names, results, strict=True):
            if isinstance(r, ProtocolMismatch) and not self.strict:
                self.excluded[name] = f"not seated: {r}"
                if name in self.managed:
                    await self.managed[name].stop()
            elif isinstance(r, BaseException):
                problems.append(f"{name}: {r}")
        if problems:
            raise ConfigError("cannot start the event: " + "; ".join(problems))

    async def _start_one(self, name: str) -> None:
        spec = self.spec(name)
        if spec.kind == "class":
            self.classes[name] = load_bot_class(spec.target)
            return
        if spec.kind == "command":
            bot = ManagedBot(
                name,
                spec.target,
                self.log_dir / f"{name}.log",
                startup_timeout_s=spec.startup_timeout_s,
                memory_mb=spec.memory_mb,
                cpu_s=spec.cpu_s,
                policy=self.config.faults,
                sandbox=self.sandboxes[name],
                cwd=self.config.base,
            )
            self.managed[name] = bot
            await bot.start()
            address = bot.address
        else:
            address = spec.target
        connection = BotConnection(address)
        managed = self.managed.get(name)
        self.endpoints[name] = (
            RestartingEndpoint(managed, connection) if managed is not None else Endpoint(connection)
        )
        identity = self.identities[name] = await connection.hello()
        variant = self.config.game.variant.value
        if variant not in identity.variants:
            raise ConfigError(
                f"bot {identity.name!r} does not play {variant} (it plays "
                f"{', '.join(identity.variants) or 'nothing'})"
            )

    def player(self, name: str, disqualified: bool, seed: int) -> Player:
        """A fresh player for one seat of one game.

        A launched bot that crashed is restarted by its endpoint when a seat next needs it, not here: the
        games already in flight share the restart, and the channels they hold stay open until they let go.
        """
        if disqualified or name in self.excluded:
            return AutopilotPlayer(name, seed)
        if name in self.classes:
            return InProcessPlayer(self.classes[name], name)
        return RemotePlayer(self.endpoints[name], name)

    async def play(self, spec: TableSpec, disqualified: Collection[str], public_seed: int) -> TableResult:
        """Play one scheduled game here, on this process's event loop: the executor seam's one call.

        ``public_seed`` (the schedule's, not the secret deal seed) seeds the autopilot of disqualified
        seats, so that their play is the same whoever runs the table.
        """
        players = [self.player(name, name in disqualified, public_seed) for name in spec.seat_names]
        return await play_table(spec, players)

    async def stop(self) -> None:
        await asyncio.gather(*(e.close() for e in self.endpoints.values()), return_exceptions=True)
        await asyncio.gather(*(b.close() for b in self.managed.values()), return_exceptions=True)

    def notices(self) -> list[str]:
        """What an organiser should know about how the launched bots are confined, one line each."""
        if not self.managed:
            return []
        modes: dict[str, list[str]] = {}
        for name, spec in self.sandboxes.items():
            modes.setdefault(spec.mode, []).append(name)
        lines = []
        if modes.get("bubblewrap"):
            lines.append(f"sandbox: bubblewrap for {', '.join(sorted(modes['bubblewrap']))}")
        if modes.get("none"):
            lines.append(
                f"sandbox: none for {', '.join(sorted(modes['none']))} (not isolated: trusted bots only)"
            )
        notes = sorted({b.limits_note for b in self.managed.values() if b.limits_note})
        lines += [f"limits: {n}" for n in notes]
        return lines


@dataclass(frozen=True, slots=True)
class EventSummary:
    config: TournamentConfig
    resumed: bool
    games_total: int
    games_played_now: int
    standings: list[Standing]
    confidence: Confidence
    stopped: str = ""  # with --until-settled: "settled" or "budget"


ProgressHook = Callable[[ScheduledGame, TableResult], None]


def seat_stats(result: TableResult) -> list[SeatStats]:
    n = len(result.spec.seat_names)
    makers = [0] * n
    made = [0] * n
    for hand in result.hands:
        maker = hand["maker"]
        if maker is not None:
            makers[maker] += 1
            made[maker] += hand["outcome"] in ("made", "march")
    faults = [sum(1 for f in result.faults if f.seat == s) for s in range(n)]
    return [
        SeatStats(
            result.spec.seat_names[s],
            result.scores[s],
            result.ranks[s],
            s in result.forfeited,
            makers[s],
            made[s],
            faults[s],
        )
        for s in range(n)
    ]


def build_schedule(config: TournamentConfig) -> list[ScheduledGame]:
    return make_schedule(
        [e.name for e in config.entrants],
        config.game.num_players,
        config.rounds,
        config.seed,
        duplicate=config.duplicate,
        house=config.house.name,
        partners=config.game.team_play,
    )


async def run_event(
    config: TournamentConfig,
    on_game: ProgressHook | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
    start_over: bool = False,
    strict: bool = False,
    until_settled: bool = False,
    on_extend: Callable[[int, Board], None] | None = None,
) -> EventSummary:
    """Run (or resume) the event; returns the final standings.

    With ``until_settled``, once the scheduled games are played the event grows by rounds (about
    ``ranking.check_every`` games at a time) until every adjacent pair of the leaderboard is settled at
    ``ranking.confidence`` or ``ranking.max_games`` would be exceeded. Each extension is stored as schedule
    before it is played and depends only on the stored results, so an interrupted event resumes into the
    same games and the same decisions.

    :param on_start: called with (games in the event, games already stored) once the event is set up.
    :param on_extend: called with (games in the event now, the board that asked for more) at each extension.
    :param start_over: discard an event already in the output directory and start afresh (the demo), once the
        directory is locked, so that a running event is never deleted under its arena.
    :param strict: refuse the event when an entrant speaks another protocol version (by default that
        entrant is not seated: its seats are played by the autopilot and it is marked disqualified).
    :raises ConfigError: another arena runs in the output directory, it holds another event or a deal key
        that does not fit, or an entrant cannot start.
    """
    schedule = build_schedule(config)
    house = sorted({n for g in schedule for n in g.seats} - {e.name for e in config.entrants})
    rows = [(e.name, e.kind, e.target, False) for e in config.entrants]
    rows += [(n, config.house.kind, config.house.target, True) for n in house]
    outdir.prepare(config.output)
    with outdir.EventLock(config.output):
        if start_over:
            outdir.discard_event(config.output)
        with Store.open(config.output) as store:
            resumed, key = _begin(config, store, schedule, rows)
            schedule = store.schedule()  # may be longer than configured: an event grown by --until-settled
            if on_start is not None:
                on_start(len(schedule), len(store.finished()))
            runtime = make_runtime(config, config.output / outdir.LOG_DIR, strict)
            started: set[str] = set()
            played_now = 0
            stopped = ""
            try:
                while True:
                    done = store.finished()
                    todo = [g for g in schedule if g.game_id not in done]
                    if todo:
                        names = sorted({n for g in todo for n in g.seats} - started)
                        if names:
                            await start_entrants(runtime, store, names, on_notice)
                            started.update(names)
                        await _play_all(config, store, runtime, todo, on_game, key)
                        played_now += len(todo)
                    if not until_settled:
                        break
                    board = compute_board(store, ranking=config.ranking)
                    rounds = _more_rounds(config, schedule, board)
                    if rounds <= 0:
                        stopped = "settled" if board.confidence.settled else "budget"
                        break
                    grown = replace(config, rounds=schedule[-1].round + rounds)
                    store.begin_event(grown.fingerprint(), grown.to_dict(), build_schedule(grown), rows)
                    schedule = store.schedule()
                    if on_extend is not None:
                        on_extend(len(schedule), board)
            finally:
                await runtime.stop()
            with store.rating_history_writer() as record:
                board = compute_board(store, record, config.ranking)
    return EventSummary(
        config, resumed, len(schedule), played_now, board.standings, board.confidence, stopped
    )


async def start_entrants(
    runtime: Runtime, store: Store, names: Sequence[str], on_notice: Callable[[str], None] | None
) -> None:
    """Start ``names`` and record what starting them found (exclusions, identities, notices)."""
    await runtime.start(names)
    for name, why in runtime.excluded.items():
        store.disqualify(name, "(start)", why)
    for line in runtime.notices():
        if on_notice is not None:
            on_notice(line)
    for name, identity in runtime.identities.items():
        store.set_identity(
            name, {"name": identity.name, "author": identity.author, "version": identity.version}
        )


def _more_rounds(config: TournamentConfig, schedule: Sequence[ScheduledGame], board: Board) -> int:
    """Rounds to add before the next look at the order: 0 when it is settled or the budget is spent."""
    if board.confidence.settled or not schedule:
        return 0
    per_round = len(schedule) / schedule[-1].round
    step = max(1, math.ceil(config.ranking.check_every / per_round))
    affordable = int((config.ranking.max_games - len(schedule)) // per_round)
    return min(step, affordable)


def _begin(
    config: TournamentConfig,
    store: Store,
    schedule: Sequence[ScheduledGame],
    rows: Sequence[tuple[str, str, str, bool]],
) -> tuple[bool, bytes | None]:
    """Record the event, or recognise it when resuming, with its deal key: (resumed, key).

    The fingerprint is checked before the key, so that a changed seed or entrant list is reported as such
    rather than as a key problem.

    :raises ConfigError: the directory holds another event, or a deal key that does not fit (arena/deals.py).
    """
    fingerprint = config.fingerprint()
    exists = store.check_same_event(fingerprint, schedule)
    found = resolve_key(
        config.output, config.deal_key, store.meta("deal_key_check"), exists, len(store.finished())
    )
    resumed = store.begin_event(fingerprint, config.to_dict(), schedule, rows, found.check)
    return resumed, found.key


class Runtime(Protocol):
    """Where the event's tables are played: the executor seam.

    The conductor keeps the schedule, the store (it is the only writer), the ratings, disqualification
    and resume; a runtime starts the entrants and plays the games it is handed. :class:`EntrantRuntime`
    plays them on this process's event loop; :class:`arena.cluster.DaskRuntime` on Dask workers.
    """

    identities: dict[str, BotIdentity]
    excluded: dict[str, str]

    async def start(self, names: Sequence[str]) -> None: ...

    def notices(self) -> list[str]: ...

    async def play(self, spec: TableSpec, disqualified: Collection[str], public_seed: int) -> TableResult: ...

    async def stop(self) -> None: ...


def make_runtime(config: TournamentConfig, log_dir: Path, strict: bool) -> Runtime:
    """The runtime the config's ``[executor]`` asks for."""
    if config.executor.kind == "dask":
        from arena.cluster import DaskRuntime  # Dask is imported only by events that use it

        return DaskRuntime(config, log_dir, strict)
    return EntrantRuntime(config, log_dir, strict)


async def _play_all(
    config: TournamentConfig,
    store: Store,
    runtime: Runtime,
    todo: Sequence[ScheduledGame],
    on_game: ProgressHook | None,
    key: bytes | None,
) -> None:
    """Play ``todo`` with at most ``concurrency`` games in flight, started in schedule order, each dealt
    from its public seed and the event's ``key`` (None: an event begun before secret deals)."""
    policy = config.faults
    queue: asyncio.Queue[ScheduledGame] = asyncio.Queue()
    for game in todo:
        queue.put_nowait(game)
    disqualified = set(store.disqualified())
    # Games and forfeits per entrant, read from the store once and then kept up to date here (re-reading
    # the totals after every game would cost time growing with the event).
    totals = {name: [t["games"], t["forfeits"]] for name, t in store.seat_totals().items()}

    async def worker() -> None:
        while True:
            try:
                game = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            excluded = tuple(n for n in game.seats if n in disqualified)
            spec = TableSpec(game.game_id, config.game, deal_seed(key, game.seed), game.seats, policy)
            result = await runtime.play(spec, frozenset(disqualified), game.seed)
            rated = not (policy.forfeit_result == "void" and result.forfeited)
            data = result.to_dict() | {"wall_s": result.wall_s}
            stats, latencies = seat_stats(result), result.latencies_ms
            store.save_game(game, data, stats, result.hands, result.faults, rated, excluded, latencies)
            for seat, name in enumerate(game.seats):
                count = totals.setdefault(name, [0, 0])
                count[0] += 1
                count[1] += seat in result.forfeited
            for name in set(game.seats) - disqualified:
                games, forfeits = totals[name]
                if games >= policy.disqualify_min_games and forfeits > policy.disqualify_share * games:
                    disqualified.add(name)
                    store.disqualify(
                        name,
                        game.game_id,
                        f"forfeited {forfeits} of {games} games (more than {policy.disqualify_share:.0%})",
                    )
            if on_game is not None:
                on_game(game, result)

    await asyncio.gather(*(worker() for _ in range(min(config.concurrency, len(todo)))))


play_games = _play_all
"""Play scheduled games into ``store`` (for runners other than ``run_event``, such as ``arena match``)."""
