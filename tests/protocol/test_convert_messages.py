"""The messages of the handshake and of a stream's start and end, as ``convert`` builds and reads them.

These were built by hand in ``arena/players/remote.py`` and ``arena/bot.py``; the references below are
those hand-built messages, so the bytes the arena and the SDK send are the same as before, and each
reader gives back the value its builder was given.
"""

from __future__ import annotations

import dataclasses

import pytest

from arena import __version__
from arena.engine import Action, GameConfig, Variant
from arena.engine.actions import ACTIONS
from arena.gameinfo import GameInfo, GameResult
from arena.protocol import PROTOCOL_VERSION, convert
from arena.protocol.v1 import player_pb2 as pb

INFOS = [
    GameInfo("r003-t01", GameConfig.create("five-handed"), 2, ("a", "b", "c", "d", "e"), 1000, 0),
    GameInfo(
        "g", GameConfig.create("call-ace", num_players=7, use_joker=True), 6, tuple("abcdefg"), 250, 9000
    ),
    GameInfo("", GameConfig.create("classic", target=5), 0, ("x", "", "y", "z"), 1, 1 << 20),
]
RESULTS = [
    GameResult((10, 3, -2, 4, 0), (1, 3, 5, 2, 4), (0,), "target_reached", ()),
    GameResult((4, 4, 1, 0), (1, 1, 3, 4), (0, 2), "max_hands", (3,)),
    GameResult((0, 0, 0, 0, 0), (1, 1, 1, 1, 1), (), "aborted", (1, 4)),
]


@pytest.mark.parametrize("resumed", [False, True])
@pytest.mark.parametrize("info", INFOS, ids=lambda i: i.config.variant.value)
def test_game_start_is_the_message_built_by_hand_and_reads_back(info: GameInfo, resumed: bool) -> None:
    by_hand = pb.ArenaMessage(
        game_start=pb.GameStart(
            game_id=info.game_id,
            config=convert.config_to_pb(info.config),
            seat=info.seat,
            seats=[pb.SeatInfo(seat=i, name=n) for i, n in enumerate(info.seat_names)],
            decision_time_ms=info.decision_time_ms,
            time_bank_ms=info.time_bank_ms,
            resumed=resumed,
        )
    )
    message = convert.game_start(info, resumed)
    assert message.SerializeToString() == by_hand.SerializeToString()
    assert convert.game_info_from_pb(message.game_start) == dataclasses.replace(info, resumed=resumed)


def test_game_info_ignores_a_seat_number_past_the_list() -> None:
    msg = pb.GameStart(
        config=convert.config_to_pb(GameConfig.create("classic")), seats=[pb.SeatInfo(seat=9, name="x")]
    )
    assert convert.game_info_from_pb(msg).seat_names == ("",)


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: r.termination)
def test_game_over_is_the_message_built_by_hand_and_reads_back(result: GameResult) -> None:
    by_hand = pb.ArenaMessage(
        game_over=pb.GameOver(
            scores=result.scores,
            ranks=result.ranks,
            winners=result.winners,
            termination=result.termination,
            forfeited=result.forfeited,
        )
    )
    message = convert.game_over(result)
    assert message.SerializeToString() == by_hand.SerializeToString()
    assert convert.game_result_from_pb(message.game_over) == result


def test_hello_request_and_response_are_the_messages_built_by_hand() -> None:
    request = pb.HelloRequest(
        protocol_version=PROTOCOL_VERSION, arena_name="euchre-arena", arena_version=__version__
    )
    assert convert.hello_request(__version__).SerializeToString() == request.SerializeToString()
    response = pb.HelloResponse(
        protocol_version=PROTOCOL_VERSION,
        name="n",
        author="a",
        version="7",
        variants=[convert.variant_to_pb(v) for v in (Variant.CLASSIC, Variant.CALL_ACE)],
    )
    got = convert.hello_response("n", "a", "7", (Variant.CLASSIC, Variant.CALL_ACE))
    assert got.SerializeToString() == response.SerializeToString()
    assert convert.variants_from_pb(got.variants) == (Variant.CLASSIC, Variant.CALL_ACE)


def test_variants_from_a_later_protocol_revision_are_skipped() -> None:
    assert convert.variants_from_pb([3, 99, 2, 0]) == (Variant.CLASSIC, Variant.FIVE_HANDED)


@pytest.mark.parametrize("action", [ACTIONS[0], ACTIONS[len(ACTIONS) // 2], ACTIONS[-1]], ids=str)
def test_a_decision_reply_is_the_message_built_by_hand(action: Action) -> None:
    by_hand = pb.BotMessage(decision=pb.Decision(decision_id=12345, action=convert.action_to_pb(action)))
    for _ in range(2):  # the second reply of the same action comes from the cache
        reply = convert.decision_reply(12345, action)
        assert reply.SerializeToString() == by_hand.SerializeToString()
        assert convert.action_from_pb(reply.decision.action) == action
