"""A seat's news: what each seat is told after each action, the public news plus its own private news (C-5).

A table runner marks the state before applying an action and asks ``news_for_seats`` afterwards (or
``news_since`` for one seat). Deciding what a seat may see belongs here, beside the views, and not in
the transport: the dealer's discard is hidden from everyone else, a new hand shows each seat only its own
cards, and the partner is revealed only when the called card is played (C-5.4) or at hand end.

Called "news" and not "events" because an event is a tournament here (``arena.event``, ``arena run``).
The protocol's message keeps its name (``Event`` on the wire, ``Bot.on_event`` in the SDK: a bot author's
names never move), and ``arena.engine.events`` still imports every name of this module under its old one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from arena.engine.actions import ACTIONS, CALL_BASE, DISCARD_BASE, EXPOSE, Action
from arena.engine.cards import CARDS, Card, Trump
from arena.engine.scoring import HandOutcome
from arena.engine.state import GameState, HandResult, Phase
from arena.engine.views import TrickView, trick_view


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A new hand was dealt; each seat is told only its own cards.

    Attributes:
        hand_index: 0-based number of the hand, thrown-in hands included.
        dealer: The seat dealing it.
        up_card: The card turned up.
        hand: This seat's five cards; ``None`` for a dealer facing a blind decision (``HandShown`` follows).
        scores: Everybody's points before the hand.
    """

    hand_index: int
    dealer: int
    up_card: Card
    hand: tuple[Card, ...] | None  # None for a dealer facing a blind decision
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandShown:
    """Private to the dealer: his cards, once his blind decisions are over (he has picked up).

    Attributes:
        hand: The dealer's cards, now visible to him.
    """

    hand: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """A seat acted (every action of every seat, this one's own included).

    Attributes:
        seat: Who acted.
        action: What it did; ``None`` for the dealer's discard as told to everyone but the dealer.
        exposed_card: Five-handed ``EXPOSE``: the dealer's card turned face up (public).
    """

    seat: int
    action: Action | None  # None: the dealer's discard, as seen by everyone else
    exposed_card: Card | None = None  # FH EXPOSE: the card turned face up


@dataclass(frozen=True, slots=True)
class TrickCompleted:
    """A trick was completed; ``trick.winner`` leads the next one.

    Attributes:
        trick: The whole trick, with its winner.
    """

    trick: TrickView


@dataclass(frozen=True, slots=True)
class PartnerRevealed:
    """The called card was just played by ``seat``, so ``seat`` is the maker's partner (C-5.4).

    Comes right after that ``ActionTaken``. From then on every view's ``partner`` names it and
    ``teammates`` shows the sides.

    Attributes:
        seat: The partner, who played the called card.
    """

    seat: int


@dataclass(frozen=True, slots=True)
class HandEnded:
    """A hand ended, played out or thrown in. Everything here is public, the partner included.

    Attributes:
        hand_index: The hand that ended.
        outcome: Thrown in, euchred, made or march.
        trump: Trump of the hand; ``None`` when it was thrown in.
        maker: Who made trump; ``None`` when it was thrown in.
        called_card: The card the maker called, if any.
        alone: Whether the maker went alone.
        partner: The maker's partner; ``None`` for a lone maker, or when the called card lay in the kitty.
        tricks_won: Tricks per seat.
        points: Points each seat scored in this hand.
        scores: Everybody's points after it.
    """

    hand_index: int
    outcome: HandOutcome
    trump: Trump | None
    maker: int | None
    called_card: Card | None
    alone: bool
    partner: int | None
    tricks_won: tuple[int, ...]
    points: tuple[int, ...]
    scores: tuple[int, ...]


News = HandStarted | HandShown | ActionTaken | TrickCompleted | PartnerRevealed | HandEnded
"""Any piece of news: what ``Bot.on_event`` receives. Match on the class (``isinstance`` or ``match``)."""


class Mark(NamedTuple):
    """Where a state was before an action: enough to tell afterwards what the action caused."""

    hands_done: int
    tricks_done: int
    phase: int


def mark(state: GameState) -> Mark:
    return Mark(len(state.results), len(state.tricks), state.phase)


def opening_news(state: GameState, seat: int) -> list[News]:
    """What ``seat`` is told when the game starts: the first hand's deal."""
    return [_hand_started(state, seat)]


def news_since(state: GameState, before: Mark, seat: int) -> list[News]:
    """The news ``seat`` is told about the one action applied since ``before`` was taken."""
    return news_for_seats(state, before)[seat]


def news_for_seats(state: GameState, before: Mark) -> list[list[News]]:
    """``news_since`` for every seat at once (index = seat).

    What every seat is told is built once and shared (the same objects in every list), so a table pays
    for the public news once per action rather than once per seat, and a transport can recognise a
    piece of news it has already encoded for another seat by identity.
    """
    ended = len(state.results) > before.hands_done
    result: HandResult | None = state.results[-1] if ended else None
    actions = result.actions if result is not None else state.actions
    actor, action_id = actions[-1]
    dealer = result.dealer if result is not None else state.dealer
    exposed = CARDS[state.exposed] if action_id == EXPOSE and result is None else None
    shown = ActionTaken(actor, ACTIONS[action_id], exposed)
    # The dealer's discard is hidden from everyone but the dealer (C-5).
    hidden = ActionTaken(actor, None, exposed) if DISCARD_BASE <= action_id < CALL_BASE else shown
    public: list[News] = []
    if action_id < DISCARD_BASE:  # a card was played
        called = result.called if result is not None else state.called
        partner = result.partner if result is not None else state.partner
        if action_id == called and partner >= 0:
            public.append(PartnerRevealed(actor))
        # A hand that ends on a card has just completed its fifth trick.
        if result is not None or len(state.tricks) > before.tricks_done:
            t = (result.tricks if result is not None else state.tricks)[-1]
            public.append(TrickCompleted(trick_view(t.leader, t.plays, t.winner)))
    if result is not None:
        public.append(_hand_ended(result))
    next_hand = result is not None and not state.is_terminal()
    shows_hand = result is None and Phase(before.phase).blind and not Phase(state.phase).blind
    out: list[list[News]] = []
    for seat in range(state.n):
        news: list[News] = [shown if seat == dealer else hidden, *public]
        if next_hand:
            news.append(_hand_started(state, seat))
        elif shows_hand and seat == dealer:
            news.append(HandShown(tuple(CARDS[c] for c in state.hands[seat])))
        out.append(news)
    return out


def redact(told: Sequence[News]) -> list[News]:
    """What a spectator may be told of one seat's news: the public part only (no hidden card).

    Any seat's list will do: the seat's own cards (``HandStarted.hand``, ``HandShown``) and, for the
    dealer, its discard are what differ between seats, and those are dropped here. A live table's watchers
    (``arena.server.live``) are built from this, on the server, so that a page is never sent a hidden card
    to hide.
    """
    out: list[News] = []
    for item in told:
        if isinstance(item, HandShown):
            continue
        if isinstance(item, HandStarted) and item.hand is not None:
            item = HandStarted(item.hand_index, item.dealer, item.up_card, None, item.scores)
        elif (
            isinstance(item, ActionTaken)
            and item.action is not None
            and DISCARD_BASE <= item.action.id < CALL_BASE
        ):
            item = ActionTaken(item.seat, None, item.exposed_card)
        out.append(item)
    return out


def _hand_started(state: GameState, seat: int) -> HandStarted:
    blind = Phase(state.phase).blind and seat == state.dealer
    hand = None if blind else tuple(CARDS[c] for c in state.hands[seat])
    return HandStarted(state.hand_index, state.dealer, CARDS[state.up_card], hand, tuple(state.scores_before))


def _hand_ended(result: HandResult) -> HandEnded:
    return HandEnded(
        hand_index=result.hand_index,
        outcome=result.outcome,
        trump=Trump(result.trump) if result.trump >= 0 else None,
        maker=result.maker if result.maker >= 0 else None,
        called_card=CARDS[result.called] if result.called >= 0 else None,
        alone=result.alone,
        partner=result.partner if result.partner >= 0 else None,
        tricks_won=result.tricks_won,
        points=result.points,
        scores=result.scores_after,
    )
