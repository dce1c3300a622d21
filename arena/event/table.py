"""One game for one seating: ask each seat to act, referee every reply, apply the fault policy.

The table is the referee. It is the only place that holds the full game state next to the players, and it
hands each player nothing but ``build_view`` and ``news_for_seats`` for that player's seat. Every reply is
checked against the legal actions; every failure becomes a recorded ``Fault`` and a seeded substitute
action, so a game always completes. A seat with too many faults forfeits: it is played by the autopilot to
the end and ranks last.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.engine.actions import action_to_string
from arena.engine.cards import CARDS, Card
from arena.engine.config import GameConfig
from arena.engine.news import News, mark, news_for_seats, opening_news, redact
from arena.engine.records import hand_record
from arena.engine.scoring import Outcome
from arena.engine.state import GameState
from arena.engine.views import build_view
from arena.errors import BotIllegalAction, DecisionFailed, HarnessLate
from arena.event.faults import FaultPolicy
from arena.gameinfo import GameInfo, GameResult
from arena.players.base import DecisionTiming, Player
from arena.results.record import (
    Fault,
    GameRecord,
    SeatStats,
    encode_decision_times,
    encode_hands,
    encode_latencies,
)


@dataclass(frozen=True, slots=True)
class TableSpec:
    game_id: str
    config: GameConfig
    seed: int
    seat_names: tuple[str, ...]
    policy: FaultPolicy = field(default_factory=FaultPolicy)


@dataclass(frozen=True, slots=True)
class TableResult:
    """A finished game: final standings after forfeits, every fault, every hand record, and timings."""

    spec: TableSpec
    outcome: Outcome
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    forfeited: tuple[int, ...]
    faults: tuple[Fault, ...]
    hands: tuple[dict[str, Any], ...]
    decisions: int
    latencies_ms: tuple[tuple[float, ...], ...]
    wall_s: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.spec.game_id,
            "seed": self.spec.seed,
            "seats": list(self.spec.seat_names),
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "winners": list(self.winners),
            "forfeited": list(self.forfeited),
            "outcome": self.outcome.to_dict(),
            "decisions": self.decisions,
        }


class TableWatch(Protocol):
    """Who follows a game while it is played (a competition's live table, ``arena.server.live``).

    ``seen`` is called on the table's event loop at the start and after every action, with what a spectator
    may be told of it (``arena.engine.news.redact``) and every seat's cards now (for those allowed to see
    hands: the watcher decides, never the table). It must be quick and must not block: the table does
    not wait for anybody's page. What it raises is ignored: a watcher never stops a game.
    """

    def seen(self, events: Sequence[News], hands: Sequence[Sequence[Card]]) -> None: ...


def _tell(watch: TableWatch | None, events: Sequence[News], hands: list[list[int]]) -> None:
    if watch is None:
        return
    with contextlib.suppress(Exception):  # a watcher's bug must not stop the game (see TableWatch)
        watch.seen(redact(events), [[CARDS[c] for c in h] for h in hands])


def final_standings(outcome: Outcome, forfeited: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Ranks and winners once forfeiters are moved to the bottom (they share the last place)."""
    n = len(outcome.ranks)
    playing = [s for s in range(n) if s not in forfeited]
    ranks = [0] * n
    for s in playing:
        ranks[s] = 1 + sum(1 for t in playing if outcome.ranks[t] < outcome.ranks[s])
    for s in forfeited:
        ranks[s] = len(playing) + 1
    winners = tuple(s for s in playing if ranks[s] == 1)
    return tuple(ranks), winners


async def play_table(
    spec: TableSpec, players: Sequence[Player], watch: TableWatch | None = None
) -> TableResult:
    """Play one whole game. Never raises for a bot's misbehaviour; always closes every player.

    ``watch`` is told the public news of each action as it happens (see :class:`TableWatch`).
    """
    started = time.monotonic()
    config, policy, n = spec.config, spec.policy, spec.config.num_players
    # The executor seats the players of the spec's own seat names: a mismatch is its bug.
    assert len(players) == n == len(spec.seat_names), (
        f"table {spec.game_id}: {len(players)} players for {n} seats"
    )
    state = GameState(config, seed=spec.seed)
    substitute = random.Random(f"euchre-arena/substitute/{spec.seed}")
    faults: list[Fault] = []
    counted = [0] * n
    forfeited: list[int] = []
    bank = [float(policy.time_bank_ms)] * n
    latencies: list[list[float]] = [[] for _ in range(n)]
    decision_id = 0

    def record(seat: int, error: DecisionFailed, elapsed_ms: float, substitute_id: int) -> None:
        fault = Fault(
            spec.seat_names[seat],
            spec.game_id,
            seat,
            state.hand_index,
            decision_id,
            error.kind,
            str(error),
            round(elapsed_ms, 1),
            action_to_string(substitute_id),
        )
        faults.append(fault)
        if fault.charged:
            counted[seat] += 1
            if counted[seat] > policy.max_faults_per_game and seat not in forfeited:
                forfeited.append(seat)

    try:
        info = [
            GameInfo(spec.game_id, config, s, spec.seat_names, policy.decision_ms, policy.time_bank_ms)
            for s in range(n)
        ]
        # A seat that fails to start is faulted at its first decision (it reconnects then). Whatever a seat's
        # connection raises stays at its seat: one bot must never stop a table, let alone the event.
        await asyncio.gather(
            *(players[s].start(info[s], opening_news(state, s)) for s in range(n)), return_exceptions=True
        )
        _tell(watch, opening_news(state, 0), state.hands)
        # Seats shown to a person (arena.play) follow the table between their turns: their own view only.
        viewers = [s for s in range(n) if players[s].wants_views]
        for s in viewers:
            players[s].see(build_view(state, s))
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            if seat in forfeited:
                action = legal[substitute.randrange(len(legal))]
            else:
                decision_id += 1
                timing = DecisionTiming(policy.decision_ms, int(bank[seat]))
                asked = time.monotonic()
                try:
                    reply = await players[seat].decide(build_view(state, seat), decision_id, timing)
                    action = reply.action.id
                    bank[seat] = max(0.0, bank[seat] - reply.bank_used_ms)
                    if action not in legal:
                        raise BotIllegalAction(
                            f"{spec.seat_names[seat]} played {reply.action} at {state.current_phase.name}; "
                            f"legal were {', '.join(action_to_string(a) for a in legal)}"
                        )
                    latencies[seat].append(reply.elapsed_ms)
                except DecisionFailed as error:  # the bot's (BotError) or the arena's (HarnessLate)
                    action = legal[substitute.randrange(len(legal))]
                    record(seat, error, (time.monotonic() - asked) * 1000, action)
                except Exception as error:  # not a bot's misbehaviour we know: the arena's, never counted
                    action = legal[substitute.randrange(len(legal))]
                    late = HarnessLate(f"the arena failed talking to {spec.seat_names[seat]}: {error!r}")
                    record(seat, late, (time.monotonic() - asked) * 1000, action)
            before = mark(state)
            state.apply(action)
            told = news_for_seats(state, before)
            _tell(watch, told[0], state.hands)
            for s, events in enumerate(told):
                if s not in forfeited:
                    # A try statement, not contextlib.suppress: that builds a context manager per seat per
                    # decision, which showed in the profile of a 25-table run.
                    try:  # noqa: SIM105
                        players[s].queue_news(events)
                    except Exception:  # local bookkeeping; a broken seat shows at its turn
                        pass
            for s in viewers:
                with contextlib.suppress(Exception):  # a page's bookkeeping never stops the game
                    players[s].see(build_view(state, s))
        outcome = state.outcome
        assert outcome is not None
        ranks, winners = final_standings(outcome, forfeited)
        final = GameResult(
            outcome.scores, ranks, winners, outcome.termination.value, tuple(sorted(forfeited))
        )
        await asyncio.gather(*(p.finish(final) for p in players), return_exceptions=True)
        return TableResult(
            spec=spec,
            outcome=outcome,
            scores=outcome.scores,
            ranks=ranks,
            winners=winners,
            forfeited=tuple(sorted(forfeited)),
            faults=tuple(faults),
            hands=tuple(hand_record(r) for r in state.results),
            decisions=decision_id,
            latencies_ms=tuple(tuple(x) for x in latencies),
            wall_s=time.monotonic() - started,
        )
    finally:
        await asyncio.gather(*(p.close() for p in players), return_exceptions=True)


def seat_stats(result: TableResult) -> list[SeatStats]:
    """Each seat's score, rank, forfeit, hands made trump (and made) and faults charged to the bot."""
    n = len(result.spec.seat_names)
    makers = [0] * n
    made = [0] * n
    for hand in result.hands:
        maker = hand["maker"]
        if maker is not None:
            makers[maker] += 1
            made[maker] += hand["outcome"] in ("made", "march")
    # Only faults charged to the bot: a harness fault is the arena's own lateness (docs/protocol.md).
    faults = [sum(1 for f in result.faults if f.seat == s and f.charged) for s in range(n)]
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


def record_of(result: TableResult) -> GameRecord:
    return GameRecord(
        game_id=result.spec.game_id,
        result=result.to_dict() | {"wall_s": result.wall_s},
        seats=tuple(seat_stats(result)),
        hands=encode_hands(result.hands),
        faults=result.faults,
        latency=encode_latencies(result.latencies_ms),
        forfeited=result.forfeited,
        decisions=result.decisions,
        decision_times=encode_decision_times(result.latencies_ms),
    )
