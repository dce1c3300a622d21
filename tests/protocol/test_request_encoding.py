"""The arena's fast request encoder (``wire.RequestEncoder``) against the reference ``decision_request``.

The arena sends decision requests as bytes it assembles from parts encoded once (the config, the history,
the completed tricks). These tests hold it to the message built field by field by ``decision_request``:
for every decision of whole random games, in every variant, the bytes must parse to exactly that message
(with the queued events in front). One encoder per seat per game, as ``RemotePlayer`` keeps it, so the
reuse across decisions and hands is what is tested.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import GameConfig, GameState, build_view
from arena.engine.news import News, mark, news_for_seats, opening_news
from arena.protocol import convert, wire
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.wire import RequestEncoder, event_bytes

CONFIGS = [
    GameConfig.create("five-handed"),
    GameConfig.create("five-handed", deck="29", joker_names=True, call_may_be_trump=True),
    GameConfig.create("call-ace"),
    GameConfig.create("call-ace", num_players=4, use_joker=True, may_discard_upcard=False),
    GameConfig.create("call-ace", num_players=6, allow_no_trump=True, stick_the_dealer=True),
    GameConfig.create("call-ace", num_players=7, target=5),
    GameConfig.create("classic"),
    GameConfig.create("classic", stick_the_dealer=True, target=5),
]


def reference(
    view: object, events: list[News], decision_id: int, time_ms: int, bank_ms: int
) -> pb.ArenaMessage:
    message = convert.decision_request(view, decision_id, time_ms, bank_ms)  # type: ignore[arg-type]
    message.events.extend(convert.event_to_pb(e) for e in events)
    return message


def check_game(config: GameConfig, seed: int) -> int:
    """Play one random game; compare every request's bytes with the reference. Returns the decisions."""
    state = GameState(config, seed=seed)
    rng = random.Random(seed)
    n = config.num_players
    encoders = [RequestEncoder() for _ in range(n)]
    pending: list[list[News]] = [list(opening_news(state, s)) for s in range(n)]
    decisions = 0
    while not state.is_terminal():
        seat = state.current_player()
        view = build_view(state, seat)
        decisions += 1
        time_ms, bank_ms = rng.choice([(1000, 0), (250, 4000), (1, 1 << 20)])
        got = encoders[seat].encode(
            view, decisions, time_ms, bank_ms, [event_bytes(e) for e in pending[seat]]
        )
        expected = reference(view, pending[seat], decisions, time_ms, bank_ms)
        assert pb.ArenaMessage.FromString(got) == expected, (
            f"seed {seed}, decision {decisions}: {view.phase.name} of seat {seat}"
        )
        pending[seat] = []
        before = mark(state)
        state.apply(rng.choice(state.legal_actions()))
        for s, events in enumerate(news_for_seats(state, before)):  # shared objects, as at a table
            pending[s].extend(events)
    return decisions


def test_encoded_requests_equal_the_reference_in_every_variant() -> None:
    total = 0
    for i, config in enumerate(CONFIGS):
        for seed in range(3):
            total += check_game(config, 100 * i + seed)
    assert total > 1000


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2**32 - 1))
def test_encoded_requests_equal_the_reference_for_any_seed(config: GameConfig, seed: int) -> None:
    check_game(config, seed)


def test_an_encoder_starts_afresh_when_a_view_does_not_continue_the_last() -> None:
    """Views of another seat, of another hand, or with less history than the last, are encoded whole."""
    config = CONFIGS[0]
    state = GameState(config, seed=7)
    rng = random.Random(7)
    views = []
    while not state.is_terminal() and state.hand_index < 3:
        views.append(build_view(state, state.current_player()))
        state.apply(rng.choice(state.legal_actions()))
    encoder = RequestEncoder()
    order = [*views, *reversed(views), *views[::3], *views[len(views) // 2 :]]
    for i, view in enumerate(order):
        expected = reference(view, [], i + 1, 1000, 0)
        assert pb.ArenaMessage.FromString(encoder.encode(view, i + 1, 1000, 0)) == expected, i


def test_length_prefixes_of_every_size_are_protobuf_varints() -> None:
    """Lengths past the precomputed table take the general path; both agree with protobuf's own."""
    for size in (1, 127, 128, 300, 2047, 2048, 16383, 16384, 70000, 3_000_000):
        message = pb.GameStart(game_id="x" * size).SerializeToString()
        assert message == b"\x0a" + wire._length_prefix(size) + b"x" * size
