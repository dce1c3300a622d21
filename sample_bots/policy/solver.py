"""Exact play of the rest of a hand when every card is known: how many tricks the making side takes.

A perfect-information ("double-dummy") solver, the inner loop of perfect-information Monte Carlo: a bot
guesses the hidden cards many times and asks, for each guess, what each of its moves is worth if everyone
then plays perfectly. The rest of a hand is a two-sided zero-sum game between the making side (the maker and
the partner, once the cards are known) and the defenders, and every variant scores a hand by the making
side's tricks alone (RULES.md: euchred below 3, made at 3 or 4, a march at 5), so the search needs only
that count; what it is worth in points, or in the game, is the caller's (``scoring.hand_points``).

The search is alpha-beta over the making side's tricks with the usual tools of trick-taking solvers:

* a transposition table at trick boundaries, keyed by the cards left in each hand and the leader, storing
  bounds (the same cards in the same hands can be reached by many orders of play);
* equivalent cards merged: two cards of one hand with no outstanding card of their suit between them in
  trick order win and lose the same tricks, so only one of them is searched;
* move ordering: the strongest card first, which finds the cut-offs early;
* a fail-soft window of 0..5, narrowed by the tricks already decided and by what is still to play, so a
  caller that needs only a threshold (``at_least``) searches far less.

Cards are the engine's ids and hands are bitmasks of them; the trick rules come from the engine's own tables
(``EFFECTIVE_SUIT``, ``TRICK_KEY``) and are applied exactly as ``GameState`` applies them, which the tests
check against a brute-force search over the engine itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from arena.engine.cards import EFFECTIVE_SUIT, TRICK_KEY, CardId
from arena.engine.state import P_PLAY, GameState

TRICKS = 5
CHECK_EVERY = 512
"""Nodes between two looks at the clock when a search has a deadline (a look costs about a node)."""


@dataclass(frozen=True, slots=True)
class Position:
    """The rest of a hand with every card known.

    ``hands`` are bitmasks of card ids per seat (a seat sitting out holds nothing and is skipped by
    ``next_seat``); ``trick`` and ``trick_seats`` are the current trick's cards so far; ``making`` is a
    bitmask of the making side's seats; ``making_tricks`` and ``tricks_done`` count the completed tricks.
    """

    trump: int
    hands: tuple[int, ...]
    next_seat: tuple[int, ...]
    trick_size: int
    leader: int
    trick: tuple[CardId, ...]
    trick_seats: tuple[int, ...]
    making: int
    making_tricks: int
    tricks_done: int

    @classmethod
    def from_state(cls, state: GameState) -> Position:
        """The position of ``state`` during card play (every hand read, so only for a full deal: a guess)."""
        if state.phase != P_PLAY:
            raise ValueError("a position exists only during card play")
        n, out = state.n, state.sitting_out
        making = 1 << state.maker
        if state.partner >= 0:
            making |= 1 << state.partner
        hands = tuple(0 if seat == out else _mask(h) for seat, h in enumerate(state.hands))
        following = [(seat + 1) % n for seat in range(n)]
        next_seat = tuple(following[t] if t == out else t for t in following)  # skips a seat sitting out
        won = state.tricks_won
        return cls(
            trump=state.trump,
            hands=hands,
            next_seat=next_seat,
            trick_size=n - (out >= 0),
            leader=state.leader,
            trick=tuple(state.trick),
            trick_seats=tuple(state.trick_seats),
            making=making,
            making_tricks=sum(won[s] for s in range(state.n) if making >> s & 1),
            tricks_done=len(state.tricks),
        )

    @property
    def to_act(self) -> int:
        return self.next_seat[self.trick_seats[-1]] if self.trick else self.leader


def _mask(cards: list[CardId] | tuple[CardId, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _cards(mask: int) -> list[CardId]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class SearchAborted(Exception):
    """A search ran past its solver's node ``limit``; the solver's results so far are discarded."""


class Solver:
    """One search's tables for one trump suit and one seating; reusable across the positions of a hand
    (the transposition table stays valid: it is keyed by the cards left and the leader)."""

    def __init__(
        self, position: Position, *, table: bool = True, merge: bool = True, order: bool = True
    ) -> None:
        """``table``, ``merge`` and ``order`` switch the search's tools off one at a time, for
        ``bench/solver.py`` to show what each is worth; the value never depends on them."""
        self.use_table, self.merge, self.order = table, merge, order
        self.trump = position.trump
        self.eff = EFFECTIVE_SUIT[position.trump]
        self.keys = TRICK_KEY[position.trump]
        self.next_seat = position.next_seat
        self.trick_size = position.trick_size
        self.making = position.making
        self.table: dict[tuple[tuple[int, ...], int], tuple[int, int]] = {}
        self.nodes = 0
        self.limit: float = float("inf")
        """Most nodes this solver may visit in all; past it a search raises ``SearchAborted`` (a bot's
        budget: a seven-player deal can take seconds to solve from the first lead)."""
        self.deadline: float = float("inf")
        """A ``time.monotonic()`` past which a search raises ``SearchAborted`` (checked every
        ``CHECK_EVERY`` nodes): a bot's guard against the deadline of its request."""
        self.cpu_deadline: float = float("inf")
        """The same for this thread's CPU time (``time.thread_time()``): a bot's budget of CPU."""
        self._checkpoint: float = float("inf")
        # Every card's suit mask (the cards of its effective suit) and its power inside that suit, the
        # order equivalent cards are merged in.
        self.suit_of = self.eff
        self.power = [self.keys[suit][card] for card, suit in enumerate(self.eff)]
        self.suit_mask: dict[int, int] = {}
        for card, suit in enumerate(self.eff):
            self.suit_mask[suit] = self.suit_mask.get(suit, 0) | (1 << card)

    def bound(
        self,
        *,
        nodes: float = float("inf"),
        deadline: float = float("inf"),
        cpu_deadline: float = float("inf"),
    ) -> None:
        """Stop any search of this solver (``SearchAborted``) past ``nodes`` in all, past ``deadline`` on
        the monotonic clock, or past ``cpu_deadline`` of this thread's CPU time."""
        self.limit, self.deadline, self.cpu_deadline = nodes, deadline, cpu_deadline
        timed = deadline < float("inf") or cpu_deadline < float("inf")
        self._checkpoint = min(nodes, self.nodes + CHECK_EVERY) if timed else nodes

    def _check(self) -> None:
        if (
            self.nodes > self.limit
            or time.monotonic() > self.deadline
            or time.thread_time() > self.cpu_deadline
        ):
            raise SearchAborted(self.nodes)
        self.bound(nodes=self.limit, deadline=self.deadline, cpu_deadline=self.cpu_deadline)

    # ------------------------------------------------------------------ public

    def value(self, position: Position) -> int:
        """The making side's tricks at the end of the hand under perfect play by both sides."""
        return position.making_tricks + self._search(
            position.hands,
            position.leader,
            position.trick,
            position.trick_seats,
            -1,
            TRICKS - position.tricks_done + 1,
            TRICKS - position.tricks_done,
        )

    def move_values(self, position: Position) -> dict[CardId, int]:
        """For each legal card of the seat to act: the making side's final tricks if it is played now and
        everyone plays perfectly afterwards (equivalent cards get the same value)."""
        seat = position.to_act
        hand = position.hands[seat]
        legal = self._legal(hand, position.trick)
        left = TRICKS - position.tricks_done
        out: dict[CardId, int] = {}
        for card in _cards(legal):
            hands = _without(position.hands, seat, card)
            value = self._after(
                hands,
                position.leader,
                (*position.trick, card),
                (*position.trick_seats, seat),
                -1,
                left + 1,
                left,
            )
            out[card] = position.making_tricks + value
        return out

    def at_least(self, position: Position, tricks: int) -> bool:
        """Whether the making side takes at least ``tricks`` in all (a null-window search: cheaper)."""
        need = tricks - position.making_tricks
        left = TRICKS - position.tricks_done
        if need <= 0:
            return True
        if need > left:
            return False
        got = self._search(
            position.hands, position.leader, position.trick, position.trick_seats, need - 1, need, left
        )
        return got >= need

    # ------------------------------------------------------------------ search

    def _legal(self, hand: int, trick: tuple[CardId, ...]) -> int:
        if not trick:
            return hand
        follow = hand & self.suit_mask[self.eff[trick[0]]]
        return follow or hand

    def _search(
        self,
        hands: tuple[int, ...],
        leader: int,
        trick: tuple[CardId, ...],
        seats: tuple[int, ...],
        alpha: int,
        beta: int,
        left: int,
    ) -> int:
        """The making side's tricks among the ``left`` tricks not yet completed, fail-soft in
        (``alpha``, ``beta``)."""
        self.nodes += 1
        if self.nodes > self._checkpoint:
            self._check()
        if left == 0:
            return 0
        key = None
        if not trick and self.use_table:
            key = (hands, leader)
            bounds = self.table.get(key)
            if bounds is not None:
                low, high = bounds
                if low >= beta or low == high:
                    return low
                if high <= alpha:
                    return high
                alpha, beta = max(alpha, low), min(beta, high)
        seat = self.next_seat[seats[-1]] if trick else leader
        maximise = bool(self.making >> seat & 1)
        best = -1 if maximise else TRICKS + 1
        a, b = alpha, beta
        for card in self._ordered(hands, seat, trick):
            value = self._after(
                _without(hands, seat, card), leader, (*trick, card), (*seats, seat), a, b, left
            )
            if maximise:
                if value > best:
                    best = value
                    if best > a:
                        a = best
            elif value < best:
                best = value
                if best < b:
                    b = best
            if a >= b:
                break
        if key is not None:
            low, high = self.table.get(key, (0, left))
            if best <= alpha:
                high = min(high, best)
            elif best >= beta:
                low = max(low, best)
            else:
                low = high = best
            self.table[key] = (low, high)
        return best

    def _after(
        self,
        hands: tuple[int, ...],
        leader: int,
        trick: tuple[CardId, ...],
        seats: tuple[int, ...],
        alpha: int,
        beta: int,
        left: int,
    ) -> int:
        """The value once ``trick`` has its latest card: the trick completes when it is full."""
        if len(trick) < self.trick_size:
            return self._search(hands, leader, trick, seats, alpha, beta, left)
        keys = self.keys[self.eff[trick[0]]]  # the engine's own indexing, a -1 led suit included
        best, best_key = 0, keys[trick[0]]
        for i in range(1, len(trick)):
            k = keys[trick[i]]
            if k > best_key:
                best, best_key = i, k
        winner = seats[best]
        won = 1 if self.making >> winner & 1 else 0
        rest = self._search(hands, winner, (), (), alpha - won, beta - won, left - 1)
        return won + rest

    def _ordered(self, hands: tuple[int, ...], seat: int, trick: tuple[CardId, ...]) -> list[CardId]:
        """The seat's legal cards, strongest first, one of each run of equivalent cards."""
        legal = self._legal(hands[seat], trick)
        if legal & (legal - 1) == 0:
            return [legal.bit_length() - 1]
        if not self.merge:
            cards = _cards(legal)
            return sorted(cards, key=self.power.__getitem__, reverse=True) if self.order else cards
        outstanding = 0
        for other, hand in enumerate(hands):
            if other != seat:
                outstanding |= hand
        for card in trick:
            outstanding |= 1 << card
        power = self.power
        chosen: list[CardId] = []
        by_suit: dict[int, list[CardId]] = {}
        for card in _cards(legal):
            by_suit.setdefault(self.suit_of[card], []).append(card)
        for suit, cards in by_suit.items():
            cards.sort(key=power.__getitem__, reverse=True)
            rivals = sorted(_cards(outstanding & self.suit_mask[suit]), key=power.__getitem__, reverse=True)
            previous = None
            for card in cards:
                if previous is not None and not any(power[card] < power[r] < power[previous] for r in rivals):
                    continue  # nothing of anyone else's between it and the card kept: the same card
                chosen.append(card)
                previous = card
        if self.order:
            chosen.sort(key=power.__getitem__, reverse=True)
        return chosen


def _without(hands: tuple[int, ...], seat: int, card: CardId) -> tuple[int, ...]:
    return (*hands[:seat], hands[seat] & ~(1 << card), *hands[seat + 1 :])


def solve(position: Position) -> int:
    """The making side's tricks at the end of the hand under perfect play (a fresh ``Solver``)."""
    return Solver(position).value(position)
