"""The continuous ladder: a matchmaker keeps ``[ladder] tables`` games in flight among the active versions.

Each game is played by the arena's own executor (``arena.executor.make_executor``: the competition's
``[executor]``, local or Dask, as for ``arena run``), so the tables, the referee, the fault policy, the
sandbox and the house bots are exactly those of ``arena run``: every active version is a launched entrant
(``command``) of one long-lived executor, added when it becomes active (``Executor.add``: on Dask, on
every worker) and removed when it is replaced, its entrant disabled, or the server stops.

The matchmaker (after Halite III's): the version with the fewest games plays next (ties drawn at random;
the games every process stored and this one's in flight, ``arena.server.db.multi.GameCounts``);
its opponents are drawn from the versions nearest to it in rating (the nearest twice as many as needed);
seats left over go to the house bot; the seating is shuffled. Every draw comes from a generator seeded by
the game's public seed, and every deal from that seed and the competition's secret key
(``results/NAME/deal.key``, ``arena.event.deals``), so a stored game can be re-dealt but never foreseen.

Each finished game is stored in one transaction with its seats, hand records and faults, and numbered
(``seq``) when stored; a game in flight when the server is killed is simply never stored. So a restart
loses at most the games in flight, and counts none twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from sqlalchemy import func, insert, select

from arena.errors import ArenaError
from arena.event.config import EntrantKind, EntrantSpec
from arena.event.deals import deal_seed
from arena.event.faults import ForfeitResult
from arena.event.table import TableSpec
from arena.executor import Executor, make_executor
from arena.executor.logspan import Span
from arena.results.record import GameRecord
from arena.server.db.database import ServerDatabase
from arena.server.db.models import Game, GameFault, GameSeat, Hand, Setting
from arena.server.db.multi import LOOK_S, GameCounts, numbering_lock, paused_setting, shared
from arena.server.ladder import gamelogs
from arena.server.ladder.ratings import Board, rating_key
from arena.server.live.service import LiveTables
from arena.server.settings import CompetitionConfig, Runtime
from arena.server.submissions.service import Submissions, VersionView, launch_command

log = logging.getLogger("arena.server")

Spare = Callable[[bool], Awaitable[bool]]
"""A table's slot, offered before its ladder game: True when something else (an unrated game) took it. Its
argument: whether the ladder has a game to play."""
PAUSED = "ladder_paused"
IDLE_S = 2.0  # how often an idle ladder looks for a field again (besides being told)
YIELD_S = 5.0  # while checks run or wait, a table starts no game for this long in a row (then plays one)
SHARED_LOOK_S = LOOK_S  # on a shared database, how often the field, the pause and the counts are read again


class Ladder:
    """The matchmaker and its tables (see the module's docstring)."""

    def __init__(
        self,
        config: CompetitionConfig,
        db: ServerDatabase,
        submissions: Submissions,
        board: Board,
        key: bytes,
        slot: str | None = None,
    ) -> None:
        self.config = config
        self.db = db
        self.submissions = submissions
        self.board = board
        self.key = key
        self.tournament = config.tournament()
        self.logs_root = config.data_dir / "logs" / "ladder"
        # on a shared database each playing process has its own directory (arena.server.db.multi, "Log files")
        self.log_dir = self.logs_root / slot if slot else self.logs_root
        self.executor: Executor = make_executor(self.tournament, self.log_dir, strict=False)
        self.executor.keep_logs()  # on Dask workers: their spans of the bots' logs come back with each game
        self._started = False
        self._stopped = False
        self.field: dict[str, VersionView] = {}  # ladder name "v12" -> the version
        self.changed = asyncio.Event()
        self.changed.set()  # the first table to start reads the field
        self._syncing = asyncio.Lock()
        self.in_flight = 0
        self.held = False  # a final runs (arena.server.finals.service): no new ladder game starts
        self.checks: asyncio.Event | None = None
        """Set while no check runs or waits (``CheckQueue.idle``): until then a table waits, ``YIELD_S`` at
        most in a row (arena.server.submissions.checks)."""
        self.played = 0
        self.live = LiveTables(config.ladder.live_watchers, config.ladder.live_open_hands)  # games in flight
        with db.session() as s:
            setting = s.get(Setting, PAUSED)
        self.counts = GameCounts(db)  # the fewest-games rule's counts, every process's games
        self._paused = config.ladder.paused if setting is None else setting.value == "1"
        self.shared = shared(db)
        self._looked_at = self._pause_read = time.monotonic()

    @property
    def paused(self) -> bool:
        """Whether the ladder is paused; on a shared database read again when older than a look, so that a
        process whose tables do not look (a web process) shows another process's pause too."""
        if self.shared and time.monotonic() - self._pause_read >= SHARED_LOOK_S:
            self._pause_read = time.monotonic()
            if (stored := paused_setting(self.db, PAUSED)) is not None:
                self._paused = stored
        return self._paused

    @paused.setter
    def paused(self, value: bool) -> None:
        self._paused = value

    def log_paths(self, version_id: int) -> list[Path]:
        """A version's stderr over its ladder games, in every process's directory (``logs/ladder/`` on
        SQLite; ``logs/ladder/pN/`` on a shared database), oldest written first."""
        name = f"v{version_id}"
        found = [gamelogs.log_path(d, name) for d in (self.logs_root, *sorted(self.logs_root.glob("p*")))]
        dated = []
        for path in found:
            with contextlib.suppress(OSError):
                dated.append((path.stat().st_mtime_ns, str(path), path))
        return [p for *_, p in sorted(dated)]

    def log_path(self, version_id: int, inode: int | None = None) -> Path:
        """The log file of a version that holds the span starting in file ``inode`` (the file itself or
        the one it was rotated to, ``.1``: ``logspan`` reads both), or this process's own."""
        if inode is not None:
            for path in self.log_paths(version_id):
                for candidate in (path, path.with_name(path.name + ".1")):
                    with contextlib.suppress(OSError):
                        if candidate.stat().st_ino == inode:
                            return path
        return gamelogs.log_path(self.log_dir, f"v{version_id}")

    def set_paused(self, paused: bool) -> None:
        """Pause or resume; kept across restarts. Games in flight finish and are stored."""
        self.paused = paused
        with self.db.session() as s:
            s.merge(Setting(key=PAUSED, value="1" if paused else "0"))
        self.changed.set()

    async def start(self, launch: bool = False) -> None:
        """Start the executor (a Dask cluster is joined or started here) with the house bots, and with
        ``launch`` the active versions' bots too (the first table's sync finds them started).

        Called before the server serves, so that a cluster that cannot be reached is the organiser's one
        ``error:`` line at ``arena serve`` rather than a ladder that never plays.

        :raises ConfigError: the executor cannot start (no scheduler there, TLS files unreadable, ...).
        """
        if self._started:
            return
        self._started = True
        houses = [f"house-{i}" for i in range(1, self.tournament.game.num_players)]
        await self.executor.start(houses)  # in-process: loaded once, on every worker
        if launch:
            await self.sync()

    async def stop(self) -> None:
        """Stop every bot and leave (or shut down) the executor's cluster; once."""
        if self._started and not self._stopped:
            self._stopped = True
            await self.executor.stop()

    async def sync(self) -> None:
        """Start the versions that became active, stop those that left (replaced, or entrant disabled);
        one table at a time (the others wait), so that no version is started twice."""
        async with self._syncing:
            await self._sync()

    async def _sync(self) -> None:
        wanted = {f"v{v.id}": (v, d) for v, d in self.submissions.active_field()}
        gone = sorted(set(self.field) - set(wanted))
        for name in gone:
            del self.field[name]
        await self.executor.remove(gone)
        new: list[EntrantSpec] = []
        for name in sorted(n for n in wanted if n not in self.field):
            version, directory = wanted[name]
            new.append(self.entrant_spec(name, version, directory))
        await self.executor.add(new)
        for entrant in new:  # only now: another table may pick them as soon as they are in the field
            self.field[entrant.name] = wanted[entrant.name][0]

    def entrant_spec(self, name: str, version: VersionView, directory: Path) -> EntrantSpec:
        """A version as one of the executor's launched entrants (the ladder's ``vID``, or ``sID`` for
        unrated games: ``arena.server.matches.service``)."""
        spec = self.config.submissions
        return EntrantSpec(
            name=name,
            kind=EntrantKind.COMMAND,
            target=launch_command(Runtime(version.runtime), directory),
            memory_mb=spec.memory_mb,
            startup_timeout_s=spec.startup_timeout_s,
            workdir=str(directory),
        )

    def pick(self, public_seed: int) -> tuple[str, ...] | None:
        """The seats of the next game, or None when fewer than two versions can play."""
        playing = [n for n in self.field if n not in self.executor.unavailable()]
        if len(playing) < 2:
            return None
        rng = random.Random(public_seed)
        seats = self.tournament.game.num_players
        first = min(playing, key=lambda n: (self.counts.of(n), rng.random()))
        mu = self._mu(first)
        others = sorted(
            (n for n in playing if n != first), key=lambda n: (abs(self._mu(n) - mu), rng.random())
        )
        wanted = min(seats - 1, len(others))
        chosen = rng.sample(others[: 2 * wanted], wanted)
        names = [first, *chosen] + [f"house-{i + 1}" for i in range(seats - 1 - wanted)]
        rng.shuffle(names)
        return tuple(names)

    def _label(self, name: str) -> str:
        """A seat as the pages show it: ``alice v3``, or ``house``."""
        version = self.field.get(name)
        return f"{version.user} v{version.number}" if version is not None else "house"

    def _mu(self, name: str) -> float:
        version = self.field[name]
        return self.board.rating_of(rating_key(self.config, version.id, version.user_id))[0]

    async def run(self, spare: Spare | None = None) -> None:
        """Keep the tables filled until cancelled (at shutdown: games in flight are then lost, not stored).

        ``spare`` is offered each table's slot before its ladder game (the server's
        ``UnratedGames.offer``, ``arena.server.matches.service``): given here, as the tables start, so the
        ladder never knows the unrated games that use it.
        """
        try:
            await self.start()
            await asyncio.gather(*(self._table(spare) for _ in range(self.config.ladder.tables)))
        except Exception:  # a bug, not a bot's fault (those are the table's): say so, stop the tables
            log.exception("the ladder stopped")
            raise
        finally:
            await self.stop()

    async def _table(self, spare: Spare | None) -> None:
        while True:
            if self.checks is not None and not self.checks.is_set():  # checks first (before a sync: its
                # bots' starts would slow them too), but never the ladder stopped by a long queue of them
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.checks.wait(), YIELD_S)
            if self.shared and time.monotonic() - self._looked_at >= SHARED_LOOK_S:
                # another process's verdicts, choices and pauses reach this one only through the database
                self._looked_at = time.monotonic()
                self.changed.set()
                self.counts.look()
                self._pause_read = 0.0  # read at once (below)
            if self.changed.is_set():  # a verdict, a version chosen, an entrant disabled: first
                self.changed.clear()
                await self.sync()
            if self.held:  # a final is playing: no game of the ladder's, rated or not (arena.server.finals)
                seats = None
            else:
                seats = None if self.paused else self.pick(secrets.randbits(62))
                if spare is not None and await spare(seats is not None):
                    continue
                if self.paused:  # paused while an unrated game's bots were stopped: no ladder game now
                    seats = None
            if seats is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), IDLE_S)
                continue
            public_seed = secrets.randbits(62)
            seats = self.pick(public_seed) or seats
            try:
                await self.play(seats, public_seed)
            except ArenaError as exc:  # the executor lost it (a Dask game lost with 3 workers, the
                # scheduler gone): nothing was stored; the web pages go on, the table tries again later
                log.warning("ladder: a game was not played: %s", exc)
                await asyncio.sleep(IDLE_S)
            if self.config.ladder.pause_s:
                await asyncio.sleep(self.config.ladder.pause_s)

    async def play(self, seats: tuple[str, ...], public_seed: int) -> None:
        absent = frozenset(n for n in seats if n in self.executor.unavailable())
        spec = TableSpec(
            f"L{public_seed:x}",
            self.tournament.game,
            deal_seed(self.key, public_seed),
            seats,
            self.tournament.faults,
        )
        self.in_flight += 1
        self.counts.started(seats)
        try:
            await self.executor.settle_logs(seats)  # what the bots wrote before the game: before its span
        except BaseException:  # cancelled (the ladder stops): the game never began
            self.in_flight -= 1
            self.counts.ended(seats, False)
            raise
        before = gamelogs.marks(self.log_dir, seats)  # this game's span of each version's log
        live = self.live.open(spec.game_id, [self._label(n) for n in seats])
        stored: str | None = None
        try:
            try:
                record = await self.executor.play(spec, absent, public_seed, watch=live)
            finally:
                self.in_flight -= 1
            await self.executor.settle_logs(seats)  # what they wrote during it: inside
            after = gamelogs.marks(self.log_dir, seats)
            worker_logs = self.executor.logs_of(spec.game_id)
            stored = self.store(seats, public_seed, record, absent, (before, after), worker_logs)
        finally:
            self.counts.ended(seats, stored is not None)
            self.live.close(spec.game_id, stored)  # its watchers are sent to the stored game's replay
        self.played += 1  # the matchmaker's ratings follow at the board's next look (Server.keep_board)

    def store(
        self,
        seats: tuple[str, ...],
        public_seed: int,
        record: GameRecord,
        absent: frozenset[str],
        logs: tuple[dict[str, gamelogs.Mark | None], dict[str, gamelogs.Mark | None]] = ({}, {}),
        shipped: dict[str, Span] | None = None,
    ) -> str:
        """One transaction: the game, numbered after the last stored one, its seats (with their spans of
        the versions' logs, ``logs``: the marks before and after the game), hands and faults; and the
        spans a Dask worker read of its bots' logs, ``shipped`` (``gamelogs.store``)."""
        void = self.tournament.faults.forfeit_result is ForfeitResult.VOID and bool(record.forfeited)
        charged: dict[int, int] = {}
        for fault in record.faults:
            charged[fault.seat] = charged.get(fault.seat, 0) + fault.charged
        with self.db.session() as s:
            numbering_lock(s)  # several processes storing at once: numbered in turn (arena.server.db.multi)
            seq = (s.scalar(select(func.max(Game.seq))) or 0) + 1
            game_id = f"g{seq:06d}"
            result = dict(record.result) | {"excluded": sorted(absent), "public_seed": public_seed}
            # each seat's decision times as a log-scale histogram (arena.stats.latency), for the analytics
            result["latency"] = [[seat, n, json.loads(hist)] for seat, n, hist in record.latency]
            s.add(
                Game(
                    id=game_id, seq=seq, public_seed=public_seed, result=json.dumps(result), rated=not void,
                    hands=len(record.hands), created_at=time.time(),
                )
            )  # fmt: skip
            s.flush()
            # Plain inserts of many rows at once: a game's hands and seats are written many times a second.
            seat_rows = [
                {"game_id": game_id, "seat": seat, "name": seats[seat],
                 "version_id": int(seats[seat][1:]) if seats[seat][0] == "v" else None,  # v12, house-1
                 "score": st.score, "rank": st.rank, "forfeited": st.forfeited,
                 "faults": charged.get(seat, 0), "maker_hands": st.maker_hands, "maker_made": st.maker_made,
                 **gamelogs.columns(*logs, seats[seat])}
                for seat, st in enumerate(record.seats)
            ]  # fmt: skip
            s.execute(insert(GameSeat), seat_rows)
            hands = [{"game_id": game_id, "hand_index": i, "record": text} for i, text in record.hands]
            if hands:
                s.execute(insert(Hand), hands)
            faults = [
                {"game_id": game_id, "seat": f.seat, "name": seats[f.seat], "hand_index": f.hand_index,
                 "decision_id": f.decision_id, "kind": f.kind.value, "detail": f.detail[:2000],
                 "elapsed_ms": f.elapsed_ms, "substitute": f.substitute}
                for f in record.faults
            ]  # fmt: skip
            if faults:
                s.execute(insert(GameFault), faults)
            if shipped:
                gamelogs.store(s, game_id, seats, shipped)
        return game_id
