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
import contextlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena import outdir
from arena.bot import Bot
from arena.config import EntrantSpec, TournamentConfig
from arena.deals import deal_seed, resolve_key
from arena.engine.events import Event
from arena.engine.views import View
from arena.errors import ArenaError, BotError, ConfigError
from arena.gameinfo import GameInfo, GameResult
from arena.players.base import DecisionTiming, Player, Reply
from arena.players.inprocess import InProcessPlayer, load_bot_class
from arena.players.process import ManagedBot, expand_command
from arena.players.remote import BotConnection, BotIdentity, RemotePlayer
from arena.rating import Standing
from arena.sandbox import SandboxSpec, bubblewrap_problem
from arena.sandbox.bubblewrap import bot_directory
from arena.schedule import ScheduledGame, make_schedule
from arena.standings import compute_standings
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

    def __init__(self, config: TournamentConfig, log_dir: Path) -> None:
        self.config = config
        self.log_dir = log_dir
        self.specs: dict[str, EntrantSpec] = {e.name: e for e in config.entrants}
        self.managed: dict[str, ManagedBot] = {}
        self.connections: dict[str, BotConnection] = {}
        self.classes: dict[str, type[Bot]] = {}
        self.identities: dict[str, BotIdentity] = {}
        self._locks: dict[str, asyncio.Lock] = {}
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

        :raises ConfigError: an entrant cannot start, speaks another protocol, or does not play the variant.
        """
        self.sandboxes = self.sandbox_specs(names)
        results = await asyncio.gather(*(self._start_one(n) for n in names), return_exceptions=True)
        problems = [f"{n}: {r}" for n, r in zip(names, results, strict=True) if isinstance(r, BaseException)]
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, ArenaError | OSError):
                raise r
        if problems:
            raise ConfigError("cannot start the event: " + "; ".join(problems))

    async def _start_one(self, name: str) -> None:
        spec = self.spec(name)
        self._locks[name] = asyncio.Lock()
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
        connection = self.connections[name] = BotConnection(address)
        identity = self.identities[name] = await connection.hello()
        variant = self.config.game.variant.value
        if variant not in identity.variants:
            raise ConfigError(
                f"bot {identity.name!r} does not play {variant} (it plays "
                f"{', '.join(identity.variants) or 'nothing'})"
            )

    async def player(self, name: str, disqualified: bool, seed: int) -> Player:
        """A fresh player for one seat of one game; restarts a crashed launched bot first."""
        if disqualified:
            return AutopilotPlayer(name, seed)
        if name in self.classes:
            return InProcessPlayer(self.classes[name], name)
        bot = self.managed.get(name)
        if bot is not None and not bot.alive():
            async with self._locks[name]:
                if not bot.alive():
                    with contextlib.suppress(
                        BotError
                    ):  # a bot that will not restart faults at every decision
                        await bot.ensure_running()
                        old = self.connections[name]
                        self.connections[name] = BotConnection(bot.address)
                        await old.close()
        return RemotePlayer(self.connections[name], name)

    async def stop(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)
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
) -> EventSummary:
    """Run (or resume) the event; returns the final standings.

    :param on_start: called with (games in the event, games already stored) once the event is set up.
    :param start_over: discard an event already in the output directory and start afresh (the demo), once the
        directory is locked, so that a running event is never deleted under its arena.
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
            done = store.finished()
            todo = [g for g in schedule if g.game_id not in done]
            if on_start is not None:
                on_start(len(schedule), len(done))
            runtime = EntrantRuntime(config, config.output / outdir.LOG_DIR)
            try:
                if todo:
                    await runtime.start(sorted({n for g in todo for n in g.seats}))
                    for line in runtime.notices():
                        if on_notice is not None:
                            on_notice(line)
                    for name, identity in runtime.identities.items():
                        store.set_identity(
                            name,
                            {"name": identity.name, "author": identity.author, "version": identity.version},
                        )
                    await _play_all(config, store, runtime, todo, on_game, key)
            finally:
                await runtime.stop()
            with store.rating_history_writer() as record:
                standings = compute_standings(store, record)
    return EventSummary(config, resumed, len(schedule), len(todo), standings)


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


async def _play_all(
    config: TournamentConfig,
    store: Store,
    runtime: EntrantRuntime,
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
            players = [await runtime.player(name, name in disqualified, game.seed) for name in game.seats]
            spec = TableSpec(game.game_id, config.game, deal_seed(key, game.seed), game.seats, policy)
            result = await play_table(spec, players)
            rated = not (policy.forfeit_result == "void" and result.forfeited)
            data = result.to_dict() | {"wall_s": result.wall_s}
            store.save_game(game, data, seat_stats(result), result.hands, result.faults, rated, excluded)
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
