"""Configurations: defaults (CA-1, FH-1, CL-1), decks per player count (CA-2, FH-2.1, CL-2.1), bad values."""

from __future__ import annotations

import pytest

from arena.engine import CARDS, GameConfig, Variant, deck_of
from arena.errors import ConfigError


def deck_strings(config: GameConfig) -> list[str]:
    return [str(CARDS[c]) for c in deck_of(config)]


def test_C_0_1_three_variants_and_their_player_counts():
    assert {v.value for v in Variant} == {"call-ace", "five-handed", "classic"}
    assert GameConfig.create("call-ace").num_players == 5
    assert GameConfig.create("five-handed").num_players == 5
    assert GameConfig.create("classic").num_players == 4
    for n in (4, 5, 6, 7):
        assert GameConfig.create("call-ace", num_players=n).num_players == n
    for bad in (3, 8):
        with pytest.raises(ConfigError, match="num_players"):
            GameConfig.create("call-ace", num_players=bad)
    for bad in (4, 6):
        with pytest.raises(ConfigError, match="num_players"):
            GameConfig.create("five-handed", num_players=bad)
    for bad in (3, 5):
        with pytest.raises(ConfigError, match="num_players"):
            GameConfig.create("classic", num_players=bad)


def test_CA_1_defaults():
    c = GameConfig.create("call-ace")
    assert c.to_dict() == {
        "variant": "call-ace",
        "num_players": 5,
        "target": 10,
        "max_hands": 1000,
        "first_dealer": 0,
        "may_discard_upcard": True,
        "deck_5p": "28",
        "use_joker": False,
        "stick_the_dealer": False,
        "tiebreak": "highest_total",
        "allow_no_trump": False,
    }


def test_FH_1_defaults():
    c = GameConfig.create("five-handed")
    assert c.to_dict() == {
        "variant": "five-handed",
        "num_players": 5,
        "target": 10,
        "max_hands": 1000,
        "first_dealer": 0,
        "may_discard_upcard": True,
        "deck": "30",
        "joker_names": False,
        "call_may_be_trump": True,
        "two_expose_mode": "free_choice",
    }


def test_CL_1_defaults():
    c = GameConfig.create("classic")
    assert c.to_dict() == {
        "variant": "classic",
        "num_players": 4,
        "target": 10,
        "max_hands": 1000,
        "first_dealer": 0,
        "may_discard_upcard": True,
        "stick_the_dealer": False,
    }
    assert c.team_play


def test_config_round_trips_through_dict():
    for c in (
        GameConfig.create("call-ace", num_players=7, use_joker=True, target=11, tiebreak="lowest_start"),
        GameConfig.create("five-handed", deck="29", two_expose_mode="exposed_suit", call_may_be_trump=False),
        GameConfig.create("classic", stick_the_dealer=True, max_hands=3),
    ):
        assert GameConfig.from_dict(c.to_dict()) == c


# ----------------------------------------------------------------- CA-2 deck per player count


@pytest.mark.parametrize(
    ("options", "size", "lowest"),
    [
        ({"num_players": 4}, 24, "9"),
        ({"num_players": 5}, 28, "8"),
        ({"num_players": 5, "deck_5p": "32"}, 32, "7"),
        ({"num_players": 6}, 32, "7"),
        ({"num_players": 7}, 36, "6"),
    ],
)
def test_CA_2_deck_per_player_count(options, size, lowest):
    plain = GameConfig.create("call-ace", **options)
    ranks = "AKQJT9876"[: "AKQJT9876".index(lowest) + 1]
    assert sorted(deck_strings(plain)) == sorted(r + s for r in ranks for s in "CDHS")
    assert len(deck_of(plain)) == size
    joker = GameConfig.create("call-ace", use_joker=True, **options)
    assert len(deck_of(joker)) == size + 1


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_CA_2_1_joker_added_to_whichever_deck(n):
    plain = deck_strings(GameConfig.create("call-ace", num_players=n))
    joker = deck_strings(GameConfig.create("call-ace", num_players=n, use_joker=True))
    assert sorted(joker) == sorted([*plain, "JKR"])
    joker32 = deck_strings(GameConfig.create("call-ace", deck_5p="32", use_joker=True))
    assert len(joker32) == 33 and "JKR" in joker32 and "7C" in joker32


def test_CA_2_deck_5p_is_ignored_for_other_player_counts():
    for n in (4, 6, 7):
        a = GameConfig.create("call-ace", num_players=n, deck_5p="32")
        b = GameConfig.create("call-ace", num_players=n)
        assert deck_of(a) == deck_of(b)


def test_FH_2_1_thirty_and_twenty_nine_card_decks():
    d30 = deck_strings(GameConfig.create("five-handed"))
    assert len(d30) == 30
    assert sorted(d30) == sorted([r + s for r in "AKQJT98" for s in "CDHS"] + ["2S", "2H"])
    d29 = deck_strings(GameConfig.create("five-handed", deck="29"))
    assert sorted(d29) == sorted(c for c in d30 if c != "8C")


def test_CL_2_1_twenty_four_cards():
    d = deck_strings(GameConfig.create("classic"))
    assert sorted(d) == sorted(r + s for r in "AKQJT9" for s in "CDHS")


# ----------------------------------------------------------------- invalid configurations


def test_invalid_eight_players_names_num_players():
    with pytest.raises(ConfigError) as info:
        GameConfig.create("call-ace", num_players=8)
    assert "num_players" in str(info.value) and "8" in str(info.value)


def test_CA_4_7_no_trump_with_joker_is_rejected_naming_both_options():
    with pytest.raises(ConfigError) as info:
        GameConfig.create("call-ace", use_joker=True, allow_no_trump=True)
    assert "use_joker" in str(info.value) and "allow_no_trump" in str(info.value)
    # each alone is fine
    assert GameConfig.create("call-ace", use_joker=True).use_joker
    assert GameConfig.create("call-ace", allow_no_trump=True).allow_no_trump


def test_invalid_unknown_option_is_named():
    with pytest.raises(ConfigError, match="'colour_blind'"):
        GameConfig.create("call-ace", colour_blind=True)


@pytest.mark.parametrize(
    ("variant", "option", "value"),
    [
        ("five-handed", "use_joker", True),
        ("five-handed", "stick_the_dealer", True),
        ("five-handed", "tiebreak", "lowest_start"),
        ("five-handed", "allow_no_trump", True),
        ("five-handed", "deck_5p", "32"),
        ("call-ace", "deck", "29"),
        ("call-ace", "two_expose_mode", "exposed_suit"),
        ("call-ace", "call_may_be_trump", False),
        ("call-ace", "joker_names", True),
        ("classic", "use_joker", True),
        ("classic", "tiebreak", "lowest_start"),
        ("classic", "deck", "29"),
    ],
)
def test_invalid_option_of_another_variant_is_named(variant, option, value):
    with pytest.raises(ConfigError) as info:
        GameConfig.create(variant, **{option: value})
    assert repr(option) in str(info.value)
    assert variant in str(info.value)


def test_invalid_option_of_another_variant_via_constructor():
    with pytest.raises(ConfigError, match="use_joker"):
        GameConfig(variant=Variant.FIVE_HANDED, use_joker=True)


def test_invalid_unknown_variant_is_named():
    with pytest.raises(ConfigError) as info:
        GameConfig.create("six-handed")
    assert "variant" in str(info.value) and "'six-handed'" in str(info.value)


@pytest.mark.parametrize(
    ("variant", "option", "value"),
    [
        ("call-ace", "deck_5p", "30"),
        ("call-ace", "tiebreak", "coin_flip"),
        ("call-ace", "use_joker", "yes"),
        ("call-ace", "target", 0),
        ("call-ace", "max_hands", 0),
        ("call-ace", "first_dealer", 5),
        ("call-ace", "first_dealer", -1),
        ("five-handed", "deck", "28"),
        ("five-handed", "two_expose_mode", "random"),
        ("classic", "may_discard_upcard", 1),
        ("classic", "first_dealer", 4),
    ],
)
def test_invalid_value_is_named(variant, option, value):
    with pytest.raises(ConfigError) as info:
        GameConfig.create(variant, **{option: value})
    assert option in str(info.value) and repr(value) in str(info.value)


def test_C_4_1_first_dealer_option():
    assert GameConfig.create("call-ace").first_dealer == 0
    assert GameConfig.create("call-ace", num_players=7, first_dealer=6).first_dealer == 6
