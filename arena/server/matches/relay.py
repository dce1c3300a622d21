"""A person's seat relayed through the database, so that any process of a server answers the play page.

Several ``arena serve`` processes may share one competition (PostgreSQL, behind a proxy with no
stickiness: docs/server.md), and only the process that plays a person's game holds its seat
(``arena.play.seat.HumanSeat``, in memory). So that process writes the seat's state, what the page polls,
to ``person_seats`` at each change; any process answers the page's polls from that row. A move posted to
any process is checked there against the row (409 not the person's turn, 400 no action, 422 not legal,
each with the reason), queued in ``person_moves``, and taken in order by the playing process, whose seat
judges it again with the engine (a move may be late: the autopilot took the decision meanwhile); the
posting process answers with that outcome. One path on one process too: there the queue is taken as soon
as a move is posted (an in-memory wake), elsewhere at the next look (``POLL_S``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import select, update

from arena.engine.actions import Action
from arena.errors import NotationError
from arena.play.seat import HumanSeat, MoveRefused, why_refused
from arena.server.db.database import ServerDatabase
from arena.server.db.models import PersonMove, PersonSeat

POLL_S = 0.1  # how often the playing process looks for moves posted elsewhere, and a poll for a new state
MOVE_WAIT_S = 15.0  # how long a move's request waits for the playing process to take it
GAME_OVER = "the game is over"

log = logging.getLogger(__name__)


def publish(
    db: ServerDatabase, plan_id: int, state: dict[str, Any], judge: dict[str, Any], deadline_at: float
) -> None:
    """The seat's state as the page polls it (``version`` in it), written over the plan's last."""
    with db.session() as s:
        row = s.get(PersonSeat, plan_id)
        if row is None:
            row = PersonSeat(plan_id=plan_id)
            s.add(row)
        row.version, row.state = int(state["version"]), json.dumps(state)
        row.judge, row.deadline_at = json.dumps(judge), deadline_at


def read(db: ServerDatabase, plan_id: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The plan's stored state (``remaining_s`` brought up to now) and its judge; None before any."""
    with db.session() as s:
        row = s.get(PersonSeat, plan_id)
        if row is None:
            return None
        state, judge, deadline_at = json.loads(row.state), json.loads(row.judge), row.deadline_at
    if state.get("decision"):
        state["remaining_s"] = round(max(0.0, deadline_at - time.time()), 1)
    return state, judge


def version(db: ServerDatabase, plan_id: int) -> int | None:
    with db.session() as s:
        return s.scalar(select(PersonSeat.version).where(PersonSeat.plan_id == plan_id))


async def wait_newer(
    db: ServerDatabase,
    plan_id: int,
    since: int,
    timeout_s: float,
    wake: Callable[[int, float], Awaitable[None]],
) -> None:
    """Return once the stored state's version is not ``since``, or after ``timeout_s``; ``wake(version,
    seconds)`` waits for the next change (this process's feed where it plays the game, else a pause)."""
    deadline = time.monotonic() + timeout_s
    while version(db, plan_id) == since:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        await wake(since, min(left, POLL_S))


def check(state: dict[str, Any], judge: dict[str, Any], text: str, decision: int | None) -> Action:
    """A move checked against the stored state, as ``HumanSeat.submit`` checks it.

    :raises MoveRefused: 409 no decision of the person's pending, 400 no action, 422 not legal now.
    """
    if state.get("final") is not None:
        raise MoveRefused(409, GAME_OVER)
    pending = int(state.get("decision") or 0)
    if not pending:
        if state.get("away"):
            raise MoveRefused(
                409, f"the autopilot ({state.get('autopilot')}) is playing your seat: take it back first"
            )
        view = state.get("view")
        to_act = -1 if view is None else int(view["to_act"])
        who = "nobody" if to_act < 0 else state["seats"][to_act]
        raise MoveRefused(409, f"it is not your turn: waiting for {who}")
    if decision is not None and decision != pending:
        raise MoveRefused(409, f"decision {decision} is over; the pending one is {pending}")
    try:
        action = Action.parse(text)
    except NotationError as exc:
        raise MoveRefused(400, str(exc)) from None
    if str(action) not in judge.get("legal", []):
        raise MoveRefused(422, why_refused(judge, action))
    return action


def queue(db: ServerDatabase, plan_id: int, kind: str, action: str, decision: int | None) -> int:
    with db.session() as s:
        row = PersonMove(plan_id=plan_id, kind=kind, action=action[:40], decision=decision)
        s.add(row)
        s.flush()
        return row.id


async def outcome(
    db: ServerDatabase, move_id: int, wake: Callable[[float], Awaitable[None]]
) -> tuple[int, str]:
    """The queued move's outcome once the playing process took it: (200, the action) or the refusal.
    Not taken within ``MOVE_WAIT_S`` (that process stopped, or is swamped): withdrawn, 503."""
    deadline = time.monotonic() + MOVE_WAIT_S
    while True:
        with db.session() as s:
            row = s.get(PersonMove, move_id)
            assert row is not None
            if row.status is not None:
                return row.status, row.reason or ""
            if time.monotonic() >= deadline:
                withdrawn = s.execute(
                    update(PersonMove)
                    .where(PersonMove.id == move_id, PersonMove.status.is_(None))
                    .values(status=503, reason="the table did not take the move in time: reload the page")
                )
                if getattr(withdrawn, "rowcount", 0):
                    return 503, "the table did not take the move in time: reload the page"
                continue
        await wake(POLL_S)


def take_queued(db: ServerDatabase, plan_id: int, seat: HumanSeat) -> int:
    """Give the seat every move queued for the plan, oldest first, and write each outcome; how many."""
    with db.session() as s:
        moves = list(
            s.scalars(
                select(PersonMove)
                .where(PersonMove.plan_id == plan_id, PersonMove.status.is_(None))
                .order_by(PersonMove.id)
            )
        )
        for move in moves:
            try:
                if move.kind == "back":
                    seat.take_back()
                    move.status, move.reason = 200, "back"
                else:
                    move.status, move.reason = 200, str(seat.submit(move.action, move.decision))
            except MoveRefused as refused:
                move.status, move.reason = refused.status, refused.reason
        return len(moves)


async def take(
    db: ServerDatabase, plan_id: int, seat: HumanSeat, wake: asyncio.Event, shared: bool = True
) -> None:
    """The playing process's side: moves taken as they are queued, until cancelled (the game's end).
    ``shared``: other processes may queue them (a look every ``POLL_S``); else only this one does, and
    ``wake`` says when."""
    while True:
        wake.clear()  # before the look: a move queued during it wakes the next one
        failed = False
        try:
            take_queued(db, plan_id, seat)
        except Exception:  # the database hiccuped: the moves stay queued for the next look
            log.exception("person's game %d: queued moves not taken", plan_id)
            failed = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), POLL_S if shared or failed else None)


def close(db: ServerDatabase, plan_id: int) -> None:
    """The game is over: moves still queued are refused so (their requests are answered)."""
    with db.session() as s:
        s.execute(
            update(PersonMove)
            .where(PersonMove.plan_id == plan_id, PersonMove.status.is_(None))
            .values(status=409, reason=GAME_OVER)
        )
