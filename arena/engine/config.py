"""A game's configuration: the variant and its rule options (RULES.md CA-1, FH-1, CL-1) as one frozen value.

Options that do not belong to the chosen variant are rejected rather than ignored, so a tournament file that
says ``use_joker = true`` for five-handed fails loudly instead of silently playing without a Joker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from functools import lru_cache
from typing import Any

from arena.engine.cards import JOKER, RANK_CHARS, TWO_HEARTS, TWO_SPADES, CardId, plain_card
from arena.errors import ConfigError


class Variant(StrEnum):
    """The three rule sets (RULES.md CA, FH, CL); the value is the name used in configs and on the command
    line."""

    CALL_ACE = "call-ace"
    FIVE_HANDED = "five-handed"
    CLASSIC = "classic"

    def __str__(self) -> str:
        return self.value


_COMMON = ("target", "max_hands", "first_dealer", "may_discard_upcard")
OPTIONS_BY_VARIANT: dict[Variant, tuple[str, ...]] = {
    Variant.CALL_ACE: (*_COMMON, "deck_5p", "use_joker", "stick_the_dealer", "tiebreak", "allow_no_trump"),
    Variant.FIVE_HANDED: (*_COMMON, "deck", "joker_names", "call_may_be_trump", "two_expose_mode"),
    Variant.CLASSIC: (*_COMMON, "stick_the_dealer"),
}
"""The rule options each variant accepts (besides ``variant`` and ``num_players``)."""

PLAYERS_BY_VARIANT: dict[Variant, tuple[int, int, int]] = {
    Variant.CALL_ACE: (4, 7, 5),
    Variant.FIVE_HANDED: (5, 5, 5),
    Variant.CLASSIC: (4, 4, 4),
}
"""(fewest, most, default) players per variant."""

_CHOICES: dict[str, tuple[str, ...]] = {
    "deck_5p": ("28", "32"),
    "tiebreak": ("highest_total", "lowest_start"),
    "deck": ("30", "29"),
    "two_expose_mode": ("free_choice", "exposed_suit"),
}
_BOOLS = (
    "may_discard_upcard",
    "use_joker",
    "stick_the_dealer",
    "allow_no_trump",
    "joker_names",
    "call_may_be_trump",
)


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything that fixes the rules of one game. Build it with ``GameConfig.create`` or ``from_dict``.

    Fields that do not apply to ``variant`` keep their defaults; ``to_dict`` lists only those that apply.
    """

    variant: Variant = Variant.CALL_ACE
    num_players: int = 5
    target: int = 10
    max_hands: int = 1000
    first_dealer: int = 0
    may_discard_upcard: bool = True
    stick_the_dealer: bool = False
    deck_5p: str = "28"
    use_joker: bool = False
    tiebreak: str = "highest_total"
    allow_no_trump: bool = False
    deck: str = "30"
    joker_names: bool = False
    call_may_be_trump: bool = True
    two_expose_mode: str = "free_choice"

    def __post_init__(self) -> None:
        if not isinstance(self.variant, Variant):
            object.__setattr__(self, "variant", _parse_variant(self.variant))
        self._validate()

    @classmethod
    def create(cls, variant: Variant | str = Variant.CALL_ACE, **options: Any) -> GameConfig:
        """A configuration for ``variant`` with the given rule options.

        :raises ConfigError: naming the option and what is allowed, for an unknown variant or option, an
            option of another variant, or a value out of range.
        """
        var = _parse_variant(variant)
        allowed = OPTIONS_BY_VARIANT[var]
        for key in options:
            if key != "num_players" and key not in allowed:
                raise ConfigError(
                    f"unknown option {key!r} for variant {var.value!r}: allowed options are "
                    f"num_players, {', '.join(allowed)}"
                )
        num_players = options.pop("num_players", PLAYERS_BY_VARIANT[var][2])
        return cls(variant=var, num_players=num_players, **options)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameConfig:
        """Inverse of ``to_dict``: ``{"variant": "five-handed", "target": 11, ...}``."""
        options = dict(data)
        variant = options.pop("variant", Variant.CALL_ACE)
        return cls.create(variant, **options)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``variant``, ``num_players`` and every option of this variant, defaults included."""
        out: dict[str, Any] = {"variant": self.variant.value, "num_players": self.num_players}
        for key in OPTIONS_BY_VARIANT[self.variant]:
            out[key] = getattr(self, key)
        return out

    @property
    def team_play(self) -> bool:
        """Classic euchre scores fixed partnerships (seats 0+2 and 1+3); the others score individuals."""
        return self.variant is Variant.CLASSIC

    def _validate(self) -> None:
        var = self.variant
        lo, hi, _ = PLAYERS_BY_VARIANT[var]
        _check_int("num_players", self.num_players, lo, hi, var)
        _check_int("target", self.target, 1, 10_000, var)
        _check_int("max_hands", self.max_hands, 1, 1_000_000, var)
        _check_int("first_dealer", self.first_dealer, 0, self.num_players - 1, var)
        defaults = {f.name: f.default for f in fields(GameConfig)}
        for key in _BOOLS:
            value = getattr(self, key)
            if not isinstance(value, bool):
                raise ConfigError(f"option {key}={value!r} for variant {var.value!r}: expected true or false")
        for key, choices in _CHOICES.items():
            value = getattr(self, key)
            if value not in choices:
                raise ConfigError(
                    f"option {key}={value!r} for variant {var.value!r}: expected one of "
                    f"{', '.join(repr(c) for c in choices)}"
                )
        allowed = OPTIONS_BY_VARIANT[var]
        for key in (*_BOOLS, *_CHOICES):
            if key not in allowed and getattr(self, key) != defaults[key]:
                raise ConfigError(
                    f"option {key!r} does not apply to variant {var.value!r}: allowed options are "
                    f"num_players, {', '.join(allowed)}"
                )
        if self.use_joker and self.allow_no_trump:
            raise ConfigError(
                "options use_joker=true and allow_no_trump=true cannot be combined for variant 'call-ace': "
                "the Joker has no rank without trumps (RULES.md CA-4.7)"
            )


def _parse_variant(value: Variant | str) -> Variant:
    try:
        return Variant(value)
    except ValueError:
        raise ConfigError(
            f"unknown variant {value!r}: expected one of {', '.join(repr(v.value) for v in Variant)}"
        ) from None


def _check_int(key: str, value: object, lo: int, hi: int, variant: Variant) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        allowed = str(lo) if lo == hi else f"an integer {lo}..{hi}"
        raise ConfigError(f"option {key}={value!r} for variant {variant.value!r}: expected {allowed}")


@lru_cache(maxsize=64)
def deck_of(config: GameConfig) -> tuple[CardId, ...]:
    """The cards of this configuration's deck, in id order (CA-2, FH-2.1, CL-2.1)."""
    if config.variant is Variant.FIVE_HANDED:
        low = "8"
        extra: tuple[CardId, ...] = (TWO_SPADES, TWO_HEARTS)
    elif config.variant is Variant.CLASSIC:
        low, extra = "9", ()
    else:
        n = config.num_players
        low = {4: "9", 5: "8" if config.deck_5p == "28" else "7", 6: "7", 7: "6"}[n]
        extra = (JOKER,) if config.use_joker else ()
    ranks = RANK_CHARS[RANK_CHARS.index(low) :]
    cards = [plain_card(r, s) for s in range(4) for r in ranks]
    if config.variant is Variant.FIVE_HANDED and config.deck == "29":
        cards.remove(plain_card("8", 0))
    return tuple(cards) + extra
