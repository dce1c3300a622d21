"""What one seat knows at one decision (``Seen``), built from the SDK's ``View`` or cheaply from an engine
``GameState`` for simulations, reading only that seat's hand and public fields (so a rollout player never
peeks at the other seats' cards), and the order of the cards once trump is known."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from arena.engine.cards import (
    EFFECTIVE_SUIT,
    JOKER,
    TRICK_KEY,
    CardId,
)
from arena.engine.config import GameConfig, deck_of
from arena.engine.state import (
    P_EXPOSE,
    P_PLAY,
    GameState,
)
from arena.engine.views import UpCardFate, View

NUM_CARDS = JOKER + 1

# --------------------------------------------------------------------------------------------- knowledge


class Seen:
    """What one seat knows at one decision. Card and action fields are engine ints; -1 means "none".

    ``partner`` is the making side's partner when this seat knows it (CL: the maker's fixed partner; CA/FH:
    once the called card has been played, or this seat itself when it holds the called card).
    ``trick`` (the current trick's plays) and ``dead`` are only filled during play: ``dead`` holds the cards
    that can no longer take a trick from this seat (``dead_cards``).
    """

    __slots__ = (
        "alone",
        "called",
        "config",
        "dead",
        "dealer",
        "discard",
        "exposed",
        "hand",
        "legal",
        "maker",
        "n",
        "partner",
        "phase",
        "picked_up",
        "proposed",
        "scores",
        "seat",
        "sitting_out",
        "trick",
        "trump",
        "turned_down",
        "up_card",
    )

    config: GameConfig
    n: int
    seat: int
    dealer: int
    phase: int
    hand: list[CardId] | None
    legal: list[int]
    up_card: CardId
    proposed: int
    turned_down: int
    picked_up: bool
    exposed: CardId
    discard: CardId
    trump: int
    maker: int
    called: CardId
    alone: bool
    partner: int
    sitting_out: int
    trick: list[tuple[int, CardId]]
    dead: set[CardId]
    scores: tuple[int, ...] | list[int]


def seen_from_state(state: GameState, seat: int, played: set[CardId] | None = None) -> Seen:
    """The knowledge of ``seat`` in an engine state: its own hand and public facts only (C-5).

    :param played: the cards played so far this hand, for callers that keep it up to date as they play
        (``rollout``): collecting them from the tricks at every decision costs a fifth of the call.
    """
    k = Seen()
    k.config = state.config
    k.n = state.n
    k.seat = seat
    k.dealer = dealer = state.dealer
    k.phase = phase = state.phase
    hand = state.hands[seat]
    k.hand = None if (phase <= P_EXPOSE and seat == dealer) else hand
    k.legal = state.legal_actions() if state.to_act == seat else []
    k.up_card = state.up_card
    k.proposed = state.proposed
    k.turned_down = state.turned_down
    k.picked_up = state.picked_up
    k.exposed = state.exposed
    k.discard = state.discard if seat == dealer else -1
    k.trump = state.trump
    k.maker = state.maker
    k.called = called = state.called
    k.alone = state.alone
    if state.config.team_play:
        k.partner = state.partner
    elif called >= 0 and (state.partner_revealed or called in hand):
        k.partner = state.partner if state.partner_revealed else seat
    else:
        k.partner = -1
    k.sitting_out = state.sitting_out
    k.scores = state.scores
    if phase == P_PLAY and len(k.legal) > 1:
        k.trick = list(zip(state.trick_seats, state.trick, strict=True))
        k.dead = dead_cards(k, set(played) if played is not None else cards_played(state))
    else:
        k.trick, k.dead = [], set()
    return k


def cards_played(state: GameState) -> set[CardId]:
    """The cards played so far in the hand of ``state``."""
    played = set(state.trick)
    for t in state.tricks:
        for _, c in t.plays:
            played.add(c)
    return played


def seen_from_view(view: View) -> Seen:
    """The same knowledge, from the SDK's ``View``."""
    k = Seen()
    k.config = view.config
    k.n = view.num_players
    k.seat = view.seat
    k.dealer = view.dealer
    k.phase = int(view.phase)
    k.hand = None if view.hand is None else sorted(c.id for c in view.hand)
    k.legal = [a.id for a in view.legal_actions]
    k.up_card = view.up_card.id
    turned_down = view.up_card_fate is UpCardFate.TURNED_DOWN
    k.proposed = int(view.proposed_trump) if view.proposed_trump is not None else -1
    k.turned_down = k.proposed if turned_down else -1
    k.picked_up = view.up_card_fate is UpCardFate.TAKEN
    k.exposed = view.exposed_card.id if view.exposed_card is not None else -1
    k.discard = view.discard.id if view.discard is not None else -1
    k.trump = int(view.trump) if view.trump is not None else -1
    k.maker = view.maker if view.maker is not None else -1
    k.called = view.called_card.id if view.called_card is not None else -1
    k.alone = view.alone
    k.partner = view.partner if view.partner is not None else -1
    k.sitting_out = view.sitting_out if view.sitting_out is not None else -1
    k.scores = view.scores
    if view.current_trick is not None:
        k.trick = [(p.seat, p.card.id) for p in view.current_trick.plays]
        k.dead = dead_cards(k, {p.card.id for p in view.played_cards()})
    else:
        k.trick, k.dead = [], set()
    return k


def dead_cards(k: Seen, played: set[CardId]) -> set[CardId]:
    """Cards that cannot beat this seat's side: the played ones, the known kitty cards (turned-down up-card,
    own discard) and, for the maker, the called card (the partner's, or buried)."""
    if k.turned_down >= 0:
        played.add(k.up_card)
    if k.discard >= 0:
        played.add(k.discard)
    if k.called >= 0 and k.seat == k.maker:
        played.add(k.called)
    return played


# --------------------------------------------------------------------------------------------- card order


@dataclass(frozen=True, slots=True)
class Ranks:
    """The deck of one configuration under one trump: each effective suit's cards from high to low.

    ``pos[card]`` is the card's place in its effective suit (0 = the highest card of that suit in the deck);
    ``eff`` is ``EFFECTIVE_SUIT[trump]``.
    """

    config: GameConfig
    trump: int
    eff: tuple[int, ...]
    order: tuple[tuple[CardId, ...], ...]
    pos: tuple[int, ...]
    ace_value: float  # what an off-suit ace is worth at this table (``off_ace_value``)


_RANKS: dict[tuple[int, int], Ranks] = {}


def ranks(config: GameConfig, trump: int) -> Ranks:
    """The (cached) ``Ranks`` of a configuration under a trump. Keyed by the config's identity: hashing a
    frozen dataclass of 15 fields on every call would cost more than the lookup saves."""
    found = _RANKS.get((id(config), trump))
    if found is not None and found.config is config:
        return found
    if len(_RANKS) > 1024:
        _RANKS.clear()
    made = _RANKS[(id(config), trump)] = _make_ranks(config, trump)
    return made


@lru_cache(maxsize=256)
def _make_ranks(config: GameConfig, trump: int) -> Ranks:
    eff = EFFECTIVE_SUIT[trump]
    deck = deck_of(config)
    order = []
    pos = [-1] * NUM_CARDS
    for suit in range(4):
        key = TRICK_KEY[trump][suit]
        cards = sorted((c for c in deck if eff[c] == suit), key=lambda c: -key[c])
        for i, c in enumerate(cards):
            pos[c] = i
        order.append(tuple(cards))
    return Ranks(config, trump, eff, tuple(order), tuple(pos), off_ace_value(config.num_players))


def is_boss(card: CardId, r: Ranks, gone: set[CardId] | frozenset[CardId], hand: list[CardId]) -> bool:
    """Whether no card that could still beat ``card`` in its own suit is out (played or in my hand)."""
    for higher in r.order[r.eff[card]][: r.pos[card]]:
        if higher not in gone and higher not in hand:
            return False
    return True


def off_ace_value(n: int) -> float:
    """An off-suit ace is trumped more often the more players there are."""
    return max(0.45, 0.8 - 0.08 * (n - 4))


def my_partner_in_classic(k: Seen) -> int:
    return (k.seat + 2) % 4


def known_buried(card: CardId, k: Seen) -> bool:
    """The card is known to be in the kitty: the turned-down up-card or my own discard."""
    return card >= 0 and ((card == k.up_card and k.turned_down >= 0) or card == k.discard)
