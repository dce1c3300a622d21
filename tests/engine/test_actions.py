"""The flat action space and its text form (RULES.md section 8)."""

from __future__ import annotations

import pytest

from arena.engine import (
    ACTIONS,
    Action,
    ActionKind,
    Card,
    GameConfig,
    Trump,
    action_to_string,
    parse_action_id,
)
from arena.engine.actions import NUM_ACTIONS
from arena.errors import IllegalActionError, NotationError
from tests.engine.helpers import legal, new_state, play


def test_every_action_id_round_trips_through_its_text():
    assert len(ACTIONS) == NUM_ACTIONS
    texts = [action_to_string(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS
    for a, text in enumerate(texts):
        assert parse_action_id(text) == a
        assert Action.parse(text).id == a
        assert str(ACTIONS[a]) == text


@pytest.mark.parametrize(
    "text",
    [
        "PASS",
        "ORDER_UP",
        "TAKE_UP",
        "NAME(H)",
        "NAME(NT)",
        "JOKER_NAME(S)",
        "BLIND_NAME(D)",
        "EXPOSE",
        "EXPOSE_NAME(C)",
        "DISCARD(9C)",
        "ALONE",
        "CALL(AS)",
        "PARTNER",
        "PLAY(JH)",
        "PLAY(2S)",
        "PLAY(JKR)",
        "CALL(2H)",
    ],
)
def test_section_8_vocabulary_parses_and_prints_back(text):
    action = Action.parse(text)
    assert str(action) == text
    assert action_to_string(parse_action_id(text)) == text


def test_action_fields():
    assert Action.parse("PLAY(JH)") == Action(ActionKind.PLAY, card=Card.parse("JH"))
    assert Action.parse("NAME(NT)") == Action(ActionKind.NAME, trump=Trump.NO_TRUMP)
    assert Action.parse("EXPOSE_NAME(C)").trump is Trump.CLUBS
    assert Action.parse("ALONE").card is None and Action.parse("ALONE").trump is None


@pytest.mark.parametrize(
    "junk",
    [
        "ZZ",
        "",
        "pass",
        "PLAY(XX)",
        "PLAY",
        "PLAY()",
        "PLAY(JH",
        "PASS(JH)",
        "NAME(X)",
        "NAME",
        "JOKER_NAME(NT)",
        "BLIND_NAME(NT)",
        "EXPOSE_NAME(NT)",
        "CALL(10S)",
        "DISCARD(JK)",
        "ORDER UP",
        "NAME(H) ",
        "FOLD",
    ],
)
def test_junk_action_text_raises_notation_error_naming_it(junk):
    with pytest.raises(NotationError) as info:
        parse_action_id(junk)
    arg = junk[junk.index("(") + 1 : -1] if "(" in junk and junk.endswith(")") else None
    assert repr(junk) in str(info.value) or (arg is not None and repr(arg) in str(info.value))
    with pytest.raises(NotationError):
        Action.parse(junk)


def test_non_string_action_raises_notation_error():
    with pytest.raises(NotationError):
        parse_action_id(None)  # type: ignore[arg-type]
    with pytest.raises(NotationError):
        parse_action_id(117)  # type: ignore[arg-type]


def test_section_8_illegal_action_raises_naming_action_and_legal_ones():
    state = new_state(GameConfig.create("call-ace"), up="9H")
    assert legal(state) == ["PASS", "ORDER_UP"]
    with pytest.raises(IllegalActionError) as info:
        play(state, "TAKE_UP")  # only the dealer may take up
    message = str(info.value)
    assert "TAKE_UP" in message
    assert "PASS" in message and "ORDER_UP" in message
    # nothing changed: still seat 1's first bid
    assert state.current_player() == 1 and legal(state) == ["PASS", "ORDER_UP"]
    with pytest.raises(IllegalActionError, match=r"NAME\(S\)"):
        play(state, "NAME(S)")
    with pytest.raises(IllegalActionError, match=r"PLAY\(JH\)"):
        play(state, "PLAY(JH)")


def test_section_8_illegal_play_raises_naming_card_and_legal_cards():
    state = new_state(
        GameConfig.create("call-ace"),
        hands={1: "JH JD AH KH QH", 2: "8C 9C TC JC QC", 3: "AS KS QS JS TS", 4: "9S 8S AD KD QD"},
        up="9H",
    )
    play(state, "ORDER_UP", "DISCARD(9H)", "CALL(AS)", "PLAY(JH)")
    with pytest.raises(IllegalActionError) as info:
        play(state, "PLAY(AS)")  # seat 2 does not hold A♠
    assert "PLAY(AS)" in str(info.value)
    for card in ("8C", "9C", "TC", "JC", "QC"):
        assert f"PLAY({card})" in str(info.value)


def test_section_8_legal_actions_are_ascending_ids():
    config = GameConfig.create("call-ace", allow_no_trump=True)
    state = new_state(config, up="9H")
    play(state, *["PASS"] * 5)
    ids = state.legal_actions()
    assert ids == sorted(ids)
    assert legal(state) == ["PASS", "NAME(C)", "NAME(D)", "NAME(S)", "NAME(NT)"]
