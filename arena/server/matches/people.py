"""A person plays a seat on the server: one unrated game against active versions and house bots.

The game is an unrated plan like a challenge (``arena.server.matches.service``): a row of
``unrated_matches`` (kind ``person``, one game), played at one of the ladder's tables when that table's
slot is offered to unrated games, by the ladder's own executor and referee, so that it takes a slot as a
match's game does and adds no concurrency beyond ``[ladder] tables``. Its one difference: the person's
seat is a ``HumanSeat`` (``arena.play.seat``), the seat ``arena play`` gives a person, waiting for the
page's moves with ``[ladder] person_deadline_s`` for each decision before the autopilot (the house bot)
plays it; the page is ``arena play``'s own (``arena/play/static``), following the seat through
``arena.play.feed``. The engine judges each click as it judges a bot's reply.

Never rated: the game is stored in the unrated tables (``unrated_games``, its hands, the spans of the
versions' logs and the autopilot's handovers in the plan's ``result``), which no rating, board or ladder
list reads. The seat lives in the memory of the process that plays it, and is relayed through the
database (``arena.server.matches.relay``): any process of the server answers the person's page and takes
their moves for the playing process. A game in flight when the process playing it stops is ended, not
resumed (a person is not there to pick it up), and the person may start another.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update

from arena.engine.config import GameConfig
from arena.errors import ArenaError
from arena.event.deals import deal_seed
from arena.event.table import TableSpec
from arena.executor.local import LocalExecutor
from arena.executor.logspan import mark
from arena.play.feed import SeatFeed, seat_state
from arena.play.seat import HumanSeat, MoveRefused, PacedPlayer, judge_of
from arena.players.inprocess import InProcessPlayer, load_bot_class
from arena.results.record import GameRecord
from arena.server.db.database import ServerDatabase
from arena.server.db.models import UnratedGame, UnratedMatch, User, Version
from arena.server.db.multi import shared
from arena.server.errors import Refused, not_found
from arena.server.ladder import gamelogs
from arena.server.ladder.service import Ladder
from arena.server.matches import relay
from arena.server.matches.plans import (
    DONE,
    PERSON,
    RUNNING,
    PlannedGame,
    person_name,
    side_name,
    unrated_row,
)
from arena.server.settings import CompetitionConfig
from arena.server.submissions.checks import public_texts
from arena.server.submissions.service import Submissions

ABANDONED = "ended: the server stopped during the game"
PLAYED = "played"
"""A person's plan's result once its game is kept."""


def stored_link(plan_id: int) -> dict[str, str]:
    """Where a person's kept game is, as the state says it."""
    return {"url": f"/play/{plan_id}/game"}


@dataclass
class PersonTable:
    """One person's game on this process: the seat, what its page follows, and whether it is kept yet."""

    plan_id: int
    user_id: int
    seat_index: int
    labels: list[str]  # each seat as the page names it: "you (alice, a person)", "bob v3", "house"
    seat: HumanSeat
    config: GameConfig
    feed: SeatFeed = field(default_factory=SeatFeed)
    started: bool = False
    stored: bool = False
    error: str | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # a move was queued on this process

    def state(self) -> dict[str, Any]:
        out = seat_state(
            self.seat, self.feed.version, f"P{self.plan_id}", self.config, self.seat_index, self.labels, None
        )
        return out | {
            "stored": stored_link(self.plan_id) if self.stored else None,
            "error": self.error,
            "waiting": None if self.started else "waiting for a free table: the game starts at the next one",
        }

    def publish(self, db: ServerDatabase) -> None:
        """The state to the database (``relay``), then the feed moved on: a poll waiting here reads it."""
        self.feed.changed()
        seat = self.seat
        pending = seat.decision_id != 0 and seat.view is not None
        judge = judge_of(seat.view) if pending and seat.view is not None else {}
        left = max(0.0, seat.deadline_at - time.monotonic()) if pending else 0.0
        relay.publish(db, self.plan_id, self.state(), judge, time.time() + left)


@dataclass(frozen=True, slots=True)
class PersonGameView:
    """A kept person's game as its page shows it (the person, the organiser and the seated bots' owners)."""

    plan_id: int
    person_id: int
    person: str
    status: str
    labels: list[str]
    scores: list[int] | None
    ranks: list[int] | None
    hands: list[dict[str, Any]]
    handovers: list[dict[str, int]]
    names: list[str]  # each seat's name at the table: "s12", "house-1", "p3" (the person)
    owners: dict[str, int]  # a seated version's seat name -> its entrant's id
    versions: dict[str, int]  # the same -> the version's id
    logs: dict[str, dict[str, int | None]]  # the same -> its span's marks (gamelogs.COLUMNS)
    created_at: float


class PersonGames:
    """Asking for, playing and reading people's games (see the module's docstring)."""

    def __init__(
        self,
        config: CompetitionConfig,
        db: ServerDatabase,
        submissions: Submissions,
        ladder: Ladder,
        key: bytes,
    ) -> None:
        self.config = config
        self.db = db
        self.submissions = submissions
        self.ladder = ladder
        self.key = key
        self.seats = config.game.num_players
        self.tables: dict[int, PersonTable] = {}
        self.asked: Callable[[], None] = ladder.changed.set  # the unrated games' driver hears of a game
        self.shared = shared(db)
        if not self.shared:  # on a shared database another process may be playing them
            self._end_abandoned()

    # --- asking ----------------------------------------------------------------------------------

    def _end_abandoned(self) -> None:
        """Plans of games no process of this server plays any more (it stopped mid-game): ended."""
        with self.db.session() as s:
            s.execute(
                update(UnratedMatch)
                .where(UnratedMatch.kind == PERSON, UnratedMatch.status == RUNNING)
                .values(status=DONE, finished_at=time.time(), result=json.dumps({"decision": ABANDONED}))
            )

    def ask(self, user_id: int, opponents: Sequence[int], seat: int | None) -> int:
        """A game for ``user_id`` against the active versions of ``opponents`` (entrants' ids; house bots in
        the other seats), in ``seat`` (None: drawn); the plan's id.

        :raises Refused: 409 a game of the person's still on (one at a time); 400 too many opponents or a
            seat off the table; 404 an opponent with no active version; 503 where the ladder's tables play
            elsewhere (a Dask executor: the seat is an object of the process that plays the table).
        """
        if not isinstance(self.ladder.executor, LocalExecutor):
            raise Refused(
                503, "people play only where the ladder's tables run on this machine ([executor] local)"
            )
        with self.db.session() as s:
            running = s.scalar(
                select(UnratedMatch.id).where(
                    UnratedMatch.user_id == user_id,
                    UnratedMatch.kind == PERSON,
                    UnratedMatch.status == RUNNING,
                )
            )
        if running is not None:
            raise Refused(409, f"your game {running} is still on: finish it first (/play/{running})")
        wanted = list(dict.fromkeys(opponents))
        if len(wanted) > self.seats - 1:
            raise Refused(400, f"choose at most {self.seats - 1} opponents")
        if seat is not None and not 0 <= seat < self.seats:
            raise Refused(400, f"a seat is 0 to {self.seats - 1}")
        active = {v.user_id: v.id for v, _ in self.submissions.active_field()}
        if any(o not in active for o in wanted):
            raise not_found("opponent")
        public_seed = secrets.randbits(62)
        rng = random.Random(public_seed)
        others = [side_name(active[o]) for o in wanted]
        others += [f"house-{i}" for i in range(1, self.seats - len(others))]
        rng.shuffle(others)
        chosen = rng.randrange(self.seats) if seat is None else seat
        with self.db.session() as s:
            row = UnratedMatch(
                kind=PERSON,
                user_id=user_id,
                version_id=0,
                baseline_id=None,
                field=json.dumps(others),
                seed=public_seed,
                budget=1,
                settings=json.dumps({"seat": chosen, "deadline_s": self.config.ladder.person_deadline_s}),
                status=RUNNING,
                result="{}",
                created_at=time.time(),
            )
            s.add(row)
            s.flush()
            plan_id = row.id
            labels = self._labels(s, user_id, others)
            lineup = [*others]
            lineup.insert(chosen, person_name(user_id))
            settings = json.loads(row.settings) | {"labels": [labels[n] for n in lineup]}
            row.settings = json.dumps(settings)
        # the page's first state (waiting for a table), for whichever process the page asks
        self._table(plan_id, user_id, chosen, settings["labels"]).publish(self.db)
        self.asked()
        return plan_id

    def _labels(self, s: Any, user_id: int, names: Sequence[str]) -> dict[str, str]:
        ids = [int(n[1:]) for n in names if n.startswith("s")]
        labels = {
            side_name(v): f"{u} v{n}"
            for v, n, u in s.execute(
                select(Version.id, Version.number, User.name).join(User).where(Version.id.in_(ids))
            )
        }
        person = s.get(User, user_id)
        labels[person_name(user_id)] = f"{person.name if person else '?'} (a person)"
        return {
            n: labels.get(n, "house" if n.startswith("house") else n) for n in [*names, person_name(user_id)]
        }

    def _table(self, plan_id: int, user_id: int, seat_index: int, labels: list[str]) -> PersonTable:
        ladder = self.config.ladder
        house = load_bot_class(ladder.house)
        table: PersonTable
        seat = HumanSeat(
            person_name(user_id),
            InProcessPlayer(house, f"autopilot-{person_name(user_id)}"),
            "house",
            ladder.person_deadline_s,
            lambda: table.publish(self.db),
            labels,
        )
        table = PersonTable(plan_id, user_id, seat_index, labels, seat, self.config.game)
        return table

    # --- playing ---------------------------------------------------------------------------------

    def plays(self, plan_id: int) -> bool:
        """Whether the plan is a person's game this process can play (any process that plays the ladder's
        tables here: the seat is built when the game starts, and the page reaches it through the database)."""
        if plan_id in self.tables:
            return True
        if not isinstance(self.ladder.executor, LocalExecutor):
            return False
        with self.db.session() as s:
            return s.scalar(select(UnratedMatch.kind).where(UnratedMatch.id == plan_id)) == PERSON

    async def play(self, game: PlannedGame) -> None:
        """Play the person's game at this table and keep it (unrated); the plan ends either way.

        :raises ArenaError: the executor could not play it (nothing kept: the plan is ended, the page says
            why).
        """
        with self.db.session() as s:
            row = s.get(UnratedMatch, game.match_id)
            assert row is not None
            user_id, settings = row.user_id, json.loads(row.settings)
        found = relay.read(self.db, game.match_id)
        if found is not None and found[0].get("waiting") is None:  # started by a process now gone
            self._end(game.match_id, {"decision": ABANDONED})
            relay.close(self.db, game.match_id)
            return
        table = self._table(game.match_id, user_id, settings["seat"], settings["labels"])
        table.feed.version = found[0]["version"] if found is not None else 0
        self.tables[game.match_id] = table
        taker = asyncio.ensure_future(relay.take(self.db, game.match_id, table.seat, table.wake, self.shared))
        try:
            await self._play(game, table)
        finally:
            taker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await taker
            relay.close(self.db, game.match_id)
            self.tables.pop(game.match_id, None)

    async def _play(self, game: PlannedGame, table: PersonTable) -> None:
        executor = self.ladder.executor
        assert isinstance(executor, LocalExecutor)
        policy = self.ladder.tournament.faults
        spec = TableSpec(game.game_id, self.config.game, deal_seed(self.key, game.seed), game.seats, policy)
        absent = frozenset(n for n in game.seats if n in executor.unavailable())
        pace = self.config.ladder.person_pace_s
        table.started = True
        table.publish(self.db)
        logs = [n for n in game.seats if n.startswith("s")]
        before = {n: mark(gamelogs.log_path(self.ladder.log_dir, n)) for n in logs}
        try:
            record = await executor.play(
                spec,
                absent,
                game.seed,
                people={person_name(table.user_id): table.seat},
                around=lambda p: PacedPlayer(p, pace),
            )
        except ArenaError as exc:  # the executor lost it: nothing kept, and nobody plays it again
            table.error = f"the game could not be played: {exc}"
            self._end(game.match_id, {"decision": table.error})
            raise
        finally:
            table.publish(self.db)
        after = {n: mark(gamelogs.log_path(self.ladder.log_dir, n)) for n in logs}
        self.store(game, record, {n: gamelogs.columns(before, after, n) for n in logs}, table)
        table.stored = True
        table.publish(self.db)

    def store(
        self,
        game: PlannedGame,
        record: GameRecord,
        logs: dict[str, dict[str, int | None]],
        table: PersonTable,
    ) -> None:
        with self.db.session() as s:
            s.add(unrated_row(game, record, rated=False))  # a person's game is never rated
        handovers = [{"decision": h.decision_id, "hand": h.hand_index} for h in table.seat.handovers]
        self._end(
            game.match_id,
            {
                "decision": PLAYED,
                "public_seed": game.seed,
                "labels": table.labels,
                "hands": [json.loads(text) for _, text in record.hands],
                "handovers": handovers,
                "logs": logs,
            },
        )

    def _end(self, plan_id: int, result: dict[str, Any]) -> None:
        with self.db.session() as s:
            row = s.get(UnratedMatch, plan_id)
            if row is not None and row.status == RUNNING:
                row.status, row.finished_at, row.result = DONE, time.time(), json.dumps(result)

    # --- reading ---------------------------------------------------------------------------------

    def own(self, plan_id: int, user_id: int) -> bool:
        """Whether the person's game is still on (False: over, its page is the kept game's).

        :raises Refused: 404 no such game, or another person's (the same answer).
        """
        with self.db.session() as s:
            row = s.get(UnratedMatch, plan_id)
            if row is None or row.kind != PERSON or row.user_id != user_id:
                raise not_found("game")
            return row.status == RUNNING

    async def state(self, plan_id: int, user_id: int, since: int, timeout_s: float) -> dict[str, Any]:
        """The page's state once newer than ``since`` (or after ``timeout_s``), from whichever process.

        :raises Refused: 404 no such game, or another person's.
        """
        on = self.own(plan_id, user_id)
        await relay.wait_newer(self.db, plan_id, since, timeout_s, self._waiter(plan_id))
        found = relay.read(self.db, plan_id)
        if found is None:
            raise not_found("game")
        state = found[0]
        if not on and not state.get("stored") and not state.get("error") and plan_id not in self.tables:
            with self.db.session() as s:  # ended without its table's word: the plan says
                row = s.get(UnratedMatch, plan_id)
                ended = json.loads(row.result or "{}").get("decision") if row else None
            if ended == PLAYED:  # kept; the playing process's word that it is follows (or it stopped first)
                state["stored"] = stored_link(plan_id)
            else:  # a stopped process
                state["error"] = ended
            state["decision"] = 0
        return state

    def _waiter(self, plan_id: int) -> Callable[[int, float], Awaitable[None]]:
        async def wait(since: int, seconds: float) -> None:
            table = self.tables.get(plan_id)
            if table is not None:  # played here: its feed moves as soon as the state is written
                await table.feed.wait_for(since, seconds)
            else:
                await asyncio.sleep(seconds)

        return wait

    async def move(self, plan_id: int, user_id: int, kind: str, text: str, decision: int | None) -> str:
        """The person's move (``kind`` "move") or return to the seat ("back"), posted to any process: checked
        against the stored state, queued, and taken by the playing process; the action taken.

        :raises Refused: 404 no such game, or another person's.
        :raises MoveRefused: 409 not the person's turn (or the game is over), 400 no action, 422 not legal,
            503 the table did not take it in time; each with the reason.
        """
        on = self.own(plan_id, user_id)
        found = relay.read(self.db, plan_id)
        if found is None:
            raise not_found("game")
        if not on and plan_id not in self.tables:  # ended (kept, or ended with its process): nobody takes it
            if kind == "back":
                return "back"
            raise MoveRefused(409, relay.GAME_OVER)
        if kind == "move":
            text = str(relay.check(*found, text, decision))
        elif not found[0].get("away") or found[0].get("final") is not None:
            return "back"  # nothing to take back: the seat is the person's, or the game is over
        move_id = relay.queue(self.db, plan_id, kind, text, decision)
        table = self.tables.get(plan_id)
        if table is not None:
            table.wake.set()

        async def wait(seconds: float) -> None:
            here = self.tables.get(plan_id)
            if here is not None:  # played here: a move taken changes the seat
                await here.feed.wait_for(here.feed.version, seconds)
            else:
                await asyncio.sleep(seconds)

        status, reason = await relay.outcome(self.db, move_id, wait)
        if status != 200:
            raise MoveRefused(status, reason)
        return reason

    def view(self, plan_id: int) -> PersonGameView:
        """:raises Refused: 404 no person's game of that id."""
        with self.db.session() as s:
            row = s.get(UnratedMatch, plan_id)
            if row is None or row.kind != PERSON:
                raise not_found("game")
            person = s.get(User, row.user_id)
            game = s.get(UnratedGame, (plan_id, 0))
            result = json.loads(row.result or "{}")
            seats: list[str] = json.loads(game.seats) if game is not None else []
            ids = {n: int(n[1:]) for n in seats if n.startswith("s")}
            owners = dict(
                s.execute(select(Version.id, Version.user_id).where(Version.id.in_(list(ids.values())))).all()
            )
            status = "on" if row.status == RUNNING else result.get("decision", row.status)
            return PersonGameView(
                plan_id,
                row.user_id,
                person.name if person else "?",
                status,
                result.get("labels", []),
                json.loads(game.scores) if game is not None else None,
                json.loads(game.ranks) if game is not None else None,
                result.get("hands", []),
                result.get("handovers", []),
                seats,
                {n: owners[v] for n, v in ids.items() if v in owners},
                ids,
                result.get("logs", {}),
                row.created_at,
            )

    def of_versions(self, version_ids: Sequence[int]) -> list[int]:
        """The kept people's games that seated any of these versions, newest first (their owner's list)."""
        names = {side_name(v) for v in version_ids}
        with self.db.session() as s:
            rows = s.execute(
                select(UnratedGame.match_id, UnratedGame.seats)
                .join(UnratedMatch, UnratedMatch.id == UnratedGame.match_id)
                .where(UnratedMatch.kind == PERSON)
                .order_by(UnratedGame.match_id.desc())
                .limit(200)
            ).all()
        return [m for m, seats in rows if names & set(json.loads(seats))][:50]

    def of_person(self, user_id: int) -> list[int]:
        with self.db.session() as s:
            return list(
                s.scalars(
                    select(UnratedMatch.id)
                    .where(UnratedMatch.kind == PERSON, UnratedMatch.user_id == user_id)
                    .order_by(UnratedMatch.id.desc())
                    .limit(50)
                )
            )

    def log(self, view: PersonGameView, name: str) -> gamelogs.GameLog:
        """A seated version's stderr during the game (the span between its marks, and what followed it),
        as an entrant may read it: no path of the server's machine (``public_texts``, as the ladder's)."""
        span = gamelogs.read_span(gamelogs.log_path(self.ladder.log_dir, name), view.logs.get(name, {}))
        upload = self.submissions.directory(self.submissions.get(view.versions[name]))
        text, after = public_texts((span.text, span.after), self.config.data_dir, upload)
        return dataclasses.replace(span, text=text, after=after)
