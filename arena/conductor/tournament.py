"""The conductor: schedule → tables (concurrently) → store → ratings, and resume.

The schedule is a pure function of the event seed, and every deal a pure function of the seed and the event's
secret deal key (``arena/event/deals.py``); games run ``concurrency`` at a time and each finished game is
stored in one transaction; ratings are recomputed from the store in schedule order at the end. So an
interrupted event resumes by playing only the games the store lacks, and ends with exactly the leaderboard an
uninterrupted run would have given (with deterministic bots). One arena at a time owns the output directory
(``arena/results/outdir.py``).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from arena.conductor.observer import EventObserver
from arena.errors import FaultKind
from arena.event.config import EntrantKind, TournamentConfig
from arena.event.deals import deal_seed, resolve_key
from arena.event.faults import ForfeitResult
from arena.event.schedule import make_schedule
from arena.event.table import TableSpec
from arena.executor import Executor, launch_refusal, make_executor
from arena.results import outdir
from arena.results.record import GameRecord, ScheduledGame
from arena.results.store import Store
from arena.stats.confidence import Confidence, look
from arena.stats.leaderboard import compute_leaderboard
from arena.stats.rating import Standing
from arena.stats.tally import Tally
from arena.text import problem_block


class Stopped(StrEnum):
    """Why an event stopped where it did."""

    SCHEDULE = ""  # its schedule was played out (no --until-settled)
    SETTLED = "settled"  # --until-settled: the question of [ranking] settle is answered
    BUDGET = "budget"  # --until-settled: [ranking] max_games would be exceeded


@dataclass(frozen=True, slots=True)
class EventSummary:
    config: TournamentConfig
    resumed: bool
    games_total: int
    games_played_now: int
    standings: list[Standing]
    confidence: Confidence
    stopped: Stopped = Stopped.SCHEDULE
    never_up: tuple[str, ...] = ()  # launched or remote entrants that never came up (marked disqualified)
    launched: tuple[str, ...] = ()  # every entrant the arena launches (``command``)


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
    observer: EventObserver | None = None,
    *,
    start_over: bool = False,
    strict: bool = False,
    until_settled: bool = False,
) -> EventSummary:
    """Run (or resume) the event; returns the final standings.

    With ``until_settled``, once the scheduled games are played the event grows by rounds (about
    ``ranking.check_every`` games at a time) until every adjacent pair of the leaderboard is decided (above
    or tied, arena.stats.sequential: valid however many looks it takes) at ``ranking.confidence``, or
    ``ranking.max_games`` would be exceeded. Each look adds only the games played since the last one to a
    running tally, so its cost does not grow with the event. Each extension is stored as schedule before it
    is played and depends only on the stored results, so an interrupted event resumes into the same games
    and the same decisions.

    :param observer: told of the event's progress (``arena.conductor.observer``); None: nobody watches.
    :param start_over: discard an event already in the output directory and start afresh (the demo), once the
        directory is locked, so that a running event is never deleted under its arena.
    :param strict: refuse the event when an entrant cannot start, cannot be reached or speaks another
        protocol version (by default such an entrant's seats are played by the autopilot, a broken one is
        retried during the event, and one never seated is marked disqualified).
    :raises ConfigError: another arena runs in the output directory, it holds another event or a deal key
        that does not fit, or (strict) an entrant cannot start.
    """
    watch = observer or EventObserver()
    schedule = build_schedule(config)
    house = sorted({n for g in schedule for n in g.seats} - {e.name for e in config.entrants})
    rows = [(e.name, e.kind, e.target, False) for e in config.entrants]
    rows += [(n, config.house.kind, config.house.target, True) for n in house]
    launch_refusal(config)  # before anything is written: a refused event leaves no deal.key, no database
    outdir.prepare(config.output)
    with outdir.EventLock(config.output):
        if start_over:
            outdir.discard_event(config.output)
        with Store.open(config.output) as store:
            resumed, key = _begin(config, store, schedule, rows)
            schedule = store.schedule()  # may be longer than configured: an event grown by --until-settled
            watch.started(len(schedule), len(store.finished()))
            runtime = make_executor(config, config.output / outdir.LOG_DIR, strict)
            started: set[str] = set()
            played_now = 0
            stopped = Stopped.SCHEDULE
            tally = Tally([e.name for e in store.entrants()])
            seed = store.event_seed()
            try:
                while True:
                    done = store.finished()
                    todo = [g for g in schedule if g.game_id not in done]
                    if todo:
                        names = sorted({n for g in todo for n in g.seats} - started)
                        if names:
                            await start_entrants(runtime, store, names, watch)
                            started.update(names)
                        await play_games(config, store, runtime, todo, key, watch)
                        played_now += len(todo)
                    if not until_settled:
                        break
                    seen = _look(store, tally, config, seed)
                    rounds = _more_rounds(config, schedule, seen)
                    if rounds <= 0:
                        stopped = Stopped.SETTLED if config.ranking.answered(seen) else Stopped.BUDGET
                        break
                    grown = replace(config, rounds=schedule[-1].round + rounds)
                    store.begin_event(grown.fingerprint(), grown.to_dict(), build_schedule(grown), rows)
                    schedule = store.schedule()
                    watch.extended(len(schedule), seen)
                never_up = _mark_never_seated(store, runtime, watch)
            finally:
                await runtime.stop()
            _store_identities(store, runtime)
            with store.rating_history_writer() as record:
                board = compute_leaderboard(store, record, config.ranking)
    launched = tuple(e.name for e in config.entrants if e.kind is EntrantKind.COMMAND)
    return EventSummary(
        config,
        resumed,
        len(schedule),
        played_now,
        board.standings,
        board.confidence,
        stopped,
        tuple(never_up),
        launched,
    )


async def start_entrants(
    runtime: Executor, store: Store, names: Sequence[str], observer: EventObserver | None = None
) -> None:
    """Start ``names`` and record what starting them found: entrants not seated (marked) or not up yet
    (reported with their log's last lines; the runtime retries them), identities, notices.

    An entrant marked at an earlier start of this event is tried afresh (its bot may have been fixed).
    """
    watch = observer or EventObserver()
    notice = watch.notice
    store.forget_disqualified(names, START)
    await runtime.start(names, watch.bots_starting, notice)
    unavailable = runtime.unavailable()
    for name in names:
        if name in runtime.excluded:
            why = runtime.excluded[name]
            store.disqualify(name, START, why)
            notice(problem_block("warning", f"{name}: {why}", "its seats are played by the autopilot"))
        elif name in unavailable:
            then = (
                "its seats are played by the autopilot until it is up; retrying in the background "
                "(--strict refuses the event instead)"
            )
            notice(problem_block("warning", f"{name}: {unavailable[name]}", then))
    for line in runtime.notices():
        notice(line)
    _store_identities(store, runtime)


STRICT_HINT = "arena run --strict refuses the event instead when an entrant cannot start"


def _mark_never_seated(store: Store, runtime: Executor, watch: EventObserver) -> list[str]:
    """At the end of the event: mark in the standings every entrant that was never seated; returns those
    that never came up (not those excluded for another protocol or variant, which did)."""
    never_up = []
    for name, why in runtime.unavailable().items():
        if name in runtime.excluded:
            store.disqualify(name, START, why)  # kept as it was if marked at the start
        else:
            never_up.append(name)
            store.disqualify(name, START, f"never came up: {why}")
            watch.notice(f"warning: {name} never came up: marked disqualified ({STRICT_HINT})")
    return sorted(never_up)


def _look(store: Store, tally: Tally, config: TournamentConfig, seed: int) -> Confidence:
    """The order and its verdicts now: the games stored since the last look are added to ``tally`` (all
    of them at the first look of this run), then the figures are read from its sums."""
    tally.add(store.rated_games(after=tally.last_seq)).close()
    ranking = config.ranking
    demoted = store.disqualified()
    schedule = store.schedule()
    per_round = len(schedule) // schedule[-1].round if schedule and schedule[-1].round else None
    return look(
        tally,
        ranking.method,
        ranking.confidence,
        seed,
        ranking.tie_margin,
        demoted,
        ranking.plan(),
        per_round,
    )


def _more_rounds(config: TournamentConfig, schedule: Sequence[ScheduledGame], seen: Confidence) -> int:
    """Rounds to add before the next look at the order: 0 when it is settled or the budget is spent.

    With planned looks (``[ranking] look_growth`` > 1) only a look at a planned number of games may stop
    the event (their boundary holds over those looks only); from any other length, such as the scheduled
    rounds, the event grows to the next planned look."""
    if not schedule:
        return 0
    per_round = len(schedule) // schedule[-1].round
    affordable = int((config.ranking.max_games - len(schedule)) // per_round)
    plan = config.ranking.plan()
    settled = config.ranking.answered(seen)
    if plan is None:
        if settled:
            return 0
        return min(max(1, math.ceil(config.ranking.check_every / per_round)), affordable)
    points = plan.points(per_round)
    if settled and len(schedule) in points:
        return 0
    later = [p for p in points if p > len(schedule)]
    if not later:
        return 0
    return min(math.ceil((later[0] - len(schedule)) / per_round), affordable)


START = "(start)"
"""The ``after_game`` of a disqualification at start-up: not seated, or never came up."""


def _store_identities(store: Store, runtime: Executor) -> None:
    for name, identity in runtime.identities.items():
        store.set_identity(
            name, {"name": identity.name, "author": identity.author, "version": identity.version}
        )


def _begin(
    config: TournamentConfig,
    store: Store,
    schedule: Sequence[ScheduledGame],
    rows: Sequence[tuple[str, str, str, bool]],
) -> tuple[bool, bytes | None]:
    """Record the event, or recognise it when resuming, with its deal key: (resumed, key).

    The fingerprint is checked before the key, so that a changed seed or entrant list is reported as such
    rather than as a key problem.

    :raises ConfigError: the directory holds another event, or a deal key that does not fit
    (arena/event/deals.py).
    """
    fingerprint = config.fingerprint()
    exists = store.check_same_event(fingerprint, schedule)
    found = resolve_key(
        config.output, config.deal_key, store.meta("deal_key_check"), exists, len(store.finished())
    )
    resumed = store.begin_event(fingerprint, config.to_dict(), schedule, rows, found.check)
    return resumed, found.key


class OverloadWatch:
    """Tells, once, when the arena itself is late often enough that the machine is overloaded.

    Harness faults are never charged to a bot, but a bot that uses its time on an overloaded machine gets
    less of it than its deadline says, so the organiser should lower ``concurrency``. "Often" is at least
    ``min_faults`` harness faults and more than ``share`` of the decisions so far.
    """

    def __init__(self, concurrency: int, min_faults: int = 5, share: float = 0.005) -> None:
        self.concurrency = concurrency
        self.min_faults = min_faults
        self.share = share
        self.decisions = 0
        self.late = 0
        self.warned = False

    def add(self, result: GameRecord) -> str | None:
        """Count one finished game; the warning the first time the threshold is crossed, else None."""
        self.decisions += result.decisions
        self.late += sum(1 for f in result.faults if f.kind is FaultKind.HARNESS)
        if self.warned or self.late < self.min_faults or self.late <= self.share * self.decisions:
            return None
        self.warned = True
        lower = max(1, self.concurrency // 2)
        return (
            f"warning: this machine is overloaded: the arena itself was late for {self.late} of "
            f"{self.decisions} decisions (harness faults, not charged to the bots, but bots that use their "
            f"time get less of it); lower the concurrency (now {self.concurrency}): --concurrency {lower}"
        )


async def play_games(
    config: TournamentConfig,
    store: Store,
    runtime: Executor,
    todo: Sequence[ScheduledGame],
    key: bytes | None,
    observer: EventObserver | None = None,
) -> None:
    """Play ``todo`` with at most ``concurrency`` games in flight, started in schedule order, each dealt
    from its public seed and the event's ``key`` (None: an event begun before secret deals).

    An entrant that is not up when a game starts (``runtime.unavailable()``) is played by the autopilot in
    that game and the game is not rated for it, exactly as for a disqualified one."""
    watch = observer or EventObserver()
    policy = config.faults
    queue: asyncio.Queue[ScheduledGame] = asyncio.Queue()
    for game in todo:
        queue.put_nowait(game)
    disqualified = set(store.disqualified())
    overload = OverloadWatch(config.concurrency)
    # Games and forfeits per entrant, read from the store once and then kept up to date here (re-reading
    # the totals after every game would cost time growing with the event).
    totals = {name: [t.games, t.forfeits] for name, t in store.seat_totals().items()}

    async def worker() -> None:
        while True:
            try:
                game = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            absent = disqualified | set(runtime.unavailable())
            excluded = tuple(n for n in game.seats if n in absent)
            spec = TableSpec(game.game_id, config.game, deal_seed(key, game.seed), game.seats, policy)
            result = await runtime.play(spec, frozenset(absent), game.seed)
            rated = not (policy.forfeit_result is ForfeitResult.VOID and result.forfeited)
            store.save_record(game, result, rated, excluded)
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
            if (warning := overload.add(result)) is not None:
                watch.notice(warning)
            watch.game_finished(game, result)

    await asyncio.gather(*(worker() for _ in range(min(config.concurrency, len(todo)))))
