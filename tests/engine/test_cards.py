"""Cards, suits, effective suit and card order (RULES.md C-1.2..C-1.5, C-2, CA-3.1, FH-2.3; checklist 1-2)."""

from __future__ import annotations

import pytest

from arena.engine import CARDS, Card, GameConfig, Suit, Trump, build_view, deck_of, effective_suit, is_trump
from arena.engine.cards import EFFECTIVE_SUIT, TRICK_KEY, beats
from arena.errors import NotationError
from tests.engine.helpers import new_state

SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}
SUIT_LETTERS = "CDHS"
TRUMPS = [Trump.CLUBS, Trump.DIAMONDS, Trump.HEARTS, Trump.SPADES]

CONFIGS = {
    "CA4": GameConfig.create("call-ace", num_players=4),
    "CA5": GameConfig.create("call-ace"),
    "CA5-32": GameConfig.create("call-ace", deck_5p="32"),
    "CA5-joker": GameConfig.create("call-ace", use_joker=True),
    "CA6": GameConfig.create("call-ace", num_players=6),
    "CA7": GameConfig.create("call-ace", num_players=7),
    "CA7-joker": GameConfig.create("call-ace", num_players=7, use_joker=True),
    "FH30": GameConfig.create("five-handed"),
    "FH29": GameConfig.create("five-handed", deck="29"),
    "CL": GameConfig.create("classic"),
}
LOWEST_RANK = {
    "CA4": "9",
    "CA5": "8",
    "CA5-32": "7",
    "CA5-joker": "8",
    "CA6": "7",
    "CA7": "6",
    "CA7-joker": "6",
    "FH30": "8",
    "FH29": "8",
    "CL": "9",
}
NATURAL = "AKQJT9876"  # high -> low (C-1.3)


def deck_texts(name: str) -> list[str]:
    return [str(CARDS[c]) for c in deck_of(CONFIGS[name])]


def oracle_eff(card: str, trump: str) -> str:
    """Effective suit straight from the words of C-2.1 (and CA-4.7 for No-Trumps)."""
    if trump == "NT":
        return card[1]
    if card == "JKR":
        return trump
    if card in ("2S", "2H"):
        return trump
    if card[0] == "J" and card[1] == trump:
        return trump
    if card[0] == "J" and card[1] == SAME_COLOUR[trump]:
        return trump
    return card[1]


def trump_order(name: str, trump: Trump) -> list[str]:
    """The deck's trumps sorted high -> low by the engine's trick table."""
    keys = TRICK_KEY[trump][trump]
    trumps = [c for c in deck_of(CONFIGS[name]) if EFFECTIVE_SUIT[trump][c] == trump]
    return [str(CARDS[c]) for c in sorted(trumps, key=lambda c: -keys[c])]


def plain_order(name: str, trump: Trump, suit: int) -> list[str]:
    """The cards of effective suit ``suit`` (not trump) sorted high -> low when that suit is led."""
    keys = TRICK_KEY[trump][suit]
    members = [c for c in deck_of(CONFIGS[name]) if EFFECTIVE_SUIT[trump][c] == suit]
    return [str(CARDS[c]) for c in sorted(members, key=lambda c: -keys[c])]


# ----------------------------------------------------------------- C-1.2 .. C-1.5


def test_C_1_2_suits_and_colours():
    assert [s.letter for s in Suit] == ["C", "D", "H", "S"]
    assert Suit.SPADES.same_colour is Suit.CLUBS
    assert Suit.CLUBS.same_colour is Suit.SPADES
    assert Suit.HEARTS.same_colour is Suit.DIAMONDS
    assert Suit.DIAMONDS.same_colour is Suit.HEARTS
    assert [Suit.parse(x) for x in "CDHS"] == list(Suit)
    with pytest.raises(NotationError, match="'X'"):
        Suit.parse("X")


def test_C_1_3_ranks_of_each_deck():
    # natural ranks A..6 only as the deck needs them; 2S/2H only in FH; the Joker only with use_joker
    for name, cfg_deck in ((n, deck_texts(n)) for n in CONFIGS):
        low = LOWEST_RANK[name]
        ranks = NATURAL[: NATURAL.index(low) + 1]
        plain = [c for c in cfg_deck if c not in ("2S", "2H", "JKR")]
        assert sorted(plain) == sorted(
            r + s for r in ranks for s in SUIT_LETTERS if (r + s) != "8C" or name != "FH29"
        )
        assert ("2S" in cfg_deck and "2H" in cfg_deck) == name.startswith("FH"), name
        assert ("JKR" in cfg_deck) == name.endswith("joker"), name
    assert Card.parse("2S").rank == "2" and Card.parse("2S").suit is Suit.SPADES
    assert Card.parse("2H").rank == "2" and Card.parse("2H").suit is Suit.HEARTS
    assert Card.parse("JKR").rank == "JKR" and Card.parse("JKR").suit is None


@pytest.mark.parametrize("text", ["JH", "TS", "2S", "2H", "9C", "6D", "AD", "JKR"])
def test_C_1_4_card_string_round_trip(text):
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(str(card)) == card
    assert CARDS[card.id] == card


def test_C_1_4_every_card_round_trips_and_strings_are_unique():
    strings = [str(c) for c in CARDS]
    assert len(set(strings)) == len(CARDS) == 39
    assert all(Card.parse(s) == c for s, c in zip(strings, CARDS, strict=True))
    assert Card.parse("TS").rank == "T" and Card.parse("TS").suit is Suit.SPADES
    assert Card.parse("JH").rank == "J" and Card.parse("JH").suit is Suit.HEARTS


@pytest.mark.parametrize(
    "junk", ["ZZ", "10S", "JK", "J", "", "jh", "JHX", "1H", "2C", "2D", "KR", " JH", "XS"]
)
def test_C_1_4_junk_card_strings_raise_notation_error(junk):
    with pytest.raises(NotationError) as info:
        Card.parse(junk)
    assert repr(junk) in str(info.value)


def test_C_1_4_non_string_card_raises_notation_error():
    with pytest.raises(NotationError):
        Card.parse(None)  # type: ignore[arg-type]
    with pytest.raises(NotationError):
        Card(39)


def test_C_1_5_right_and_left_bower_for_each_trump():
    for trump in TRUMPS:
        right = Card.parse("J" + trump.letter)
        left = Card.parse("J" + SAME_COLOUR[trump.letter])
        assert is_trump(right, trump) and is_trump(left, trump)
        assert effective_suit(left, trump) == Suit(int(trump))
        for led in range(4):
            # right > left > every other card of the deck
            assert beats(right, left, trump, Suit(led))
            assert beats(left, Card.parse("A" + trump.letter), trump, Suit(led))


# ----------------------------------------------------------------- C-2.1 effective suit (checklist 1)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_C_2_1_effective_suit_of_every_card_under_every_trump(name):
    config = CONFIGS[name]
    trumps = [*TRUMPS, Trump.NO_TRUMP] if name == "CA5" else TRUMPS
    for trump in trumps:
        for c in deck_of(config):
            text = str(CARDS[c])
            expected = oracle_eff(text, trump.letter)
            assert Suit(EFFECTIVE_SUIT[trump][c]).letter == expected, (text, trump.letter)
            assert effective_suit(CARDS[c], trump).letter == expected, (text, trump.letter)
            assert is_trump(CARDS[c], trump) == (trump != Trump.NO_TRUMP and expected == trump.letter)


def test_C_2_1_left_bower_is_not_a_card_of_its_printed_suit():
    # hearts trump: J♦ is a heart, so the diamond suit has no jack
    assert effective_suit(Card.parse("JD"), Trump.HEARTS) is Suit.HEARTS
    assert effective_suit(Card.parse("JD"), Trump.DIAMONDS) is Suit.DIAMONDS
    assert effective_suit(Card.parse("JD"), Trump.SPADES) is Suit.DIAMONDS
    assert effective_suit(Card.parse("JC"), Trump.SPADES) is Suit.SPADES
    assert effective_suit(Card.parse("JC"), Trump.HEARTS) is Suit.CLUBS


def test_C_2_1_twos_and_joker_are_always_trump():
    for trump in TRUMPS:
        for text in ("2S", "2H", "JKR"):
            assert effective_suit(Card.parse(text), trump) == Suit(int(trump)), (text, trump)


# ----------------------------------------------------------------- C-2.2 trump order (checklist 2)


@pytest.mark.parametrize(
    ("name", "trump", "expected"),
    [
        ("CA4", Trump.SPADES, "JS JC AS KS QS TS 9S"),
        ("CA5", Trump.SPADES, "JS JC AS KS QS TS 9S 8S"),
        ("CA5", Trump.HEARTS, "JH JD AH KH QH TH 9H 8H"),
        ("CA5-32", Trump.DIAMONDS, "JD JH AD KD QD TD 9D 8D 7D"),
        ("CA5-joker", Trump.CLUBS, "JKR JC JS AC KC QC TC 9C 8C"),
        ("CA6", Trump.CLUBS, "JC JS AC KC QC TC 9C 8C 7C"),
        ("CA7", Trump.HEARTS, "JH JD AH KH QH TH 9H 8H 7H 6H"),
        ("CA7-joker", Trump.DIAMONDS, "JKR JD JH AD KD QD TD 9D 8D 7D 6D"),
        ("FH30", Trump.SPADES, "2S 2H JS JC AS KS QS TS 9S 8S"),
        ("FH30", Trump.HEARTS, "2S 2H JH JD AH KH QH TH 9H 8H"),
        ("FH30", Trump.CLUBS, "2S 2H JC JS AC KC QC TC 9C 8C"),
        ("FH29", Trump.CLUBS, "2S 2H JC JS AC KC QC TC 9C"),
        ("FH29", Trump.DIAMONDS, "2S 2H JD JH AD KD QD TD 9D 8D"),
        ("CL", Trump.HEARTS, "JH JD AH KH QH TH 9H"),
        ("CL", Trump.CLUBS, "JC JS AC KC QC TC 9C"),
    ],
)
def test_C_2_2_trump_order(name, trump, expected):
    assert trump_order(name, trump) == expected.split()


def test_C_2_2_every_trump_beats_every_non_trump_whatever_is_led():
    config = CONFIGS["FH30"]
    for trump in TRUMPS:
        for led in range(4):
            for a in deck_of(config):
                for b in deck_of(config):
                    ta, tb = is_trump(CARDS[a], trump), is_trump(CARDS[b], trump)
                    if ta and not tb:
                        assert beats(CARDS[a], CARDS[b], trump, Suit(led))


def test_C_2_2_FH_ten_trumps_with_spades():
    # RULES.md C-2.2: with spades trump: 2♠, 2♥, J♠, J♣, A♠, K♠, Q♠, 10♠, 9♠, 8♠ — 10 trumps
    assert trump_order("FH30", Trump.SPADES) == ["2S", "2H", "JS", "JC", "AS", "KS", "QS", "TS", "9S", "8S"]


# ----------------------------------------------------------------- C-2.3 plain-suit order (checklist 2)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_C_2_3_plain_suit_order_and_left_bower_suit_lacks_its_jack(name):
    low = LOWEST_RANK[name]
    ranks = NATURAL[: NATURAL.index(low) + 1]
    for trump in TRUMPS:
        left_suit = SAME_COLOUR[trump.letter]
        for suit in range(4):
            if suit == trump:
                continue
            letter = SUIT_LETTERS[suit]
            expected = [r + letter for r in ranks]
            if letter == left_suit:
                expected.remove("J" + letter)
            if name == "FH29" and letter == "C":
                expected.remove("8C")
            assert plain_order(name, trump, suit) == expected, (name, trump.letter, letter)
            if letter == left_suit and name != "FH29":  # FH29 also lacks 8♣
                others = [s for s in SUIT_LETTERS if s not in (trump.letter, left_suit)]
                assert len(plain_order(name, trump, SUIT_LETTERS.index(others[0]))) == len(expected) + 1


def test_C_2_3_off_suit_cards_never_win():
    # hearts trump, clubs led: a diamond or spade ace cannot beat the lowest club
    for text in ("AD", "AS", "KS"):
        assert not beats(Card.parse(text), Card.parse("8C"), Trump.HEARTS, Suit.CLUBS)
        assert beats(Card.parse("8C"), Card.parse(text), Trump.HEARTS, Suit.CLUBS)


def test_C_2_4_no_card_comparison_before_trump_is_fixed():
    # during bidding the engine has no trump (and a view shows none)
    state = new_state(GameConfig.create("call-ace"), up="9H")
    assert state.trump == -1
    assert build_view(state, 1).trump is None
    assert build_view(state, 1).led_suit is None


# ----------------------------------------------------------------- CA-3.1, FH-2.3


def test_CA_3_1_clubs_trump_five_players_with_joker():
    assert trump_order("CA5-joker", Trump.CLUBS) == ["JKR", "JC", "JS", "AC", "KC", "QC", "TC", "9C", "8C"]
    assert plain_order("CA5-joker", Trump.CLUBS, 3) == ["AS", "KS", "QS", "TS", "9S", "8S"]


def test_CA_3_1_no_joker_without_use_joker():
    assert "JKR" not in deck_texts("CA5")
    assert trump_order("CA5", Trump.CLUBS)[0] == "JC"


def test_FH_2_3_twos_are_trumps_for_every_trump_suit():
    for trump in TRUMPS:
        order = trump_order("FH30", trump)
        assert order[:4] == ["2S", "2H", "J" + trump.letter, "J" + SAME_COLOUR[trump.letter]]
        assert len(order) == 10
        # 2♠ is not a plain spade and 2♥ not a plain heart
        for suit in range(4):
            if suit != trump:
                assert "2S" not in plain_order("FH30", trump, suit)
                assert "2H" not in plain_order("FH30", trump, suit)
