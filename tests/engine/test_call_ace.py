"""Call-Ace Euchre (RULES.md CA-4 .. CA-8; checklist 6-8, 11-13)."""

from __future__ import annotations

import pytest

from arena.engine import GameConfig, GameState, Phase, UpCardFate, build_view
from arena.engine.scoring import Termination
from tests.engine.helpers import (
    CA5_EUCHRE,
    CA5_EUCHRE_TRICKS,
    CA5_EUCHRE_WINNERS,
    CA5_MADE,
    CA5_MADE_TRICKS,
    CA5_MARCH,
    CA5_MARCH_AD_IN_KITTY,
    CA5_MARCH_AD_IN_KITTY_TRICKS,
    CA5_MARCH_TRICKS,
    hand_of,
    legal,
    legal_cards,
    make_deck,
    new_state,
    play,
    play_tricks,
    texts,
)

CA5 = GameConfig.create("call-ace")


def ordered_up(deal: dict, call: str, config: GameConfig = CA5, discard: str = "8D", **kw) -> GameState:
    """Seat 1 orders up, the dealer (seat 0) discards, seat 1 calls."""
    state = new_state(config, hands=deal["hands"], up=deal["up"], rest=deal["rest"], **kw)
    play(state, "ORDER_UP", f"DISCARD({discard})", call)
    return state


# ----------------------------------------------------------------- CA-4 making trump (checklist 6)


def test_CA_4_2_joker_up_card_dealer_names_trump_blind_and_is_maker():
    config = GameConfig.create("call-ace", use_joker=True)
    state = new_state(config, hands={0: "AC AD KH QH 9S"}, up="JKR")
    assert state.current_phase is Phase.JOKER_NAME and state.current_player() == 0
    assert legal(state) == ["JOKER_NAME(C)", "JOKER_NAME(D)", "JOKER_NAME(H)", "JOKER_NAME(S)"]
    assert build_view(state, 0).hand is None
    play(state, "JOKER_NAME(H)")
    assert state.maker == 0 and state.trump == 2
    assert state.current_phase is Phase.DISCARD and state.current_player() == 0
    assert hand_of(state, 0) == sorted(["AC", "AD", "KH", "QH", "9S", "JKR"])
    assert legal(state) == [
        "DISCARD(AC)",
        "DISCARD(AD)",
        "DISCARD(QH)",
        "DISCARD(KH)",
        "DISCARD(9S)",
        "DISCARD(JKR)",
    ]
    play(state, "DISCARD(9S)")
    assert state.current_phase is Phase.CALL and state.current_player() == 0
    assert legal(state) == ["CALL(AS)", "ALONE"]  # A♣ A♦ held, A♥ is trump
    # no bidding took place
    assert [str(a) for _, a in build_view(state, 0).history] == ["JOKER_NAME(H)", "DISCARD(9S)"]


def test_CA_4_2_joker_name_any_suit_then_play_from_dealers_left():
    config = GameConfig.create("call-ace", use_joker=True)
    for suit in "CDHS":
        state = new_state(config, dealer=3, up="JKR")
        play(state, f"JOKER_NAME({suit})")
        assert state.maker == 3 and "CDHS"[state.trump] == suit
        play(state, f"DISCARD({hand_of(state, 3)[0]})", "ALONE")
        assert state.current_player() == 4


def test_CA_4_3_round_1_order_and_dealer_takes_up():
    state = new_state(CA5, dealer=2, up="9H")
    seen = []
    for _ in range(4):
        seen.append((state.current_player(), legal(state)))
        play(state, "PASS")
    assert seen == [(s, ["PASS", "ORDER_UP"]) for s in (3, 4, 0, 1)]
    assert state.current_player() == 2 and legal(state) == ["PASS", "TAKE_UP"]
    play(state, "TAKE_UP")
    assert state.maker == 2 and state.trump == 2  # hearts, the up-card's suit
    assert state.current_phase is Phase.DISCARD and state.current_player() == 2
    assert len(state.hands[2]) == 6 and "9H" in hand_of(state, 2)


def test_CA_4_3_first_order_up_ends_bidding_and_dealer_picks_up():
    state = new_state(CA5, up="9S")
    play(state, "PASS", "PASS", "ORDER_UP")  # seat 3 orders up
    assert state.maker == 3 and state.trump == 3
    assert state.current_phase is Phase.DISCARD and state.current_player() == 0
    assert "9S" in hand_of(state, 0) and len(state.hands[0]) == 6
    assert build_view(state, 4).up_card_fate is UpCardFate.TAKEN
    assert all(len(state.hands[s]) == 5 for s in (1, 2, 3, 4))


def test_CA_4_4_all_pass_round_1_turns_the_up_card_down():
    state = new_state(CA5, up="9S")
    play(state, *["PASS"] * 5)
    assert state.current_phase is Phase.BID_ROUND_2 and state.current_player() == 1
    assert state.up_card in state.kitty and len(state.hands[0]) == 5
    assert build_view(state, 2).up_card_fate is UpCardFate.TURNED_DOWN
    assert str(build_view(state, 2).up_card) == "9S"


def test_CA_4_5_round_2_names_any_other_suit_without_pick_up():
    state = new_state(CA5, dealer=1, up="9S")
    play(state, *["PASS"] * 5)
    assert state.current_player() == 2
    assert legal(state) == ["PASS", "NAME(C)", "NAME(D)", "NAME(H)"]
    play(state, "PASS", "PASS")
    assert state.current_player() == 4
    kitty = list(state.kitty)
    play(state, "NAME(D)")
    assert state.maker == 4 and state.trump == 1
    assert state.current_phase is Phase.CALL and state.current_player() == 4  # no discard
    assert state.kitty == kitty and all(len(h) == 5 for h in state.hands)
    assert state.discard == -1


def test_CA_4_5_round_2_dealer_may_name_last():
    state = new_state(CA5, dealer=1, up="9D")
    play(state, *["PASS"] * 9)
    assert state.current_player() == 1
    assert legal(state) == ["PASS", "NAME(C)", "NAME(H)", "NAME(S)"]
    play(state, "NAME(S)")
    assert state.maker == 1 and state.current_phase is Phase.CALL


def test_CA_4_6_all_pass_twice_throws_the_hand_in():
    state = new_state(CA5, up="9H", single_hand=False, scores=[1, 2, 3, 4, 5])
    play(state, *["PASS"] * 10)
    (result,) = state.results
    assert result.outcome.value == "thrown_in"
    assert result.maker == -1 and result.tricks == ()
    assert result.points == (0, 0, 0, 0, 0)
    assert state.scores == [1, 2, 3, 4, 5]
    assert not state.is_terminal() and state.outcome is None
    assert state.dealer == 1 and state.hand_index == 1 and state.current_player() == 2


def test_CA_4_6_stick_the_dealer_forbids_dealer_pass_in_round_2():
    config = GameConfig.create("call-ace", stick_the_dealer=True)
    state = new_state(config, up="9H")
    play(state, *["PASS"] * 5)
    for _ in range(4):
        assert "PASS" in legal(state)
        play(state, "PASS")
    assert state.current_player() == 0
    assert legal(state) == ["NAME(C)", "NAME(D)", "NAME(S)"]
    # round 1 is unaffected: the dealer may still turn the up-card down
    state = new_state(config, up="9H")
    play(state, *["PASS"] * 4)
    assert legal(state) == ["PASS", "TAKE_UP"]


def test_CA_4_7_no_trump_offered_only_in_round_2_and_only_with_the_flag():
    config = GameConfig.create("call-ace", allow_no_trump=True)
    state = new_state(config, up="9H")
    assert legal(state) == ["PASS", "ORDER_UP"]
    play(state, *["PASS"] * 5)
    assert legal(state) == ["PASS", "NAME(C)", "NAME(D)", "NAME(S)", "NAME(NT)"]
    plain = new_state(CA5, up="9H")
    play(plain, *["PASS"] * 5)
    assert "NAME(NT)" not in legal(plain)


NT_HANDS = {
    1: "JS 9H TH 8C 9C",
    2: "AC KC QC AD KD",
    3: "QS KH QH 8D 9D",
    4: "JC TC JD QD TD",
    0: "8S 9S JH AH 8H",
}


def nt_state() -> GameState:
    config = GameConfig.create("call-ace", allow_no_trump=True)
    state = new_state(config, hands=NT_HANDS, up="TS", rest="KS AS")
    play(state, *["PASS"] * 5, "NAME(NT)")
    return state


def test_CA_4_7_no_trump_maker_may_call_any_ace_he_lacks():
    state = nt_state()
    assert state.maker == 1 and state.trump == 4
    assert legal(state) == ["CALL(AC)", "CALL(AD)", "CALL(AH)", "CALL(AS)", "ALONE"]


def test_CA_4_7_no_trump_no_bowers_and_highest_of_led_suit_wins():
    state = nt_state()
    play(state, "CALL(AH)")
    assert state.partner == 0
    play(state, "PLAY(JS)")
    assert legal_cards(state) == sorted(["AC", "KC", "QC", "AD", "KD"])
    play(state, "PLAY(AC)")
    assert legal_cards(state) == ["QS"]
    play(state, "PLAY(QS)")
    assert legal_cards(state) == sorted(["JC", "TC", "JD", "QD", "TD"])  # J♣ is a club, not a spade
    play(state, "PLAY(JC)")
    assert legal_cards(state) == ["8S", "9S"]
    play(state, "PLAY(8S)")
    assert state.tricks[-1].winner == 3
    # seat 3 leads a heart: J♦ is a plain diamond (seat 4 is void in hearts), J♥ a plain heart
    play(state, "PLAY(KH)")
    assert legal_cards(state) == sorted(["TC", "JD", "QD", "TD"])
    play(state, "PLAY(JD)")
    assert legal_cards(state) == ["8H", "AH", "JH"]
    play(state, "PLAY(JH)")
    assert legal_cards(state) == ["9H", "TH"]
    play(state, "PLAY(TH)", "PLAY(AD)")
    assert state.tricks[-1].winner == 3  # K♥ beats J♥: no right bower in No-Trumps


NT_TRICKS = ["JS AC QS JC 8S", "KH TC AH 9H KC", "9S 8C QC 8D TD", "JH TH AD QH JD", "9D QD 8H 9C KD"]


def test_CA_4_7_no_trump_scoring_unchanged():
    state = nt_state()
    play(state, "ALONE")
    assert play_tricks(state, *NT_TRICKS) == [3, 0, 0, 3, 2]
    assert state.results[0].points == (2, 0, 2, 2, 2)  # lone maker euchred: the 4 others +2
    state = nt_state()
    play(state, "CALL(AH)")
    play_tricks(state, *NT_TRICKS)
    result = state.results[0]
    assert (result.partner, result.making_tricks, result.outcome.value) == (0, 2, "euchred")
    assert result.points == (0, 0, 2, 2, 2)  # the 3 defenders +2


# ----------------------------------------------------------------- CA-5 discard (checklist 7)


def test_CA_5_1_dealer_discards_one_of_six_any_card_by_default():
    state = new_state(CA5, **CA5_MARCH)
    play(state, "ORDER_UP")
    assert legal(state) == [
        "DISCARD(KC)",
        "DISCARD(AC)",
        "DISCARD(8D)",
        "DISCARD(9D)",
        "DISCARD(TD)",
        "DISCARD(9H)",
    ]
    play(state, "DISCARD(9H)")  # the up-card itself
    assert hand_of(state, 0) == sorted(["AC", "KC", "TD", "9D", "8D"])
    assert state.discard == state.up_card and state.up_card in state.kitty


def test_CA_5_1_may_discard_upcard_false_forbids_the_picked_up_card():
    config = GameConfig.create("call-ace", may_discard_upcard=False)
    state = new_state(config, **CA5_MARCH)
    play(state, "ORDER_UP")
    assert legal(state) == ["DISCARD(KC)", "DISCARD(AC)", "DISCARD(8D)", "DISCARD(9D)", "DISCARD(TD)"]
    with pytest.raises(Exception, match=r"DISCARD\(9H\)"):
        play(state, "DISCARD(9H)")


def test_CA_5_1_may_discard_upcard_false_also_for_the_joker():
    config = GameConfig.create("call-ace", use_joker=True, may_discard_upcard=False)
    state = new_state(config, hands={0: "AC AD KH QH 9S"}, up="JKR")
    play(state, "JOKER_NAME(S)")
    assert "DISCARD(JKR)" not in legal(state)
    assert len(legal(state)) == 5


def test_CA_5_2_discard_happens_before_the_call():
    state = new_state(CA5, **CA5_MARCH)
    play(state, "ORDER_UP")
    assert state.current_phase is Phase.DISCARD and state.current_player() == 0
    assert not any(a.startswith("CALL") or a == "ALONE" for a in legal(state))
    play(state, "DISCARD(8D)")
    assert state.current_phase is Phase.CALL and state.current_player() == 1


# ----------------------------------------------------------------- CA-6 calling (checklist 8)


def test_CA_6_1_call_any_non_trump_ace_not_in_own_hand_or_alone():
    state = new_state(CA5, **CA5_MARCH)
    play(state, "ORDER_UP", "DISCARD(8D)")
    assert legal(state) == ["CALL(AC)", "CALL(AD)", "CALL(AS)", "ALONE"]
    state = new_state(CA5, **CA5_MADE)  # maker holds no ace but the trump ace A♥
    play(state, "ORDER_UP", "DISCARD(8D)")
    assert legal(state) == ["CALL(AC)", "CALL(AD)", "CALL(AS)", "ALONE"]
    # own aces are excluded
    state = new_state(CA5, hands={1: "AC AD 9H 8C 8S"}, up="TH")
    play(state, "ORDER_UP", f"DISCARD({hand_of(state, 0)[0]})")
    assert legal(state) == ["CALL(AS)", "ALONE"]


def test_CA_6_2_calling_the_turned_down_up_card_ace_is_legal_and_leaves_no_partner():
    state = new_state(CA5, up="AS")
    play(state, *["PASS"] * 5, "NAME(H)")
    assert "CALL(AS)" in legal(state)
    play(state, "CALL(AS)")
    assert state.partner == -1 and not state.alone


def test_CA_6_2_dealer_maker_may_call_his_own_discard():
    state = new_state(CA5, hands={0: "AC 8D 9D TD KC"}, up="9H")
    play(state, *["PASS"] * 4, "TAKE_UP", "DISCARD(AC)")
    assert legal(state) == ["CALL(AC)", "CALL(AD)", "CALL(AS)", "ALONE"]
    play(state, "CALL(AC)")
    assert state.partner == -1 and not state.alone


def test_CA_6_3_maker_with_all_three_aces_must_go_alone():
    state = new_state(CA5, hands={1: "AC AD AS 9H 8C"}, up="TH")
    play(state, "ORDER_UP", f"DISCARD({hand_of(state, 0)[0]})")
    assert legal(state) == ["ALONE"]


def test_CA_6_3_with_all_three_aces_after_discard_dealer_must_go_alone():
    state = new_state(CA5, hands={0: "AC AD AS 8C 8D"}, up="TH")
    play(state, *["PASS"] * 4, "TAKE_UP", "DISCARD(8C)")
    assert legal(state) == ["ALONE"]


def test_CA_6_4_partner_is_the_holder_and_need_not_play_the_ace_early():
    state = ordered_up(CA5_MARCH, "CALL(AS)")
    assert state.partner == 3
    play(state, "PLAY(JH)", "PLAY(8C)")
    assert legal_cards(state) == sorted(["AS", "KS", "QS", "JS", "TS"])  # void in hearts: any card
    play(state, "PLAY(TS)")
    assert not state.partner_revealed and "AS" in hand_of(state, 3)


def test_CA_6_4_partner_fixed_at_start_of_play_dealer_holding_called_ace():
    state = ordered_up(CA5_MARCH, "CALL(AC)")  # A♣ is in the dealer's hand
    assert state.partner == 0


def test_CA_6_5_alone_declared_and_by_absence_score_identically():
    declared = ordered_up(CA5_MARCH_AD_IN_KITTY, "ALONE")
    absent = ordered_up(CA5_MARCH_AD_IN_KITTY, "CALL(AD)")
    assert declared.alone and not absent.alone and absent.partner == -1
    for state in (declared, absent):
        assert play_tricks(state, *CA5_MARCH_AD_IN_KITTY_TRICKS) == [1] * 5
    assert declared.results[0].points == absent.results[0].points == (0, 5, 0, 0, 0)
    made_declared = ordered_up(CA5_MADE, "ALONE")
    play_tricks(made_declared, *CA5_MADE_TRICKS)
    assert made_declared.results[0].points == (0, 2, 0, 0, 0)


# ----------------------------------------------------------------- CA-7 play


def test_CA_7_1_seven_players_each_trick_has_seven_cards_and_dealers_left_leads():
    config = GameConfig.create("call-ace", num_players=7)
    hands = {
        1: "JH JD AH KH QH",
        2: "AC KC QC JC TC",
        3: "AD KD QD TD 9D",
        4: "AS KS QS JS TS",
        5: "9C 8C 7C 6C 8D",
        6: "9S 8S 7S 6S 7D",
        0: "TH 9H 8H 7H 6D",
    }
    state = new_state(config, hands=hands, up="6H")
    play(state, "ORDER_UP", "DISCARD(6D)", "CALL(AS)")
    assert state.current_player() == 1 and state.partner == 4
    winners = play_tricks(
        state,
        "JH AC AD AS 9C 9S TH",
        "JD KC KD KS 8C 8S 9H",
        "AH QC QD QS 7C 7S 8H",
        "KH JC TD JS 6C 6S 7H",
        "QH TC 9D TS 8D 7D 6H",
    )
    assert winners == [1] * 5
    result = state.results[0]
    assert all(len(t.plays) == 7 for t in result.tricks)
    assert result.points == (0, 3, 0, 0, 3, 0, 0)  # partnership march with 7 players: +3 each


def test_CA_7_2_making_side_tricks_are_maker_plus_partner():
    state = ordered_up(CA5_MADE, "CALL(AC)")  # the dealer, who wins trick 4, is the partner
    assert play_tricks(state, *CA5_MADE_TRICKS) == [1, 1, 1, 0, 4]
    result = state.results[0]
    assert result.partner == 0 and result.making_tricks == 4
    assert result.outcome.value == "made"
    assert result.points == (1, 1, 0, 0, 0)


# ----------------------------------------------------------------- CA-8 scoring by play (checklist 11)


def test_CA_8_five_players_partnership_made_one_each():
    state = ordered_up(CA5_MADE, "CALL(AS)")
    assert play_tricks(state, *CA5_MADE_TRICKS) == [1, 1, 1, 0, 4]
    result = state.results[0]
    assert (result.partner, result.making_tricks, result.outcome.value) == (3, 3, "made")
    assert result.points == (0, 1, 0, 1, 0)


def test_CA_8_five_players_partnership_march_three_each():
    state = ordered_up(CA5_MARCH, "CALL(AS)")
    assert play_tricks(state, *CA5_MARCH_TRICKS) == [1] * 5
    assert state.results[0].outcome.value == "march"
    assert state.results[0].points == (0, 3, 0, 3, 0)


def test_CA_8_five_players_alone_made_two_and_alone_march_five():
    state = ordered_up(CA5_MADE, "ALONE")
    play_tricks(state, *CA5_MADE_TRICKS)
    assert state.results[0].points == (0, 2, 0, 0, 0)
    state = ordered_up(CA5_MARCH, "ALONE")
    play_tricks(state, *CA5_MARCH_TRICKS)
    assert state.results[0].points == (0, 5, 0, 0, 0)


def test_CA_8_five_players_euchred_with_partner_three_defenders_two_each():
    state = ordered_up(CA5_EUCHRE, "CALL(AS)", discard="AC")
    assert play_tricks(state, *CA5_EUCHRE_TRICKS) == CA5_EUCHRE_WINNERS
    result = state.results[0]
    assert (result.making_tricks, result.outcome.value) == (1, "euchred")
    assert result.points == (2, 0, 0, 2, 2)
    state = ordered_up(CA5_EUCHRE, "ALONE", discard="AC")
    play_tricks(state, *CA5_EUCHRE_TRICKS)
    assert state.results[0].points == (2, 0, 2, 2, 2)


def test_CA_8_four_players_partnership_march_two_each_alone_march_four():
    config = GameConfig.create("call-ace", num_players=4)
    hands = {1: "JH JD AH KH QH", 2: "9C TC JC QC KC", 3: "AS KS QS JS TS", 0: "AC AD KD QD TD"}
    tricks = ["JH 9C TS 9H", "JD TC JS QD", "AH JC QS KD", "KH QC KS AD", "QH KC AS AC"]
    state = new_state(config, hands=hands, up="9H", rest="9D TH 9S")
    play(state, "ORDER_UP", "DISCARD(TD)", "CALL(AS)")
    assert play_tricks(state, *tricks) == [1] * 5
    assert state.results[0].points == (0, 2, 0, 2)
    state = new_state(config, hands=hands, up="9H", rest="9D TH 9S")
    play(state, "ORDER_UP", "DISCARD(TD)", "ALONE")
    play_tricks(state, *tricks)
    assert state.results[0].points == (0, 4, 0, 0)


def test_CA_8_six_players_lone_maker_euchred_five_others_two_each():
    config = GameConfig.create("call-ace", num_players=6)
    hands = {
        1: "JH AH 7C 7S 8S",
        2: "AC KC QC JC TC",
        3: "AD KD QD JD TD",
        4: "AS KS QS JS TS",
        5: "KH QH TH 8H 7D",
        0: "9C 8C 9D 8D 9S",
    }
    state = new_state(config, hands=hands, up="9H", rest="7H")
    play(state, "ORDER_UP", "DISCARD(9S)", "ALONE")
    winners = play_tricks(
        state,
        "JH TC JD TS 8H 9H",
        "AH JC TD JS TH 9D",
        "7C AC QD QS KH 9C",
        "7D 8D 7S QC AD KS",
        "KD AS QH 8C 8S KC",
    )
    assert winners == [1, 1, 5, 3, 5]
    result = state.results[0]
    assert (result.making_tricks, result.outcome.value) == (2, "euchred")
    assert result.points == (2, 0, 2, 2, 2, 2)


def test_CA_8_seven_players_alone_march_seven():
    config = GameConfig.create("call-ace", num_players=7)
    hands = {
        1: "JH JD AH KH QH",
        2: "AC KC QC JC TC",
        3: "AD KD QD TD 9D",
        4: "AS KS QS JS TS",
        5: "9C 8C 7C 6C 8D",
        6: "9S 8S 7S 6S 7D",
        0: "TH 9H 8H 7H 6D",
    }
    state = new_state(config, hands=hands, up="6H")
    play(state, "ORDER_UP", "DISCARD(6D)", "ALONE")
    play_tricks(
        state,
        "JH AC AD AS 9C 9S TH",
        "JD KC KD KS 8C 8S 9H",
        "AH QC QD QS 7C 7S 8H",
        "KH JC TD JS 6C 6S 7H",
        "QH TC 9D TS 8D 7D 6H",
    )
    assert state.results[0].points == (0, 7, 0, 0, 0, 0, 0)


# ----------------------------------------------------------------- CA-8.1 .. CA-8.4 game end (checklist 12)


def test_CA_8_1_game_ends_when_a_player_reaches_target_at_hand_end():
    state = ordered_up(CA5_MADE, "CALL(AS)", scores=[0, 9, 0, 8, 0], single_hand=False)
    play_tricks(state, *CA5_MADE_TRICKS)
    assert state.is_terminal() and state.current_player() == -1
    assert state.scores == [0, 10, 0, 9, 0]
    assert state.outcome.termination is Termination.TARGET_REACHED
    assert state.outcome.winners == (1,) and not state.outcome.is_draw
    assert state.outcome.ranks == (3, 1, 3, 2, 3)


def test_CA_8_1_game_goes_on_below_target():
    deck2 = make_deck(CA5, 1, up="9H")
    state = GameState(
        CA5, decks=[make_deck(CA5, 0, CA5_MADE["hands"], "9H", "TH 8H"), deck2], scores=[0, 8, 0, 8, 0]
    )
    play(state, "ORDER_UP", "DISCARD(8D)", "CALL(AS)")
    play_tricks(state, *CA5_MADE_TRICKS)
    assert not state.is_terminal() and state.outcome is None
    assert state.scores == [0, 9, 0, 9, 0]
    assert state.dealer == 1 and state.current_player() == 2


def test_CA_8_1_target_option():
    config = GameConfig.create("call-ace", target=11)
    state = ordered_up(CA5_MADE, "CALL(AS)", config=config, scores=[0, 9, 0, 0, 0], single_hand=False)
    play_tricks(state, *CA5_MADE_TRICKS)
    assert not state.is_terminal() and state.scores[1] == 10


def test_CA_8_2_highest_total_wins_when_several_reach_target():
    state = ordered_up(CA5_MARCH, "CALL(AC)", scores=[8, 9, 0, 0, 0], single_hand=False)
    play_tricks(state, *CA5_MARCH_TRICKS)
    assert state.scores == [11, 12, 0, 0, 0]
    assert state.outcome.winners == (1,)


def test_CA_8_2_equal_highest_totals_draw():
    state = ordered_up(CA5_MADE, "CALL(AC)", scores=[9, 9, 0, 0, 0], single_hand=False)
    play_tricks(state, *CA5_MADE_TRICKS)
    assert state.scores == [10, 10, 0, 0, 0]
    assert state.outcome.winners == (0, 1) and state.outcome.is_draw
    assert state.outcome.ranks == (1, 1, 3, 3, 3)


def test_CA_8_2_lowest_start_tiebreak_option():
    config = GameConfig.create("call-ace", tiebreak="lowest_start")
    state = ordered_up(CA5_MARCH, "CALL(AC)", config=config, scores=[8, 9, 0, 0, 0], single_hand=False)
    play_tricks(state, *CA5_MARCH_TRICKS)
    assert state.scores == [11, 12, 0, 0, 0]
    assert state.outcome.winners == (0,)  # started the hand lower, wins with the lower total (FH-7.2)


def test_CA_8_3_thrown_in_hand_never_ends_the_game():
    config = GameConfig.create("call-ace", target=1)
    decks = [make_deck(config, d, up="9H") for d in range(3)]
    state = GameState(config, decks=decks, seed=0)
    play(state, *["PASS"] * 20)
    assert not state.is_terminal() and state.outcome is None
    assert [r.outcome.value for r in state.results] == ["thrown_in", "thrown_in"]
    assert state.scores == [0] * 5 and state.dealer == 2


def test_CA_8_4_max_hands_cap_counts_thrown_in_hands():
    config = GameConfig.create("call-ace", max_hands=2)
    decks = [make_deck(config, 0, CA5_MADE["hands"], "9H", "TH 8H"), make_deck(config, 1, up="9H")]
    state = GameState(config, decks=decks)
    play(state, "ORDER_UP", "DISCARD(8D)", "CALL(AS)")
    play_tricks(state, *CA5_MADE_TRICKS)
    assert not state.is_terminal()
    play(state, *["PASS"] * 10)
    assert state.is_terminal()
    assert state.outcome.termination is Termination.MAX_HANDS
    assert state.outcome.hands_played == 2
    assert state.outcome.winners == (1, 3)


def test_CA_8_4_max_hands_equal_highest_totals_is_a_draw():
    # seats 1 and 3 share the highest total at the cap: a draw between them (seats of equal parity are
    # no team in Call-Ace)
    config = GameConfig.create("call-ace", max_hands=1)
    state = ordered_up(CA5_MADE, "CALL(AS)", config=config, single_hand=False)
    play_tricks(state, *CA5_MADE_TRICKS)
    assert state.outcome.termination is Termination.MAX_HANDS
    assert state.outcome.winners == (1, 3)
    assert state.outcome.is_draw
    assert state.outcome.to_dict()["draw"] is True


def test_CA_8_2_equal_highest_totals_of_seats_two_apart_draw():
    # seats 1 and 3 (both odd) reach 10 together: still a draw, Call-Ace has no teams
    state = ordered_up(CA5_MADE, "CALL(AS)", scores=[0, 9, 0, 9, 0], single_hand=False)
    play_tricks(state, *CA5_MADE_TRICKS)
    assert state.scores == [0, 10, 0, 10, 0]
    assert state.outcome.winners == (1, 3)
    assert state.outcome.is_draw


def test_CA_8_4_max_hands_all_thrown_in_is_a_draw_of_everybody():
    config = GameConfig.create("call-ace", max_hands=1)
    state = GameState(config, decks=[make_deck(config, 0, up="9H")])
    play(state, *["PASS"] * 10)
    assert state.outcome.termination is Termination.MAX_HANDS
    assert state.outcome.winners == (0, 1, 2, 3, 4)


def test_CA_8_4_max_hands_ignores_lowest_start_tiebreak():
    config = GameConfig.create("call-ace", max_hands=1, tiebreak="lowest_start")
    state = ordered_up(
        CA5_EUCHRE, "CALL(AS)", config=config, discard="AC", scores=[6, 8, 0, 0, 0], single_hand=False
    )
    play_tricks(state, *CA5_EUCHRE_TRICKS)
    assert state.scores == [8, 8, 0, 2, 2]
    assert state.outcome.termination is Termination.MAX_HANDS
    assert state.outcome.winners == (0, 1)  # equal highest totals draw, whatever the start scores


def test_CA_2_2_example_kitty_after_pick_up_is_stock_plus_discard():
    state = ordered_up(CA5_MARCH, "ALONE")
    assert sorted(texts(state.kitty)) == ["8D", "8H", "TH"]
