"""Cross-check of classic Euchre (CL) against OpenSpiel's ``euchre`` (RULES.md S10, checklist item 16).

The same deal is played in both engines with the same random legal choices. At every decision both must agree
on whose turn it is and on the set of legal actions; at the end on every trick (leader, cards in order,
winner) and on each seat's points.

Rule options configured so that our classic engine plays OpenSpiel's rules:

* ``variant="classic"`` (4 players, 24-card deck 9..A, partnerships 0+2 / 1+3): OpenSpiel's ``euchre`` is
  four-handed partnership Euchre with seats N, E, S, W = 0..3 clockwise (CL-2.1).
* ``may_discard_upcard=False``: OpenSpiel never lets the dealer discard the card he just picked up; our
  default (CA-5.1, A-CA-9) allows it, so the flag is turned off.
* ``stick_the_dealer`` equal on both sides, and both values are tested: with ``False`` a hand that everyone
  passes twice is thrown in (CA-4.6; both engines must then give 0 points to everyone), with ``True`` the
  dealer may not pass in round 2.
* OpenSpiel ``allow_lone_defender=False``: defending alone is out of scope for us (C-0.2).
* ``single_hand=True`` on our side: an OpenSpiel game is exactly one hand.
* The dealer is forced through OpenSpiel's first chance node and passed to our engine as ``dealer=``; the
  other chance outcomes (20 dealt cards, then the up-card) are sampled from a seeded ``random.Random`` and
  turned into our explicit deck order: each seat's five cards go to the deck positions our deal pattern
  gives that seat (C-4.4, ``deal_positions``), the up-card to position 20 (C-4.5), the three undealt cards
  after it. Who holds what is read from OpenSpiel's ``card_holder()`` (no assumption about its deal order).

Mapping between the two action spaces (``_to_ours``): OpenSpiel card ids are ``rank * 4 + suit`` (ranks
9 T J Q K A, suits C D H S) and ours ``suit * 9 + "6789TJQKA".index(rank)``; an OpenSpiel card action is
``PLAY(card)`` in the play phase and ``DISCARD(card)`` in the discard phase; ``Pass`` is ``PASS``; naming
the up-card's suit in round 1 is ``ORDER_UP`` (``TAKE_UP`` for the dealer) and naming a suit in round 2 is
``NAME(s)``; ``Alone``/``Partner`` are ``ALONE``/``PARTNER`` (CL-2.3).

Scores: OpenSpiel's ``returns()`` are zero-sum team points (the scoring team +p, the other -p, e.g.
``[2, -2, 2, -2]``); ours are non-negative points per seat with both team members credited (CL-2.4). So
our points are compared with ``max(r, 0)`` of each OpenSpiel return.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.engine.actions import (
    ALONE,
    DISCARD_BASE,
    NAME_BASE,
    ORDER_UP,
    PARTNER,
    PASS,
    PLAY_BASE,
    TAKE_UP,
    action_to_string,
)
from arena.engine.cards import card_text, plain_card
from arena.engine.config import GameConfig, deck_of
from arena.engine.dealing import deal_positions
from arena.engine.state import GameState
from tests.helpers import NEEDS_PYSPIEL

pyspiel = pytest.importorskip("pyspiel", reason=NEEDS_PYSPIEL)
euchre = pyspiel.euchre

OS_PASS, OS_CLUBS, OS_ALONE, OS_PARTNER = 24, 25, 29, 30
DEALS_PER_CASE = 1000  # 2 stick_the_dealer values x 4 dealers x 1000 = 8,000 deals (a few seconds)
PASS_BIAS = 0.6  # bidding passes more often than uniform, so round 2 and thrown-in hands occur often
CONFIGS = {
    stick: GameConfig.create("classic", stick_the_dealer=stick, may_discard_upcard=False)
    for stick in (False, True)
}
CL_DECK = deck_of(CONFIGS[False])


def os_card_to_ours(card: int) -> int:
    """OpenSpiel card id (``rank * 4 + suit``, ranks 9 T J Q K A, suits C D H S) to our card id."""
    rank, suit = divmod(card, 4)
    return plain_card("9TJQKA"[rank], suit)


def _to_ours(state, action: int) -> int:
    """Our action id for OpenSpiel ``action`` at the decision of OpenSpiel ``state``."""
    phase = state.current_phase()
    if phase == euchre.Phase.PLAY:
        return PLAY_BASE + os_card_to_ours(action)
    if phase == euchre.Phase.DISCARD:
        return DISCARD_BASE + os_card_to_ours(action)
    if phase == euchre.Phase.GO_ALONE:
        return {OS_ALONE: ALONE, OS_PARTNER: PARTNER}[action]
    assert phase == euchre.Phase.BIDDING, phase
    if action == OS_PASS:
        return PASS
    suit = action - OS_CLUBS
    if state.num_passes() < 4 and suit == state.upcard() % 4:
        # Round 1: accepting the up-card's suit. Any other suit falls through to NAME(s), which our round 1
        # never offers, so a difference there shows up as a legal-set mismatch instead of being hidden.
        return TAKE_UP if state.current_player() == state.dealer() else ORDER_UP
    return NAME_BASE + suit


def _deal(os_state, rng: random.Random, dealer: int) -> list[int]:
    """Resolve OpenSpiel's chance nodes (dealer forced, cards sampled) and return our deck for that deal."""
    assert os_state.is_chance_node()
    os_state.apply_action(dealer)
    while os_state.is_chance_node():
        outcomes = os_state.chance_outcomes()
        os_state.apply_action(rng.choice(outcomes)[0])
    holders = os_state.card_holder()
    hands: list[list[int]] = [[] for _ in range(4)]
    for os_card, seat in enumerate(holders):
        if seat is not None:
            hands[seat].append(os_card_to_ours(os_card))
    up = os_card_to_ours(os_state.upcard())
    deck = [-1] * 24
    for seat, positions in enumerate(deal_positions(4, dealer)):
        assert len(hands[seat]) == 5, (seat, hands)
        for pos, card in zip(positions, sorted(hands[seat]), strict=True):
            deck[pos] = card
    deck[20] = up
    deck[21:] = sorted(set(CL_DECK) - set(deck))
    return deck


def _choose(rng: random.Random, legal: list[int]) -> int:
    """A random legal action; bidding passes with probability ``PASS_BIAS`` so that round 2 is reached."""
    if PASS in legal and rng.random() < PASS_BIAS:
        return PASS
    return rng.choice(legal)


def _play_one(stick: bool, dealer: int, seed: int, stats: Counter) -> None:
    """Play one random deal in both engines, asserting agreement throughout; count what happened."""
    rng = random.Random(seed)
    game = pyspiel.load_game("euchre", {"stick_the_dealer": stick, "allow_lone_defender": False})
    os_state = game.new_initial_state()
    deck = _deal(os_state, rng, dealer)
    ours = GameState(CONFIGS[stick], decks=[deck], dealer=dealer, single_hand=True)
    where = f"stick_the_dealer={stick} dealer={dealer} seed={seed} deck={[card_text(c) for c in deck]}"
    for seat in range(4):
        os_hand = sorted(os_card_to_ours(c) for c, h in enumerate(os_state.card_holder()) if h == seat)
        assert sorted(ours.hands[seat]) == os_hand, f"{where}: seat {seat} hand differs"
    history: list[str] = []
    while not os_state.is_terminal():
        assert not ours.is_terminal(), f"{where} after {history}: ours ended, OpenSpiel goes on"
        assert ours.current_player() == os_state.current_player(), (
            f"{where} after {history}: to act ours {ours.current_player()} "
            f"OpenSpiel {os_state.current_player()}"
        )
        os_legal = {_to_ours(os_state, a): a for a in os_state.legal_actions()}
        our_legal = ours.legal_actions()
        assert sorted(map(action_to_string, our_legal)) == sorted(map(action_to_string, os_legal)), (
            f"{where} after {history}: seat {ours.current_player()} legal ours "
            f"{[action_to_string(a) for a in our_legal]} OpenSpiel {[action_to_string(a) for a in os_legal]}"
        )
        action = _choose(rng, our_legal)
        history.append(f"{ours.current_player()}:{action_to_string(action)}")
        ours.apply(action)
        os_state.apply_action(os_legal[action])
    assert ours.is_terminal(), f"{where} after {history}: OpenSpiel ended, ours goes on"
    result = ours.results[0]
    os_tricks = [t for t in os_state.tricks() if t.leader() >= 0]  # unplayed tricks: leader -3, cards [-1]
    assert len(result.tricks) == len(os_tricks), f"{where} {history}: trick count"
    for i, (mine, theirs) in enumerate(zip(result.tricks, os_tricks, strict=True)):
        assert [c for _, c in mine.plays] == [os_card_to_ours(c) for c in theirs.cards()], (
            f"{where} {history}: trick {i} cards"
        )
        assert mine.leader == theirs.leader(), f"{where} {history}: trick {i} leader"
        assert mine.winner == theirs.winner(), (
            f"{where} {history}: trick {i} {[card_text(c) for _, c in mine.plays]} winner ours {mine.winner} "
            f"OpenSpiel {theirs.winner()}"
        )
    if result.maker >= 0:
        made = (result.maker, result.trump, result.alone)
        theirs_made = (os_state.declarer(), int(os_state.trump_suit()), os_state.declarer_go_alone())
        assert made == theirs_made, (
            f"{where} {history}: (maker, trump, alone) ours {made} OpenSpiel {theirs_made}"
        )
    # OpenSpiel returns are zero-sum team points; ours are per seat and never negative (CL-2.4).
    expected = tuple(max(int(r), 0) for r in os_state.returns())
    assert result.points == expected, (
        f"{where} {history}: points ours {result.points} OpenSpiel returns {os_state.returns()}"
    )
    stats[result.outcome.value] += 1
    stats["alone"] += result.alone
    stats["named in round 2"] += result.maker >= 0 and result.discard < 0
    stats["stuck dealer named"] += result.maker == dealer and result.discard < 0 and _dealer_stuck(result)


def _dealer_stuck(result) -> bool:
    """Whether the dealer named trump after the three others passed in round 2 (seven passes before)."""
    return sum(a == PASS for _, a in result.actions) == 7


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("stick", [False, True], ids=["no-stick", "stick"])
def test_CL_crosscheck_openspiel_item16_random_deals(stick: bool, dealer: int) -> None:
    """Checklist 16 (CL-1, CL-2, C-3, C-4, CA-4.3..CA-4.6, CA-5.1): the same deals and the same random legal
    choices give the same player to act, the same legal actions at every decision, the same tricks and trick
    winners, and the same hand points as OpenSpiel's ``euchre``."""
    stats: Counter = Counter()
    for k in range(DEALS_PER_CASE):
        _play_one(stick, dealer, seed=1_000_000 * stick + 1000 * dealer + k, stats=stats)
    # The random play must actually reach the interesting branches, or the agreement above proves little.
    for key in ("made", "euchred", "march", "alone", "named in round 2"):
        assert stats[key] > 0, f"no {key!r} hand in {DEALS_PER_CASE} deals: {dict(stats)}"
    if stick:
        assert stats["thrown_in"] == 0 and stats["stuck dealer named"] > 0, dict(stats)
    else:
        assert stats["thrown_in"] > 0, dict(stats)


def test_CL_openspiel_card_mapping_matches_card_strings() -> None:
    """Checklist 16: OpenSpiel writes cards suit first (``"DT"``), we write rank first (``"TD"``)."""
    mapped = [card_text(os_card_to_ours(c)) for c in range(24)]
    assert mapped == [euchre.card_string(c)[::-1] for c in range(24)]
    assert sorted(os_card_to_ours(c) for c in range(24)) == list(CL_DECK)


def test_CL_thrown_in_hand_scores_zero_in_both() -> None:
    """CA-4.6 via CL-2.2: without stick-the-dealer eight passes throw the hand in; nobody scores in either."""
    game = pyspiel.load_game("euchre", {"stick_the_dealer": False, "allow_lone_defender": False})
    os_state = game.new_initial_state()
    deck = _deal(os_state, random.Random(16), dealer=2)
    ours = GameState(CONFIGS[False], decks=[deck], dealer=2, single_hand=True)
    for _ in range(8):
        assert ours.current_player() == os_state.current_player()
        ours.apply(PASS)
        os_state.apply_action(OS_PASS)
    assert ours.is_terminal() and os_state.is_terminal()
    assert ours.results[0].outcome.value == "thrown_in" and ours.results[0].points == (0, 0, 0, 0)
    assert list(os_state.returns()) == [0.0, 0.0, 0.0, 0.0]
