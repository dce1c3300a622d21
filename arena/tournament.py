"""The conductor: schedule → tables (concurrently) → store → ratings, and resume.

The schedule and every deal are pure functions of the event seed; games run ``concurrency`` at a time and
each finished game is stored in one transaction; ratings are recomputed from the store in schedule order at
the end. So an interrupted event resumes by playing only the games the store lacks, and ends with exactly
the leaderboard an uninterrupted run would have given (with deterministic bots).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.bot import Bot
from arena.config import EntrantSpec, TournamentConfig
from arena.engine.events import Event
from arena.engine.views import View
from arena.errors import ArenaError, BotError, ConfigError
from arena.gameinfo import GameInfo, GameResult
from arena.players.base import DecisionTiming, Player, Reply
from arena.players.inprocess import InProcessPlayer, load_bot_class
from arena.players.process import ManagedBot
from arena.players.remote import BotConnection, BotIdentity, RemotePlayer
from arena.ranking import Confidence
from arena.rating import Standing
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

    def __init__(self, config: TournamentConfig, log_dir: Path) -> None:
        self.config = config
        self.log_dir = log_dir
        self.specs: dict[str, EntrantSpec] = {e.name: e for e in config.entrants}
        self.managed: dict[str, ManagedBot] = {}
        self.connections: dict[str, BotConnection] = {}
        self.classes: dict[str, type[Bot]] = {}
        self.identities: dict[str, BotIdentity] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def spec(self, name: str) -> EntrantSpec:
        if name in self.specs:
            return self.specs[name]
        house = self.config.house
        return EntrantSpec(
            name, house.kind, house.target, house.memory_mb, house.cpu_s, house.startup_timeout_s
        )

    async def start(self, names: Sequence[str]) -> None:
        """Launch, connect and shake hands with every entrant in ``names``, all at once.

        :raises ConfigError: an entrant cannot start, speaks another protocol, or does not play the variant.
        """
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
        await asyncio.gather(*(b.stop() for b in self.managed.values()), return_exceptions=True)


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
    :raises ConfigError: the output directory holds another event, or an entrant cannot start.
    """
    house = sorted({n for g in build_schedule(config) for n in g.seats} - {e.name for e in config.entrants})
    rows = [(e.name, e.kind, e.target, False) for e in config.entrants]
    rows += [(n, config.house.kind, config.house.target, True) for n in house]
    with Store.open(config.output) as store:
        resumed = store.begin_event(config.fingerprint(), config.to_dict(), build_schedule(config), rows)
        schedule = store.schedule()
        if on_start is not None:
            on_start(len(schedule), len(store.finished()))
        runtime = EntrantRuntime(config, config.output / "logs")
        started: set[str] = set()
        played_now = 0
        stopped = ""
        try:
            while True:
                done = store.finished()
                todo = [g for g in schedule if g.game_id not in done]
                if todo:
                    names = sorted({n for g in todo for n in g.seats} - started)
                    await runtime.start(names)
                    started.update(names)
                    for name in names:
                        identity = runtime.identities.get(name)
                        if identity is not None:
                            store.set_identity(
                                name,
                                {
                                    "name": identity.name,
                                    "author": identity.author,
                                    "version": identity.version,
                                },
                            )
                    await _play_all(config, store, runtime, todo, on_game)
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


def _more_rounds(config: TournamentConfig, schedule: Sequence[ScheduledGame], board: Board) -> int:
    """Rounds to add before the next look at the order: 0 when it is settled or the budget is spent."""
    if board.confidence.settled or not schedule:
        return 0
    per_round = len(schedule) / schedule[-1].round
    step = max(1, math.ceil(config.ranking.check_every / per_round))
    affordable = int((config.ranking.max_games - len(schedule)) // per_round)
    return min(step, affordable)


async def _play_all(
    config: TournamentConfig,
    store: Store,
    runtime: EntrantRuntime,
    todo: Sequence[ScheduledGame],
    on_game: ProgressHook | None,
) -> None:
    """Play ``todo`` with at most ``concurrency`` games in flight, started in schedule order."""
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
            spec = TableSpec(game.game_id, config.game, game.seed, game.seats, policy)
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


play_games = _play_all
"""Play scheduled games into ``store`` (for runners other than ``run_event``, such as ``arena match``)."""
