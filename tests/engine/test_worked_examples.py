"""The 21 worked examples of RULES.md section 11, one test each, played on explicit deals."""

from __future__ import annotations

from arena.engine import Card, GameConfig, Phase, Suit, Trump, build_view, deck_of, effective_suit
from arena.engine.cards import CARDS, EFFECTIVE_SUIT, TRICK_KEY, beats, card_text
from tests.engine.helpers import (
    CA5_MARCH,
    FH_EUCHRE,
    FH_EUCHRE_TRICKS,
    FH_MARCH,
    FH_MARCH_TRICKS,
    hand_of,
    legal,
    legal_cards,
    new_state,
    play,
    play_trick,
    play_tricks,
    texts,
    trick_cards,
)

CA5 = GameConfig.create("call-ace")
FH = GameConfig.create("five-handed")


def trump_order(config: GameConfig, trump: Trump) -> list[str]:
    keys = TRICK_KEY[trump][trump]
    trumps = [c for c in deck_of(config) if EFFECTIVE_SUIT[trump][c] == trump]
    return [str(CARDS[c]) for c in sorted(trumps, key=lambda c: -keys[c])]


def test_example_01_jack_of_diamonds_is_left_bower_under_hearts():
    jd = Card.parse("JD")
    assert effective_suit(jd, Trump.HEARTS) is Suit.HEARTS
    assert trump_order(CA5, Trump.HEARTS).index("JD") == 1  # 2nd-highest trump in CA without Joker
    assert beats(Card.parse("JH"), jd, Trump.HEARTS, Suit.HEARTS)
    assert beats(jd, Card.parse("AH"), Trump.HEARTS, Suit.HEARTS)
    assert beats(jd, Card.parse("AD"), Trump.HEARTS, Suit.DIAMONDS)  # and it trumps a led diamond


def _ex2_state():
    # hearts trump; seat 1 leads three spades (seat 3 follows with 8♠ 9♠ 10♠), then A♦
    hands = {
        1: "AS KS QS AD 8C",
        2: "AC KC QC AH KH",
        3: "8S 9S TS JD 9C",
        4: "KD QD TD 9D 8D",
        0: "JS JC TC QH TH",
    }
    state = new_state(CA5, hands=hands, up="9H", rest="JH 8H")
    play(state, "ORDER_UP", "DISCARD(TH)", "CALL(AC)")
    assert play_tricks(state, "AS QC 8S 8D JS", "KS KC 9S 9D JC", "QS AC TS TD TC") == [1, 1, 1]
    return state


def test_example_02_void_in_diamonds_holding_left_bower_may_play_either():
    state = _ex2_state()
    play(state, "PLAY(AD)", "PLAY(KH)")
    assert state.current_player() == 3 and hand_of(state, 3) == ["9C", "JD"]
    assert legal_cards(state) == ["9C", "JD"]


def test_example_03_led_left_bower_forces_a_heart():
    hands = {
        1: "AS KS QS JD 8C",
        2: "8S 9S TS AH KD",
        3: "AC KC QC 9C KH",
        4: "AD QD TD 9D 8D",
        0: "JS JC TC QH TH",
    }
    state = new_state(CA5, hands=hands, up="9H", rest="JH 8H")
    play(state, "ORDER_UP", "DISCARD(TH)", "CALL(AD)")
    assert play_tricks(state, "AS 8S 9C 8D JS", "KS 9S QC 9D JC", "QS TS KC TD TC") == [1, 1, 1]
    play(state, "PLAY(JD)")
    assert hand_of(state, 2) == ["AH", "KD"]
    assert legal_cards(state) == ["AH"]


def test_example_04_left_bower_wins_a_spade_trick_under_clubs():
    hands = {
        1: "AS QS AD KD QD",
        2: "KS TS AH KH QH",
        3: "8C TC QC KC AC",
        4: "9S 8S JH TH 9H",
        0: "JS JD TD 9D 8D",
    }
    state = new_state(CA5, hands=hands, up="9C", rest="JC 8H")
    play(state, "ORDER_UP", "DISCARD(8D)", "CALL(AH)")
    assert state.trump == Trump.CLUBS
    play(state, "PLAY(AS)", "PLAY(KS)", "PLAY(8C)", "PLAY(9S)")
    assert sorted(legal_cards(state)) == sorted(
        ["JS", "JD", "TD", "9D", "9C"]
    )  # J♠ is a club: dealer is void
    trick = play_trick(state, "JS")
    assert trick_cards(trick) == [(1, "AS"), (2, "KS"), (3, "8C"), (4, "9S"), (0, "JS")]
    assert trick.winner == 0


def test_example_05_joker_beats_both_bowers():
    config = GameConfig.create("call-ace", use_joker=True)
    hands = {
        1: "JD AC KC QC JC",
        2: "JKR AS KS QS JS",
        3: "JH AH KH QH TH",
        4: "9C 8C TC 9S 8S",
        0: "TS 9H 8H AD KD",
    }
    state = new_state(config, hands=hands, up="8D", rest="QD TD 9D")
    play(state, "ORDER_UP", "DISCARD(TS)", "CALL(AH)")
    assert state.trump == Trump.DIAMONDS
    play(state, "PLAY(JD)", "PLAY(JKR)", "PLAY(JH)", "PLAY(9C)")
    assert legal_cards(state) == ["8D", "AD", "KD"]
    trick = play_trick(state, "8D")
    assert trick.winner == 2


def test_example_06_two_of_hearts_is_second_highest_club_not_a_heart():
    assert trump_order(FH, Trump.CLUBS)[:3] == ["2S", "2H", "JC"]
    assert effective_suit(Card.parse("2H"), Trump.CLUBS) is Suit.CLUBS
    hands = {
        1: "AH KD QD JD TD",
        2: "8H 9S TS QS KS",
        3: "JC AS 8S 9D 8D",
        4: "2H AC KC QC TC",
        0: "9H JH KH QH 8C",
    }
    state = new_state(FH, hands=hands, up="9C", rest="TH AD JS 2S")
    play(state, "ORDER_UP", "DISCARD(8C)", "CALL(AS)", "PLAY(AH)")
    assert legal_cards(state) == ["8H"]
    play(state, "PLAY(8H)", "PLAY(JC)")
    assert legal_cards(state) == sorted(["2H", "AC", "KC", "QC", "TC"])  # 2♥ is no heart: void in hearts
    trick = play_trick(state, "2H 9H")
    assert trick.winner == 4  # 2♥ beats the right bower J♣


def test_example_07_two_of_hearts_is_a_spade_so_void_in_hearts():
    hands = {
        1: "AD KD QD AH 8C",
        2: "JD TD 9D 2H 9C",
        3: "8D AC KC QC JC",
        4: "KH QH JH TH AS",
        0: "9H 8H TC KS QS",
    }
    state = new_state(FH, hands=hands, up="9S", rest="JS TS 8S 2S")
    play(state, "ORDER_UP", "DISCARD(9S)", "CALL(AS)")
    assert play_tricks(state, "AD 9D 8D TH 8H", "KD TD AC JH 9H", "QD JD KC QH TC") == [1, 1, 1]
    play(state, "PLAY(AH)")
    assert hand_of(state, 2) == ["2H", "9C"]
    assert legal_cards(state) == ["2H", "9C"]


def test_example_08_two_of_spades_wins_an_all_trump_trick():
    hands = {
        1: "9H AC KC QC JC",
        2: "2S AS KS QS JS",
        3: "JH AD KD QD JD",
        4: "2H TC 9C 8C TS",
        0: "AH 9S 8S TD 9D",
    }
    state = new_state(FH, hands=hands, up="8H", rest="KH QH TH 8D")
    play(state, "ORDER_UP", "DISCARD(8S)", "CALL(AS)")
    trick = play_trick(state, "9H 2S JH 2H AH")
    assert trick.winner == 2


def test_example_09_jack_of_spades_is_plain_under_diamonds():
    hands = {
        1: "KS AC KC QC JC",
        2: "AS AH KH QH JH",
        3: "JS TH 9H 8H TC",
        4: "8S 9C 8C 2S 2H",
        0: "QS TS 9S AD KD",
    }
    state = new_state(FH, hands=hands, up="9D", rest="QD JD TD 8D")
    play(state, "ORDER_UP", "DISCARD(TS)", "CALL(AH)", "PLAY(KS)", "PLAY(AS)", "PLAY(JS)")
    assert legal_cards(state) == ["8S"]  # 2♠ is a diamond now, not a spade
    play(state, "PLAY(8S)")
    assert legal_cards(state) == ["9S", "QS"]
    trick = play_trick(state, "QS")
    assert trick.winner == 2
    assert beats(Card.parse("QS"), Card.parse("JS"), Trump.DIAMONDS, Suit.SPADES)


def test_example_10_maker_with_three_aces_only_alone():
    state = new_state(CA5, hands={1: "AC AS AD 9H KH"}, up="TH")
    play(state, "ORDER_UP", f"DISCARD({hand_of(state, 0)[0]})")
    assert state.trump == Trump.HEARTS
    assert legal(state) == ["ALONE"]


def test_example_11_called_ace_in_kitty_maker_alone_by_absence_scores_five():
    hands = dict(CA5_MARCH["hands"])
    hands[3] = "TH KS QS JS TS"
    state = new_state(CA5, hands=hands, up="9H", rest="AS 8H")
    play(state, "ORDER_UP", "DISCARD(8D)", "CALL(AS)")
    assert state.partner == -1 and not state.alone
    winners = play_tricks(
        state, "JH 8C TH 8S 9H", "JD 9C TS 9S TD", "AH TC JS QD 9D", "KH JC QS KD KC", "QH QC KS AD AC"
    )
    assert winners == [1] * 5
    assert state.results[0].points == (0, 5, 0, 0, 0)


def test_example_12_four_players_partnership_march_two_each():
    config = GameConfig.create("call-ace", num_players=4)
    hands = {1: "JH JD AH KH QH", 2: "9C TC JC QC KC", 3: "AS KS QS JS TS", 0: "AC AD KD QD TD"}
    state = new_state(config, hands=hands, up="9H", rest="9D TH 9S")
    play(state, "ORDER_UP", "DISCARD(TD)", "CALL(AS)")
    play_tricks(state, "JH 9C TS 9H", "JD TC JS QD", "AH JC QS KD", "KH QC KS AD", "QH KC AS AC")
    assert state.results[0].partner == 3
    assert state.results[0].points == (0, 2, 0, 2)


def test_example_13_six_players_lone_maker_euchred_five_others_two_each():
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
    play_tricks(
        state,
        "JH TC JD TS 8H 9H",
        "AH JC TD JS TH 9D",
        "7C AC QD QS KH 9C",
        "7D 8D 7S QC AD KS",
        "KD AS QH 8C 8S KC",
    )
    assert state.results[0].tricks_won[1] == 2
    assert state.results[0].points == (2, 0, 2, 2, 2, 2)


def test_example_14_fh_called_card_in_kitty_march_scores_two():
    hands = dict(FH_MARCH["hands"])
    hands[3] = "AD KD 9H JD TD"
    state = new_state(FH, hands=hands, up="9S", rest="TS 8S QD 8H")
    play(state, "ORDER_UP", "DISCARD(8C)", "CALL(QD)")
    assert state.partner == -1 and not state.alone
    winners = play_tricks(
        state, "2S 9C TD TH 9S", "2H TC JD JH QS", "JS QC 9H QH KS", "JC KC KD KH 9D", "AS AC AD AH 8D"
    )
    assert winners == [1] * 5
    assert state.results[0].points == (0, 2, 0, 0, 0)


def test_example_15_fh_announced_alone_march_scores_four():
    state = new_state(FH, **FH_MARCH)
    play(state, "ORDER_UP", "DISCARD(8C)", "ALONE")
    play_tricks(state, *FH_MARCH_TRICKS)
    assert state.results[0].points == (0, 4, 0, 0, 0)


def test_example_16_fh_bidder_at_8_and_partner_at_9_march_bidder_wins():
    state = new_state(FH, **FH_MARCH, scores=[0, 8, 9, 0, 0], single_hand=False)
    play(state, "ORDER_UP", "DISCARD(8C)", "CALL(AC)")
    play_tricks(state, *FH_MARCH_TRICKS)
    assert state.scores == [0, 10, 11, 0, 0]
    assert state.outcome.winners == (1,) and not state.outcome.is_draw


def test_example_17_fh_two_defenders_at_8_euchre_the_makers_draw():
    state = new_state(FH, **FH_EUCHRE, scores=[0, 0, 8, 0, 8], single_hand=False)
    play(state, "ORDER_UP", "DISCARD(9D)", "CALL(AD)")
    play_tricks(state, *FH_EUCHRE_TRICKS)
    assert state.scores == [2, 0, 10, 0, 10]
    assert state.outcome.winners == (2, 4)
    assert state.outcome.is_draw


def test_example_18_fh_two_of_spades_up_dealer_exposes_ten_of_hearts_and_names_hearts():
    hands = {
        1: "AC KC QC TC 9C",
        2: "AD KD QD JD TD",
        3: "AS KS QS JS TS",
        4: "9S 8S 9D 8D 8C",
        0: "TH AH KH 9H JC",
    }
    state = new_state(FH, hands=hands, up="2S", rest="QH JH 8H 2H")
    play(state, "EXPOSE")
    assert card_text(state.exposed) == "TH"
    assert all(str(build_view(state, s).exposed_card) == "TH" for s in range(5))
    play(state, "EXPOSE_NAME(H)")
    assert state.maker == 0 and state.trump == Trump.HEARTS
    assert "2S" in hand_of(state, 0) and state.current_phase is Phase.DISCARD
    play(state, "DISCARD(JC)")
    assert state.current_phase is Phase.CALL and state.current_player() == 0
    play(state, "CALL(AS)")
    assert state.partner == 3 and state.current_player() == 1


def test_example_19_ca_seven_players_kitty_is_the_up_card_then_the_discard():
    config = GameConfig.create("call-ace", num_players=7)
    assert len(deck_of(config)) == 36
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
    assert sum(len(h) for h in state.hands) == 35
    assert texts(state.kitty) == ["6H"]
    play(state, "ORDER_UP", "DISCARD(6D)")
    assert texts(state.kitty) == ["6D"]


def test_example_20_no_trumps_queen_of_spades_wins():
    config = GameConfig.create("call-ace", allow_no_trump=True)
    hands = {
        1: "JS 9H TH 8C 9C",
        2: "AC KC QC AD KD",
        3: "QS KH QH 8D 9D",
        4: "JC TC JD QD TD",
        0: "8S 9S JH AH 8H",
    }
    state = new_state(config, hands=hands, up="TS", rest="KS AS")
    play(state, *["PASS"] * 5, "NAME(NT)", "CALL(AH)")
    trick = play_trick(state, "JS AC QS JC 8S")
    assert trick_cards(trick) == [(1, "JS"), (2, "AC"), (3, "QS"), (4, "JC"), (0, "8S")]
    assert trick.winner == 3


def test_example_21_classic_partner_on_dealers_left_sits_out_next_seat_leads():
    config = GameConfig.create("classic")
    hands = {2: "JH JD AH KH QH", 0: "AC KC QC JC TC", 1: "AS KS QS JS TS", 3: "AD KD QD TD 9C"}
    state = new_state(config, dealer=3, hands=hands, up="9H", rest="9D TH 9S")
    play(state, "PASS", "PASS", "ORDER_UP", "DISCARD(9C)", "ALONE")
    assert state.maker == 2 and state.sitting_out == 0
    assert state.current_player() == 1
    trick = play_trick(state, "AS QH AD")
    assert trick_cards(trick) == [(1, "AS"), (2, "QH"), (3, "AD")]
    assert trick.winner == 2
