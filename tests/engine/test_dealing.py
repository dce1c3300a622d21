"""Dealing: deal pattern, up-card, kitty sizes, shuffle, first dealer, rotation.

RULES.md C-4, CA-2, FH-2.2, CL-2.1; checklist items 5 and 13.
"""

from __future__ import annotations

import pytest

from arena.engine import GameConfig, GameState, deal_order, deck_of
from arena.engine.dealing import deal_positions
from arena.errors import RuleError
from tests.engine.helpers import cards, hand_of, legal, make_deck, new_state, play, texts

CA5 = GameConfig.create("call-ace")


def test_C_4_4_deal_positions_five_players_dealer_0():
    # pass 1: two each from seat 1 round to the dealer (seat 0); pass 2: three each in the same order
    assert deal_positions(5, 0) == (
        (8, 9, 22, 23, 24),
        (0, 1, 10, 11, 12),
        (2, 3, 13, 14, 15),
        (4, 5, 16, 17, 18),
        (6, 7, 19, 20, 21),
    )


def test_C_4_4_deal_positions_four_players_dealer_2():
    assert deal_positions(4, 2) == (
        (2, 3, 11, 12, 13),
        (4, 5, 14, 15, 16),
        (6, 7, 17, 18, 19),
        (0, 1, 8, 9, 10),
    )


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_C_4_4_deal_positions_cover_the_first_5N_cards(n):
    for dealer in range(n):
        positions = deal_positions(n, dealer)
        flat = sorted(p for seat in positions for p in seat)
        assert flat == list(range(5 * n))
        first = (dealer + 1) % n
        assert positions[first][:2] == (0, 1)  # dealer's left receives the top two cards
        assert positions[dealer][:2] == (2 * n - 2, 2 * n - 1)  # the dealer is last in pass 1
        assert positions[dealer][2:] == (5 * n - 3, 5 * n - 2, 5 * n - 1)  # and last in pass 2


def test_C_4_4_engine_deals_a_fixed_deck_in_the_pattern():
    deck = list(deck_of(CA5))  # id order: 8C 9C TC JC QC KC AC 8D ...
    state = GameState(CA5, decks=[deck])
    text = texts(deck)
    assert texts(state.dealt[1]) == [text[0], text[1], text[10], text[11], text[12]]
    assert texts(state.dealt[0]) == [text[8], text[9], text[22], text[23], text[24]]
    assert texts(state.dealt[3]) == [text[4], text[5], text[16], text[17], text[18]]
    for seat in range(5):
        assert len(state.hands[seat]) == 5


def test_C_4_4_make_deck_helper_deals_exactly_the_given_hands_in_order():
    hands = {
        0: "AC KC TD 9D 8D",
        1: "JH JD AH KH QH",
        2: "8C 9C TC JC QC",
        3: "AS KS QS JS TS",
        4: "9S 8S AD KD QD",
    }
    for dealer in range(5):
        state = GameState(CA5, decks=[make_deck(CA5, dealer, hands, up="9H")], dealer=dealer)
        for seat, hand in hands.items():
            assert texts(state.dealt[seat]) == hand.split()  # hand position order = order received
        assert texts([state.up_card]) == ["9H"]
        assert sorted(texts(state.kitty)) == ["8H", "9H", "TH"]
        assert state.current_player() == (dealer + 1) % 5


def test_C_4_5_up_card_is_the_card_after_the_deal_and_kitty_is_the_rest():
    state = new_state(CA5, up="TH", rest="8H 9H")
    assert texts([state.up_card]) == ["TH"]
    assert texts(state.kitty) == ["TH", "8H", "9H"]
    assert texts([state.deck[25]]) == ["TH"]


@pytest.mark.parametrize(
    ("options", "kitty"),
    [
        ({"num_players": 4}, 4),
        ({"num_players": 4, "use_joker": True}, 5),
        ({"num_players": 5}, 3),
        ({"num_players": 5, "use_joker": True}, 4),
        ({"num_players": 5, "deck_5p": "32"}, 7),
        ({"num_players": 5, "deck_5p": "32", "use_joker": True}, 8),
        ({"num_players": 6}, 2),
        ({"num_players": 6, "use_joker": True}, 3),
        ({"num_players": 7}, 1),
        ({"num_players": 7, "use_joker": True}, 2),
    ],
)
def test_CA_2_kitty_size_per_player_count(options, kitty):
    config = GameConfig.create("call-ace", **options)
    state = GameState(config, seed=11)
    n = config.num_players
    assert [len(h) for h in state.hands] == [5] * n
    assert len(state.kitty) == kitty
    assert len({c for h in state.hands for c in h} | set(state.kitty)) == len(deck_of(config))


def test_CA_2_2_kitty_size_unchanged_after_pick_up_and_discard():
    state = new_state(CA5, hands={1: "JH JD AH KH QH"}, up="9H")
    before = sorted(texts(state.kitty))
    play(state, "ORDER_UP")
    assert (
        len(state.kitty) == 2 and len(state.hands[0]) == 6
    )  # up-card out of the kitty, into the dealer's hand
    dealer_hand = hand_of(state, 0)
    discard = dealer_hand[0]
    play(state, f"DISCARD({discard})")
    assert len(state.kitty) == 3 and len(state.hands[0]) == 5
    assert sorted(texts(state.kitty)) == sorted([*[c for c in before if c != "9H"], discard])


@pytest.mark.parametrize(("deck", "kitty"), [("30", 5), ("29", 4)])
def test_FH_2_2_five_players_five_cards_each_and_kitty(deck, kitty):
    config = GameConfig.create("five-handed", deck=deck)
    state = GameState(config, seed=3)
    assert [len(h) for h in state.hands] == [5] * 5
    assert len(state.kitty) == kitty
    assert state.kitty[0] == state.up_card == state.deck[25]


def test_CL_2_1_deal_up_card_and_kitty():
    config = GameConfig.create("classic")
    state = GameState(config, seed=5)
    assert [len(h) for h in state.hands] == [5] * 4
    assert len(state.kitty) == 4 and state.up_card == state.deck[20]
    for seat, positions in enumerate(deal_positions(4, 0)):
        assert list(state.dealt[seat]) == [state.deck[p] for p in positions]


def test_CA_4_1_deal_and_up_card_per_C_4():
    config = GameConfig.create("call-ace", num_players=6)
    deck = deal_order(config, 42, 0)
    state = GameState(config, decks=[deck], dealer=3)
    for seat, positions in enumerate(deal_positions(6, 3)):
        assert list(state.dealt[seat]) == [deck[p] for p in positions]
    assert state.up_card == deck[30]
    assert state.current_player() == 4


# ----------------------------------------------------------------- C-4.3 shuffle


def test_C_4_3_shuffle_is_reproducible_and_a_permutation():
    for config in (
        CA5,
        GameConfig.create("five-handed"),
        GameConfig.create("call-ace", num_players=7, use_joker=True),
    ):
        a = deal_order(config, 7, 0)
        assert a == deal_order(config, 7, 0)
        assert sorted(a) == sorted(deck_of(config))
        assert a != deal_order(config, 7, 1)
        assert a != deal_order(config, 8, 0)


def test_C_4_3_seeded_game_deals_from_the_seed_and_explicit_decks_take_precedence():
    state = GameState(CA5, seed=99)
    assert list(state.deck) == deal_order(CA5, 99, 0)
    deck = make_deck(CA5, up="9H")
    state = GameState(CA5, seed=99, decks=[deck])
    assert list(state.deck) == deck


def test_C_4_3_explicit_deck_must_be_a_permutation_of_the_deck():
    deck = make_deck(CA5)
    with pytest.raises(RuleError):
        GameState(CA5, decks=[deck[:-1]])
    with pytest.raises(RuleError):
        GameState(CA5, decks=[[*deck[:-1], deck[0]]])
    with pytest.raises(RuleError):
        GameState(CA5, decks=[[*deck[:-1], cards("7C")[0]]])  # 7♣ is not in the 28-card deck
    with pytest.raises(RuleError):
        GameState(CA5)  # neither seed nor decks


# ----------------------------------------------------------------- C-4.1 / C-4.2 dealers


def test_C_4_1_first_dealer_is_configurable():
    config = GameConfig.create("call-ace", first_dealer=3)
    state = GameState(config, seed=1)
    assert state.dealer == 3
    assert state.current_player() == 4
    assert GameState(CA5, seed=1).dealer == 0


def test_C_4_2_dealer_rotates_after_scored_and_thrown_in_hands():
    # hand 0 (dealer 0): thrown in; hand 1 (dealer 1): thrown in; hand 2 (dealer 2): scored; hand 3: dealer 3
    config = GameConfig.create("call-ace")
    decks = [make_deck(config, 0, up="9H"), make_deck(config, 1, up="9H"), make_deck(config, 2, up="9H")]
    state = GameState(config, decks=decks, seed=5)
    play(state, *["PASS"] * 10)
    assert state.results[-1].dealer == 0 and state.results[-1].maker == -1
    assert state.dealer == 1 and state.current_player() == 2
    play(state, *["PASS"] * 10)
    assert state.dealer == 2 and state.current_player() == 3
    play(state, "ORDER_UP")
    play(state, f"DISCARD({hand_of(state, 2)[0]})")
    play(state, legal(state)[0])
    while len(state.results) < 3:
        state.apply(state.legal_actions()[0])
    assert [r.dealer for r in state.results] == [0, 1, 2]
    assert state.dealer == 3 and state.hand_index == 3


def test_C_4_2_dealer_wraps_round_the_table():
    config = GameConfig.create("call-ace", num_players=4, first_dealer=3)
    state = GameState(config, seed=2)
    play(state, *["PASS"] * 8)  # thrown in (unless the seed turned up a Joker: no Joker in this deck)
    assert state.dealer == 0 and state.current_player() == 1
