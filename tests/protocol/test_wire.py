"""``wire.RequestEncoder`` against the reference built field by field, for every decision kind and option set.

``tests/protocol/test_request_encoding.py`` plays random games in a few configurations; here every rule
option of every variant and player count is set away from its default once, and the run must have met every
decision kind and every action kind, so that no part of a view a rule adds can be encoded wrongly unseen.
The values past the encoder's tables (seats, decision ids, lengths, a current trick with a winner) take
its general paths; they are checked on views made to need them.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from arena.engine import GameConfig, GameState, View, build_view
from arena.engine.actions import ActionKind
from arena.engine.config import _BOOLS, _CHOICES, OPTIONS_BY_VARIANT, PLAYERS_BY_VARIANT, Variant
from arena.engine.news import News, mark, news_for_seats, opening_news
from arena.engine.state import Phase
from arena.engine.views import Play, TrickView
from arena.errors import ConfigError
from arena.protocol import convert
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.wire import RequestEncoder, event_bytes


def reference(
    view: View, events: list[News], decision_id: int, time_ms: int, bank_ms: int
) -> pb.ArenaMessage:
    """The request as a message built field by field (``convert.decision_request``), events in front."""
    message = convert.decision_request(view, decision_id, time_ms, bank_ms)
    message.events.extend(convert.event_to_pb(e) for e in events)
    return message


def option_sets() -> Iterator[GameConfig]:
    """Every variant at every player count with its defaults, then with each option moved off its
    default in turn (each other choice, the other truth value, small and large numbers)."""
    for variant in Variant:
        lo, hi, _ = PLAYERS_BY_VARIANT[variant]
        for n in range(lo, hi + 1):
            base = GameConfig.create(variant, num_players=n)
            yield base
            for key in OPTIONS_BY_VARIANT[variant]:
                if key in _BOOLS:
                    values: list[object] = [not getattr(base, key)]
                elif key in _CHOICES:
                    values = [c for c in _CHOICES[key] if c != getattr(base, key)]
                elif key == "first_dealer":
                    values = [n - 1]
                elif key == "target":
                    values = [1, 5]
                else:  # max_hands
                    values = [1, 3]
                for value in values:
                    try:
                        yield GameConfig.create(variant, num_players=n, **{key: value})
                    except ConfigError:
                        continue  # a combination the rules exclude (use_joker with allow_no_trump)


OPTION_SETS = list(option_sets())


def play(config: GameConfig, seed: int, seen: set[object]) -> None:
    """One random game, one encoder per seat as a ``RemotePlayer`` keeps it; every request's bytes must
    parse to the reference. Notes the decision kinds and action kinds met in ``seen``."""
    state = GameState(config, seed=seed)
    rng = random.Random(seed)
    n = config.num_players
    encoders = [RequestEncoder() for _ in range(n)]
    pending: list[list[News]] = [list(opening_news(state, s)) for s in range(n)]
    decision_id = 0
    while not state.is_terminal():
        seat = state.current_player()
        view = build_view(state, seat)
        decision_id += 1
        time_ms, bank_ms = rng.choice([(1000, 0), (250, 4000)])
        got = encoders[seat].encode(
            view, decision_id, time_ms, bank_ms, [event_bytes(e) for e in pending[seat]]
        )
        expected = reference(view, pending[seat], decision_id, time_ms, bank_ms)
        assert pb.ArenaMessage.FromString(got) == expected, (config, seed, decision_id, view.phase.name)
        seen.add(view.phase)
        seen.update(a.kind for a in view.legal_actions)
        pending[seat] = []
        before = mark(state)
        state.apply(rng.choice(state.legal_actions()))
        for s, events in enumerate(news_for_seats(state, before)):
            pending[s].extend(events)


def test_option_sets_cover_every_option_of_every_variant() -> None:
    """The list above is what it claims: each option of each variant is off its default somewhere."""
    moved = {
        (c.variant, key)
        for c in OPTION_SETS
        for key in OPTIONS_BY_VARIANT[c.variant]
        if getattr(c, key) != getattr(GameConfig.create(c.variant, num_players=c.num_players), key)
    }
    assert moved == {(v, key) for v in Variant for key in OPTIONS_BY_VARIANT[v]}


def option_id(config: GameConfig) -> str:
    base = GameConfig.create(config.variant, num_players=config.num_players).to_dict()
    moved = [f"{k}={v}" for k, v in config.to_dict().items() if base[k] != v]
    return "-".join([config.variant.value, str(config.num_players), *moved])


@pytest.mark.parametrize("config", OPTION_SETS, ids=option_id)
def test_encoded_requests_equal_the_reference_for_every_option_set(config: GameConfig) -> None:
    play(config, 0, set())


def test_the_games_meet_every_decision_kind_and_every_action_kind() -> None:
    seen: set[object] = set()
    for i, config in enumerate(OPTION_SETS):
        play(config, 1000 + i, seen)
    kinds = {p for p in Phase if p is not Phase.GAME_OVER}
    assert kinds <= seen, f"decision kinds never met: {sorted(p.name for p in kinds - seen)}"
    assert set(ActionKind) <= seen, f"action kinds never met: {set(ActionKind) - seen}"


def some_views() -> list[View]:
    """Views of the play phase (a current trick in progress) and of bidding, from one game."""
    state = GameState(GameConfig.create("five-handed"), seed=3)
    rng = random.Random(3)
    views: list[View] = []
    while not state.is_terminal() and len(views) < 60:
        views.append(build_view(state, state.current_player()))
        state.apply(rng.choice(state.legal_actions()))
    assert any(v.current_trick is not None and v.current_trick.plays for v in views)
    return views


BIG = 70  # past the encoder's per-value tables (64 seats, hand numbers, ...)


@pytest.mark.parametrize(
    "change",
    [
        {"seat": BIG},
        {"hand_index": BIG},
        {"dealer": BIG},
        {"to_act": BIG},
        {"maker": BIG},
        {"partner": BIG},
        {"sitting_out": BIG},
        {"scores": (BIG * 1000, -BIG, 0, 3, 1 << 30)},
        {"to_act": -1},  # the game is over: on the wire as 0
    ],
    ids=lambda c: "{}={}".format(*next(iter(c.items()))),
)
def test_values_past_the_tables_are_encoded_exactly(change: dict[str, object]) -> None:
    for view in some_views()[::7]:
        changed = dataclasses.replace(view, **change)  # type: ignore[arg-type]
        encoded = RequestEncoder().encode(changed, 1, 1000, 0)
        assert pb.ArenaMessage.FromString(encoded) == reference(changed, [], 1, 1000, 0)


def test_a_current_trick_with_a_winner_or_a_far_seat_is_encoded_exactly() -> None:
    view = next(v for v in some_views() if v.current_trick is not None and v.current_trick.plays)
    trick = view.current_trick
    assert trick is not None
    for odd in (
        TrickView(trick.leader, trick.plays, trick.plays[0].seat),
        TrickView(BIG, trick.plays, None),
        TrickView(trick.leader, (*trick.plays, Play(BIG, trick.plays[0].card)), None),
    ):
        changed = dataclasses.replace(view, current_trick=odd)
        encoded = RequestEncoder().encode(changed, 1, 1000, 0)
        assert pb.ArenaMessage.FromString(encoded) == reference(changed, [], 1, 1000, 0)


@pytest.mark.parametrize("decision_id", [0, 1, 1023, 1024, 1 << 20, (1 << 32) - 1])
def test_decision_ids_past_the_table_are_encoded_exactly(decision_id: int) -> None:
    encoder = RequestEncoder()
    for view in some_views()[:10]:
        encoded = encoder.encode(view, decision_id, 1000, 0)
        assert pb.ArenaMessage.FromString(encoded) == reference(view, [], decision_id, 1000, 0)


def test_a_request_longer_than_the_short_length_table_is_encoded_exactly() -> None:
    """A view whose history runs past 2047 bytes takes the long length prefix for the view and request."""
    view = some_views()[-1]
    entry = view.history[0]
    long = dataclasses.replace(view, history=(entry,) * 600)
    encoded = RequestEncoder().encode(long, 5, 1000, 0)
    assert len(encoded) > 1 << 11
    assert pb.ArenaMessage.FromString(encoded) == reference(long, [], 5, 1000, 0)
