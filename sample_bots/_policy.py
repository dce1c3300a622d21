"""The club player's rules of thumb, shared by the ``rules`` bot and the ``montecarlo`` bot's rollouts.

Everything here works on a ``Seen``: what one seat knows at one decision (its own hand, its own discard, and
the public history). ``seen_from_view`` builds it from the SDK's ``View``; ``seen_from_state`` builds it
cheaply from an engine ``GameState`` for simulations, reading only that seat's hand and public fields, so
a rollout player never peeks at the other seats' cards. ``choose(seen)`` then returns an action id.

The strategy, by decision:

* bidding: estimate the tricks a hand takes with a suit as trump (``hand_tricks``: trumps by how many
  higher trumps are missing, off-suit aces, guarded kings, voids) and make trump when the estimate reaches a
  threshold, after adjusting for who gets the up-card (the dealer picking up gains a trump; ordering up
  your classic partner is safer than ordering up an opponent); a stuck dealer takes up lighter, and a
  player whose other suit is clearly better passes round 1 to name it in round 2; No-Trumps with three
  sure tricks in aces; blind decisions follow fixed customs (``blind_two_choice``, ``expose_name``);
* discard: keep trumps, create a void, else throw the lowest off-suit card;
* call: alone with a very strong hand, else the ace (Call-Ace: of a suit held, best with its king) or card
  (Five-handed: the highest trump missing) that best complements the hand; classic: PARTNER;
* play: the maker draws trumps, everyone cashes aces, leads low to the called ace; follows by winning
  as cheaply as possible, but never overtakes a friend (classic partner, revealed partner, fellow
  defender) whose card holds; trumps in when the trick is not a friend's, and throws off the lowest card
  of the shortest suit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from arena.engine import actions as A
from arena.engine.cards import (
    EFFECTIVE_SUIT,
    JOKER,
    NO_TRUMP,
    TRICK_KEY,
    TWO_HEARTS,
    TWO_SPADES,
    CardId,
    printed_suit,
)
from arena.engine.config import GameConfig, Variant, deck_of
from arena.engine.state import (
    P_BID1,
    P_BID2,
    P_CALL,
    P_DISCARD,
    P_EXPOSE,
    P_JOKER,
    P_OVER,
    P_PLAY,
    P_TWO,
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


def off_ace_value(n: int) -> float:
    """An off-suit ace is trumped more often the more players there are."""
    return max(0.45, 0.8 - 0.08 * (n - 4))


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


def my_partner_in_classic(k: Seen) -> int:
    return (k.seat + 2) % 4


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


def known_buried(card: CardId, k: Seen) -> bool:
    """The card is known to be in the kitty: the turned-down up-card or my own discard."""
    return card >= 0 and ((card == k.up_card and k.turned_down >= 0) or card == k.discard)


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


# --------------------------------------------------------------------------------------------- play


def friends(k: Seen) -> set[int]:
    """Seats whose trick is as good as mine, as far as this seat knows."""
    if k.config.team_play:
        return {my_partner_in_classic(k)}
    me, maker, partner = k.seat, k.maker, k.partner
    if me == maker:
        return {partner} if partner >= 0 and partner != me else set()
    if partner == me:
        return {maker}
    side_known = k.alone or partner >= 0 or known_buried(k.called, k)
    if side_known:  # every defender's trick counts towards the euchre
        return {s for s in range(k.n) if s not in (me, maker, partner)}
    return set()


def on_making_side(k: Seen) -> bool:
    if k.config.team_play:
        return k.maker in (k.seat, my_partner_in_classic(k))
    return k.seat == k.maker or k.partner == k.seat


def seats_after_me(k: Seen) -> list[int]:
    """Who still plays to the current trick after this seat."""
    size = k.n - (1 if k.sitting_out >= 0 else 0)
    left = size - len(k.trick) - 1
    out: list[int] = []
    seat = k.seat
    while len(out) < left:
        seat = (seat + 1) % k.n
        if seat != k.sitting_out:
            out.append(seat)
    return out


def play(k: Seen) -> int:
    legal = k.legal
    if len(legal) == 1:
        return legal[0]
    r = ranks(k.config, k.trump)
    return lead(k, r) if not k.trick else follow(k, r)


def outstanding(suit: int, r: Ranks, k: Seen) -> list[CardId]:
    """Cards of an effective suit that are neither dead nor mine (some may be in the kitty)."""
    hand, dead = k.hand or [], k.dead
    return [c for c in r.order[suit] if c not in dead and c not in hand]


def lead(k: Seen, r: Ranks) -> int:
    hand, trump, eff, pos, dead = k.legal, k.trump, r.eff, r.pos, k.dead
    trumps = sorted((c for c in hand if eff[c] == trump), key=lambda c: pos[c]) if trump != NO_TRUMP else []
    trumps_out = bool(trumps) and bool(outstanding(trump, r, k))
    making = on_making_side(k)
    if making and trumps_out:
        if is_boss(trumps[0], r, dead, hand):  # draw trumps with the top one
            return trumps[0]
        if k.seat == k.maker and len(trumps) >= 2:  # the maker leads trump to pull the defenders' trumps
            return trumps[0]
    bosses = [c for c in hand if eff[c] != trump and is_boss(c, r, dead, hand)]
    if bosses:  # cash an off-suit ace, from the suit with the most cards still out (least likely ruffed)
        return max(bosses, key=lambda c: (len(outstanding(eff[c], r, k)), -c))
    if making and k.seat == k.maker and k.partner < 0 and k.called >= 0:
        called_suit = eff[k.called]
        to_partner = [c for c in hand if eff[c] == called_suit and called_suit != trump]
        if to_partner:  # lead low to the partner's called ace
            return max(to_partner, key=lambda c: pos[c])
    plain = [c for c in hand if eff[c] != trump]
    if not plain:
        return trumps[0] if is_boss(trumps[0], r, dead, hand) else trumps[-1]
    return lowest_of_shortest(plain, hand, r)


def lowest_of_shortest(cards: list[CardId], hand: list[CardId], r: Ranks) -> CardId:
    """The lowest card of the shortest suit among ``cards``, keeping aces (bosses) as long as possible."""
    eff, pos = r.eff, r.pos
    length = [0] * 4
    for c in hand:
        length[eff[c]] += 1
    return min(cards, key=lambda c: (pos[c] == 0, length[eff[c]], -pos[c], c))


def follow(k: Seen, r: Ranks) -> int:
    trick, legal, trump, eff = k.trick, k.legal, k.trump, r.eff
    hand = k.hand or legal
    led = eff[trick[0][1]]
    key = TRICK_KEY[trump][led]
    winner, best = trick[0]
    best_key = key[best]
    for seat, card in trick[1:]:
        if key[card] > best_key:
            winner, best, best_key = seat, card, key[card]
    following = all(eff[c] == led for c in legal)
    mine = friends(k)
    later = [s for s in seats_after_me(k) if s not in mine]  # opponents (or unknowns) still to play
    if winner in mine and (not later or is_boss(best, r, k.dead, hand)):
        return throw_off(k, r, following)  # a friend has it: do not overtake
    beaters = sorted((c for c in legal if key[c] > best_key), key=lambda c: key[c])
    if not beaters:
        return throw_off(k, r, following)
    if not following or not later:  # ruff with the lowest trump that wins, or win as cheaply as possible
        return beaters[0]
    for c in beaters:  # a card nobody can beat in its suit wins unless someone ruffs
        if is_boss(c, r, k.dead, hand):
            return c
    return beaters[0]


def throw_off(k: Seen, r: Ranks, following: bool) -> int:
    legal, eff, pos = k.legal, r.eff, r.pos
    if following:  # the lowest card of the led suit
        return max(legal, key=lambda c: (pos[c], c))
    plain = [c for c in legal if eff[c] != k.trump]
    if plain:
        return lowest_of_shortest(plain, k.hand or legal, r)
    return max(legal, key=lambda c: (pos[c], c))


# --------------------------------------------------------------------------------------------- entry points


def choose(k: Seen, style: Style = DEFAULT_STYLE) -> int:
    """The rules player's action id for the decision ``k`` describes (one of ``k.legal``)."""
    legal = k.legal
    if len(legal) == 1:
        return legal[0]
    phase = k.phase
    if phase == P_PLAY:
        return play(k)
    if phase == P_BID1:
        action = bid_round_1(k, style)
    elif phase == P_BID2:
        action = bid_round_2(k, style)
    elif phase == P_DISCARD:
        action = discard(k)
    elif phase == P_CALL:
        action = call(k, style)
    elif phase == P_TWO:
        action = blind_two_choice(k)
    elif phase == P_EXPOSE:
        action = expose_name(k)
    elif phase == P_JOKER:
        action = joker_name(k)
    else:
        action = legal[0]
    return action if action in legal else legal[0]


def choose_state(state: GameState, seat: int, style: Style = DEFAULT_STYLE) -> int:
    """``choose`` for the seat to act in an engine state (rollouts); sees only that seat's knowledge."""
    return choose(seen_from_state(state, seat), style)


def choose_view(view: View, style: Style = DEFAULT_STYLE) -> int:
    return choose(seen_from_view(view), style)


def rollout(state: GameState, style: Style = DEFAULT_STYLE) -> None:
    """Play ``state`` to its end (a single-hand state: to the end of the hand) with the rules player."""
    played: set[CardId] | None = None  # the cards played so far, kept up to date once play has begun
    while state.phase != P_OVER:
        if played is not None and state.phase != P_PLAY:  # a multi-hand state has dealt the next hand
            played = None
        legal = state.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        elif state.phase == P_PLAY:
            if played is None:
                played = cards_played(state)
            action = choose(seen_from_state(state, state.to_act, played), style)
        else:
            action = choose(seen_from_state(state, state.to_act), style)
        if played is not None:  # play lasts to the end of the hand: every action from here is a card
            played.add(action)
        state.apply_unchecked(action)
