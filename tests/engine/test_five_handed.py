"""Five-handed Euchre (RULES.md FH-3 .. FH-7; checklist 6, 7, 9, 11, 12, 14)."""

from __future__ import annotations

import random

import pytest

from arena.engine import (
    GameConfig,
    GameState,
    Phase,
    Trump,
    UpCardFate,
    action_to_string,
    build_view,
    deck_of,
)
from arena.engine.cards import card_text
from arena.engine.scoring import Termination
from arena.errors import IllegalActionError
from tests.engine.helpers import (
    FH_EUCHRE,
    FH_EUCHRE_TRICKS,
    FH_MADE,
    FH_MADE_TRICKS,
    FH_MARCH,
    FH_MARCH_TRICKS,
    hand_of,
    legal,
    new_state,
    play,
    play_tricks,
)

FH = GameConfig.create("five-handed")

TWO_UP_HANDS = {
    1: "AC KC QC TC 9C",
    2: "AD KD QD JD TD",
    3: "AS KS QS JS TS",
    4: "9S 8S 9D 8D 8C",
    0: "TH AH KH 9H JC",
}  # up 2♠; stock QH JH 8H 2H


def two_up(config: GameConfig = FH, dealer_hand: str | None = None, up: str = "2S") -> GameState:
    hands = dict(TWO_UP_HANDS)
    if dealer_hand is not None:
        hands[0] = dealer_hand
    rest = [c for c in ("QH", "JH", "8H", "2H", "2S") if c != up and c not in hands[0].split()]
    if len(rest) == 3:  # the dealer holds one of the stock cards: give it the displaced card
        displaced = [c for c in TWO_UP_HANDS[0].split() if c not in hands[0].split()]
        rest += displaced
    return new_state(config, hands=hands, up=up, rest=rest)


def ordered_up(deal: dict, call: str, discard: str, config: GameConfig = FH, **kw) -> GameState:
    state = new_state(config, hands=deal["hands"], up=deal["up"], rest=deal["rest"], **kw)
    play(state, "ORDER_UP", f"DISCARD({discard})", call)
    return state


# ----------------------------------------------------------------- FH-3 two turned up (checklist 14)


def test_FH_3_1_two_of_spades_or_hearts_up_triggers_the_special_situation():
    for up in ("2S", "2H"):
        state = two_up(up=up)
        assert state.current_phase is Phase.TWO_CHOICE and state.current_player() == 0
    state = new_state(FH, up="JS")
    assert state.current_phase is Phase.BID_ROUND_1 and state.current_player() == 1


def test_FH_3_2_dealer_chooses_blind_name_or_expose_without_seeing_his_hand():
    state = two_up()
    assert legal(state) == ["BLIND_NAME(C)", "BLIND_NAME(D)", "BLIND_NAME(H)", "BLIND_NAME(S)", "EXPOSE"]
    assert build_view(state, 0).hand is None
    assert build_view(state, 1).legal_actions == ()


def test_FH_3_2_blind_name_proposes_a_suit_and_bidding_proceeds_normally():
    state = two_up()
    play(state, "BLIND_NAME(H)")
    assert state.current_phase is Phase.BID_ROUND_1 and state.current_player() == 1
    assert build_view(state, 3).proposed_trump is Trump.HEARTS
    assert build_view(state, 0).hand is not None  # the dealer now sees his hand
    assert legal(state) == ["PASS", "ORDER_UP"]
    play(state, "PASS", "ORDER_UP")  # seat 2 accepts hearts
    assert state.maker == 2 and state.trump == Trump.HEARTS
    assert state.current_phase is Phase.DISCARD and state.current_player() == 0
    assert hand_of(state, 0) == sorted(["TH", "AH", "KH", "9H", "JC", "2S"])  # the dealer takes the two
    play(state, "DISCARD(JC)")
    assert state.current_phase is Phase.CALL and state.current_player() == 2


def test_FH_3_2_blind_name_dealer_bids_last_in_round_1_and_may_take_up():
    state = two_up()
    play(state, "BLIND_NAME(D)", *["PASS"] * 4)
    assert state.current_player() == 0 and legal(state) == ["PASS", "TAKE_UP"]
    play(state, "TAKE_UP")
    assert state.maker == 0 and state.trump == Trump.DIAMONDS and "2S" in hand_of(state, 0)


def test_FH_3_2_expose_turns_up_the_dealers_first_card_and_dealer_names_trump():
    state = two_up()
    play(state, "EXPOSE")
    assert state.current_phase is Phase.EXPOSE_NAME and state.current_player() == 0
    assert card_text(state.exposed) == "TH"  # hand position 0 = first card dealt to the dealer
    for seat in range(5):
        assert str(build_view(state, seat).exposed_card) == "TH"  # public
    assert build_view(state, 0).hand is None
    assert "TH" in hand_of(state, 0)  # it stays in his hand
    assert legal(state) == ["EXPOSE_NAME(C)", "EXPOSE_NAME(D)", "EXPOSE_NAME(H)", "EXPOSE_NAME(S)"]
    play(state, "EXPOSE_NAME(C)")  # free choice: need not be the exposed suit
    assert state.maker == 0 and state.trump == Trump.CLUBS
    assert state.current_phase is Phase.DISCARD
    assert hand_of(state, 0) == sorted(["TH", "AH", "KH", "9H", "JC", "2S"])
    play(state, "DISCARD(9H)")
    assert state.current_phase is Phase.CALL and state.current_player() == 0


def test_FH_3_2_expose_has_no_bidding_rounds():
    state = two_up()
    play(state, "EXPOSE", "EXPOSE_NAME(H)", "DISCARD(JC)", "CALL(AS)")
    assert [(s, action_to_string(a)) for s, a in state.actions] == [
        (0, "EXPOSE"),
        (0, "EXPOSE_NAME(H)"),
        (0, "DISCARD(JC)"),
        (0, "CALL(AS)"),
    ]
    assert state.current_phase is Phase.PLAY and state.current_player() == 1
    assert state.partner == 3


def test_FH_3_2_exposed_suit_mode_forces_the_printed_suit():
    config = GameConfig.create("five-handed", two_expose_mode="exposed_suit")
    state = two_up(config)
    play(state, "EXPOSE")
    assert legal(state) == ["EXPOSE_NAME(H)"]
    with pytest.raises(IllegalActionError):
        play(state, "EXPOSE_NAME(S)")


def test_FH_3_2_exposed_suit_mode_other_two_exposed_gives_free_choice():
    config = GameConfig.create("five-handed", two_expose_mode="exposed_suit")
    state = two_up(config, dealer_hand="2H AH KH 9H JC")  # stock then holds Q♥ J♥ 8♥ T♥
    play(state, "EXPOSE")
    assert card_text(state.exposed) == "2H"
    assert legal(state) == ["EXPOSE_NAME(C)", "EXPOSE_NAME(D)", "EXPOSE_NAME(H)", "EXPOSE_NAME(S)"]


def test_FH_3_2_exposed_jack_gives_its_printed_suit():
    config = GameConfig.create("five-handed", two_expose_mode="exposed_suit")
    state = two_up(config, dealer_hand="JC TH AH KH 9H")
    play(state, "EXPOSE")
    assert legal(state) == ["EXPOSE_NAME(C)"]


def test_FH_3_3_expose_name_is_a_decision_of_its_own_even_with_one_choice():
    config = GameConfig.create("five-handed", two_expose_mode="exposed_suit")
    state = two_up(config)
    play(state, "EXPOSE")
    assert state.current_phase is Phase.EXPOSE_NAME and state.current_player() == 0
    play(state, "EXPOSE_NAME(H)")
    assert state.current_phase is Phase.DISCARD and state.trump == Trump.HEARTS


# ----------------------------------------------------------------- FH-4 bidding (checklist 6)


def test_FH_4_1_round_1_order_up_makes_up_card_suit_trump():
    state = new_state(FH, dealer=2, up="9S")
    seen = []
    for _ in range(2):
        seen.append((state.current_player(), legal(state)))
        play(state, "PASS")
    assert seen == [(3, ["PASS", "ORDER_UP"]), (4, ["PASS", "ORDER_UP"])]
    play(state, "ORDER_UP")
    assert state.maker == 0 and state.trump == Trump.SPADES
    assert state.current_phase is Phase.DISCARD and state.current_player() == 2
    assert "9S" in hand_of(state, 2)


def test_FH_4_2_round_2_excludes_the_turned_down_suit():
    state = new_state(FH, up="9S")
    play(state, *["PASS"] * 5)
    assert build_view(state, 1).up_card_fate is UpCardFate.TURNED_DOWN
    assert state.current_phase is Phase.BID_ROUND_2 and state.current_player() == 1
    assert legal(state) == ["PASS", "NAME(C)", "NAME(D)", "NAME(H)"]
    play(state, "PASS", "NAME(H)")
    assert state.maker == 2 and state.trump == Trump.HEARTS
    assert state.current_phase is Phase.CALL and state.current_player() == 2
    assert all(len(h) == 5 for h in state.hands)


def test_FH_4_2_after_blind_name_only_the_proposed_suit_is_excluded():
    state = two_up()
    play(state, "BLIND_NAME(H)", *["PASS"] * 5)
    assert state.current_phase is Phase.BID_ROUND_2
    assert legal(state) == ["PASS", "NAME(C)", "NAME(D)", "NAME(S)"]  # spades (the two's suit) allowed
    assert "2S" not in hand_of(state, 0)


def test_FH_4_3_stick_the_dealer_always():
    state = new_state(FH, dealer=3, up="9S")
    play(state, *["PASS"] * 5)
    for _ in range(4):
        assert "PASS" in legal(state)
        play(state, "PASS")
    assert state.current_player() == 3
    assert legal(state) == ["NAME(C)", "NAME(D)", "NAME(H)"]
    with pytest.raises(IllegalActionError):
        play(state, "PASS")
    play(state, "NAME(C)")
    assert state.maker == 3 and state.current_phase is Phase.CALL


def test_FH_4_3_stuck_dealer_after_blind_name_keeps_the_suit_restriction():
    state = two_up()
    play(state, "BLIND_NAME(C)", *["PASS"] * 9)
    assert state.current_player() == 0
    assert legal(state) == ["NAME(D)", "NAME(H)", "NAME(S)"]


# ----------------------------------------------------------------- FH-5 discard (checklist 7)


def test_FH_5_1_dealer_discards_one_of_six_before_the_call():
    state = new_state(FH, **FH_MARCH)
    play(state, "ORDER_UP")
    assert state.current_phase is Phase.DISCARD and state.current_player() == 0
    assert sorted(legal(state)) == sorted(f"DISCARD({c})" for c in ["KS", "QS", "9D", "8D", "8C", "9S"])
    play(state, "DISCARD(9S)")
    assert state.current_phase is Phase.CALL and state.current_player() == 1
    assert len(state.hands[0]) == 5 and len(state.kitty) == 5


def test_FH_5_1_may_discard_upcard_false_forbids_the_two():
    config = GameConfig.create("five-handed", may_discard_upcard=False)
    state = two_up(config)
    play(state, "EXPOSE", "EXPOSE_NAME(H)")
    assert "DISCARD(2S)" not in legal(state) and len(legal(state)) == 5
    state = two_up(config)
    play(state, "BLIND_NAME(D)", "ORDER_UP")
    assert "DISCARD(2S)" not in legal(state) and len(legal(state)) == 5
    state = two_up()
    play(state, "BLIND_NAME(D)", "ORDER_UP")
    assert "DISCARD(2S)" in legal(state) and len(legal(state)) == 6


# ----------------------------------------------------------------- FH-6 partner (checklist 9)


def test_FH_6_1_bidder_may_call_any_card_not_in_hand_including_trumps():
    state = new_state(FH, **FH_MARCH)
    play(state, "ORDER_UP", "DISCARD(8C)")
    own = set(["2S", "2H", "JS", "JC", "AS"])
    expected = [f"CALL({card_text(c)})" for c in sorted(deck_of(FH)) if card_text(c) not in own] + ["ALONE"]
    assert legal(state) == expected
    assert len(expected) == 26
    assert "CALL(KS)" in legal(state) and "CALL(8C)" in legal(state)  # a trump; the dealer's discard


def test_FH_6_1_call_may_be_trump_false_excludes_every_trump():
    config = GameConfig.create("five-handed", call_may_be_trump=False)
    state = two_up(config)
    play(state, "EXPOSE", "EXPOSE_NAME(H)", "DISCARD(JC)")
    calls = legal(state)
    for trump in ("2S", "2H", "JH", "JD", "QH", "8H"):
        assert f"CALL({trump})" not in calls
    assert "CALL(AS)" in calls and "CALL(JC)" in calls and "CALL(JS)" in calls
    own = set(["TH", "AH", "KH", "9H", "2S"])
    expected = [
        c
        for c in (card_text(x) for x in deck_of(FH))
        if c not in own and c not in ("2H", "JD", "QH", "JH", "8H")
    ]
    assert sorted(calls) == sorted([*(f"CALL({c})" for c in expected), "ALONE"])


def test_FH_6_2_called_card_in_the_stock_gives_no_partner_and_is_not_alone():
    state = ordered_up(FH_MADE, "CALL(JC)", discard="9H")  # J♣ is undealt
    assert state.partner == -1 and not state.alone


def test_FH_6_2_called_card_is_the_dealers_discard_or_turned_down_up_card():
    state = ordered_up(FH_MADE, "CALL(9H)", discard="9H")
    assert state.partner == -1 and not state.alone
    state = new_state(FH, **FH_MADE)
    play(state, *["PASS"] * 5, "NAME(C)", "CALL(9S)")  # the turned-down up-card
    assert state.partner == -1 and not state.alone


def test_FH_6_2_partner_is_the_holder_and_secret_until_played():
    state = ordered_up(FH_MADE, "CALL(AD)", discard="9H")
    assert state.partner == 3
    assert build_view(state, 3).partner == 3 and build_view(state, 1).partner is None
    play_tricks(state, *FH_MADE_TRICKS[:4])
    assert build_view(state, 1).partner is None
    play(state, "PLAY(KC)", "PLAY(AD)")
    assert build_view(state, 1).partner == 3


def test_FH_6_3_bidder_may_not_call_a_card_in_his_own_hand():
    state = new_state(FH, **FH_MARCH)
    play(state, "ORDER_UP", "DISCARD(8C)")
    for own in ("2S", "2H", "JS", "JC", "AS"):
        assert f"CALL({own})" not in legal(state)
        with pytest.raises(IllegalActionError, match=rf"CALL\({own}\)"):
            play(state, f"CALL({own})")


def test_FH_6_3_dealer_bidder_may_not_call_the_picked_up_card():
    state = two_up()
    play(state, "EXPOSE", "EXPOSE_NAME(H)", "DISCARD(JC)")
    assert "CALL(2S)" not in legal(state) and "CALL(TH)" not in legal(state)
    assert "CALL(JC)" in legal(state)  # his own discard is in the kitty


# ----------------------------------------------------------------- FH-7 play and scoring (checklist 11)


def test_FH_7_1_dealers_left_leads_also_for_a_lone_bidder():
    state = new_state(FH, dealer=3, up="9S")
    play(state, *["PASS"] * 5, "PASS", "PASS", "PASS", "PASS", "NAME(H)", "ALONE")
    assert state.maker == 3 and state.current_player() == 4
    state = two_up()
    play(state, "EXPOSE", "EXPOSE_NAME(H)", "DISCARD(JC)", "ALONE")
    assert state.current_player() == 1


def test_FH_7_partner_held_made_one_each():
    state = ordered_up(FH_MADE, "CALL(AD)", discard="9H")
    assert play_tricks(state, *FH_MADE_TRICKS) == [1, 1, 1, 2, 2]
    result = state.results[0]
    assert (result.partner, result.making_tricks, result.outcome.value) == (3, 3, "made")
    assert result.points == (0, 1, 0, 1, 0)


def test_FH_7_partner_held_march_two_each():
    state = ordered_up(FH_MADE, "CALL(AC)", discard="9H")  # seat 2 wins the last two tricks
    play_tricks(state, *FH_MADE_TRICKS)
    result = state.results[0]
    assert (result.partner, result.making_tricks, result.outcome.value) == (2, 5, "march")
    assert result.points == (0, 2, 2, 0, 0)


def test_FH_7_card_in_kitty_made_one_and_march_two():
    state = ordered_up(FH_MADE, "CALL(JC)", discard="9H")
    play_tricks(state, *FH_MADE_TRICKS)
    assert state.results[0].points == (0, 1, 0, 0, 0)
    state = ordered_up(FH_MARCH, "CALL(9H)", discard="8C")
    assert play_tricks(state, *FH_MARCH_TRICKS) == [1] * 5
    assert state.results[0].partner == -1 and not state.results[0].alone
    assert state.results[0].points == (0, 2, 0, 0, 0)


def test_FH_7_announced_alone_made_one_and_march_four():
    state = ordered_up(FH_MADE, "ALONE", discard="9H")
    play_tricks(state, *FH_MADE_TRICKS)
    assert state.results[0].points == (0, 1, 0, 0, 0)
    state = ordered_up(FH_MARCH, "ALONE", discard="8C")
    play_tricks(state, *FH_MARCH_TRICKS)
    assert state.results[0].points == (0, 4, 0, 0, 0)


def test_FH_7_euchred_three_defenders_or_four_others_two_each():
    state = ordered_up(FH_EUCHRE, "CALL(AD)", discard="9D")
    assert play_tricks(state, *FH_EUCHRE_TRICKS) == [2] * 5
    result = state.results[0]
    assert (result.partner, result.making_tricks, result.outcome.value) == (3, 0, "euchred")
    assert result.points == (2, 0, 2, 0, 2)
    for call in ("ALONE", "CALL(KS)"):  # announced alone; card called into the kitty
        state = ordered_up(FH_EUCHRE, call, discard="9D")
        play_tricks(state, *FH_EUCHRE_TRICKS)
        assert state.results[0].points == (2, 0, 2, 2, 2), call


def test_FH_7_2_single_player_reaching_target_wins():
    state = ordered_up(FH_MADE, "CALL(JC)", discard="9H", scores=[9, 9, 9, 9, 9], single_hand=False)
    play_tricks(state, *FH_MADE_TRICKS)
    assert state.outcome.termination is Termination.TARGET_REACHED
    assert state.outcome.winners == (1,)


def test_FH_7_2_lowest_start_score_wins_even_with_lower_total():
    state = ordered_up(FH_MARCH, "CALL(AC)", discard="8C", scores=[0, 8, 9, 0, 0], single_hand=False)
    play_tricks(state, *FH_MARCH_TRICKS)
    assert state.scores == [0, 10, 11, 0, 0]
    assert state.outcome.winners == (1,)


def test_FH_7_2_lowest_start_tied_too_is_a_draw_among_those():
    state = ordered_up(FH_EUCHRE, "CALL(AD)", discard="9D", scores=[8, 0, 9, 0, 8], single_hand=False)
    play_tricks(state, *FH_EUCHRE_TRICKS)
    assert state.scores == [10, 0, 11, 0, 10]
    assert state.outcome.winners == (0, 4)  # started at 8; seat 2 with the highest total does not win
    assert state.outcome.ranks == (1, 4, 3, 4, 1)


def test_FH_7_2_game_goes_on_below_target():
    state = ordered_up(FH_MADE, "CALL(JC)", discard="9H", scores=[0, 8, 0, 0, 0], single_hand=False)
    play_tricks(state, *FH_MADE_TRICKS)
    assert not state.is_terminal() and state.scores == [0, 9, 0, 0, 0]
    assert state.dealer == 1 and state.hand_index == 1


def test_FH_7_3_max_hands_cap_highest_total_wins():
    config = GameConfig.create("five-handed", max_hands=1)
    state = ordered_up(FH_MADE, "CALL(JC)", discard="9H", config=config, single_hand=False)
    play_tricks(state, *FH_MADE_TRICKS)
    assert state.outcome.termination is Termination.MAX_HANDS
    assert state.outcome.winners == (1,)


def test_FH_7_3_max_hands_equal_highest_totals_draw_whatever_the_start_scores():
    config = GameConfig.create("five-handed", max_hands=1)
    state = ordered_up(
        FH_MADE, "CALL(JC)", discard="9H", config=config, scores=[0, 0, 0, 0, 1], single_hand=False
    )
    play_tricks(state, *FH_MADE_TRICKS)
    assert state.scores == [0, 1, 0, 0, 1]
    assert state.outcome.termination is Termination.MAX_HANDS
    assert state.outcome.winners == (1, 4) and state.outcome.is_draw


def test_FH_4_3_never_thrown_in_over_many_random_hands():
    rng = random.Random(5)
    for seed in range(40):
        state = GameState(FH, seed=seed, single_hand=True)
        while not state.is_terminal():
            if "PASS" in legal(state):  # pass whenever allowed, else a random choice
                play(state, "PASS")
            else:
                state.apply(rng.choice(state.legal_actions()))
        assert state.results[0].maker >= 0
        assert state.results[0].outcome.value != "thrown_in"


def test_FH_6_1_twenty_nine_card_deck_has_no_eight_of_clubs_to_call():
    config = GameConfig.create("five-handed", deck="29")
    hands = dict(FH_MARCH["hands"])
    hands[0] = "KS QS 9D 8D 9H"
    state = new_state(config, hands=hands, up="9S", rest="TS 8S 8H")
    play(state, "ORDER_UP", "DISCARD(9H)")
    assert "CALL(8C)" not in legal(state)
    assert len(legal(state)) == 29 - 5 + 1


def test_FH_3_2_exposed_card_is_the_first_card_dealt_to_the_dealer_for_any_dealer():
    from arena.engine.dealing import deal_positions

    for dealer in range(5):
        hands = {dealer: "9H AC KC QC JC"}
        state = new_state(FH, dealer=dealer, hands=hands, up="2H")
        play(state, "EXPOSE")
        assert card_text(state.exposed) == "9H"
        assert state.exposed == state.deck[deal_positions(5, dealer)[dealer][0]]
        assert all(str(build_view(state, s).exposed_card) == "9H" for s in range(5))
        play(state, "EXPOSE_NAME(S)", "DISCARD(9H)")
        assert str(build_view(state, (dealer + 2) % 5).exposed_card) == "9H"  # stays public after the discard
