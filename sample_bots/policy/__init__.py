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

from arena.engine.cards import CardId
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
from arena.engine.views import View
from sample_bots.policy.bidding import (
    DEFAULT_STYLE,
    Style,
    bid_round_1,
    bid_round_2,
    blind_two_choice,
    call,
    discard,
    expose_name,
    joker_name,
)
from sample_bots.policy.knowledge import Ranks, Seen, cards_played, ranks, seen_from_state, seen_from_view
from sample_bots.policy.play import play

__all__ = [
    "DEFAULT_STYLE",
    "Ranks",
    "Seen",
    "Style",
    "choose",
    "choose_state",
    "choose_view",
    "ranks",
    "rollout",
    "seen_from_state",
    "seen_from_view",
]


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
