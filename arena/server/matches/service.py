"""Unrated games: "is my new version better?" (an SPRT match, as ``arena match NEW OLD``) and challenges.

**Matches.** When an entrant's newly uploaded version becomes active (or when it asks on the version's
page), the server plays the new version against the one it replaced on the same deals: the schedule of
``arena match`` (``arena.conductor.match.match_schedule``): each deal at the candidate's table from every
seat, then at the baseline's, against the same field (the top of the board when the match was asked, other
entrants' active versions, topped up with house bots, fixed for the whole match), and the paired per-deal
differences feed the same SPRT (``arena.stats.sprt.run_sprt`` on ``deal_differences``), which is read back
from the stored games at every look, in schedule order, so where it stops depends on neither the tables nor
restarts. It ends at the first decision (H1: better; H0: not better) or at its budget of deals.

**Challenges.** An entrant asks for a few games against chosen opponents (their active versions when
asked); each game seats the challenger, the opponents and house bots, shuffled by the game's public seed.
Rate-limited per day (``[ladder] challenges_per_day``), since every game costs the ladder a slot.

**Unrated.** Both are stored in tables of their own (``unrated_matches``, ``unrated_games``): the board,
the ratings, the ladder's game list and the exports read ``games`` only, so no unrated game can reach a
rating, and a challenge cannot be used to farm one (Halite II's complaint, HaliteChallenge/Halite-II#247).

**Spare capacity.** The games are played at the ladder's own tables, by its executor: a table about to
start a game first offers its slot here (:meth:`UnratedGames.offer`). A table with no ladder game to play
(fewer than two versions, or the ladder paused) is spare, and always takes an unrated game; otherwise
unrated games take at most ``[ladder] match_share`` of every stretch of the last minute's slots
(:class:`SlotShare`). So they never add concurrency beyond ``[ladder] tables`` (the machine is sized for
it), and never take more than that share from the ladder: "only when the tables are idle" would starve them
on a busy ladder, which is always busy. The bots of unrated games are the executor's entrants ``sID``
(``v`` is the ladder's), started when a game needs them and stopped when no running match does.

**Several processes** (``arena.server.db.multi``): a running plan is played by the one process holding its
advisory lock (:meth:`CheckClaims.claim_plan`), taken when one of its tables first finds the plan and let go
when the plan ends, or with the process's connection when it dies; every playing process looks for plans
every 2 s, so a plan asked on a web process, or left by a process killed mid-match, is taken by another.

A restart resumes every running match where its stored games end: a game in flight is simply played again
(its deal and seating come from the key, the match's id, its public seed, and the game's place, so it is the
same game).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from arena.errors import ArenaError
from arena.event.deals import deal_seed
from arena.event.faults import ForfeitResult
from arena.event.table import TableSpec
from arena.results.record import GameRecord
from arena.server.db.database import ServerDatabase
from arena.server.db.models import UnratedGame, UnratedMatch, User, Version, VersionStatus
from arena.server.db.multi import LOOK_S, CheckClaims, shared
from arena.server.errors import Refused, not_found
from arena.server.ladder.ratings import Board
from arena.server.ladder.service import Ladder
from arena.server.matches.people import PersonGames
from arena.server.matches.plans import (
    CHALLENGE,
    DECISIONS,
    DONE,
    PERSON,
    RUNNING,
    SPRT,
    MatchView,
    PlannedGame,
    plan_of,
    planned,
    side_name,
    unrated_row,
)
from arena.server.settings import CompetitionConfig
from arena.server.submissions.service import Submissions
from arena.stats.sprt import SprtResult, SprtSettings

log = logging.getLogger("arena.server")
DAY_S = 86400.0
RETRY_S = 2.0  # a table's wait after an unrated game the executor could not play


SHARE_WINDOW_S = 60.0  # the share is kept over the slots of the last minute


class SlotShare:
    """Which of a busy ladder's slots unrated games may take: in every stretch of the slots started in the
    last ``SHARE_WINDOW_S`` while ladder games were waiting, the newest slot included, at most ``share`` of
    them (within one game). Every stretch, not only the whole window: kept over the whole minute alone, the
    ladder's slots at its start were credit that a burst of matches spent at once (twenty activations: 75
    unrated games in a row and no ladder game for 35 s, since an unrated game, which starts its bots, takes
    longer than a ladder game), and any minute beginning at the burst saw a majority of unrated games.
    Nor a count since the server started: a long quiet spell became a debt that unrated games "repaid" by
    taking every table (no ladder game for 72 s). Slots a table would have left idle (no ladder game
    waiting) are spare: unrated games always take them, and they are not counted."""

    def __init__(self, window_s: float = SHARE_WINDOW_S) -> None:
        self.window_s = window_s
        self.slots: deque[tuple[float, bool]] = deque()  # (when, taken by an unrated game), oldest first

    def _recent(self, now: float) -> list[bool]:
        while self.slots and self.slots[0][0] <= now - self.window_s:
            self.slots.popleft()
        return [unrated for _, unrated in self.slots]

    def takes(self, share: float, now: float, ladder_waiting: bool) -> bool:
        """Whether the next slot may go to an unrated game: with it, every stretch of the recent slots that
        ends with it has fewer unrated games than ``share`` of its slots plus one."""
        if not ladder_waiting:
            return True
        unrated = 0
        for slots, taken in enumerate(reversed(self._recent(now)), start=1):  # stretches ending now
            unrated += taken
            if unrated >= share * (slots + 1):
                return False
        return share > 0

    def started(self, now: float, unrated: bool, ladder_waiting: bool) -> None:
        """A slot was given (to an unrated game, or else to the ladder); spare slots are not counted."""
        if ladder_waiting:
            self.slots.append((now, unrated))


class UnratedGames:
    """Asking for, storing and playing matches and challenges (see the module's docstring)."""

    def __init__(
        self,
        config: CompetitionConfig,
        db: ServerDatabase,
        submissions: Submissions,
        board: Board,
        ladder: Ladder,
        key: bytes,
        claims: CheckClaims | None = None,
        people: PersonGames | None = None,
    ) -> None:
        self.config = config
        self.people = people
        if people is not None:
            people.asked = self.wake
        self.db = db
        self.submissions = submissions
        self.board = board
        self.ladder = ladder
        self.key = key
        self.seats = config.game.num_players
        self.in_flight: set[tuple[int, int]] = set()
        self.started = 0
        self.share = SlotShare()
        self.played = 0
        self.added: set[str] = set()
        self.finished: set[tuple[int, int]] = set()  # games in flight whose plan has just ended
        self.pending = True  # there may be running plans: False once none was found, until one is asked
        self._adding = asyncio.Lock()
        self._active = self._actives()
        self.claims = claims or CheckClaims(db)
        self.claimed: set[int] = set()  # the plans this process plays (each lock taken once)
        self.shared = shared(db)
        self._looked_at = time.monotonic()

    # --- asking ----------------------------------------------------------------------------------

    def _actives(self) -> dict[int, tuple[int, int]]:
        with self.db.session() as s:
            rows = s.execute(select(Version.user_id, Version.id, Version.number).where(Version.active)).all()
        return {u: (v, n) for u, v, n in rows}

    def activations(self) -> None:
        """Start a match for each entrant whose active version changed to a newer one since the last call
        (a verdict, or the entrant's choice): new against the one it replaced. An entrant's older running
        match is stopped: the question has moved on."""
        self.pending = True  # an entrant enabled again: its plans play on
        now = self._actives()
        for user_id, (version_id, number) in now.items():
            before = self._active.get(user_id)
            if before is None or before[0] == version_id or before[1] > number:
                continue
            if not self.config.ladder.match_on_activate:
                continue
            with self.db.session() as s:
                s.execute(
                    update(UnratedMatch)
                    .where(
                        UnratedMatch.user_id == user_id,
                        UnratedMatch.kind == SPRT,
                        UnratedMatch.status == RUNNING,
                    )
                    .values(
                        status=DONE,
                        finished_at=time.time(),
                        result=json.dumps({"decision": "stopped: a newer version became active"}),
                    )
                )
            self._new_match(user_id, version_id, before[0])
        self._active = now

    def _passed(self, user_id: int, version_id: int) -> Version:
        """:raises Refused: 404 not the entrant's version, 400 one that has not passed its check."""
        with self.db.session() as s:
            row = s.get(Version, version_id)
            if row is None or row.user_id != user_id:
                raise not_found("version")
            if row.status != VersionStatus.PASSED:
                raise Refused(400, f"v{row.number} has not passed its check, so it cannot play")
            s.expunge(row)
        return row

    def ask_match(self, user_id: int, version_id: int, baseline_id: int | None = None) -> int:
        """An SPRT match of one of the entrant's versions against another of its versions (by default the
        newest passed one before it); the match's id. One running match per entrant at a time.

        :raises Refused: 404 a version that is not the entrant's; 400 one that has not passed, or the same
            version twice, or no version to compare with; 429 a match of the entrant's still running.
        """
        candidate = self._passed(user_id, version_id)
        if baseline_id is None:
            with self.db.session() as s:
                baseline_id = s.scalar(
                    select(Version.id)
                    .where(
                        Version.user_id == user_id,
                        Version.status == VersionStatus.PASSED,
                        Version.number < candidate.number,
                    )
                    .order_by(Version.number.desc())
                )
            if baseline_id is None:
                raise Refused(400, f"v{candidate.number} has no earlier passed version to be compared with")
        self._passed(user_id, baseline_id)
        if baseline_id == version_id:
            raise Refused(400, "a version cannot be compared with itself")
        with self.db.session() as s:
            running = s.scalar(
                select(UnratedMatch.id).where(
                    UnratedMatch.user_id == user_id, UnratedMatch.kind == SPRT, UnratedMatch.status == RUNNING
                )
            )
        if running is not None:
            raise Refused(429, f"match {running} is still running: one match at a time", 60)
        return self._new_match(user_id, version_id, baseline_id)

    def _field(self, user_id: int) -> list[str]:
        """The current field: other entrants' active versions, best on the board first."""
        active = {v.id for v, _ in self.submissions.active_field() if v.user_id != user_id}
        ranked = [r.version_id for r in self.board.rows if r.version_id in active]
        ranked += sorted(active - set(ranked))
        return [side_name(v) for v in ranked]

    def _new_match(self, user_id: int, version_id: int, baseline_id: int) -> int:
        field = self._field(user_id)[: self.seats - 1]
        field += [f"house-{i}" for i in range(1, self.seats - len(field))]
        settings = SprtSettings(
            h0=0.0, h1=self.config.ladder.match_h1, min_deals=self.config.ladder.match_min_deals
        )
        return self._insert(
            SPRT, user_id, version_id, baseline_id, field, self.config.ladder.match_deals, settings.to_dict()
        )

    def _insert(
        self,
        kind: str,
        user_id: int,
        version_id: int,
        baseline_id: int | None,
        field: list[str],
        budget: int,
        settings: dict[str, Any],
    ) -> int:
        with self.db.session() as s:
            row = UnratedMatch(
                kind=kind,
                user_id=user_id,
                version_id=version_id,
                baseline_id=baseline_id,
                field=json.dumps(field),
                seed=0,
                budget=budget,
                settings=json.dumps(settings),
                status=RUNNING,
                result="{}",
                created_at=time.time(),
            )
            s.add(row)
            s.flush()
            match_id = row.seed = row.id  # public, as a ladder game's seed is: its deals need the secret key
        self.wake()
        return match_id

    def wake(self) -> None:
        """A plan was asked for: the tables look for its games (an idle one wakes up for it)."""
        self.pending = True
        self.ladder.changed.set()

    def ask_challenge(self, user_id: int, opponents: Sequence[int], games: int) -> int:
        """Unrated games of the entrant's active version against other entrants' active versions
        (``opponents``: their entrant ids); the challenge's id.

        :raises Refused: 400 no active version, no or too many opponents, a bad number of games;
            404 an opponent that is not an entrant with an active version; 429 the day's challenges used.
        """
        limits = self.config.ladder
        if not 1 <= games <= limits.challenge_games:
            raise Refused(400, f"a challenge is 1 to {limits.challenge_games} games")
        wanted = list(dict.fromkeys(opponents))
        if not 1 <= len(wanted) <= self.seats - 1 or user_id in wanted:
            raise Refused(400, f"choose 1 to {self.seats - 1} opponents (other entrants)")
        mine = self.submissions.active_of(user_id)
        if mine is None:
            raise Refused(400, "you have no active version to play with")
        active = {v.user_id: v.id for v, _ in self.submissions.active_field()}
        if any(o not in active for o in wanted):
            raise not_found("opponent")
        now = time.time()
        with self.db.session() as s:
            recent = s.scalar(
                select(func.count()).where(
                    UnratedMatch.user_id == user_id,
                    UnratedMatch.kind == CHALLENGE,
                    UnratedMatch.created_at > now - DAY_S,
                )
            )
        if (recent or 0) >= limits.challenges_per_day:
            raise Refused(429, f"at most {limits.challenges_per_day} challenges a day: try again later", 3600)
        field = [side_name(active[o]) for o in wanted]
        return self._insert(CHALLENGE, user_id, mine.id, None, field, games, {})

    # --- reading ---------------------------------------------------------------------------------

    def view(self, match_id: int) -> MatchView:
        """:raises Refused: 404."""
        with self.db.session() as s:
            row = s.get(UnratedMatch, match_id)
            if row is None:
                raise not_found("match")
            return self._view(s, row)

    def _view(self, s: Any, row: UnratedMatch) -> MatchView:
        plan = plan_of(row)
        games = list(s.scalars(select(UnratedGame).where(UnratedGame.match_id == row.id)))
        for g in games:
            s.expunge(g)
        ids = {plan.version_id, *([plan.baseline_id] if plan.baseline_id else [])}
        ids |= {int(n[1:]) for n in plan.field if n.startswith("s")}
        labels = {
            side_name(v): f"{u} v{n}"
            for v, n, u in s.execute(
                select(Version.id, Version.number, User.name).join(User).where(Version.id.in_(ids))
            )
        }
        user = s.get(User, row.user_id)
        return MatchView(
            plan,
            user.name if user else "?",
            labels,
            games,
            self.seats,
            row.created_at,
            row.finished_at,
            json.loads(row.result or "{}"),
        )

    def of_version(self, version_id: int) -> list[MatchView]:
        """The SPRT matches with this version as the candidate, newest first."""
        return self._list(UnratedMatch.kind == SPRT, UnratedMatch.version_id == version_id)

    def challenges_of(self, user_id: int) -> list[MatchView]:
        return self._list(UnratedMatch.kind == CHALLENGE, UnratedMatch.user_id == user_id)

    def _list(self, *where: Any) -> list[MatchView]:
        with self.db.session() as s:
            rows = s.scalars(select(UnratedMatch).where(*where).order_by(UnratedMatch.id.desc()).limit(50))
            return [self._view(s, r) for r in rows]

    def challengeable(self, user_id: int) -> list[tuple[int, str]]:
        """Entrants a challenge may name: those with an active version, but ``user_id``."""
        return sorted(
            (
                (v.user_id, f"{v.user} {v.label}")
                for v, _ in self.submissions.active_field()
                if v.user_id != user_id
            ),
            key=lambda p: p[1],
        )

    # --- playing ---------------------------------------------------------------------------------

    def next_game(self) -> PlannedGame | None:
        """The next game to play: the oldest running plan's first game neither stored nor in flight (plans
        of disabled entrants wait), among the plans this process plays or can take now (one at a time: a
        plan is taken only when those before it have no game to give, so several processes share them)."""
        with self.db.session() as s:
            rows = list(
                s.scalars(
                    select(UnratedMatch)
                    .join(User, User.id == UnratedMatch.user_id)
                    .where(UnratedMatch.status == RUNNING, ~User.disabled)
                    .order_by(UnratedMatch.id)
                )
            )
            # a person waiting at a page comes first; any process with local tables plays a person's game
            plans = sorted((plan_of(r) for r in rows), key=lambda p: p.kind != PERSON)
            plans = [
                p for p in plans if p.kind != PERSON or (self.people is not None and self.people.plays(p.id))
            ]
            for gone in self.claimed - {r.id for r in rows}:  # ended (here, or stopped by another process)
                self.claimed.discard(gone)
                self.claims.release_plan(gone)
            if not rows and not self.in_flight:
                self.pending = False  # a ladder game's slot costs no query until a plan is asked for
            stored = {
                p.id: set(s.scalars(select(UnratedGame.idx).where(UnratedGame.match_id == p.id)))
                for p in plans
            }
        for plan in plans:
            if not self._mine(plan.id):
                continue  # another process plays it
            idx = 0
            while (plan.id, idx) in self.in_flight or idx in stored[plan.id]:
                idx += 1
            game = planned(plan, idx, self.seats)
            if game is not None:
                return game
            if not any(m == plan.id for m, _ in self.in_flight):
                self._settle(plan.id, every=True)  # every game stored (a restart after the last one)
        return None

    def _holds(self, plan_id: int) -> bool:
        """Whether the plan is a person's game, played by its own service (``people.plays``)."""
        return self.people is not None and self.people.plays(plan_id)

    def _mine(self, plan_id: int) -> bool:
        """Whether this process plays the plan: it holds the plan's lock, or takes it now."""
        if plan_id not in self.claimed and self.claims.claim_plan(plan_id):
            self.claimed.add(plan_id)
            log.info("unrated plan %d: played by this process", plan_id)
        return plan_id in self.claimed

    def store(self, game: PlannedGame, record: GameRecord, void: bool) -> None:
        """One finished game, then its plan's look: done at a decision or at the budget."""
        with self.db.session() as s:
            if s.get(UnratedGame, (game.match_id, game.idx)) is not None:
                return
            s.add(unrated_row(game, record, rated=not void))
        self._settle(game.match_id)

    def _settle(self, match_id: int, every: bool = False) -> None:
        """Mark the plan done once decided or its budget spent (``every``: all its games are stored, even if
        a deal without a hand left the test short of its budget)."""
        with self.db.session() as s:
            row = s.get(UnratedMatch, match_id)
            if row is None or row.status != RUNNING:
                return
            view = self._view(s, row)
            plan = view.plan
            if plan.kind == PERSON:
                return  # ended when its one game is kept (arena.server.matches.people)
            if plan.kind == SPRT:
                state = view.state
                assert state is not None
                if state.result is SprtResult.UNDECIDED and state.deals < plan.budget and not every:
                    return
                row.result = json.dumps(state.to_dict() | {"decision": DECISIONS[state.result]})
            elif len(view.games) < plan.budget:
                return
            else:
                row.result = json.dumps(view.summary())
            row.status, row.finished_at = DONE, time.time()
            self.finished |= {k for k in self.in_flight if k[0] == match_id}
        log.info("unrated %s %d: %s", plan.kind, match_id, view.decision)

    async def offer(self, ladder_waiting: bool) -> bool:
        """A table's slot, offered before its next ladder game: True when an unrated game took it."""
        ladder = self.ladder
        share = self.config.ladder.match_share
        if self.shared and time.monotonic() - self._looked_at >= LOOK_S:
            self._looked_at = time.monotonic()  # plans asked on another process, or left by a dead one
            self.pending = True
        now = time.monotonic()
        if not self.pending or not self.share.takes(share, now, ladder_waiting):
            self.share.started(now, False, ladder_waiting)  # the ladder's game takes this slot
            return False
        game = self.next_game()
        if game is None:
            self.share.started(now, False, ladder_waiting)
            await self._release()
            return False
        key = (game.match_id, game.idx)
        person = self.people if self._holds(game.match_id) else None
        if person is not None:
            self.finished.add(key)  # its plan ends with its one game: the bots no plan needs are let go
        self.in_flight.add(key)
        self.share.started(now, True, ladder_waiting)
        self.started += 1
        try:
            await self._ensure(game.seats)
            if person is not None:  # a person's game: played and kept by its own service
                await person.play(game)
            else:
                executor = ladder.executor
                absent = frozenset(n for n in game.seats if n in executor.unavailable())
                policy = ladder.tournament.faults
                spec = TableSpec(
                    game.game_id, ladder.tournament.game, deal_seed(self.key, game.seed), game.seats, policy
                )
                record = await executor.play(spec, absent, game.seed)
                void = policy.forfeit_result is ForfeitResult.VOID and bool(record.forfeited)
                self.store(game, record, void)
            self.played += 1
        except ArenaError as exc:  # nothing stored: the same game is played again later
            log.warning("an unrated game was not played: %s", exc)
            await asyncio.sleep(RETRY_S)
        except IntegrityError:  # another server process on the database stored this very game first
            log.info("unrated game %d of %d was stored by another process", game.idx, game.match_id)
        finally:
            self.in_flight.discard(key)
        if key in self.finished:
            self.finished.discard(key)
            await self._release()
        return True

    async def _ensure(self, names: Sequence[str]) -> None:
        async with self._adding:
            new = [n for n in names if n.startswith("s") and n not in self.added]
            specs = []
            for name in new:
                version = self.submissions.get(int(name[1:]))
                specs.append(self.ladder.entrant_spec(name, version, self.submissions.directory(version)))
            await self.ladder.executor.add(specs)
            self.added |= set(new)

    async def _release(self) -> None:
        """Stop the bots of unrated games that no running plan needs any more."""
        async with self._adding:
            with self.db.session() as s:
                rows = s.scalars(select(UnratedMatch).where(UnratedMatch.status == RUNNING))
                needed = {n for r in rows for n in [*plan_of(r).names().values(), *plan_of(r).field]}
            gone = sorted(self.added - needed) if not self.in_flight else []  # none mid-game
            if gone:
                await self.ladder.executor.remove(gone)
                self.added -= set(gone)
