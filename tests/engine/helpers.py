"""Small helpers for the rule-by-rule engine tests: readable explicit deals and action strings.

``make_deck`` turns readable hands into the deck order that the engine deals back as exactly those hands
(C-4.4, via ``deal_positions``), so every test situation is exact. ``play``/``legal`` speak in the text
form of actions (``"PASS"``, ``"CALL(AS)"``, ``"PLAY(JH)"``) so that assertions read like RULES.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from arena.engine import GameConfig, GameState, action_to_string, parse_action_id
from arena.engine.cards import CardId, card_text, parse_card_id
from arena.engine.config import deck_of
from arena.engine.dealing import deal_positions
from arena.engine.state import Trick

Cards = str | Sequence[str]


def cards(text: Cards) -> list[CardId]:
    """Card ids from ``"JH TS 9C"`` (or a list of card strings), in the order given."""
    items = text.split() if isinstance(text, str) else list(text)
    return [parse_card_id(c) for c in items]


def texts(ids: Iterable[CardId]) -> list[str]:
    """Card strings of card ids, in the order given."""
    return [card_text(c) for c in ids]


def make_deck(
    config: GameConfig,
    dealer: int = 0,
    hands: Mapping[int, Cards] | None = None,
    up: str | None = None,
    rest: Cards | None = None,
) -> list[CardId]:
    """An explicit deck order (index 0 = top) that deals exactly ``hands`` with ``dealer`` dealing.

    Each given hand must have 5 cards and is placed at that seat's deal positions in the order given
    (hand position 0 = first card received). ``up`` goes to position 5N, ``rest`` (if given) directly below
    it. Seats without a given hand, an unspecified up-card and the rest of the stock are filled with the
    deck's remaining cards in card-id order, so the result is fully deterministic.
    """
    n = config.num_players
    deck = list(deck_of(config))
    given = {seat: cards(h) for seat, h in (hands or {}).items()}
    up_ids = cards([up]) if up is not None else []
    rest_ids = cards(rest) if rest is not None else []
    named = [c for h in given.values() for c in h] + up_ids + rest_ids
    for seat, hand in given.items():
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not at a table of {n}")
        if len(hand) != 5:
            raise ValueError(f"hand of seat {seat} has {len(hand)} cards, expected 5: {texts(hand)}")
    if len(set(named)) != len(named):
        raise ValueError(f"a card is named twice: {texts(named)}")
    foreign = [c for c in named if c not in deck]
    if foreign:
        raise ValueError(f"cards not in the {config.variant.value} deck: {texts(foreign)}")
    pool = [c for c in deck if c not in set(named)]
    order: list[CardId | None] = [None] * len(deck)
    for seat, positions in enumerate(deal_positions(n, dealer)):
        hand = given.get(seat)
        for k, pos in enumerate(positions):
            order[pos] = hand[k] if hand is not None else pool.pop(0)
    stock = [*(up_ids or [pool.pop(0)]), *rest_ids, *pool]
    if len(stock) != len(deck) - 5 * n:
        raise ValueError(f"stock has {len(stock)} cards, expected {len(deck) - 5 * n}")
    order[5 * n :] = stock
    assert sorted(order) == sorted(deck)  # type: ignore[type-var]
    return order  # type: ignore[return-value]


def new_state(
    config: GameConfig,
    dealer: int = 0,
    hands: Mapping[int, Cards] | None = None,
    up: str | None = None,
    rest: Cards | None = None,
    *,
    scores: Sequence[int] | None = None,
    hand_index: int = 0,
    single_hand: bool = True,
    seed: int | None = None,
) -> GameState:
    """A state at the start of one explicitly dealt hand (by default it stops after that hand).

    With ``single_hand=False`` later hands are dealt from ``seed`` (0 unless given).
    """
    deck = make_deck(config, dealer, hands, up, rest)
    if seed is None and not single_hand:
        seed = 0
    return GameState(
        config,
        seed=seed,
        decks=[deck],
        dealer=dealer,
        scores=scores,
        hand_index=hand_index,
        single_hand=single_hand,
    )


def play(state: GameState, *actions: str) -> GameState:
    """Apply actions given as text (``"PASS"``, ``"ORDER_UP"``, ``"CALL(AS)"``), each for the seat to act."""
    for text in actions:
        for item in text.split():
            state.apply(parse_action_id(item))
    return state


def legal(state: GameState) -> list[str]:
    """The legal actions of the current decision as text, in the engine's (ascending id) order."""
    return [action_to_string(a) for a in state.legal_actions()]


def legal_cards(state: GameState) -> list[str]:
    """The cards the current player may play (PLAY phase), as sorted card strings."""
    out = []
    for a in legal(state):
        assert a.startswith("PLAY("), a
        out.append(a[5:-1])
    return sorted(out)


def hand_of(state: GameState, seat: int) -> list[str]:
    """A seat's current hand as sorted card strings."""
    return sorted(texts(state.hands[seat]))


def last_trick(state: GameState) -> Trick:
    """The most recently completed trick, also when it ended the hand and a new hand was dealt."""
    if state.tricks:
        return state.tricks[-1]
    return state.results[-1].tricks[-1]


def play_trick(state: GameState, plays: str) -> Trick:
    """Play one whole trick, cards in play order from the leader (``"JH 9C 9H AS 8S"``); return it."""
    before = len(state.results)
    for card in plays.split():
        state.apply(parse_action_id(f"PLAY({card})"))
    if len(state.results) > before:
        return state.results[-1].tricks[-1]
    return state.tricks[-1]


def play_tricks(state: GameState, *tricks: str) -> list[int]:
    """Play several whole tricks; return the winning seat of each."""
    return [play_trick(state, t).winner for t in tricks]


def trick_cards(trick: Trick) -> list[tuple[int, str]]:
    """A trick's plays as ``(seat, card string)`` pairs."""
    return [(seat, card_text(card)) for seat, card in trick.plays]


# ----------------------------------------------------------------- shared explicit deals
# Each deal: hands by seat (hand-position order), the up-card and the stock below it; every one is checked by
# the tests that use it (the tricks are written out in those tests).

# CA, 5 players, dealer 0, up 9♥. Seat 1 holds the five best hearts: ordered up, it marches whatever it calls.
CA5_MARCH = {
    "hands": {
        1: "JH JD AH KH QH",
        2: "8C 9C TC JC QC",
        3: "AS KS QS JS TS",
        4: "9S 8S AD KD QD",
        0: "AC KC TD 9D 8D",
    },
    "up": "9H",
    "rest": "TH 8H",
}
CA5_MARCH_TRICKS = ["JH 8C TS 8S 9H", "JD 9C JS 9S TD", "AH TC QS QD 9D", "KH JC KS KD KC", "QH QC AS AD AC"]

# As CA5_MARCH, but A♦ is in the stock (seat 4 holds 10♥ instead):
# calling A♦ leaves the maker alone by absence.
CA5_MARCH_AD_IN_KITTY = {
    "hands": {
        1: "JH JD AH KH QH",
        2: "8C 9C TC JC QC",
        3: "AS KS QS JS TS",
        4: "9S 8S TH KD QD",
        0: "AC KC TD 9D 8D",
    },
    "up": "9H",
    "rest": "AD 8H",
}
CA5_MARCH_AD_IN_KITTY_TRICKS = [
    "JH 8C TS TH 9H",
    "JD 9C JS 9S TD",
    "AH TC QS 8S 9D",
    "KH JC KS KD KC",
    "QH QC AS QD AC",
]

# CA, 5 players, dealer 0, up 9♥; seat 1 orders up with three top trumps and wins exactly those three tricks;
# the dealer (discarding 8♦) wins trick 4 with A♣ and seat 4 trick 5 with A♦.
CA5_MADE = {
    "hands": {
        1: "JH JD AH 8C 8S",
        2: "9C TC JC QC KC",
        3: "AS KS QS JS TS",
        4: "9S AD KD QD TD",
        0: "AC 9D 8D KH QH",
    },
    "up": "9H",
    "rest": "TH 8H",
}
CA5_MADE_TRICKS = ["JH 9C TS 9S 9H", "JD TC JS TD QH", "AH JC QS QD KH", "8C QC KS KD AC", "9D 8S KC AS AD"]

# CA, 5 players, dealer 0, up 8♥ ("deal P"). Seat 1 orders hearts up, the dealer discards A♣; seat 1 wins only
# trick 3, so the makers are euchred. The tricks exercise left/right bower, void and over-trumping cases.
CA5_EUCHRE = {
    "hands": {
        1: "AD KD JC 9H TH",
        2: "JD 9C QS KS AS",
        3: "QD TD AH 8S 9S",
        4: "JH 8C TC QC KC",
        0: "AC 9D 8D KH QH",
    },
    "up": "8H",
    "rest": "JS TS",
}
CA5_EUCHRE_TRICKS = ["AD JD TD JH 8D", "8C 9D JC 9C AH", "8S KC 8H TH AS", "KD QS QD TC QH", "KH 9H KS 9S QC"]
CA5_EUCHRE_WINNERS = [4, 3, 1, 0, 0]

# FH, dealer 0, up 9♠. Seat 1 holds the five best spades (2♠ 2♥ J♠ J♣ A♠) and marches whatever it calls.
FH_MARCH = {
    "hands": {
        1: "2S 2H JS JC AS",
        2: "AC KC QC TC 9C",
        3: "AD KD QD JD TD",
        4: "AH KH QH JH TH",
        0: "KS QS 9D 8D 8C",
    },
    "up": "9S",
    "rest": "TS 8S 9H 8H",
}
FH_MARCH_TRICKS = ["2S 9C TD TH 9S", "2H TC JD JH QS", "JS QC QD QH KS", "JC KC KD KH 9D", "AS AC AD AH 8D"]

# FH, dealer 0, up 9♠; the dealer discards 9♥. Seat 1 wins the first three tricks with 2♠ 2♥ J♠; seat 2 the
# last two with A♣ K♣. J♣ (a trump) is in the stock.
FH_MADE = {
    "hands": {
        1: "2S 2H JS 8C 8H",
        2: "AC KC QC TC 9C",
        3: "AD KD QD JD TD",
        4: "AH KH QH JH TH",
        0: "AS KS 9D 8D 9H",
    },
    "up": "9S",
    "rest": "JC QS TS 8S",
}
FH_MADE_TRICKS = ["2S 9C TD TH 9S", "2H TC JD JH KS", "JS QC QD QH AS", "8C AC KD KH 9D", "KC AD AH 8D 8H"]

# FH, dealer 0, up 9♠; seat 1 orders up with no trump but 8♠, the dealer discards 9♦;
# seat 2 takes every trick.
FH_EUCHRE = {
    "hands": {
        1: "8S 8C 8D 8H 9C",
        2: "2S 2H JS JC AS",
        3: "AD KD QD JD TD",
        4: "AH KH QH JH TH",
        0: "AC KC QC TC 9D",
    },
    "up": "9S",
    "rest": "KS QS TS 9H",
}
FH_EUCHRE_TRICKS = ["8S 2S TD TH 9S", "2H JD JH TC 8C", "JS QD QH QC 9C", "JC KD KH KC 8D", "AS AD AH AC 8H"]
