"""What a hand is worth with each suit as trump, and the decisions before play: bidding, the blind
customs, the discard and the call (see the package's docstring for the strategy)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine import actions as A
from arena.engine.cards import (
    NO_TRUMP,
    TWO_HEARTS,
    TWO_SPADES,
    CardId,
    printed_suit,
)
from arena.engine.config import GameConfig, Variant
from sample_bots.policy.knowledge import (
    NUM_CARDS,
    Seen,
    known_buried,
    my_partner_in_classic,
    ranks,
)

# --------------------------------------------------------------------------------------------- hand value


@dataclass(frozen=True, slots=True)
class Style:
    """The thresholds of the rules player, in expected tricks (``hand_tricks``)."""

    order_up: float = 2.35  # make trump in round 1 (after the up-card adjustment)
    stuck_dealer_discount: float = 0.8  # a dealer who would be stuck in round 2 takes up with this much less
    wait_margin: float = 0.3  # pass round 1 when another suit is better by this much (to name it next)
    name: float = 2.35  # name a suit in round 2
    alone_ca: float = 3.6  # Call-Ace: a lone hand of 3-4 tricks scores double
    alone_other: float = 4.4  # FH/CL: alone only pays for a march
    no_trump: float = 3.0  # sure No-Trump tricks to name NT


DEFAULT_STYLE = Style()

# A trump's trick value by the number of higher trumps it is missing (0 = it is the top one left).
TRUMP_TRICK = (1.0, 0.75, 0.55, 0.4, 0.3)
LONG_TRUMP_BONUS = 0.15  # per trump beyond the second
VOID_BONUS = 0.2  # per off-suit void, with at least two trumps to ruff with
KING_WITH_ACE = 0.35
GUARDED_KING = 0.15


def hand_tricks(hand: list[CardId], trump: int, config: GameConfig) -> float:
    """Expected tricks of ``hand`` with ``trump``: the core of every bidding decision."""
    if trump == NO_TRUMP:
        return no_trump_tricks(hand, config)
    r = ranks(config, trump)
    eff, pos = r.eff, r.pos
    trumps: list[int] = []
    count = [0, 0, 0, 0]
    top = [99, 99, 99, 99]  # per suit: the best and second-best place held
    second = [99, 99, 99, 99]
    for c in hand:
        suit, p = eff[c], pos[c]
        if suit == trump:
            trumps.append(p)
            continue
        count[suit] += 1
        if p < top[suit]:
            top[suit], second[suit] = p, top[suit]
        elif p < second[suit]:
            second[suit] = p
    trumps.sort()
    value = 0.0
    for i, p in enumerate(trumps):
        value += TRUMP_TRICK[min(p - i, 4)]
    if len(trumps) > 2:
        value += LONG_TRUMP_BONUS * (len(trumps) - 2)
    for suit in range(4):
        if suit == trump:
            continue
        if not count[suit]:
            if len(trumps) >= 2:
                value += VOID_BONUS
        elif top[suit] == 0:
            value += r.ace_value + (KING_WITH_ACE if second[suit] == 1 else 0.0)
        elif top[suit] == 1 and count[suit] > 1:
            value += GUARDED_KING
    return value


def no_trump_tricks(hand: list[CardId], config: GameConfig) -> float:
    """Sure tricks at No-Trumps: unbroken runs from the ace down, plus a little for guarded kings."""
    r = ranks(config, NO_TRUMP)
    value = 0.0
    for suit in range(4):
        mine = sorted(r.pos[c] for c in hand if r.eff[c] == suit)
        run = 0
        while run < len(mine) and mine[run] == run:
            run += 1
        value += run
        if run == 0 and len(mine) > 1 and mine[0] == 1:
            value += 0.3
    return value


def card_trick_value(card: CardId, trump: int, config: GameConfig) -> float:
    """Roughly what one card is worth to whoever holds it (used for the up-card)."""
    r = ranks(config, trump)
    if r.eff[card] == trump:
        return TRUMP_TRICK[min(r.pos[card], 4)]
    return r.ace_value if r.pos[card] == 0 else 0.0


# --------------------------------------------------------------------------------------------- bidding


def best_five(
    six: list[CardId], trump: int, config: GameConfig, allowed: list[CardId] | None = None
) -> list[CardId]:
    """The dealer's hand after picking up and discarding by ``discard_choice``."""
    out = list(six)
    out.remove(discard_choice(six, trump, config, allowed))
    return out


def order_up_tricks(k: Seen) -> float:
    """Expected tricks if the proposed suit becomes trump now, counting who gets the up-card."""
    trump, up, config = k.proposed, k.up_card, k.config
    hand = k.hand or []
    if k.seat == k.dealer:
        allowed = None if config.may_discard_upcard else [c for c in hand]
        return hand_tricks(best_five([*hand, up], trump, config, allowed), trump, config)
    value = hand_tricks(hand, trump, config)
    gift = card_trick_value(up, trump, config)
    if config.team_play:  # ordering up your partner is safe, an opponent gains a trump
        value += 0.5 * gift if k.dealer == my_partner_in_classic(k) else -0.5 * gift
    else:  # the dealer is more likely a defender than the future partner
        value -= 0.35 * gift
    return value


def bid_round_1(k: Seen, style: Style) -> int:
    dealer = k.seat == k.dealer
    accept = A.TAKE_UP if dealer else A.ORDER_UP
    value = order_up_tricks(k)
    stuck = dealer and (k.config.stick_the_dealer or k.config.variant is Variant.FIVE_HANDED)
    if accept not in k.legal or value < style.order_up - (style.stuck_dealer_discount if stuck else 0.0):
        return A.PASS
    if not dealer and best_other_suit(k) >= value + style.wait_margin:
        return A.PASS  # wait for round 2 and name the better suit
    return accept


def best_other_suit(k: Seen) -> float:
    """Expected tricks of the best suit this seat could name in round 2 (any but the proposed one)."""
    hand = k.hand or []
    return max(hand_tricks(hand, s, k.config) for s in range(4) if s != k.proposed)


def best_named_suit(k: Seen) -> tuple[int, float]:
    """The suit (or NT) round 2 would name, with its expected tricks; (-1, -inf) if nothing is legal."""
    hand, config = k.hand or [], k.config
    best, best_value = -1, float("-inf")
    for action in k.legal:
        if A.NAME_BASE <= action < A.NAME_BASE + 4:
            value = hand_tricks(hand, action - A.NAME_BASE, config)
            if value > best_value:
                best, best_value = action, value
    return best, best_value


def bid_round_2(k: Seen, style: Style) -> int:
    action, value = best_named_suit(k)
    nt = A.NAME_BASE + NO_TRUMP
    if nt in k.legal:
        nt_value = no_trump_tricks(k.hand or [], k.config)
        if nt_value >= style.no_trump and nt_value >= value:
            return nt
    if A.PASS not in k.legal:  # stuck dealer: the best suit, however weak
        return action if action >= 0 else k.legal[0]
    if action >= 0 and value >= style.name:
        return action
    return A.PASS


def blind_two_choice(k: Seen) -> int:
    """FH-3.2, without seeing the hand. With the High Joker (2S) up the dealer holds the top trump whatever
    he names, so being forced to make trump is fine: EXPOSE and name the exposed card's suit. With 2H,
    let the table bid: BLIND_NAME the two's own suit."""
    if k.up_card == TWO_SPADES and A.EXPOSE in k.legal:
        return A.EXPOSE
    blind = A.BLIND_NAME_BASE + int(printed_suit(k.up_card) or 0)
    return blind if blind in k.legal else k.legal[0]


def expose_name(k: Seen) -> int:
    """Name the exposed card's suit: it is then a trump in the dealer's hand (a jack becomes the right)."""
    if k.exposed not in (TWO_SPADES, TWO_HEARTS, -1):
        action = A.EXPOSE_NAME_BASE + int(printed_suit(k.exposed))  # type: ignore[arg-type]
        if action in k.legal:
            return action
    return k.legal[0]


def joker_name(k: Seen) -> int:
    """CA-4.2, blind: every suit is alike before seeing the hand."""
    return k.legal[0]


# --------------------------------------------------------------------------------------------- discard


def discard_choice(
    six: list[CardId], trump: int, config: GameConfig, allowed: list[CardId] | None = None
) -> CardId:
    """Keep trumps and aces; throw a singleton to make a void, else the lowest off-suit card."""
    r = ranks(config, trump)
    eff, pos = r.eff, r.pos
    candidates = [c for c in six if allowed is None or c in allowed] or list(six)
    off = [c for c in candidates if eff[c] != trump]
    if not off:
        return max(candidates, key=lambda c: pos[c])  # all trumps: the lowest
    length = [0] * 4
    for c in six:
        length[eff[c]] += 1
    return min(off, key=lambda c: (pos[c] == 0, length[eff[c]], -pos[c], c))


def discard(k: Seen) -> int:
    hand = k.hand or []
    allowed = [a - A.DISCARD_BASE for a in k.legal]
    return A.DISCARD_BASE + discard_choice(hand, k.trump, k.config, allowed)


# --------------------------------------------------------------------------------------------- call


def call(k: Seen, style: Style) -> int:
    config, trump, hand = k.config, k.trump, k.hand or []
    if config.variant is Variant.CLASSIC:
        return A.ALONE if hand_tricks(hand, trump, config) >= style.alone_other else A.PARTNER
    strength = hand_tricks(hand, trump, config)
    lone = style.alone_ca if config.variant is Variant.CALL_ACE else style.alone_other
    calls = [a - A.CALL_BASE for a in k.legal if A.CALL_BASE <= a < A.CALL_BASE + NUM_CARDS]
    if strength >= lone or not calls:
        return A.ALONE
    if config.variant is Variant.CALL_ACE:
        return A.CALL_BASE + max(calls, key=lambda ace: (ace_call_score(ace, k), -ace))
    return A.CALL_BASE + five_handed_call(calls, k)


def ace_call_score(ace: CardId, k: Seen) -> float:
    """Call the ace of a suit I hold (best with its king, or a singleton to lead to it), not a void."""
    if known_buried(ace, k):
        return -10.0
    r = ranks(k.config, k.trump)
    suit = printed_suit(ace)
    mine = [c for c in k.hand or [] if r.eff[c] == suit]
    if not mine:
        return 0.0
    has_king = any(r.pos[c] == 1 for c in mine)
    return 2.0 + 1.5 * has_king + 0.5 * (len(mine) == 1)


def five_handed_call(calls: list[CardId], k: Seen) -> CardId:
    """The highest trump I lack (a sure trick for the partner), else an ace of a suit I hold."""
    r = ranks(k.config, k.trump)
    legal = set(calls)
    for card in r.order[k.trump]:
        if card in legal and not known_buried(card, k):
            return card
    hand = k.hand or []
    aces = [c for c in calls if r.pos[c] == 0 and not known_buried(c, k)]
    if aces:
        return max(aces, key=lambda c: (any(r.eff[h] == r.eff[c] for h in hand), -c))
    fine = [c for c in calls if not known_buried(c, k)] or calls
    return min(fine, key=lambda c: (r.pos[c], c))
