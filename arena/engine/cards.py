"""Cards, suits, and the card order under a trump (RULES.md C-1, C-2).

Inside the engine a card is a small int (``CardId``) so that hands are lists of ints and the trick winner is
a table lookup; ``Card`` is the public value with one text form (``"JH"``, ``"TS"``, ``"2S"``, ``"JKR"``).
The tables here are built once at import and shared by every variant: a card that is not in a variant's deck
simply never appears, so one table serves Call-Ace, Five-handed and classic.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TypeAlias

from arena.errors import NotationError

CardId: TypeAlias = int
"""Index of a card in ``CARDS`` (0..38)."""


class Suit(IntEnum):
    """A printed suit. Colours: clubs and spades are black, diamonds and hearts red (C-1.2)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """The suit's letter in card and action texts: C, D, H or S."""
        return "CDHS"[self]

    @property
    def same_colour(self) -> Suit:
        """The other suit of this colour: the suit of the left bower when this suit is trump."""
        return Suit(3 - self)

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse a suit letter (``"H"``).

        :raises NotationError: if ``text`` is not one of C, D, H, S.
        """
        index = "CDHS".find(text) if isinstance(text, str) and len(text) == 1 else -1
        if index < 0:
            raise NotationError(f"invalid suit {text!r}: expected one of 'C', 'D', 'H', 'S'")
        return cls(index)

    def __str__(self) -> str:
        return self.letter


class Trump(IntEnum):
    """What a hand is played in: one of the four suits or, under CA-4.7, No-Trumps."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3
    NO_TRUMP = 4

    @property
    def letter(self) -> str:
        """The text in actions: C, D, H, S or NT (``NAME(NT)``)."""
        return ("C", "D", "H", "S", "NT")[self]

    @property
    def suit(self) -> Suit | None:
        """The trump suit, or ``None`` for No-Trumps."""
        return None if self is Trump.NO_TRUMP else Suit(self)

    @classmethod
    def parse(cls, text: str) -> Trump:
        """Parse ``"C"``, ``"D"``, ``"H"``, ``"S"`` or ``"NT"``."""
        if text == "NT":
            return cls.NO_TRUMP
        try:
            return cls(Suit.parse(text))
        except NotationError:
            raise NotationError(f"invalid trump {text!r}: expected one of 'C', 'D', 'H', 'S', 'NT'") from None

    def __str__(self) -> str:
        return self.letter


NO_TRUMP = 4
RANK_CHARS = "6789TJQKA"
"""Natural ranks low to high; a plain card's id is ``suit * 9 + RANK_CHARS.index(rank)``."""
JACK = RANK_CHARS.index("J")
ACE = RANK_CHARS.index("A")
TWO_SPADES: CardId = 36
TWO_HEARTS: CardId = 37
JOKER: CardId = 38
NUM_CARDS = 39

_TEXT: tuple[str, ...] = (*tuple(r + s for s in "CDHS" for r in RANK_CHARS), "2S", "2H", "JKR")
_BY_TEXT: dict[str, CardId] = {t: i for i, t in enumerate(_TEXT)}


def card_text(card: CardId) -> str:
    """The canonical text of a card id (``"JH"``)."""
    return _TEXT[card]


def parse_card_id(text: str) -> CardId:
    """Parse the canonical text of a card (C-1.4).

    :raises NotationError: if ``text`` is not a card of any variant.
    """
    try:
        return _BY_TEXT[text]
    except (KeyError, TypeError):
        raise NotationError(
            f"invalid card {text!r}: expected rank+suit such as 'JH', 'TS', '9C' "
            f"(ranks {' '.join(RANK_CHARS)}; suits C D H S), or '2S', '2H', 'JKR'"
        ) from None


def printed_suit(card: CardId) -> Suit | None:
    """The suit printed on the card; ``None`` for the Joker."""
    if card == JOKER:
        return None
    if card == TWO_SPADES:
        return Suit.SPADES
    if card == TWO_HEARTS:
        return Suit.HEARTS
    return Suit(card // 9)


def plain_card(rank: str, suit: int) -> CardId:
    """The id of an ordinary card from its rank character and suit."""
    return suit * 9 + RANK_CHARS.index(rank)


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A playing card. ``str(card)`` is its canonical text and ``Card.parse`` reads it back.

    The values in ``CARDS`` are the only ones there are, so cards compare with ``==`` and order by ``id``
    (a fixed order, not the trick order: use ``TRICK_KEY`` or ``beats`` for that).
    """

    id: CardId
    """The card's index in ``CARDS``: ``suit * 9 + rank`` for 6..A, then 2S, 2H, Joker (36, 37, 38)."""

    def __post_init__(self) -> None:
        if not (isinstance(self.id, int) and 0 <= self.id < NUM_CARDS):
            raise NotationError(f"invalid card id {self.id!r}: expected 0..{NUM_CARDS - 1}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"JH"``, ``"TS"``, ``"2S"`` or ``"JKR"``.

        >>> Card.parse("JH").suit
        <Suit.HEARTS: 2>
        """
        return CARDS[parse_card_id(text)]

    @property
    def suit(self) -> Suit | None:
        """Printed suit (``None`` for the Joker). Use ``effective_suit`` for following and winning."""
        return printed_suit(self.id)

    @property
    def rank(self) -> str:
        """Rank character: one of ``6789TJQKA``, ``"2"`` for the FH twos, ``"JKR"`` for the Joker."""
        return "JKR" if self.id == JOKER else _TEXT[self.id][0]

    def __str__(self) -> str:
        return _TEXT[self.id]

    def __repr__(self) -> str:
        return f"Card.parse({_TEXT[self.id]!r})"


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(NUM_CARDS))
"""Every card of every variant, indexed by id; a variant's deck is a subset (``deck_of(config)``)."""


def _effective_suit(card: CardId, trump: int) -> int:
    if trump == NO_TRUMP:
        suit = printed_suit(card)
        return -1 if suit is None else int(suit)
    if card in (JOKER, TWO_SPADES, TWO_HEARTS):
        return trump
    if card == plain_card("J", 3 - trump):
        return trump
    return card // 9


def _trump_power(card: CardId, trump: int) -> int:
    """Strength of a trump card, 101..120; every trump beats every non-trump (C-2.2)."""
    if card == JOKER:
        return 120
    if card == TWO_SPADES:
        return 119
    if card == TWO_HEARTS:
        return 118
    if card == plain_card("J", trump):
        return 117
    if card == plain_card("J", 3 - trump):
        return 116
    return 100 + card % 9


EFFECTIVE_SUIT: tuple[tuple[int, ...], ...] = tuple(
    tuple(_effective_suit(c, t) for c in range(NUM_CARDS)) for t in range(5)
)
"""``EFFECTIVE_SUIT[trump][card]`` (C-2.1); trump 4 is No-Trumps."""


def _trick_key(card: CardId, trump: int, led: int) -> int:
    eff = EFFECTIVE_SUIT[trump][card]
    if trump != NO_TRUMP and eff == trump:
        return _trump_power(card, trump)
    if eff == led:
        return card % 9
    return -1


TRICK_KEY: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(_trick_key(c, t, led) for c in range(NUM_CARDS)) for led in range(4)) for t in range(5)
)
"""``TRICK_KEY[trump][led][card]``: the highest key in a trick wins it (C-3.5); -1 can never win."""


def effective_suit(card: Card, trump: Trump) -> Suit:
    """The suit a card belongs to for following and winning under ``trump`` (C-2.1)."""
    return Suit(EFFECTIVE_SUIT[trump][card.id])


def is_trump(card: Card, trump: Trump) -> bool:
    """Whether ``card`` is a trump: its effective suit is trump (the left bower, twos and Joker included)."""
    return trump != NO_TRUMP and EFFECTIVE_SUIT[trump][card.id] == trump


def beats(card: Card, other: Card, trump: Trump, led: Suit) -> bool:
    """Whether ``card`` ranks above ``other`` in a trick whose led suit is ``led``."""
    table = TRICK_KEY[trump][led]
    return table[card.id] > table[other.id]
