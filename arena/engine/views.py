"""What one seat may know at one moment (RULES.md C-5), as a frozen value.

A ``View`` is the only thing about a game that ever reaches a bot: its own hand (not during a blind
decision, C-5.5), its own discard if it is the dealer, and the public history. The called card's holder is
not shown until the card is played (C-5.4); the holder can tell from its own hand. Everything else in the
``GameState`` stays inside the engine. ``arena.engine.determinize`` goes the other way: view plus a guess of
the hidden cards gives back a full state.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple

from arena.engine.actions import ACTIONS, CALL_BASE, DISCARD_BASE, Action
from arena.engine.cards import CARDS, EFFECTIVE_SUIT, Card, Suit, Trump
from arena.engine.config import GameConfig
from arena.engine.state import P_EXPOSE, P_PLAY, P_TWO, GameState, Phase, Trick
from arena.errors import RuleError


class UpCardFate(StrEnum):
    """What became of the up-card: ``ON_TABLE`` while it is bid on, ``TAKEN`` once the dealer picked it up
    (he may since have discarded it), ``TURNED_DOWN`` when everybody passed round 1 (it stays in the
    kitty, publicly known)."""

    ON_TABLE = "on_table"  # bidding on it has not finished
    TAKEN = "taken"  # the dealer picked it up (he may since have discarded it)
    TURNED_DOWN = "turned_down"  # everybody passed round 1; it stays in the kitty, publicly known


class Play(NamedTuple):
    """A card played to a trick, and by whom (a NamedTuple: a view holds dozens, built per decision).

    Attributes:
        seat: Who played it.
        card: The card.
    """

    seat: int
    card: Card


class TrickView(NamedTuple):
    """A trick as everybody saw it.

    Attributes:
        leader: The seat that led it.
        plays: The cards in play order; empty when the leader has not played yet.
        winner: Who won it; ``None`` while the trick is in progress.
    """

    leader: int
    plays: tuple[Play, ...]
    winner: int | None = None

    @property
    def led_card(self) -> Card | None:
        """The first card played, or ``None`` before the lead (its *printed* suit: see ``View.led_suit``)."""
        return self.plays[0].card if self.plays else None


@dataclass(frozen=True, slots=True)
class View:
    """One seat's knowledge of a game at one moment (RULES.md C-5). Nothing in it is hidden information.

    The arena builds one for every decision and the SDK hands it to ``Bot.act``; it is complete, so a bot
    that ignores the events loses nothing. Seats are numbered 0..N-1 clockwise. A field that holds
    ``None`` is not known to this seat yet (or does not apply in this variant), never a guess.

    Attributes:
        config: The rules of this game (variant and every option).
        seat: The seat this view belongs to.
        hand_index: 0-based number of the current hand, thrown-in hands included.
        dealer: The seat dealing this hand.
        phase: What is being decided now; at ``Phase.GAME_OVER`` the other fields show the last hand as
            it ended.
        to_act: Whose turn it is (-1 once the game is over).
        scores: Points of every seat now.
        scores_before: Points of every seat at the start of this hand (the five-handed tie rule uses them).
        hand: This seat's cards, sorted; ``None`` during a blind decision (CA-4.2, FH-3.2), when the
            dealer must choose without seeing them.
        up_card: The card turned up after the deal.
        up_card_fate: What became of the up-card (still bid on, taken by the dealer, turned down).
        proposed_trump: The suit round 1 bids on: the up-card's suit, or the suit a five-handed dealer
            named blind. ``None`` before it is known, in round 2, and when there is no bidding (Joker,
            ``EXPOSE``).
        exposed_card: Five-handed: the dealer's card turned face up by ``EXPOSE`` (public).
        history: Every action of this hand in order, as ``(seat, action)``; the dealer's discard is
            ``None`` to everybody but the dealer.
        trump: Trump once made, else ``None``.
        maker: The seat that made trump, else ``None``.
        called_card: The card the maker called (call-ace, five-handed); ``None`` before the call, when the
            maker went alone, and in classic.
        alone: Whether the maker announced ``ALONE``.
        partner: The *maker's* partner, when this seat may know who it is: in classic the seat opposite
            the maker once he chose ``PARTNER``, so for a defender it names an opponent; in call-ace and
            five-handed the called card's holder once that card has been played, or this seat itself if
            it holds the called card. ``None`` before that, for a lone maker, and when the called card
            lies in the kitty. Read ``teammates`` for "who is on my side".
        teammates: The seats known to be on this seat's side right now, sorted; what a bot means by
            "my partner". Classic: the fixed partner opposite (also while he sits out a lone hand).
            Call-ace and five-handed, where sides form anew each hand: the maker's partner for the maker
            and the maker for his partner once the partner is known to this seat, every other defender for
            a defender once the partner has been revealed or the maker went alone; empty while the sides
            are unknown to this seat (before the call, and before the called card is played unless this
            seat holds it) and for a lone maker.
        discard: The dealer's own discard, for the dealer only; ``None`` for everyone else.
        tricks: The completed tricks of this hand, in order.
        current_trick: The trick in progress during play, present with no plays when it is this seat's
            lead; ``None`` outside the play phase.
        tricks_won: Tricks won so far this hand, per seat.
        sitting_out: Classic: the partner of a lone maker, who sits this hand out; else ``None``.
        legal_actions: Every action this seat may take now, in a fixed order; empty unless it is this
            seat's turn. ``Bot.act`` returns one of them.
    """

    config: GameConfig
    seat: int
    hand_index: int
    dealer: int
    phase: Phase
    to_act: int
    scores: tuple[int, ...]
    scores_before: tuple[int, ...]
    hand: tuple[Card, ...] | None
    up_card: Card
    up_card_fate: UpCardFate
    proposed_trump: Trump | None
    exposed_card: Card | None
    history: tuple[tuple[int, Action | None], ...]
    trump: Trump | None
    maker: int | None
    called_card: Card | None
    alone: bool
    partner: int | None
    teammates: tuple[int, ...]
    discard: Card | None
    tricks: tuple[TrickView, ...]
    current_trick: TrickView | None
    tricks_won: tuple[int, ...]
    sitting_out: int | None
    legal_actions: tuple[Action, ...]

    @property
    def num_players(self) -> int:
        """Seats at the table (``config.num_players``)."""
        return self.config.num_players

    @property
    def is_my_turn(self) -> bool:
        """Whether this seat must act now (then ``legal_actions`` is not empty)."""
        return self.to_act == self.seat

    @property
    def blind(self) -> bool:
        """This seat must decide without seeing its own hand (CA-4.2, FH-3.2)."""
        return self.hand is None

    @property
    def led_suit(self) -> Suit | None:
        """Effective suit led to the current trick (a led left bower leads trump); ``None`` before the lead
        and outside play. Following suit means following this, not the led card's printed suit."""
        trick = self.current_trick
        if trick is None or not trick.plays or self.trump is None:
            return None
        return Suit(EFFECTIVE_SUIT[self.trump][trick.plays[0].card.id])

    def played_cards(self) -> list[Play]:
        """Every card played so far this hand, in order."""
        out = [p for t in self.tricks for p in t.plays]
        if self.current_trick is not None:
            out.extend(self.current_trick.plays)
        return out


def build_view(state: GameState, seat: int) -> View:
    """The view of ``seat`` on ``state``: its own hand and the public history, nothing else (C-5)."""
    if not 0 <= seat < state.n:
        raise RuleError(f"seat {seat!r} is not at this table of {state.n} seats")
    phase = Phase(state.phase)
    dealer = state.dealer
    # At GAME_OVER the per-hand fields still hold the last hand as it ended, so the view shows it.
    blind = phase.blind and seat == dealer
    hand = None if blind else tuple([CARDS[c] for c in state.hands[seat]])
    history = tuple(
        [
            (s, None if DISCARD_BASE <= a < CALL_BASE and seat != dealer else ACTIONS[a])
            for s, a in state.actions
        ]
    )
    if state.picked_up:
        fate = UpCardFate.TAKEN
    elif state.turned_down >= 0:
        fate = UpCardFate.TURNED_DOWN
    else:
        fate = UpCardFate.ON_TABLE
    called = state.called
    known = state.config.team_play or (called >= 0 and (state.partner_revealed or state.partner == seat))
    partner = state.partner if known and state.partner >= 0 else None
    trick = None
    if state.phase == P_PLAY:
        trick = trick_view(state.leader, tuple(zip(state.trick_seats, state.trick, strict=True)), None)
    return View(
        config=state.config,
        seat=seat,
        hand_index=state.hand_index,
        dealer=dealer,
        phase=phase,
        to_act=state.to_act,
        scores=tuple(state.scores),
        scores_before=state.scores_before,
        hand=hand,
        up_card=CARDS[state.up_card],
        up_card_fate=fate,
        proposed_trump=_proposed(state),
        exposed_card=CARDS[state.exposed] if state.exposed >= 0 else None,
        history=history,
        trump=Trump(state.trump) if state.trump >= 0 else None,
        maker=state.maker if state.maker >= 0 else None,
        called_card=CARDS[called] if called >= 0 else None,
        alone=state.alone,
        partner=partner,
        teammates=_teammates(state, seat),
        discard=CARDS[state.discard] if state.discard >= 0 and seat == dealer else None,
        tricks=tuple([_completed(t) for t in state.tricks]),
        current_trick=trick,
        tricks_won=tuple(state.tricks_won),
        sitting_out=state.sitting_out if state.sitting_out >= 0 else None,
        legal_actions=tuple([ACTIONS[a] for a in state.legal_actions()]) if state.to_act == seat else (),
    )


def _teammates(state: GameState, seat: int) -> tuple[int, ...]:
    """The seats ``seat`` knows to be on its side (see ``View.teammates``).

    Why a field of its own: ``partner`` names the maker's partner, which for a defender is an opponent,
    and in call-ace and five-handed the sides change every hand and become known only as the hand goes on.
    """
    n = state.n
    if state.config.team_play:
        return ((seat + 2) % n,)  # classic: fixed partnerships, seats 0+2 and 1+3 (CL-2.1)
    maker = state.maker
    if maker < 0:
        return ()
    if state.alone:
        makers = {maker}
    elif state.partner >= 0 and (state.partner_revealed or state.partner == seat):
        makers = {maker, state.partner}
    else:
        return ()  # the called card is unplayed and not in this seat's hand (or lies in the kitty)
    if seat in makers:
        return tuple(sorted(makers - {seat}))
    return tuple([s for s in range(n) if s != seat and s not in makers])


def _proposed(state: GameState) -> Trump | None:
    """The suit round 1 bids on: the up-card's suit, or the suit the FH dealer named blind (FH-3.2)."""
    if state.proposed < 0 or state.phase in (P_TWO, P_EXPOSE) or state.exposed >= 0:
        return None
    return Trump(state.proposed)


def trick_view(leader: int, plays: tuple[tuple[int, int], ...], winner: int | None) -> TrickView:
    return TrickView(leader, tuple([Play(s, CARDS[c]) for s, c in plays]), winner)


@lru_cache(maxsize=4096)
def _completed(trick: Trick) -> TrickView:
    """A completed trick's view, built once: every later view of the hand, for every seat, repeats it."""
    return trick_view(trick.leader, trick.plays, trick.winner)


__all__ = ["Play", "TrickView", "UpCardFate", "View", "build_view"]
