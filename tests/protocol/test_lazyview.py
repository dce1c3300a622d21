"""The SDK's lazily decoded ``View`` equals the engine's eager one, field by field, and is as immutable.

Views come from seeded random games of every variant (and a few option sets): the engine builds the view
(``build_view``), the arena encodes it as it does on a real stream (``RequestEncoder``, the bytes a bot
receives), the SDK decodes it lazily. Fields are read in a random order, since the lazy view decodes some
of them in groups and shares history and tricks between the views of one stream.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random

import pytest

from arena.engine import GameConfig, GameState, View, build_view
from arena.errors import NotationError
from arena.protocol.lazyview import LazyView, LazyViewDecoder
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.wire import RequestEncoder

FIELDS = [f.name for f in dataclasses.fields(View)]
PROPERTIES = ["num_players", "is_my_turn", "blind", "led_suit"]
CONFIGS = [
    GameConfig.create("five-handed"),
    GameConfig.create("call-ace"),
    GameConfig.create("classic"),
    GameConfig.create("call-ace", num_players=7, use_joker=True),
    GameConfig.create("call-ace", num_players=4, allow_no_trump=True),
]


def games(config: GameConfig, seeds: range) -> list[list[View]]:
    """Per game and seat, the views of that seat's decisions in order (what one stream carries), plus
    a view of a seat not on turn after every decision (legal actions empty)."""
    streams: list[list[View]] = []
    for seed in seeds:
        rng = random.Random(seed)
        state = GameState(config, seed=seed)
        per_seat: list[list[View]] = [[] for _ in range(config.num_players)]
        watcher: list[View] = []
        while not state.is_terminal():
            seat = state.current_player()
            per_seat[seat].append(build_view(state, seat))
            watcher.append(build_view(state, (seat + 1) % config.num_players))
            state.apply(rng.choice(state.legal_actions()))
        streams.extend(per_seat)
        streams.append(watcher)
    return streams


def wire(views: list[View]) -> list[pb.DecisionRequest]:
    """The requests one stream carries, parsed from the bytes the arena writes."""
    encoder = RequestEncoder()
    return [
        pb.ArenaMessage.FromString(encoder.encode(view, 1 + i, 1000, 0)).decision_request
        for i, view in enumerate(views)
    ]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.variant.value}-{c.num_players}")
def test_lazy_views_equal_the_engines_views_field_by_field(config: GameConfig) -> None:
    rng = random.Random(7)
    checked = 0
    for stream in games(config, range(4)):
        decoder = LazyViewDecoder()
        for expected, request in zip(stream, wire(stream), strict=True):
            got = decoder.decode(request)
            assert isinstance(got, View) and isinstance(got, LazyView)
            for name in rng.sample(FIELDS + PROPERTIES, len(FIELDS) + len(PROPERTIES)):
                assert getattr(got, name) == getattr(expected, name), (name, expected)
            assert got.played_cards() == expected.played_cards()
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("config", CONFIGS[:3], ids=lambda c: c.variant.value)
def test_equality_hash_and_repr_match_the_eager_view_before_any_field_is_read(config: GameConfig) -> None:
    for stream in games(config, range(2)):
        decoder = LazyViewDecoder()
        for expected, request in zip(stream, wire(stream), strict=True):
            got = decoder.decode(request)
            assert got == expected and expected == got
            assert not got != expected  # noqa: SIM202 (__ne__ is what is tested)
            assert hash(decoder.decode(request)) == hash(expected)
            assert repr(decoder.decode(request)) == repr(expected)
            assert got in {expected} and expected in {got}


def test_views_read_late_and_out_of_order_are_still_right() -> None:
    """A bot may keep views and read them later, in any order, from any hand: the shared history and
    tricks must never leak from one view into another."""
    config = CONFIGS[0]
    rng = random.Random(3)
    for stream in games(config, range(3)):
        decoder = LazyViewDecoder()
        lazy = [decoder.decode(r) for r in wire(stream)]
        order = list(range(len(lazy)))
        rng.shuffle(order)
        for i in order:
            assert lazy[i].history == stream[i].history
            assert lazy[i].tricks == stream[i].tricks


def test_the_lazy_view_is_immutable_before_and_after_decoding() -> None:
    view = build_view(GameState(CONFIGS[0], seed=5), 1)
    request = wire([view])[0]
    for read_first in (False, True):
        got = LazyViewDecoder().decode(request)
        if read_first:
            got.materialize()
        for name in [*FIELDS, "_request", "_decoder", "anything"]:
            with pytest.raises((dataclasses.FrozenInstanceError, AttributeError)):
                setattr(got, name, None)
            with pytest.raises((dataclasses.FrozenInstanceError, AttributeError)):
                delattr(got, name)
        assert not hasattr(got, "__dict__")
        assert got == view


def test_copies_pickles_and_replace_give_equal_views() -> None:
    view = build_view(GameState(CONFIGS[1], seed=9), 0)
    got = LazyViewDecoder().decode(wire([view])[0])
    assert copy.copy(got) == view
    assert copy.deepcopy(got) == view
    assert pickle.loads(pickle.dumps(got)) == view
    assert dataclasses.replace(got, seat=3) == dataclasses.replace(view, seat=3)
    assert dataclasses.asdict(got) == dataclasses.asdict(view)


def test_decoding_errors_name_the_field_when_it_is_read() -> None:
    view = build_view(GameState(CONFIGS[0], seed=5), 1)
    request = wire([view])[0]
    request.kind = 99
    with pytest.raises(NotationError, match="decision kind"):
        LazyViewDecoder().decode(request)
    request = wire([view])[0]
    request.view.up_card = "ZZ"
    got = LazyViewDecoder().decode(request)
    assert got.legal_actions == view.legal_actions  # the other fields still decode
    with pytest.raises(NotationError, match="ZZ"):
        _ = got.up_card
