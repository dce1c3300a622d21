"""A seat played by a person through a page, and the pace of the bots beside them.

``HumanSeat`` is an ordinary ``Player`` to the table (``arena.event.table``): the table referees a person's
move exactly as a bot's, with the same engine. What it adds is a wait for a click with a deadline: a person
who makes no move within it is taken to have left, and the autopilot (a house bot, given the seat's news
from the start so it knows the hand as well as the person did) plays that decision and every later one,
until the person takes the seat back from the page. Nothing of this is a fault: the person did nothing
wrong that a bot could, and the record says where the autopilot took over (``handovers``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine.actions import Action, ActionKind
from arena.engine.cards import Suit
from arena.engine.news import HandEnded, News, TrickCompleted
from arena.engine.views import View
from arena.errors import NotationError
from arena.gameinfo import GameInfo, GameResult
from arena.play.board import news_line
from arena.players.base import DecisionTiming, Player, Reply

LOG_LINES = 400  # the page shows the latest lines of the seat's news; a whole game is about 300


class MoveRefused(Exception):
    """A move the page sent that the seat does not take, with why and the HTTP status that says so."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Handover:
    """The autopilot took the seat at this decision (the person made no move within the deadline)."""

    decision_id: int
    hand_index: int


def judge_of(view: View) -> dict[str, Any]:
    """What a move is judged by, in text: the legal actions, the hand, the suit led and the phase (what
    another process of the server checks a move against before the seat's own process takes it)."""
    led = view.led_suit
    return {
        "legal": [str(a) for a in view.legal_actions],
        "hand": None if view.hand is None else [str(c) for c in view.hand],
        "led": None if led is None else Suit(led).name.lower(),
        "phase": view.phase.name.lower(),
    }


def why_illegal(view: View, action: Action) -> str:
    """Why ``action`` is not among the view's legal actions, in the words a player would use."""
    return why_refused(judge_of(view), action)


def why_refused(judge: dict[str, Any], action: Action) -> str:
    """``why_illegal`` from ``judge_of``'s text."""
    legal_actions = [Action.parse(a) for a in judge["legal"]]
    legal = ", ".join(str(a) for a in legal_actions)
    if action.kind is ActionKind.PLAY and legal_actions and legal_actions[0].kind is ActionKind.PLAY:
        card = action.card
        assert card is not None
        if judge["hand"] is not None and str(card) not in judge["hand"]:
            return f"you do not hold {card}; legal now: {legal}"
        if judge["led"] is not None:
            return f"you must follow {judge['led']}, the suit led; legal now: {legal}"
    return f"{action} is not a legal action now ({judge['phase']}); legal now: {legal}"


class HumanSeat(Player):
    """One seat of one game played by a person: moves come from ``submit`` (the page's POST)."""

    wants_views = True

    def __init__(
        self,
        name: str,
        autopilot: Player,
        autopilot_name: str,
        deadline_s: float,
        changed: Callable[[], None],
        labels: Sequence[str] | None = None,
    ) -> None:
        """``labels``: each seat as the person's news names it, when not the table's seat names (the
        server's seats are ``s12`` and ``house-1`` to the table, ``dave v3`` and ``house`` to a person)."""
        self.name = name
        self.labels = list(labels) if labels is not None else None
        self.autopilot = autopilot
        self.autopilot_name = autopilot_name
        self.deadline_s = deadline_s
        self.changed = changed
        self.info: GameInfo | None = None
        self.view: View | None = None
        self.log: list[str] = []
        self.last_trick: TrickCompleted | None = None
        self.last_hand: HandEnded | None = None
        self.final: GameResult | None = None
        self.away = False
        self.handovers: list[Handover] = []
        self.decision_id = 0  # the decision the page is asked for (0: none)
        self.deadline_at = 0.0  # time.monotonic() when the pending decision goes to the autopilot
        self._pending: asyncio.Future[Action] | None = None

    # ------------------------------------------------------------------ the table's side

    async def start(self, info: GameInfo, news: Sequence[News]) -> None:
        self.info = info
        with contextlib.suppress(Exception):  # a house bot's failure to start shows at its first decision
            await self.autopilot.start(info, news)
        self._note(news, tell_autopilot=False)

    def queue_news(self, news: Sequence[News]) -> None:
        self._note(news, tell_autopilot=True)

    def see(self, view: View) -> None:
        self.view = view
        self.changed()

    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        self.view = view
        started = time.monotonic()
        if not self.away:
            loop = asyncio.get_running_loop()
            self._pending = loop.create_future()
            self.decision_id = decision_id
            self.deadline_at = started + self.deadline_s
            self.changed()
            try:
                action = await asyncio.wait_for(self._pending, self.deadline_s)
                return Reply(action, (time.monotonic() - started) * 1000)
            except TimeoutError:
                self.away = True
                self.handovers.append(Handover(decision_id, view.hand_index))
                self.log.append(
                    f"no move within {self.deadline_s:g} s: the autopilot ({self.autopilot_name}) plays "
                    "your seat until you take it back"
                )
            finally:
                self._pending = None
                self.decision_id = 0
                self.changed()
        reply = await self.autopilot.decide(view, decision_id, timing)
        return Reply(reply.action, (time.monotonic() - started) * 1000)

    async def finish(self, final: GameResult) -> None:
        self.final = final
        with contextlib.suppress(Exception):
            await self.autopilot.finish(final)
        self.changed()

    async def close(self) -> None:
        if self._pending is not None and not self._pending.done():
            self._pending.cancel()
        await self.autopilot.close()

    # ------------------------------------------------------------------ the page's side

    def submit(self, text: str, decision_id: int | None = None) -> Action:
        """Take the person's move for the pending decision, if it is legal (the engine's legal actions).

        :raises MoveRefused: 409 when no decision of this seat is pending (not its turn, the game is over,
            or ``decision_id`` names a decision already gone to the autopilot), 400 for a text that is no
            action, 422 for an action that is not legal now, each with the reason.
        """
        if self.final is not None:
            raise MoveRefused(409, "the game is over")
        pending, view = self._pending, self.view
        if pending is None or pending.done() or view is None:
            if self.away:
                raise MoveRefused(
                    409, f"the autopilot ({self.autopilot_name}) is playing your seat: take it back first"
                )
            who = "nobody" if view is None or view.to_act < 0 else self._name(view.to_act)
            raise MoveRefused(409, f"it is not your turn: waiting for {who}")
        if decision_id is not None and decision_id != self.decision_id:
            raise MoveRefused(409, f"decision {decision_id} is over; the pending one is {self.decision_id}")
        try:
            action = Action.parse(text)
        except NotationError as exc:
            raise MoveRefused(400, str(exc)) from None
        if action not in view.legal_actions:
            raise MoveRefused(422, why_illegal(view, action))
        pending.set_result(action)
        return action

    def take_back(self) -> None:
        """The person is back: the seat's next decision waits for them again."""
        if self.away:
            self.away = False
            self.log.append("you took your seat back")
            self.changed()

    # ------------------------------------------------------------------ bookkeeping

    def _name(self, seat: int) -> str:
        if self.labels is not None:
            return self.labels[seat]
        return self.info.seat_names[seat] if self.info is not None else f"seat {seat}"

    def _note(self, news: Sequence[News], tell_autopilot: bool) -> None:
        if tell_autopilot:
            with contextlib.suppress(Exception):  # local bookkeeping; a broken bot shows at its turn
                self.autopilot.queue_news(news)
        if self.info is None:
            return
        seats = self.labels if self.labels is not None else self.info.seat_names
        names = ["you" if s == self.info.seat else n for s, n in enumerate(seats)]
        for item in news:
            self.log.append(news_line(item, names, self.info.seat))
            if isinstance(item, TrickCompleted):
                self.last_trick = item
            elif isinstance(item, HandEnded):
                self.last_hand = item
        del self.log[:-LOG_LINES]
        self.changed()


class PacedPlayer(Player):
    """A bot that waits ``pace_s`` before each decision, so a person can follow the table's moves.

    The wait is outside the bot's own time: its latency in the record is the bot's alone.
    """

    def __init__(self, inner: Player, pace_s: float) -> None:
        self.inner = inner
        self.name = inner.name
        self.pace_s = pace_s

    async def start(self, info: GameInfo, news: Sequence[News]) -> None:
        await self.inner.start(info, news)

    def queue_news(self, news: Sequence[News]) -> None:
        self.inner.queue_news(news)

    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        if self.pace_s > 0:
            await asyncio.sleep(self.pace_s)
        return await self.inner.decide(view, decision_id, timing)

    async def finish(self, final: GameResult) -> None:
        await self.inner.finish(final)

    async def close(self) -> None:
        await self.inner.close()
