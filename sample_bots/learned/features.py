"""What the learned bidder sees of a decision: a short vector of hand-strength features per candidate trump.

The learned bidder (``sample_bots.learned``) scores a bidding decision as the *advantage* of acting over
passing (round 1: ordering or taking up; round 2: naming a suit; the call: going alone rather than the
rules player's call), a linear function of ``quadratic(features)``. The features are one seat's knowledge
only (a ``Seen``: its hand, the up-card, its position), so the same function serves training (engine
states) and play (the SDK's view). No score context: the model is fitted on single hands from 0 to 0.
"""

from __future__ import annotations

from arena.engine.cards import CardId
from sample_bots.policy.bidding import (
    best_five,
    card_trick_value,
    hand_tricks,
    order_up_tricks,
)
from sample_bots.policy.knowledge import Seen, my_partner_in_classic, ranks

MAX_SEATS = 7
"""Positions relative to the dealer are one-hot over this many seats (the largest table of any variant)."""

KINDS = ("bid1", "bid2", "alone")
"""The decisions the learned bidder makes: round 1 (accept the up-card or pass), round 2 (name a suit or
pass), and, once trump is made, going alone (or the rules player's call)."""

BASE_NAMES = (
    "tricks",  # hand_tricks with this trump (after the dealer's pick-up in round 1)
    "adjusted",  # the rules player's estimate (round 1: order_up_tricks, with the up-card's gift)
    "trumps",
    "right",
    "left",
    "top3",  # trumps among the three highest of the suit
    "off_aces",
    "voids",
    "singletons",
    "other_best",  # the best hand_tricks of any other suit (what waiting or naming another would bring)
    "gift",  # the up-card's value to whoever takes it: + to me or my classic partner, - to an opponent
    "up_is_jack",  # the up-card is the right bower of the proposed suit
)


def suit_features(hand: list[CardId], trump: int, k: Seen) -> list[float]:
    """The hand-shape features of ``hand`` with ``trump`` (the first nine of ``BASE_NAMES``, less
    ``adjusted``)."""
    config = k.config
    r = ranks(config, trump)
    eff, pos = r.eff, r.pos
    count = [0, 0, 0, 0]
    trumps = right = left = top3 = aces = 0
    for c in hand:
        suit = eff[c]
        if suit == trump:
            trumps += 1
            right += pos[c] == 0
            left += pos[c] == 1
            top3 += pos[c] < 3
        else:
            count[suit] += 1
            aces += pos[c] == 0
    off = [count[s] for s in range(4) if s != trump]
    voids = sum(1 for x in off if x == 0)
    singles = sum(1 for x in off if x == 1)
    return [hand_tricks(hand, trump, config), trumps, right, left, top3, aces, voids, singles]


def position(k: Seen) -> list[float]:
    """One-hot place after the dealer (0: first to bid; the dealer last)."""
    out = [0.0] * MAX_SEATS
    out[(k.seat - k.dealer - 1) % k.n] = 1.0
    return out


def bid_features(k: Seen, trump: int) -> list[float]:
    """The features of making ``trump`` at ``k`` (a round 1 or round 2 bid, or the call once made)."""
    hand = list(k.hand or [])
    config = k.config
    round_1 = k.proposed >= 0 and trump == k.proposed and k.turned_down < 0 and k.trump < 0
    if round_1 and k.seat == k.dealer:
        allowed = None if config.may_discard_upcard else list(hand)
        hand = best_five([*hand, k.up_card], trump, config, allowed)
    shape = suit_features(hand, trump, k)
    adjusted = order_up_tricks(k) if round_1 else shape[0]
    others = [hand_tricks(list(k.hand or []), s, config) for s in range(4) if s != trump]
    gift = up_jack = 0.0
    if round_1:
        value = card_trick_value(k.up_card, trump, config)
        if k.seat == k.dealer or (config.team_play and k.dealer == my_partner_in_classic(k)):
            gift = value
        else:
            gift = -value
        up_jack = float(ranks(config, trump).pos[k.up_card] == 0)
    return [shape[0], adjusted, *shape[1:], max(others), gift, up_jack]


def quadratic(base: list[float], place: list[float]) -> list[float]:
    """The model's inputs: a constant, the base features, their pairwise products, and the position
    one-hot with its products with the two strength estimates (where a seat sits changes what a hand is
    worth)."""
    out = [1.0, *base]
    n = len(base)
    for i in range(n):
        bi = base[i]
        for j in range(i, n):
            out.append(bi * base[j])
    for p in place:
        out.extend((p, p * base[0], p * base[1]))
    return out


def inputs(k: Seen, trump: int) -> list[float]:
    """``quadratic`` of ``bid_features`` and ``position``: one row of the model's design matrix."""
    return quadratic(bid_features(k, trump), position(k))


NUM_INPUTS = 1 + len(BASE_NAMES) + len(BASE_NAMES) * (len(BASE_NAMES) + 1) // 2 + 3 * MAX_SEATS
