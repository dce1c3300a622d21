"""Card play: lead, follow, trump in or throw off (see the package's docstring for the strategy)."""

from __future__ import annotations

from arena.engine.cards import (
    NO_TRUMP,
    TRICK_KEY,
    CardId,
)
from sample_bots.policy.knowledge import Ranks, Seen, is_boss, known_buried, my_partner_in_classic, ranks

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
