"""The SDK (arena.bot) end to end over loopback: its server against the arena's client
(``arena.players.remote``), with real gRPC on 127.0.0.1.

* the handshake, the standard health service and server reflection;
* whole games where every seat is an SDK bot served over loopback that records every ``View`` and event it
  receives: every decision kind of every variant reaches the bot (seeds are searched so that the Joker and
  the five-handed two are turned up), every view equals the engine's ``build_view`` at that moment (the game
  is replayed from its hand records), and a bot that follows the game from the events alone knows at each
  decision exactly what the request's view says;
* one bot process serving 20 games at once, and a thinking game that holds up neither the others nor the
  health check;
* the choice of event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import sys
from bisect import insort
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.bot import Bot, GameInfo, GameResult, create_server, loop_factory
from arena.engine import (
    Action,
    ActionKind,
    Card,
    GameConfig,
    GameState,
    Phase,
    Trump,
    UpCardFate,
    Variant,
    View,
    build_view,
    deal_order,
    parse_action_id,
)
from arena.engine.cards import JOKER, TWO_HEARTS, TWO_SPADES
from arena.engine.news import (
    ActionTaken,
    HandEnded,
    HandShown,
    HandStarted,
    News,
    PartnerRevealed,
    TrickCompleted,
    mark,
    news_since,
    opening_news,
)
from arena.engine.scoring import Termination
from arena.engine.views import Play, TrickView
from arena.event.faults import FaultPolicy
from arena.event.table import TableResult, TableSpec, play_table
from arena.players.connection import BotConnection
from arena.players.remote import RemotePlayer
from arena.protocol import PROTOCOL_VERSION, SERVICE_NAME, convert
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.v1 import player_pb2_grpc as pb_grpc
from tests.helpers import ROOT, launched, sample_bot

# ---------------------------------------------------------------------------------------------- helpers


@contextlib.asynccontextmanager
async def serving(bot_class: type[Bot]) -> AsyncIterator[str]:
    """An SDK server for ``bot_class`` in this process, on a free loopback port; yields its address."""
    server, port, _ = await create_server(bot_class, "127.0.0.1:0")
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(None)


def first_seed(
    config: GameConfig, hand_index: int, up_cards: tuple[int, ...], avoid: int | None = None
) -> int:
    """The smallest seed whose hand ``hand_index`` turns up one of ``up_cards`` (and hand ``avoid`` not)."""
    n = config.num_players
    for seed in range(100_000):
        if deal_order(config, seed, hand_index)[5 * n] in up_cards and (
            avoid is None or deal_order(config, seed, avoid)[5 * n] not in up_cards
        ):
            return seed
    raise AssertionError(f"no seed turns up {up_cards} in hand {hand_index}")


def view_diff(got: View, expected: View) -> str:
    return "; ".join(
        f"{f.name}: got {getattr(got, f.name)!r}, expected {getattr(expected, f.name)!r}"
        for f in fields(View)
        if getattr(got, f.name) != getattr(expected, f.name)
    )


# ---------------------------------------------------------------------------------------------- handshake


class Greeter(Bot):
    name = "greeter"
    author = "protocol tests"
    version = "2.5"
    variants = (Variant.FIVE_HANDED, Variant.CLASSIC)

    async def act(self, view: View) -> Action:
        return view.legal_actions[0]


def test_hello_returns_version_name_author_version_and_variants() -> None:
    async def main() -> tuple[pb.HelloResponse, pb.HelloResponse, Any]:
        async with serving(Greeter) as address:
            async with grpc.aio.insecure_channel(address) as channel:
                stub = pb_grpc.PlayerStub(channel)
                reply = await stub.Hello(
                    pb.HelloRequest(protocol_version=1, arena_name="tests", arena_version="0"), timeout=5
                )
                # A bot answers an arena of another version too; refusing is the arena's job.
                other = await stub.Hello(pb.HelloRequest(protocol_version=7), timeout=5)
            connection = BotConnection(address)
            try:
                identity = await connection.hello()
            finally:
                await connection.close()
        return reply, other, identity

    reply, other, identity = asyncio.run(main())
    assert reply.protocol_version == PROTOCOL_VERSION == 1
    assert (reply.name, reply.author, reply.version) == ("greeter", "protocol tests", "2.5")
    assert list(reply.variants) == [pb.VARIANT_FIVE_HANDED, pb.VARIANT_CLASSIC]
    assert other.protocol_version == 1
    assert (identity.name, identity.author, identity.version, identity.protocol_version) == (
        "greeter",
        "protocol tests",
        "2.5",
        1,
    )
    assert identity.variants == ("five-handed", "classic")


@pytest.mark.parametrize("service", ["", SERVICE_NAME])
def test_health_check_answers_serving(service: str) -> None:
    async def main() -> tuple[int, grpc.StatusCode]:
        async with serving(Greeter) as address, grpc.aio.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            with pytest.raises(grpc.aio.AioRpcError) as unknown:
                await stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
            return reply.status, unknown.value.code()

    status, unknown = asyncio.run(main())
    assert SERVICE_NAME == "euchre.arena.v1.Player"
    assert status == health_pb2.HealthCheckResponse.SERVING
    assert unknown == grpc.StatusCode.NOT_FOUND


def test_reflection_lists_the_player_service_and_serves_its_descriptor() -> None:
    async def main() -> tuple[list[str], reflection_pb2.ServerReflectionResponse]:
        async with serving(Greeter) as address, grpc.aio.insecure_channel(address) as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            call = stub.ServerReflectionInfo(timeout=5)
            await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
            listed = await call.read()
            await call.write(reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME))
            described = await call.read()
            await call.done_writing()
            return [s.name for s in listed.list_services_response.service], described

    names, described = asyncio.run(main())
    assert SERVICE_NAME in names
    assert "grpc.health.v1.Health" in names
    from google.protobuf import descriptor_pb2

    files = [
        descriptor_pb2.FileDescriptorProto.FromString(raw)
        for raw in described.file_descriptor_response.file_descriptor_proto
    ]
    player = [f for f in files if f.package == "euchre.arena.v1"]
    assert player, described
    services = {s.name: [m.name for m in s.method] for f in player for s in f.service}
    assert services == {"Player": ["Hello", "PlayGame"]}


# ------------------------------------------------------------------------------------------- following games


class Follower:
    """What one seat knows, rebuilt from the events alone (never from a view)."""

    def __init__(self, config: GameConfig, seat: int) -> None:
        self.config, self.seat, self.n = config, seat, config.num_players
        self.scores: tuple[int, ...] = (0,) * self.n
        self.hand_index = -1

    def apply(self, event: News) -> None:
        if isinstance(event, HandStarted):
            self._start(event)
        elif isinstance(event, HandShown):
            self.hand = sorted(event.hand)
        elif isinstance(event, ActionTaken):
            self._action(event)
        elif isinstance(event, TrickCompleted):
            assert event.trick.winner is not None
            assert [p.seat for p in event.trick.plays] == [p.seat for p in self.trick], "trick != the plays"
            self.tricks.append(event.trick)
            self.tricks_won[event.trick.winner] += 1
            self.trick = []
            self.leader = event.trick.winner
        elif isinstance(event, PartnerRevealed):
            assert self.trick and self.trick[-1] == Play(event.seat, self.called), "revealed by its card"
            self.partner = event.seat
        elif isinstance(event, HandEnded):
            assert event.hand_index == self.hand_index
            assert event.tricks_won == tuple(self.tricks_won)
            assert (event.trump, event.maker, event.alone) == (self.trump, self.maker, self.alone)
            assert event.scores == tuple(s + p for s, p in zip(self.scores, event.points, strict=True))
            self.scores = event.scores
        else:  # pragma: no cover
            raise AssertionError(f"unknown event {event!r}")

    def _start(self, e: HandStarted) -> None:
        assert e.hand_index == self.hand_index + 1, "hands follow each other"
        assert e.scores == self.scores, "a hand starts from the previous hand's scores"
        self.hand_index, self.dealer, self.up_card = e.hand_index, e.dealer, e.up_card
        self.hand: list[Card] | None = None if e.hand is None else sorted(e.hand)
        self.scores = self.scores_before = e.scores
        blind_up = e.up_card.id == JOKER or (
            self.config.variant is Variant.FIVE_HANDED and e.up_card.id in (TWO_SPADES, TWO_HEARTS)
        )
        self.proposed: Trump | None = None if blind_up else Trump(int(e.up_card.suit))  # type: ignore[arg-type]
        self.history: list[tuple[int, Action | None]] = []
        self.tricks: list[TrickView] = []
        self.trick: list[Play] = []
        self.tricks_won = [0] * self.n
        self.trump: Trump | None = None
        self.maker: int | None = None
        self.called: Card | None = None
        self.partner: int | None = None
        self.discard: Card | None = None
        self.exposed: Card | None = None
        self.sitting_out: int | None = None
        self.alone = False
        self.fate = UpCardFate.ON_TABLE
        self.passes = 0
        self.round = 1
        self.leader = -1

    def _make(self, maker: int, trump: Trump | None, pick_up: bool) -> None:
        self.maker, self.trump = maker, trump
        if pick_up:
            self.fate = UpCardFate.TAKEN
            if self.seat == self.dealer and self.hand is not None:
                insort(self.hand, self.up_card)

    def _action(self, e: ActionTaken) -> None:
        self.history.append((e.seat, e.action))
        a = e.action
        if a is None:  # the dealer's discard, hidden from this seat
            assert e.seat == self.dealer != self.seat
            return
        kind = a.kind
        if kind is ActionKind.PASS:
            self.passes += 1
            if self.round == 1 and self.passes == self.n:
                self.round, self.passes, self.fate = 2, 0, UpCardFate.TURNED_DOWN
        elif kind in (ActionKind.ORDER_UP, ActionKind.TAKE_UP):
            self._make(e.seat, self.proposed, pick_up=True)
        elif kind is ActionKind.NAME:
            self._make(e.seat, a.trump, pick_up=False)
        elif kind in (ActionKind.JOKER_NAME, ActionKind.EXPOSE_NAME):
            self._make(self.dealer, a.trump, pick_up=True)
        elif kind is ActionKind.BLIND_NAME:
            self.proposed = a.trump
        elif kind is ActionKind.EXPOSE:
            assert e.exposed_card is not None, "EXPOSE shows the exposed card"
            self.exposed = e.exposed_card
        elif kind is ActionKind.DISCARD:
            assert self.seat == self.dealer and self.hand is not None and a.card is not None
            self.hand.remove(a.card)
            self.discard = a.card
        elif kind in (ActionKind.ALONE, ActionKind.CALL, ActionKind.PARTNER):
            assert self.maker is not None
            if kind is ActionKind.ALONE:
                self.alone = True
                if self.config.variant is Variant.CLASSIC:
                    self.sitting_out = (self.maker + 2) % 4
            elif kind is ActionKind.PARTNER:
                self.partner = (self.maker + 2) % 4
            else:
                self.called = a.card
                if self.hand is not None and a.card in self.hand:
                    self.partner = self.seat
            leader = (self.dealer + 1) % self.n
            if leader == self.sitting_out:
                leader = (leader + 1) % self.n
            self.leader = leader
        elif kind is ActionKind.PLAY:
            assert a.card is not None
            self.trick.append(Play(e.seat, a.card))
            if e.seat == self.seat:
                assert self.hand is not None
                self.hand.remove(a.card)

    def differences(self, view: View) -> list[str]:
        """The fields where what the events told differs from the request's view."""
        ours: dict[str, object] = {
            "hand_index": self.hand_index,
            "dealer": self.dealer,
            "scores": self.scores,
            "scores_before": self.scores_before,
            "hand": None if self.hand is None else tuple(self.hand),
            "up_card": self.up_card,
            "up_card_fate": self.fate,
            "proposed_trump": None if self.exposed is not None else self.proposed,
            "exposed_card": self.exposed,
            "history": tuple(self.history),
            "trump": self.trump,
            "maker": self.maker,
            "called_card": self.called,
            "alone": self.alone,
            "partner": self.partner,
            "discard": self.discard,
            "tricks": tuple(self.tricks),
            "current_trick": TrickView(self.leader, tuple(self.trick)) if view.phase is Phase.PLAY else None,
            "tricks_won": tuple(self.tricks_won),
            "sitting_out": self.sitting_out,
        }
        return [
            f"{k}: events say {v!r}, view says {getattr(view, k)!r}"
            for k, v in ours.items()
            if getattr(view, k) != v
        ]


@dataclass
class SeatLog:
    """Everything one seat's bot received, in order."""

    game: GameInfo
    views: list[View] = field(default_factory=list)
    chosen: list[Action] = field(default_factory=list)
    events: list[News] = field(default_factory=list)
    events_before_decision: list[int] = field(default_factory=list)
    timeline: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    result: GameResult | None = None
    scores_at_end: tuple[int, ...] | None = None


class RecordingBot(Bot):
    """Records every view and event, follows the game from the events, and steers towards rare decisions.

    A plain ``def act``, so it runs in the SDK's worker threads like most real bots.
    """

    name = "recorder"
    author = "protocol tests"
    version = "1"
    logs: ClassVar[dict[tuple[str, int], SeatLog]] = {}

    def on_game_start(self, game: GameInfo) -> None:
        assert self.game is game
        self.log = SeatLog(game)
        self.logs[(game.game_id, game.seat)] = self.log
        self.log.timeline.append("start")
        self.follower = Follower(game.config, game.seat)
        self.rng = random.Random(f"{game.game_id}/{game.seat}")

    def on_event(self, event: News) -> None:
        self.log.events.append(event)
        self.log.timeline.append("event")
        try:
            self.follower.apply(event)
        except Exception as exc:  # recorded and asserted on by the test, rather than failing the stream
            self.log.mismatches.append(f"event {event!r}: {exc!r}")

    def act(self, view: View) -> Action:
        log = self.log
        log.views.append(view)
        log.events_before_decision.append(len(log.events))
        log.timeline.append("decision")
        for problem in self.follower.differences(view):
            log.mismatches.append(f"hand {view.hand_index} decision {len(log.views)}: {problem}")
        action = self.choose(view)
        log.chosen.append(action)
        return action

    def choose(self, view: View) -> Action:
        legal = view.legal_actions
        by_kind: dict[ActionKind, list[Action]] = defaultdict(list)
        for a in legal:
            by_kind[a.kind].append(a)
        phase = view.phase
        if phase is Phase.TWO_CHOICE:  # EXPOSE in even hands, BLIND_NAME in odd ones
            return by_kind[ActionKind.EXPOSE][0] if view.hand_index % 2 == 0 else self.rng.choice(legal[:4])
        if phase is Phase.BID_ROUND_1 and view.hand_index == 0:
            return by_kind[ActionKind.PASS][0]  # everybody passes: round 2 in every game's first hand
        if phase is Phase.BID_ROUND_2:
            no_trump = [a for a in by_kind[ActionKind.NAME] if a.trump is Trump.NO_TRUMP]
            if no_trump:
                return no_trump[0]
        if phase is Phase.CALL:
            if view.hand_index % 3 == 2:
                return by_kind[ActionKind.ALONE][0]
            return next(a for a in legal if a.kind is not ActionKind.ALONE)
        return self.rng.choice(legal)

    def on_game_over(self, result: GameResult) -> None:
        self.log.result = result
        self.log.scores_at_end = self.follower.scores
        self.log.timeline.append("over")


@dataclass
class PlayedGame:
    spec: TableSpec
    result: TableResult
    logs: dict[int, SeatLog]


def coverage_games() -> list[tuple[str, GameConfig, int]]:
    """(game id, config, seed): option sets and seeds that reach every decision kind of every variant."""
    joker = GameConfig.create("call-ace", use_joker=True)
    no_trump = GameConfig.create("call-ace", num_players=4, allow_no_trump=True, stick_the_dealer=True)
    expose = GameConfig.create("five-handed")
    blind = GameConfig.create("five-handed", two_expose_mode="exposed_suit")
    twos = (TWO_SPADES, TWO_HEARTS)
    return [
        ("ca-joker", joker, first_seed(joker, 0, (JOKER,))),  # the Joker up in hand 0: JOKER_NAME
        ("ca-no-trump", no_trump, 1),
        ("ca-7p", GameConfig.create("call-ace", num_players=7), 2),
        ("fh-expose", expose, first_seed(expose, 0, twos)),  # a two up in hand 0: EXPOSE
        ("fh-blind", blind, first_seed(blind, 1, twos, avoid=0)),  # a two up in hand 1: BLIND_NAME
        ("classic", GameConfig.create("classic"), 3),
        ("classic-stick", GameConfig.create("classic", stick_the_dealer=True, target=5), 4),
    ]


@pytest.fixture(scope="module")
def played() -> dict[str, PlayedGame]:
    """The coverage games, every seat a ``RecordingBot`` over loopback; played once for the module."""
    bot_class = type("Recorder", (RecordingBot,), {"logs": {}})

    async def main() -> dict[str, PlayedGame]:
        out = {}
        async with serving(bot_class) as address:
            connection = BotConnection(address)
            try:
                await connection.hello()
                for game_id, config, seed in coverage_games():
                    names = tuple(f"{game_id}-{s}" for s in range(config.num_players))
                    spec = TableSpec(game_id, config, seed, names, FaultPolicy(decision_ms=5000))
                    result = await play_table(spec, [RemotePlayer(connection, n) for n in names])
                    logs = {s: bot_class.logs[(game_id, s)] for s in range(config.num_players)}
                    out[game_id] = PlayedGame(spec, result, logs)
            finally:
                await connection.close()
        return out

    return asyncio.run(main())


def test_coverage_games_complete_without_faults(played: dict[str, PlayedGame]) -> None:
    for game in played.values():
        result = game.result
        assert result.faults == (), [f.to_dict() for f in result.faults]
        assert result.outcome.termination is Termination.TARGET_REACHED
        # every decision was answered by the bot itself (a substitute leaves no latency)
        assert sum(len(seat) for seat in result.latencies_ms) == result.decisions
        assert sum(len(log.views) for log in game.logs.values()) == result.decisions


EXPECTED_KINDS = {
    Variant.CALL_ACE: {"JOKER_NAME", "BID_ROUND_1", "BID_ROUND_2", "DISCARD", "CALL", "PLAY"},
    Variant.FIVE_HANDED: {
        "TWO_CHOICE",
        "EXPOSE_NAME",
        "BID_ROUND_1",
        "BID_ROUND_2",
        "DISCARD",
        "CALL",
        "PLAY",
    },
    Variant.CLASSIC: {"BID_ROUND_1", "BID_ROUND_2", "DISCARD", "CALL", "PLAY"},
}
EXPECTED_ACTIONS = {
    Variant.CALL_ACE: {
        "PASS",
        "ORDER_UP",
        "TAKE_UP",
        "NAME",
        "JOKER_NAME",
        "DISCARD",
        "CALL",
        "ALONE",
        "PLAY",
    },
    Variant.FIVE_HANDED: {
        *("PASS", "ORDER_UP", "TAKE_UP", "NAME", "BLIND_NAME", "EXPOSE", "EXPOSE_NAME"),
        *("DISCARD", "CALL", "ALONE", "PLAY"),
    },
    Variant.CLASSIC: {"PASS", "ORDER_UP", "TAKE_UP", "NAME", "DISCARD", "ALONE", "PARTNER", "PLAY"},
}


def test_every_decision_kind_of_every_variant_reaches_the_bot(played: dict[str, PlayedGame]) -> None:
    kinds: dict[Variant, set[str]] = defaultdict(set)
    chosen: dict[Variant, set[str]] = defaultdict(set)
    texts: set[str] = set()
    for game in played.values():
        variant = game.spec.config.variant
        for log in game.logs.values():
            for view, action in zip(log.views, log.chosen, strict=True):
                kinds[variant].add(view.phase.name)
                assert action in view.legal_actions
                assert view.is_my_turn and view.legal_actions
                assert view.blind == (view.phase in (Phase.TWO_CHOICE, Phase.JOKER_NAME, Phase.EXPOSE_NAME))
                chosen[variant].add(action.kind.value)
                texts.add(str(action))
                texts.update(str(c) for c in view.hand or ())
    assert dict(kinds) == EXPECTED_KINDS
    assert dict(chosen) == EXPECTED_ACTIONS
    assert "NAME(NT)" in texts, "No-Trumps was named"
    assert "JKR" in texts, "the Joker travelled as a card"
    assert {"2S", "2H"} & texts, "a five-handed two travelled as a card"
    fh_expose = [v for log in played["fh-expose"].logs.values() for v in log.views if v.exposed_card]
    assert fh_expose, "an exposed card reached the bots"


def replay(game: PlayedGame) -> tuple[GameState, list[list[View]], list[list[News]], list[list[int]]]:
    """The game again, with the engine alone, from its seed and the actions of its hand records.

    Per seat: the views at its decisions, all its events, and how many events preceded each decision.
    """
    spec = game.spec
    n = spec.config.num_players
    state = GameState(spec.config, seed=spec.seed)
    views: list[list[View]] = [[] for _ in range(n)]
    events: list[list[News]] = [list(opening_news(state, s)) for s in range(n)]
    counts: list[list[int]] = [[] for _ in range(n)]
    for hand in game.result.hands:
        for entry in hand["actions"]:
            seat = state.current_player()
            assert seat == entry["seat"]
            views[seat].append(build_view(state, seat))
            counts[seat].append(len(events[seat]))
            before = mark(state)
            state.apply(parse_action_id(entry["action"]))
            for s in range(n):
                events[s].extend(news_since(state, before, s))
    assert state.is_terminal()
    return state, views, events, counts


def test_views_over_the_wire_equal_the_engines_views(played: dict[str, PlayedGame]) -> None:
    for game_id, game in played.items():
        state, views, _, _ = replay(game)
        assert tuple(state.scores) == game.result.scores
        for seat, log in game.logs.items():
            assert len(log.views) == len(views[seat]), (game_id, seat)
            for i, (got, expected) in enumerate(zip(log.views, views[seat], strict=True)):
                assert got == expected, f"{game_id} seat {seat} decision {i}: {view_diff(got, expected)}"


def test_events_arrive_in_order_before_each_decision_and_game_over_last(
    played: dict[str, PlayedGame],
) -> None:
    for game_id, game in played.items():
        _, _, events, counts = replay(game)
        result = game.result
        for seat, log in game.logs.items():
            where = f"{game_id} seat {seat}"
            # exactly the engine's events for this seat, in order, and each decision after all earlier events
            assert log.events == events[seat], where
            assert log.events_before_decision == counts[seat], where
            assert isinstance(log.events[0], HandStarted) and isinstance(log.events[-1], HandEnded), where
            assert log.timeline[0] == "start" and log.timeline[-1] == "over", where
            assert log.timeline.count("over") == 1, where
            # GameStart
            info = log.game
            assert (info.game_id, info.seat, info.config) == (game_id, seat, game.spec.config), where
            assert info.seat_names == game.spec.seat_names and not info.resumed, where
            assert info.decision_time_ms == 5000, where
            # GameOver
            assert log.result is not None, where
            assert log.result.scores == result.scores and log.result.ranks == result.ranks, where
            assert log.result.winners == result.winners, where
            assert (log.result.termination, log.result.forfeited) == ("target_reached", ()), where
            assert log.scores_at_end == result.scores, f"{where}: the events add up to the final scores"


def test_a_bot_following_the_events_alone_knows_what_each_view_says(played: dict[str, PlayedGame]) -> None:
    mismatches = [
        f"{gid} seat {s}: {m}"
        for gid, g in played.items()
        for s, log in g.logs.items()
        for m in log.mismatches
    ]
    assert mismatches == [], "\n".join(mismatches[:20])
    assert sum(len(log.views) for g in played.values() for log in g.logs.values()) > 1000


# ---------------------------------------------------------------------------------------------- concurrency


def test_one_bot_process_serves_twenty_games_at_once(tmp_path: Path) -> None:
    configs = [
        GameConfig.create("five-handed"),
        GameConfig.create("call-ace"),
        GameConfig.create("classic"),
        GameConfig.create("call-ace", num_players=7, use_joker=True),
        GameConfig.create("call-ace", num_players=4, allow_no_trump=True),
    ]
    bot = sample_bot("random", tmp_path)

    async def main() -> tuple[list[TableResult], float]:
        async with launched(bot) as address:
            connection = BotConnection(address)
            try:
                await connection.hello()
                specs = []
                for t in range(20):
                    config = configs[t % len(configs)]
                    names = tuple(f"t{t}-s{s}" for s in range(config.num_players))
                    specs.append(TableSpec(f"t{t}", config, 100 + t, names, FaultPolicy(decision_ms=5000)))
                loop = asyncio.get_running_loop()
                started = loop.time()
                results = await asyncio.gather(
                    *(
                        play_table(spec, [RemotePlayer(connection, n) for n in spec.seat_names])
                        for spec in specs
                    )
                )
                wall = loop.time() - started
                assert bot.alive() and bot.starts == 1
            finally:
                await connection.close()
        return results, wall

    results, wall = asyncio.run(main())
    assert len(results) == 20
    for result in results:
        assert result.faults == (), [f.to_dict() for f in result.faults]
        assert result.forfeited == ()
        assert result.outcome.termination is Termination.TARGET_REACHED
        assert sum(len(seat) for seat in result.latencies_ms) == result.decisions > 0
    assert sum(r.wall_s for r in results) > 3 * wall, "the games ran at the same time"


# ------------------------------------------------------------------------------------------- a thinking game


@pytest.mark.parametrize("loop", ["auto", "asyncio"])
def test_a_thinking_game_holds_up_neither_other_games_nor_the_health_check(loop: str) -> None:
    """One stream's plain ``def act`` spins for seconds (``tests/bots/thinker.py``, a real process) while
    another stream of the same process asks for 30 decisions and the health check is asked each time:
    all of them are answered before the thinking game's reply. No timing threshold: only the order.
    ``auto`` runs the bot on uvloop when it is installed (it is in the test extra)."""
    config = GameConfig.create("five-handed")
    state = GameState(config, seed=3)
    view = build_view(state, state.current_player())
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "bots" / "thinker.py"), "--port", "0", "--loop", loop],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        address = proc.stdout.readline().split()[-1]

        def start(game_id: str) -> pb.ArenaMessage:
            return pb.ArenaMessage(
                game_start=pb.GameStart(
                    game_id=game_id,
                    config=convert.config_to_pb(config),
                    seat=view.seat,
                    decision_time_ms=60_000,
                )
            )

        async def main() -> list[str]:
            order: list[str] = []
            async with grpc.aio.insecure_channel(address) as channel:
                stub = pb_grpc.PlayerStub(channel)
                health_stub = health_pb2_grpc.HealthStub(channel)
                thinking = stub.PlayGame()
                await thinking.write(start("think-1"))
                await thinking.write(convert.decision_request(view, 1, 60_000, 0))

                async def think() -> None:
                    reply = await thinking.read()
                    assert reply.decision.decision_id == 1
                    order.append("thought")

                thought = asyncio.create_task(think())
                quick = stub.PlayGame()
                await quick.write(start("quick-1"))
                for i in range(30):
                    await quick.write(convert.decision_request(view, 1 + i, 60_000, 0))
                    reply = await asyncio.wait_for(quick.read(), 30)
                    assert reply.decision.decision_id == 1 + i
                    order.append("quick")
                    status = await health_stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=30)
                    assert status.status == health_pb2.HealthCheckResponse.SERVING
                    order.append("health")
                await quick.done_writing()
                await asyncio.wait_for(thought, 60)
                await thinking.done_writing()
            return order

        order = asyncio.run(main())
    finally:
        proc.terminate()
        proc.wait(10)
    assert order == ["quick", "health"] * 30 + ["thought"]


def test_loop_factory_picks_uvloop_when_installed_and_asyncio_on_request() -> None:
    assert loop_factory("asyncio") is None
    try:
        import uvloop
    except ImportError:
        assert loop_factory("auto") is None
        with pytest.raises(SystemExit, match="not installed"):
            loop_factory("uvloop")
    else:
        for choice in ("auto", "uvloop"):
            factory = loop_factory(choice)
            assert factory is not None
            loop = factory()
            try:
                assert isinstance(loop, uvloop.Loop)
            finally:
                loop.close()
