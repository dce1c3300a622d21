"""The game as a state machine, from the first deal to the final standings (RULES.md section 8).

One ``GameState`` is a whole game: it deals each hand itself (a pure function of the seed and the hand
number, or an explicit deck order), asks ``current_player`` for ``legal_actions``, and moves on ``apply``.
Rules are organised by phase: ``_legal_*`` lists a phase's actions and ``_apply_*`` carries one out.

Speed matters (bots simulate thousands of games), so cards and actions are ints, the trick winner is a
table lookup, hands are sorted lists, and the legal list of a decision is computed once and reused by the
legality check in ``apply``. ``apply_unchecked`` skips that check for callers that drew the action from
``legal_actions`` themselves.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Sequence
from enum import IntEnum
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from arena.engine import actions as A
from arena.engine.cards import (
    ACE,
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
from arena.engine.dealing import check_deck, deal_order, deal_positions
from arena.engine.scoring import HandOutcome, Outcome, game_over, hand_points
from arena.errors import IllegalActionError, RuleError


class Phase(IntEnum):
    """The kind of decision the current player faces (the protocol's ``DecisionKind``).

    ``TWO_CHOICE`` (FH-3.2, blind: ``BLIND_NAME(s)`` or ``EXPOSE``), ``JOKER_NAME`` (CA-4.2, blind: name
    trump), ``EXPOSE_NAME`` (FH-3.2, seeing only the exposed card: name trump), ``BID_ROUND_1`` (``PASS``,
    ``ORDER_UP``, dealer ``TAKE_UP``), ``BID_ROUND_2`` (``PASS``, ``NAME(s)``), ``DISCARD`` (the dealer
    discards one of six), ``CALL`` (call-ace and five-handed: ``CALL(card)`` or ``ALONE``; classic:
    ``PARTNER`` or ``ALONE``), ``PLAY``, and ``GAME_OVER`` (no decision).
    """

    TWO_CHOICE = 0  # FH-3.2, blind: BLIND_NAME(s) or EXPOSE
    JOKER_NAME = 1  # CA-4.2, blind: name trump
    EXPOSE_NAME = 2  # FH-3.2, blind but for the exposed card: name trump
    BID_ROUND_1 = 3  # PASS / ORDER_UP (dealer: TAKE_UP)
    BID_ROUND_2 = 4  # PASS / NAME(s)
    DISCARD = 5  # dealer discards one of six
    CALL = 6  # CA/FH: CALL(card) or ALONE; CL: PARTNER or ALONE
    PLAY = 7
    GAME_OVER = 8

    @property
    def blind(self) -> bool:
        """Decisions the dealer takes without seeing his own hand (C-5.5)."""
        return self <= Phase.EXPOSE_NAME


# The phases as plain module-level ints, which the state holds and compares on its hot path (``Phase.PLAY``
# would be an attribute lookup at every comparison); their values come from ``Phase``, written once.
P_TWO = Phase.TWO_CHOICE.value
P_JOKER = Phase.JOKER_NAME.value
P_EXPOSE = Phase.EXPOSE_NAME.value
P_BID1 = Phase.BID_ROUND_1.value
P_BID2 = Phase.BID_ROUND_2.value
P_DISCARD = Phase.DISCARD.value
P_CALL = Phase.CALL.value
P_PLAY = Phase.PLAY.value
P_OVER = Phase.GAME_OVER.value


class Trick(NamedTuple):
    """A completed trick: who led, the cards in play order with their seats, and who won it.

    A NamedTuple rather than a frozen dataclass: it is built 5 times a hand on the hot path, and a frozen
    dataclass's ``__init__`` costs several times more.
    """

    leader: int
    plays: tuple[tuple[int, CardId], ...]
    winner: int


class HandResult(NamedTuple):
    """Everything about one finished hand; ``arena.engine.records`` turns it into the JSON hand record.

    Immutable like every engine value; a NamedTuple for the same speed reason as ``Trick``.
    """

    config: GameConfig
    hand_index: int
    dealer: int
    deck: tuple[CardId, ...]
    actions: tuple[tuple[int, A.ActionId], ...]
    tricks: tuple[Trick, ...]
    trump: int  # -1 when thrown in, 4 for No-Trumps
    maker: int  # -1 when thrown in
    called: CardId  # -1 when none
    partner: int  # -1 when nobody else held the called card (or CL alone)
    alone: bool  # announced ALONE
    sitting_out: int  # CL partner of a lone maker, else -1
    exposed: CardId  # FH EXPOSE card, else -1
    discard: CardId  # -1 when nobody picked up
    outcome: HandOutcome
    tricks_won: tuple[int, ...]
    points: tuple[int, ...]
    scores_before: tuple[int, ...]
    scores_after: tuple[int, ...]

    @property
    def making_tricks(self) -> int:
        if self.maker < 0:
            return 0
        return self.tricks_won[self.maker] + (self.tricks_won[self.partner] if self.partner >= 0 else 0)


DeckSource = Callable[[int], Sequence[CardId]]


class GameState:
    """A whole game. ``GameState(config, seed=7)`` deals from the seed; ``decks=[...]`` fixes the deals.

    :param decks: explicit deck orders for the first hands, in play order (index 0 = top card). Later hands
        come from ``seed``; with no seed, a game that needs more hands than given raises ``RuleError``.
    """

    __slots__ = (
        "_deal",
        "_eff",
        "_key",
        "_legal",
        "_next",
        "_trick_size",
        "actions",
        "alone",
        "called",
        "config",
        "dealer",
        "dealt",
        "deck",
        "discard",
        "exposed",
        "hand_index",
        "hands",
        "kitty",
        "leader",
        "maker",
        "n",
        "outcome",
        "partner",
        "partner_revealed",
        "passes",
        "phase",
        "picked_up",
        "proposed",
        "results",
        "scores",
        "scores_before",
        "seed",
        "single_hand",
        "sitting_out",
        "to_act",
        "trick",
        "trick_seats",
        "tricks",
        "tricks_won",
        "trump",
        "turned_down",
        "up_card",
    )
    # Set by ``_start_hand`` and the phase handlers rather than in ``__init__``; declared for type checkers.
    phase: int
    to_act: int
    _legal: list[A.ActionId] | None
    _eff: Sequence[int]
    actions: list[tuple[int, A.ActionId]]
    trick: list[CardId]
    trick_seats: list[int]
    tricks: list[Trick]

    def __init__(
        self,
        config: GameConfig,
        seed: int | None = None,
        decks: Sequence[Sequence[CardId]] | None = None,
        *,
        hand_index: int = 0,
        dealer: int | None = None,
        scores: Sequence[int] | None = None,
        single_hand: bool = False,
    ) -> None:
        """Start a game, or resume one at the start of hand ``hand_index`` (for replays and look-ahead).

        :param single_hand: stop (``is_terminal()``) after the first hand even if the game is not over;
            ``outcome`` is then set only if that hand ended the game.
        """
        self.config = config
        self.n = config.num_players
        self.seed = seed
        self.single_hand = single_hand
        if decks is None and seed is None:
            raise RuleError("GameState needs a seed, explicit decks, or both")
        given = [check_deck(config, d, hand_index + i) for i, d in enumerate(decks or ())]
        self._deal = _deck_source(config, given, hand_index, seed)
        self.results: list[HandResult] = []
        self.outcome: Outcome | None = None
        self.hand_index = hand_index
        self.dealer = config.first_dealer if dealer is None else dealer
        self.scores = [0] * self.n if scores is None else list(scores)
        if len(self.scores) != self.n or not 0 <= self.dealer < self.n:
            raise RuleError(f"scores {self.scores!r} and dealer {self.dealer!r} do not fit {self.n} seats")
        self._start_hand()

    # ----------------------------------------------------------------- public API

    def current_player(self) -> int:
        """The seat to act, or -1 once the game is over."""
        return self.to_act

    def is_terminal(self) -> bool:
        return self.phase == P_OVER

    def legal_actions(self) -> list[A.ActionId]:
        """The legal action ids of the current decision, ascending. Do not mutate the returned list."""
        legal = self._legal
        if legal is None:
            if self.phase == P_PLAY:  # the commonest decision, computed here without another call
                hand = self.hands[self.to_act]
                if self.trick:
                    eff = self._eff
                    led = eff[self.trick[0]]
                    legal = [c for c in hand if eff[c] == led] or hand[:]  # follow suit if you can (C-3.4)
                else:
                    legal = hand[:]  # any card may be led (C-3.3)
            else:
                legal = self._compute_legal()
            self._legal = legal
        return legal

    def apply(self, action: A.ActionId) -> None:
        """Carry out ``action`` for the current player.

        :raises IllegalActionError: naming the action, the decision and what was legal.
        """
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if action not in legal:
            self._reject(action, legal)
        self._legal = None
        self.actions.append((self.to_act, action))
        if self.phase == P_PLAY:
            self._apply_play(action)
        else:
            self._apply_other(action)

    def apply_unchecked(self, action: A.ActionId) -> None:
        """Carry out an action known to be legal (taken from ``legal_actions``); no check is made."""
        self._legal = None
        self.actions.append((self.to_act, action))
        if self.phase == P_PLAY:
            self._apply_play(action)
        else:
            self._apply_other(action)

    def _reject(self, action: object, legal: list[A.ActionId]) -> None:
        known = isinstance(action, int) and 0 <= action < A.NUM_ACTIONS
        shown = A.action_to_string(action) if known else action  # type: ignore[arg-type]
        raise IllegalActionError(
            f"illegal action {shown!r} for seat {self.to_act} at {Phase(self.phase).name} "
            f"(hand {self.hand_index + 1}): legal are {A.describe(legal)}"
        )

    def _apply_other(self, action: A.ActionId) -> None:
        phase = self.phase
        if phase == P_BID1:
            self._apply_bid1(action)
        elif phase == P_BID2:
            self._apply_bid2(action)
        elif phase == P_DISCARD:
            self._apply_discard(action)
        elif phase == P_CALL:
            self._apply_call(action)
        elif phase == P_OVER:
            raise IllegalActionError(f"the game is over; no action is legal, got {action!r}")
        else:
            self._apply_blind(action)

    @property
    def current_phase(self) -> Phase:
        return Phase(self.phase)

    def clone(self) -> GameState:
        """An independent copy: applying actions to it never changes this state."""
        new = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(new, name, getattr(self, name))
        new.hands = [h[:] for h in self.hands]
        new.kitty = self.kitty[:]
        new.actions = self.actions[:]
        new.trick = self.trick[:]
        new.trick_seats = self.trick_seats[:]
        new.tricks = self.tricks[:]
        new.tricks_won = self.tricks_won[:]
        new.scores = self.scores[:]
        new.results = self.results[:]
        return new

    def returns(self) -> tuple[int, ...]:
        """Points scored so far by each seat (the scores)."""
        return tuple(self.scores)

    # ----------------------------------------------------------------- dealing

    def _start_hand(self) -> None:
        deck = tuple(self._deal(self.hand_index))
        n, dealer = self.n, self.dealer
        self.deck = deck
        self.dealt = dealt = tuple(take(deck) for take in _dealers(n, dealer))
        self.hands = [sorted(h) for h in dealt]
        self.up_card = up = deck[5 * n]
        self.kitty = list(deck[5 * n :])
        self.scores_before = tuple(self.scores)
        self.actions = []
        self.trick, self.trick_seats, self.tricks = [], [], []
        self.tricks_won = [0] * n
        self.trump = self.maker = self.called = self.partner = -1
        self.discard = self.exposed = self.sitting_out = -1
        self.turned_down = -1
        self.alone = self.picked_up = self.partner_revealed = False
        self.passes = 0
        self.leader = -1
        self._legal = None
        self._eff, self._key = EFFECTIVE_SUIT[0], TRICK_KEY[0]
        self._next, self._trick_size = _next_seats(n, -1), n
        variant = self.config.variant
        if up == JOKER:
            self.phase, self.to_act, self.proposed = P_JOKER, dealer, -1
        elif variant is Variant.FIVE_HANDED and up in (TWO_SPADES, TWO_HEARTS):
            self.phase, self.to_act, self.proposed = P_TWO, dealer, -1
        else:
            self.phase, self.to_act = P_BID1, (dealer + 1) % n
            self.proposed = _PRINTED_SUIT[up]

    # ----------------------------------------------------------------- legal actions

    def _compute_legal(self) -> list[A.ActionId]:
        """The legal actions of every phase but PLAY (``legal_actions`` computes those itself)."""
        phase = self.phase
        if phase == P_BID1:
            return [A.PASS, A.TAKE_UP if self.to_act == self.dealer else A.ORDER_UP]
        if phase == P_BID2:
            return self._legal_bid2()
        if phase == P_DISCARD:
            hand = self.hands[self.dealer]
            if self.config.may_discard_upcard:
                return [A.DISCARD_BASE + c for c in hand]
            return [A.DISCARD_BASE + c for c in hand if c != self.up_card]
        if phase == P_CALL:
            return self._legal_call()
        if phase == P_TWO:
            return [A.BLIND_NAME_BASE + s for s in range(4)] + [A.EXPOSE]
        if phase == P_JOKER:
            return [A.JOKER_NAME_BASE + s for s in range(4)]
        if phase == P_EXPOSE:
            return self._legal_expose_name()
        return []

    def _legal_bid2(self) -> list[A.ActionId]:
        stick = self.config.stick_the_dealer or self.config.variant is Variant.FIVE_HANDED
        out = [] if stick and self.to_act == self.dealer else [A.PASS]
        out += [A.NAME_BASE + s for s in range(4) if s != self.turned_down]
        if self.config.allow_no_trump:
            out.append(A.NAME_BASE + NO_TRUMP)
        return out

    def _legal_call(self) -> list[A.ActionId]:
        config = self.config
        if config.variant is Variant.CLASSIC:
            return [A.ALONE, A.PARTNER]
        hand = self.hands[self.maker]
        if config.variant is Variant.CALL_ACE:
            aces = (s * 9 + ACE for s in range(4) if s != self.trump)
            return [A.CALL_BASE + c for c in aces if c not in hand] + [A.ALONE]
        eff, trump = self._eff, self.trump
        allow_trump = config.call_may_be_trump
        return [
            A.CALL_BASE + c for c in deck_of(config) if c not in hand and (allow_trump or eff[c] != trump)
        ] + [A.ALONE]

    def _legal_expose_name(self) -> list[A.ActionId]:
        exposed = self.exposed
        if self.config.two_expose_mode == "exposed_suit" and exposed not in (TWO_SPADES, TWO_HEARTS):
            return [A.EXPOSE_NAME_BASE + int(printed_suit(exposed))]  # type: ignore[arg-type]
        return [A.EXPOSE_NAME_BASE + s for s in range(4)]

    # ----------------------------------------------------------------- applying actions

    def _apply_blind(self, action: A.ActionId) -> None:
        if action == A.EXPOSE:
            self.exposed = self.dealt[self.dealer][0]
            self.phase = P_EXPOSE
        elif action >= A.EXPOSE_NAME_BASE:
            self._make_trump(self.dealer, action - A.EXPOSE_NAME_BASE, pick_up=True)
        elif action >= A.BLIND_NAME_BASE:
            self.proposed = action - A.BLIND_NAME_BASE
            self.phase, self.to_act = P_BID1, (self.dealer + 1) % self.n
        else:
            self._make_trump(self.dealer, action - A.JOKER_NAME_BASE, pick_up=True)

    def _apply_bid1(self, action: A.ActionId) -> None:
        if action == A.PASS:
            self.passes += 1
            if self.passes == self.n:
                self.turned_down, self.passes = self.proposed, 0
                self.phase = P_BID2
            self.to_act = (self.to_act + 1) % self.n
        else:
            self._make_trump(self.to_act, self.proposed, pick_up=True)

    def _apply_bid2(self, action: A.ActionId) -> None:
        if action == A.PASS:
            self.passes += 1
            if self.passes == self.n:
                self._end_hand()
            else:
                self.to_act = (self.to_act + 1) % self.n
        else:
            self._make_trump(self.to_act, action - A.NAME_BASE, pick_up=False)

    def _make_trump(self, maker: int, trump: int, pick_up: bool) -> None:
        self.maker, self.trump = maker, trump
        self._eff = EFFECTIVE_SUIT[trump]
        self._key = TRICK_KEY[trump]
        if pick_up:
            self.picked_up = True
            insort(self.hands[self.dealer], self.up_card)
            self.kitty.remove(self.up_card)
            self.phase, self.to_act = P_DISCARD, self.dealer
        else:
            self.phase, self.to_act = P_CALL, maker

    def _apply_discard(self, action: A.ActionId) -> None:
        card = action - A.DISCARD_BASE
        self.hands[self.dealer].remove(card)
        self.discard = card
        self.kitty.append(card)
        self.phase, self.to_act = P_CALL, self.maker

    def _apply_call(self, action: A.ActionId) -> None:
        maker, n = self.maker, self.n
        if action == A.ALONE:
            self.alone = True
            if self.config.variant is Variant.CLASSIC:
                self.sitting_out = (maker + 2) % 4
        elif action == A.PARTNER:
            self.partner = (maker + 2) % 4
        else:
            called = self.called = action - A.CALL_BASE
            for seat in range(n):
                if seat != maker and called in self.hands[seat]:
                    self.partner = seat
                    break
        out = self.sitting_out
        self._next = _next_seats(n, out)
        self._trick_size = n if out < 0 else n - 1
        self.leader = self.to_act = self._next[self.dealer]  # dealer's left leads, unless sitting out (C-3.1)
        self.phase = P_PLAY

    def _apply_play(self, card: CardId) -> None:
        seat = self.to_act
        self.hands[seat].remove(card)
        trick = self.trick
        trick.append(card)
        seats = self.trick_seats
        seats.append(seat)
        if card == self.called:
            self.partner_revealed = True
        if len(trick) < self._trick_size:
            self.to_act = self._next[seat]
            return
        key = self._key[self._eff[trick[0]]]
        best, best_key = 0, key[trick[0]]
        for i in range(1, len(trick)):
            k = key[trick[i]]
            if k > best_key:
                best, best_key = i, k
        winner = seats[best]
        self.tricks_won[winner] += 1
        tricks = self.tricks
        tricks.append(Trick(self.leader, tuple(zip(seats, trick)), winner))  # noqa: B905 (same length)
        self.trick, self.trick_seats = [], []
        if len(tricks) == 5:
            self._end_hand()
        else:
            self.leader = self.to_act = winner

    # ----------------------------------------------------------------- hand end

    def _end_hand(self) -> None:
        config = self.config
        if self.maker < 0:
            outcome, points = HandOutcome.THROWN_IN, (0,) * self.n
        else:
            making = self.tricks_won[self.maker] + (self.tricks_won[self.partner] if self.partner >= 0 else 0)
            outcome, points = hand_points(config, self.maker, self.partner, self.alone, making)
        scores = self.scores
        for seat, p in enumerate(points):
            scores[seat] += p
        self.results.append(
            HandResult(
                config,
                self.hand_index,
                self.dealer,
                self.deck,
                tuple(self.actions),
                tuple(self.tricks),
                self.trump,
                self.maker,
                self.called,
                self.partner,
                self.alone,
                self.sitting_out,
                self.exposed,
                self.discard,
                outcome,
                tuple(self.tricks_won),
                points,
                self.scores_before,
                tuple(scores),
            )
        )
        thrown_in = outcome is HandOutcome.THROWN_IN  # never ends a game by target (CA-8.3)
        self.outcome = game_over(
            config, scores, self.scores_before, self.hand_index + 1, scored=not thrown_in
        )
        if self.outcome is not None or self.single_hand:
            # The per-hand fields keep describing the hand just ended, so a final view shows it.
            self.phase, self.to_act, self._legal = P_OVER, -1, None
            return
        self.hand_index += 1
        self.dealer = (self.dealer + 1) % self.n
        self._start_hand()


_PRINTED_SUIT = tuple(-1 if (suit := printed_suit(c)) is None else int(suit) for c in range(JOKER + 1))


@lru_cache(maxsize=128)
def _dealers(n: int, dealer: int) -> tuple[Callable[[Sequence[CardId]], tuple[CardId, ...]], ...]:
    """Per seat, a function picking its five cards (in the order received) out of a deck order."""
    return tuple(itemgetter(*positions) for positions in deal_positions(n, dealer))


@lru_cache(maxsize=128)
def _next_seats(n: int, sitting_out: int) -> tuple[int, ...]:
    """``next[seat]``: who plays after ``seat`` in a trick, skipping a CL partner who sits out (CL-2.3)."""
    nxt = [(s + 1) % n for s in range(n)]
    return tuple(nxt[t] if t == sitting_out else t for t in nxt)


def _deck_source(
    config: GameConfig, decks: list[tuple[CardId, ...]], first_index: int, seed: int | None
) -> DeckSource:
    """Explicit decks for the first hands, then (if a seed was given) deals from the seed."""

    def source(index: int) -> Sequence[CardId]:
        offset = index - first_index
        if 0 <= offset < len(decks):
            return decks[offset]
        if seed is None:
            raise RuleError(f"no deck order was given for hand {index} (given: {len(decks)} decks, no seed)")
        return deal_order(config, seed, index)

    return source
