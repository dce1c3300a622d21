"""Every decision of a stored game, rebuilt as the exact messages its seat was sent.

Why: a bot that failed at a decision is best debugged by handing it that very input again, on its author's
machine, under a debugger. The stored game holds the deal (every hand's deck) and every action, so the game
can be played again through the engine, and each decision's request rebuilt exactly as the table built it:
the seat's view from ``build_view``, its events from ``opening_events`` and ``events_for_seats``, batched as
a ``RemotePlayer`` batches them (on the seat's next message, on a reopened stream's ``GameStart``), encoded
by the same ``wire.RequestEncoder``. Nothing but the engine's view of one seat goes in, so a request holds
no card its seat could not see (C-5), whatever the store holds.

The replay also follows the table's bookkeeping: decision ids count the decisions of the seats still
playing, a seat's charged faults forfeit it past ``max_faults_per_game`` (it is asked nothing after), the
time bank is drawn on by late replies. A game whose stored actions do not replay (a damaged or foreign
record) is a ``StoreError`` naming it. With a time bank (``time_bank_ms`` > 0) the bank left is recomputed
from the stored decision times, which are kept to three significant figures: the ``time_bank_ms`` of a
request after a late reply may then differ from the one sent by the rounding (``Decision.exact`` says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena.engine.actions import action_to_string, parse_action_id
from arena.engine.cards import parse_card_id
from arena.engine.config import GameConfig
from arena.engine.events import events_for_seats, mark, opening_events
from arena.engine.state import GameState, Phase
from arena.engine.views import build_view
from arena.errors import FaultKind, RuleError, StoreError
from arena.gameinfo import GameInfo
from arena.protocol import convert, wire

BREAKS_STREAM = frozenset(
    {FaultKind.CRASHED, FaultKind.ERROR_STATUS, FaultKind.STREAM_CLOSED, FaultKind.OVERSIZED}
)
"""Faults after which the table's seat reopens its stream (``GameStart.resumed``) for the next decision,
so the events told since ride on that ``GameStart`` instead of on the request."""


class FaultLike(Protocol):
    """What the replay reads of a stored fault (``results.record.Fault`` and ``queries.StoredFault``)."""

    @property
    def seat(self) -> int: ...
    @property
    def decision_id(self) -> int: ...
    @property
    def kind(self) -> FaultKind: ...
    @property
    def detail(self) -> str: ...
    @property
    def elapsed_ms(self) -> float: ...
    @property
    def substitute(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Timing:
    """The event's ``[faults]`` figures a table used: time per decision, bank per game, faults to forfeit."""

    decision_ms: int = 1000
    time_bank_ms: int = 0
    max_faults_per_game: int = 3

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> Timing:
        """From a stored event config (its ``faults`` section; the defaults where it says nothing)."""
        faults = (config or {}).get("faults") or {}
        default = cls()
        return cls(
            int(faults.get("decision_ms", default.decision_ms)),
            int(faults.get("time_bank_ms", default.time_bank_ms)),
            int(faults.get("max_faults_per_game", default.max_faults_per_game)),
        )


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a stored game as its seat was asked it.

    ``request`` is the ``ArenaMessage`` the seat's stream carried (the request and the events batched on
    it); ``opening`` the ``GameStart`` message written on the stream just before it, when the seat's
    stream was opened (the game's start) or reopened (after a fault that broke it) for this decision.
    ``played`` is what the game played there: the bot's action, or the substitute of ``fault``.
    """

    game_id: str
    seat: int
    entrant: str
    hand_index: int
    decision_id: int
    kind: str  # the DecisionKind's short name, e.g. "PLAY"
    legal: tuple[str, ...]
    played: str
    fault: FaultLike | None
    elapsed_ms: float | None  # the answered decision's stored time (None for a faulted one)
    time_ms: int
    bank_ms: int
    request: bytes
    opening: bytes | None
    game_start: bytes  # a resumed GameStart without events: how a stream starts at this decision alone
    exact: bool = True
    action_index: int = -1  # the action's place in its hand's record (-1: not known, e.g. from an export)


def _replay_error(game_id: str, why: str) -> StoreError:
    return StoreError(
        f"game {game_id} cannot be replayed from its stored hands ({why}): the record is damaged"
    )


def game_decisions(
    game_id: str,
    seat_names: Sequence[str],
    hands: Sequence[Mapping[str, Any]],
    faults: Sequence[FaultLike],
    timing: Timing,
    decision_times: Sequence[Sequence[float]] | None = None,
) -> list[Decision]:
    """Every decision of the game, in the order asked, rebuilt from its stored hands (see the module).

    :raises StoreError: the hands do not replay (a wrong deck, an action out of turn or illegal) or do not
        match the seats.
    """
    if not hands:
        return []
    try:
        config = GameConfig.from_dict(dict(hands[0]["config"]))
        decks = [[parse_card_id(c) for c in h["deck"]] for h in hands]
        state = GameState(config, seed=None, decks=decks, dealer=int(hands[0]["dealer"]))
        actions = [
            (i, int(a["seat"]), parse_action_id(a["action"]))
            for h in hands
            for i, a in enumerate(h["actions"])
        ]
    except (KeyError, TypeError, ValueError, RuleError) as exc:
        raise _replay_error(game_id, repr(exc)) from None
    n = config.num_players
    if len(seat_names) != n:
        raise _replay_error(game_id, f"{len(seat_names)} seat names for {n} seats")
    by_id = {f.decision_id: f for f in faults}
    times = [list(t) for t in decision_times] if decision_times else [[] for _ in range(n)]
    answered = [0] * n
    pending: list[list[bytes]] = [[wire.event_bytes(e) for e in opening_events(state, s)] for s in range(n)]
    infos = [
        GameInfo(game_id, config, s, tuple(seat_names), timing.decision_ms, timing.time_bank_ms)
        for s in range(n)
    ]
    opening: list[bytes | None] = [_start(infos[s], pending[s], resumed=False) for s in range(n)]
    pending = [[] for _ in range(n)]
    reopen = [False] * n
    encoders = [wire.RequestEncoder() for _ in range(n)]
    counted = [0] * n
    forfeited: set[int] = set()
    bank = [float(timing.time_bank_ms)] * n
    exact = [True] * n
    decision_id = 0
    out: list[Decision] = []
    for step, (action_index, seat, action) in enumerate(actions):
        if state.is_terminal():
            raise _replay_error(game_id, f"action {step} comes after the game ended")
        if state.current_player() != seat:
            raise _replay_error(
                game_id, f"action {step} is seat {seat}'s, but seat {state.current_player()} was to act"
            )
        legal = state.legal_actions()
        if action not in legal:
            raise _replay_error(game_id, f"action {step} ({action_to_string(action)}) was not legal")
        if seat not in forfeited:
            decision_id += 1
            view = build_view(state, seat)
            fault = by_id.get(decision_id)
            if fault is not None and fault.seat != seat:
                raise _replay_error(
                    game_id, f"fault at decision {decision_id} names seat {fault.seat}, not {seat}"
                )
            if reopen[seat]:
                opening[seat], pending[seat], reopen[seat] = (
                    _start(infos[seat], pending[seat], True),
                    [],
                    False,
                )
            bank_ms = int(bank[seat])
            request = encoders[seat].encode(view, decision_id, timing.decision_ms, bank_ms, pending[seat])
            pending[seat] = []
            elapsed: float | None = None
            if fault is None:
                if answered[seat] < len(times[seat]):
                    elapsed = times[seat][answered[seat]]
                    if elapsed > timing.decision_ms and timing.time_bank_ms:
                        bank[seat] = max(0.0, bank[seat] - (elapsed - timing.decision_ms))
                        exact[seat] = False  # from a time kept to 3 significant figures
                answered[seat] += 1
            out.append(
                Decision(
                    game_id=game_id,
                    seat=seat,
                    entrant=seat_names[seat],
                    hand_index=state.hand_index,
                    decision_id=decision_id,
                    kind=Phase(state.phase).name,
                    legal=tuple(action_to_string(a) for a in legal),
                    played=action_to_string(action),
                    fault=fault,
                    elapsed_ms=elapsed,
                    time_ms=timing.decision_ms,
                    bank_ms=bank_ms,
                    request=request,
                    opening=opening[seat],
                    game_start=_start(infos[seat], [], resumed=True),
                    exact=exact[seat],
                    action_index=action_index,
                )
            )
            opening[seat] = None
            if fault is not None:
                if fault.kind is not FaultKind.HARNESS:
                    counted[seat] += 1
                    if counted[seat] > timing.max_faults_per_game:
                        forfeited.add(seat)
                reopen[seat] = fault.kind in BREAKS_STREAM
        before = mark(state)
        state.apply(action)
        for s, events in enumerate(events_for_seats(state, before)):
            if s not in forfeited:
                pending[s] += [wire.event_bytes(e) for e in events]
    if not state.is_terminal():
        raise _replay_error(game_id, "its actions stop before the game ends")
    return out


def _start(info: GameInfo, events: Sequence[bytes], resumed: bool) -> bytes:
    """A stream's first message as ``RemotePlayer`` writes it: the queued events, then the ``GameStart``."""
    return b"".join((*events, convert.game_start(info, resumed).SerializeToString()))
