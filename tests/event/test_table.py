"""The referee (arena.event.table): the time bank, the arena's own lateness, resource limits, a seat whose
every call raises, and a spy bot that checks over many hands of every variant that nothing but a seat's own
view ever reaches it.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from arena.bot import Bot, create_server
from arena.engine import Action, GameConfig, View
from arena.engine.cards import JOKER, TWO_HEARTS, TWO_SPADES
from arena.engine.dealing import deal_order
from arena.engine.news import News
from arena.errors import BotError, DecisionFailed, FaultKind, HarnessLate
from arena.event.faults import FaultPolicy
from arena.event.table import TableResult, TableSpec, play_table, record_of, seat_stats
from arena.gameinfo import GameInfo, GameResult
from arena.players.base import DecisionTiming, Player, Reply
from arena.players.connection import BotConnection
from arena.players.inprocess import InProcessPlayer
from arena.players.process import ManagedBot
from arena.players.remote import RemotePlayer
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.v1 import player_pb2_grpc as pb_grpc
from arena.results.record import Fault
from arena.sandbox import cgroup_problem
from sample_bots.random import RandomBot
from tests.helpers import CHAOS


class Dawdler(Bot):
    """Answers every decision correctly, but 60 ms late."""

    name = "dawdler"

    async def act(self, view: View) -> Action:
        await asyncio.sleep(0.06)
        return view.legal_actions[0]


async def one_remote_seat(bot_class: type[Bot], policy: FaultPolicy, seed: int = 3) -> TableResult:
    server, port, _ = await create_server(bot_class)
    connection = BotConnection(f"127.0.0.1:{port}")
    try:
        config = GameConfig.create("five-handed")
        players = [RemotePlayer(connection, "remote")] + [
            InProcessPlayer(RandomBot, f"r{s}") for s in range(1, 5)
        ]
        return await play_table(TableSpec("g", config, seed, tuple(p.name for p in players), policy), players)
    finally:
        await connection.close()
        await server.stop(None)


def test_time_bank_covers_late_replies_until_it_runs_out() -> None:
    policy = FaultPolicy(decision_ms=20, time_bank_ms=400, max_faults_per_game=1000)
    result = asyncio.run(one_remote_seat(Dawdler, policy))
    # On a busy machine the arena itself may lag at a decision: that is a harness fault, not the bot's.
    mine = [f for f in result.faults if f.seat == 0 and f.kind is not FaultKind.HARNESS]
    answered = len(result.latencies_ms[0])
    assert {f.kind for f in mine} == {FaultKind.TIMEOUT}
    # ~40 ms over per decision: the 400 ms bank pays for about ten on a quiet machine, then every decision
    # times out. On a loaded one each reply is later, so the bank pays for fewer: what is measured is that
    # the accepted replies' lateness is what the bank held, and that it paid for several.
    over = sum(lat - 20 for lat in result.latencies_ms[0])
    assert 2 <= answered <= 12, answered
    assert over <= 400 + 60, f"{answered} late replies accepted, {over:.0f} ms over in all"
    assert mine[0].decision_id > answered, "no fault while the bank lasted"
    assert all(lat > 20 for lat in result.latencies_ms[0]), "the accepted replies were late ones"


def test_without_a_bank_a_late_reply_is_a_timeout_at_once() -> None:
    result = asyncio.run(one_remote_seat(Dawdler, FaultPolicy(decision_ms=20, max_faults_per_game=3)))
    # On a busy machine the arena itself may lag at a decision: that is a harness fault, not the bot's.
    charged = [f.kind for f in result.faults if f.kind is not FaultKind.HARNESS]
    assert charged == [FaultKind.TIMEOUT] * 4 and result.forfeited == (0,)
    assert result.latencies_ms[0] == ()


class Quick(Bot):
    name = "quick"

    async def act(self, view: View) -> Action:
        return view.legal_actions[0]


def test_the_arenas_own_lateness_is_never_counted_against_the_bot() -> None:
    """The arena's event loop freezes for 0.5 s during a 200 ms decision of a bot that answers at once:
    the reply is either still accepted or recorded as a harness fault, never as the bot's timeout."""

    async def scenario() -> TableResult:
        original = RemotePlayer.decide
        asked = Counter[str]()

        async def frozen_decide(self: RemotePlayer, view: View, decision_id: int, timing: Any) -> Any:
            asked[self.name] += 1
            if self.name == "remote" and asked[self.name] == 3:
                asyncio.get_running_loop().call_soon(time.sleep, 0.5)  # blocks the whole event loop
            return await original(self, view, decision_id, timing)

        RemotePlayer.decide = frozen_decide  # type: ignore[method-assign]
        try:
            return await one_remote_seat(Quick, FaultPolicy(decision_ms=200, max_faults_per_game=0), seed=5)
        finally:
            RemotePlayer.decide = original  # type: ignore[method-assign]

    result = asyncio.run(scenario())
    assert {f.kind for f in result.faults} <= {FaultKind.HARNESS}, result.faults
    assert result.forfeited == (), "with max_faults_per_game=0 a single counted fault would have forfeited"


class LaggedWatch:
    def __init__(self, lag_ms: float) -> None:
        self.lag_ms = lag_ms

    def max_lag_ms(self, since: float) -> float:
        return self.lag_ms


@pytest.mark.parametrize(
    ("lag_ms", "kind"), [(0.0, FaultKind.TIMEOUT), (30.0, FaultKind.TIMEOUT), (400.0, FaultKind.HARNESS)]
)
def test_a_timeout_during_which_the_loop_lagged_is_the_harnesss(lag_ms: float, kind: FaultKind) -> None:
    async def scenario() -> Any:
        player = RemotePlayer(BotConnection("127.0.0.1:9"), "b", watch=LaggedWatch(lag_ms))  # type: ignore[arg-type]
        try:
            return player._timeout(time.monotonic() - 0.2, DecisionTiming(200, 0))
        finally:
            await player.connection.close()

    error = asyncio.run(scenario())
    assert error.kind is kind
    assert ("lagged 400 ms" in str(error)) == (kind is FaultKind.HARNESS)


@pytest.mark.parametrize(
    ("mode", "limits", "kind", "detail"),
    [
        # With cgroups the kernel ends a bot past its memory limit (the whole bot, all processes);
        # without, the per-process address-space limit makes the allocation fail inside the bot.
        (
            "hog",
            {"memory_mb": 1200},
            FaultKind.CRASHED if cgroup_problem() is None else FaultKind.ERROR_STATUS,
            "" if cgroup_problem() is None else "MemoryError",
        ),
        ("spin", {"cpu_s": 1}, FaultKind.CRASHED, ""),
    ],
)
def test_resource_limits_apply_to_launched_bots(
    mode: str, limits: dict[str, int], kind: FaultKind, detail: str, tmp_path: Path
) -> None:
    bot = ManagedBot(mode, f"{{python}} {CHAOS} --mode {mode} --port {{port}}", tmp_path / "b.log", **limits)

    async def scenario() -> TableResult:
        await bot.start()
        connection = BotConnection(bot.address)
        try:
            config = GameConfig.create("five-handed")
            players = [RemotePlayer(connection, mode)] + [
                InProcessPlayer(RandomBot, f"r{s}") for s in range(1, 5)
            ]
            # A generous deadline: the limit must end the bot first, however busy the machine is.
            policy = FaultPolicy(decision_ms=60_000)
            spec = TableSpec("g", config, 9, tuple(p.name for p in players), policy)
            return await play_table(spec, players)
        finally:
            await connection.close()
            await bot.stop()

    result = asyncio.run(scenario())
    first = next(f for f in result.faults if f.seat == 0)
    assert first.kind is kind and detail in first.detail, first
    assert result.outcome is not None


# ---------------------------------------------------------------------------------------------- the spy

CARD_FIELDS = {"hand", "up_card", "exposed_card", "called_card", "discard", "card"}


def cards_in(message: Message) -> set[str]:
    """Every card string anywhere in ``message``; also asserts it carries no unknown (smuggled) fields."""
    assert len(UnknownFieldSet(message)) == 0
    found: set[str] = set()
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        for item in values:
            if isinstance(item, Message):
                found |= cards_in(item)
            elif field.name in CARD_FIELDS and isinstance(item, str) and item:
                found.add(item)
    return found


class SpyServicer(pb_grpc.PlayerServicer):
    """Records every message each seat receives and answers with a seeded random legal action (always
    the first would pass every bid: call-ace hands would all be thrown in, up to max_hands)."""

    def __init__(self) -> None:
        self.log: dict[int, list[pb.ArenaMessage]] = {}

    async def Hello(self, request: pb.HelloRequest, context: grpc.aio.ServicerContext) -> pb.HelloResponse:
        return pb.HelloResponse(protocol_version=1, name="spy", variants=[1, 2, 3])

    async def PlayGame(
        self, requests: AsyncIterator[pb.ArenaMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.BotMessage]:
        seat = -1
        async for message in requests:
            if message.HasField("game_start"):
                seat = message.game_start.seat
                self.log[seat] = []
            self.log[seat].append(message)
            if message.HasField("decision_request"):
                request = message.decision_request
                choice = random.Random(f"{seat}/{request.decision_id}").choice(request.legal_actions)
                yield pb.BotMessage(decision=pb.Decision(decision_id=request.decision_id, action=choice))


def knowledge(
    result: TableResult, seat: int, hand_index: int, actions_done: int, blind: bool = False
) -> set[str]:
    """The cards ``seat`` may know once ``actions_done`` actions of hand ``hand_index`` have happened (C-5):
    every public card so far (earlier hands included), its own cards (not this hand's during a blind
    decision), its own discard."""
    known: set[str] = set()
    for record in result.hands:
        if record["hand_index"] > hand_index:
            break
        current = record["hand_index"] == hand_index
        done = record["actions"][:actions_done] if current else record["actions"]
        known.add(record["up_card"])
        if not (current and blind):
            known.update(record["dealt"][seat])
        for entry in done:
            arg = re.match(r"^(\w+)\((\w+)\)$", entry["action"])
            if arg is None:
                continue
            kind, card = arg.groups()
            if kind == "PLAY" or kind == "CALL" or (kind == "DISCARD" and entry["seat"] == seat):
                known.add(card)
        if any(e["action"] == "EXPOSE" for e in done):
            known.add(record["exposed_card"])
    return known


SPY_CONFIGS = [
    ("call-ace", {}),
    ("call-ace", {"num_players": 4, "allow_no_trump": True}),
    ("call-ace", {"num_players": 6, "use_joker": True}),
    ("call-ace", {"num_players": 7, "use_joker": True}),
    ("five-handed", {}),
    ("five-handed", {"two_expose_mode": "exposed_suit"}),
    ("classic", {}),
]


@pytest.mark.parametrize(("variant", "options"), SPY_CONFIGS)
def test_spy_bot_never_receives_a_card_its_seat_may_not_know(variant: str, options: dict[str, Any]) -> None:
    config = GameConfig.create(variant, **options)
    n = config.num_players
    special = {JOKER, TWO_SPADES, TWO_HEARTS}
    seeds = [*[s for s in range(400) if deal_order(config, s, 0)[5 * n] in special][:2], 1, 2]

    async def scenario() -> list[tuple[TableResult, dict[int, list[pb.ArenaMessage]]]]:
        server = grpc.aio.server()
        spy = SpyServicer()
        pb_grpc.add_PlayerServicer_to_server(spy, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        connection = BotConnection(f"127.0.0.1:{port}")
        games = []
        try:
            for seed in seeds:
                spy.log = {}
                players = [RemotePlayer(connection, f"spy{s}") for s in range(n)]
                spec = TableSpec(f"g{seed}", config, seed, tuple(p.name for p in players))
                result = await play_table(spec, players)
                assert result.faults == ()
                games.append((result, spy.log))
        finally:
            await connection.close()
            await server.stop(None)
        return games

    checked = Counter[str]()
    for result, log in asyncio.run(scenario()):
        for seat, messages in log.items():
            for message in messages:
                if not message.HasField("decision_request"):
                    continue  # game_start has no card; game_over's events are checked via the last hand below
                view = message.decision_request.view
                allowed = knowledge(result, seat, view.hand_index, len(view.history), blind=view.hand_hidden)
                # CALL(card) choices name cards the seat does not hold: that reveals nothing about others
                allowed |= {a.card for a in message.decision_request.legal_actions if a.card}
                seen = cards_in(message)
                assert seen <= allowed, (
                    f"seat {seat}, hand {view.hand_index}, after {len(view.history)} "
                    f"actions: received {sorted(seen - allowed)} it may not know"
                )
                if view.hand_hidden:
                    assert not view.hand, "a blind decision shows no hand"
                    checked["blind"] += 1
                checked["requests"] += 1
            last = messages[-1]
            assert last.HasField("game_over")
            assert cards_in(last) <= knowledge(result, seat, 10**6, 10**6)
    assert checked["requests"] > 50
    if config.use_joker or variant == "five-handed":
        assert checked["blind"] > 0, "the seeds chosen put a Joker or a two up: blind decisions were checked"


class Broken(Player):
    """A seat whose every method raises something that is not a ``BotError`` (an arena bug, a gRPC
    surprise): the table must still complete, and charge the bot nothing for it."""

    name = "broken"

    async def start(self, info: GameInfo, news: Sequence[News]) -> None:
        raise grpc.aio.UsageError("Channel is closed")

    def queue_news(self, news: Sequence[News]) -> None:
        raise RuntimeError("queue")

    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        raise grpc.aio.UsageError("Channel is closed")

    async def finish(self, final: GameResult) -> None:
        raise RuntimeError("finish")

    async def close(self) -> None:
        raise RuntimeError("close")


def test_no_exception_from_one_seat_escapes_its_table() -> None:
    config = GameConfig.create("five-handed")
    players: list[Player] = [Broken()] + [
        InProcessPlayer(RandomBot, f"random-{s}") for s in range(1, config.num_players)
    ]
    spec = TableSpec("g", config, 4, tuple(p.name for p in players), FaultPolicy(max_faults_per_game=3))
    result = asyncio.run(play_table(spec, players))
    assert result.outcome is not None and result.decisions > 0
    assert result.faults and {f.kind.value for f in result.faults} == {"harness"}
    assert "Channel is closed" in result.faults[0].detail
    assert result.forfeited == (), "the arena's own failures never count against the bot"


class Late(Player):
    """A seat whose every decision the arena hears too late, as ``RemotePlayer`` says so: ``HarnessLate``."""

    name = "late"

    async def start(self, info: GameInfo, news: Sequence[News]) -> None:
        pass

    def queue_news(self, news: Sequence[News]) -> None:
        pass

    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        raise HarnessLate(f"decision {decision_id}: the busy arena read the reply late")

    async def finish(self, final: GameResult) -> None:
        pass

    async def close(self) -> None:
        pass


def test_the_arenas_lateness_is_recorded_but_never_charged_to_the_bot() -> None:
    """``HarnessLate`` is not a ``BotError``: the table still records it (as itself, not as an unknown
    failure), and it never counts towards the seat's faults or a forfeit, however often it happens."""
    assert not issubclass(HarnessLate, BotError) and issubclass(HarnessLate, DecisionFailed)
    config = GameConfig.create("five-handed")
    players: list[Player] = [Late()] + [
        InProcessPlayer(RandomBot, f"random-{s}") for s in range(1, config.num_players)
    ]
    spec = TableSpec("g", config, 4, tuple(p.name for p in players), FaultPolicy(max_faults_per_game=3))
    result = asyncio.run(play_table(spec, players))
    late = [f for f in result.faults if f.seat == 0]
    assert len(late) > 3, "more than max_faults_per_game, so a charged fault would forfeit the seat"
    assert all(f.kind is FaultKind.HARNESS and not f.charged for f in late)
    assert all(f.detail.endswith("the busy arena read the reply late") for f in late), late[0].detail
    assert result.forfeited == ()
    assert seat_stats(result)[0].faults == 0
    assert record_of(result).seats[0].faults == 0


def _fault(seat: int, kind: FaultKind) -> Fault:
    return Fault("x", "g", seat, 0, 1, kind, "", 0.0, "PASS")


def test_harness_faults_count_neither_in_a_seats_faults_nor_towards_forfeits() -> None:
    from arena.engine import GameConfig
    from arena.event.table import TableResult, TableSpec

    spec = TableSpec("g", GameConfig.create("five-handed"), 1, ("a", "b", "c", "d", "e"), FaultPolicy())
    faults = (_fault(0, FaultKind.HARNESS), _fault(0, FaultKind.TIMEOUT), _fault(1, FaultKind.HARNESS))
    result = TableResult(spec, None, (0,) * 5, (1,) * 5, (), (), faults, (), 3, (), 0.0)  # type: ignore[arg-type]
    assert [s.faults for s in seat_stats(result)] == [1, 0, 0, 0, 0]
    assert not _fault(0, FaultKind.HARNESS).charged and _fault(0, FaultKind.TIMEOUT).charged
