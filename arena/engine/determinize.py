"""From a view plus a guess of the hidden cards back to a full game state (a determinization).

A bot that looks ahead samples the cards it cannot see, consistent with everything its view tells it, and
plays the hand out on real engine states. ``sample_hidden`` draws such a guess; ``state_from_guess`` turns a
guess into a ``GameState`` at the same decision by dealing a deck that fits the guess and replaying the
hand's public history (the guessed discard filling the one action a non-dealer cannot see).

A search draws many guesses at one decision, so the pieces are also offered separately: ``hidden_facts``
(what the view fixes, worked out once and passed to ``sample_hidden``), ``deal_from_guess`` (the state at the
start of the hand, before any action) and ``history_ids`` (the actions to replay on it). A caller that
replays them itself can skip the checks, or watch each decision of the other seats as it goes by.

What a view constrains: the cards a seat has shown it lacks (it failed to follow a led suit), the called
card (never in the maker's hand), and two cards whose place is known to be the dealer's six: the picked-up
up-card and the FH exposed card, each either still in the dealer's hand or his discard.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.engine.actions import DISCARD_BASE, ActionId, ActionKind, encode
from arena.engine.cards import EFFECTIVE_SUIT, CardId
from arena.engine.config import deck_of
from arena.engine.dealing import deal_positions
from arena.engine.state import GameState, Phase
from arena.engine.views import UpCardFate, View
from arena.errors import RuleError


@dataclass(frozen=True, slots=True)
class Guess:
    """Where the cards a seat cannot see are: each unseen seat's current holding, and the dealer's discard.

    ``holdings`` has an entry for every seat but the viewer (and for the viewer too during a blind
    decision), each the full set of cards that seat holds now, known ones included.
    """

    holdings: Mapping[int, tuple[CardId, ...]]
    discard: CardId | None


@dataclass(frozen=True, slots=True)
class _Facts:
    """What a view fixes about the hidden cards, worked out once per view."""

    pool: tuple[CardId, ...]  # unseen cards whose place is free (other hands, discard, stock)
    pinned: tuple[CardId, ...]  # unseen-place cards that are in the dealer's hand or are his discard
    need: dict[int, int]  # seat -> how many cards it holds now that the viewer cannot see
    known: dict[int, list[CardId]]  # seat -> cards it is known to hold now (viewer's own, exposed)
    voids: dict[int, set[int]]  # seat -> effective suits it has shown void in
    banned: dict[int, set[CardId]]  # seat -> cards it cannot hold (the called card for the maker)
    discard_hidden: bool  # the dealer discarded and the viewer did not see it
    barred: dict[int, frozenset[CardId]]  # seat -> every card it cannot hold (banned, or of a void suit)


def hidden_facts(view: View) -> _Facts:
    """What ``view`` fixes about the cards it does not show (``sample_hidden`` works from it)."""
    n, dealer = view.num_players, view.dealer
    deck = deck_of(view.config)
    played = view.played_cards()
    played_ids = {p.card.id for p in played}
    plays_by = [0] * n
    for p in played:
        plays_by[p.seat] += 1
    discarded = any(a is None or a.kind is ActionKind.DISCARD for _, a in view.history)
    picked_up = view.up_card_fate is UpCardFate.TAKEN
    held = [5 - plays_by[s] for s in range(n)]
    if picked_up and not discarded:
        held[dealer] += 1
    known: dict[int, list[CardId]] = {s: [] for s in range(n)}
    seen: set[CardId] = set(played_ids)
    if view.hand is not None:
        known[view.seat] = [c.id for c in view.hand]
        seen.update(known[view.seat])
    if view.discard is not None:
        seen.add(view.discard.id)
    up = view.up_card.id
    seen.add(up)  # on the table, turned down into the kitty, or (below) in the dealer's six
    pinned: list[CardId] = []
    if picked_up and up not in played_ids and view.seat != dealer:
        may_be_discard = discarded and view.config.may_discard_upcard
        (pinned if may_be_discard else known[dealer]).append(up)
    exposed = view.exposed_card.id if view.exposed_card is not None else -1
    if exposed >= 0 and exposed not in played_ids and exposed not in seen:
        seen.add(exposed)
        (pinned if discarded else known[dealer]).append(exposed)
    need = {s: held[s] - len(known[s]) for s in range(n) if s != view.seat or view.hand is None}
    voids: dict[int, set[int]] = {s: set() for s in range(n)}
    if view.trump is not None:
        eff = EFFECTIVE_SUIT[view.trump]
        tricks = [*view.tricks, view.current_trick] if view.current_trick is not None else list(view.tricks)
        for trick in tricks:
            if trick is None or not trick.plays:
                continue
            led = eff[trick.plays[0].card.id]
            for p in trick.plays[1:]:
                if eff[p.card.id] != led:
                    voids[p.seat].add(led)
    banned: dict[int, set[CardId]] = {s: set() for s in range(n)}
    if view.called_card is not None and view.maker is not None:
        banned[view.maker].add(view.called_card.id)
    pool = tuple(c for c in deck if c not in seen)
    barred = {s: frozenset(banned[s]) for s in range(n)}
    if view.trump is not None:
        eff = EFFECTIVE_SUIT[view.trump]
        barred = {s: frozenset(banned[s] | {c for c in deck if eff[c] in voids[s]}) for s in range(n)}
    hidden = discarded and view.seat != dealer
    return _Facts(pool, tuple(pinned), need, known, voids, banned, hidden, barred)


def sample_hidden(
    view: View, rng: random.Random, attempts: int = 200, *, facts: _Facts | None = None
) -> Guess:
    """A random placement of the unseen cards consistent with ``view``.

    :param facts: ``hidden_facts(view)``, for callers that sample the same view many times (it costs about
        as much as a sample).
    :raises RuleError: if no placement fits (the view contradicts itself).
    """
    if facts is None:
        facts = hidden_facts(view)
    dealer = view.dealer
    for _ in range(attempts):
        guess = _try_sample(view, facts, dealer, rng)
        if guess is not None:
            return guess
    raise RuleError(f"no placement of the hidden cards fits the view of seat {view.seat}")


def _try_sample(view: View, facts: _Facts, dealer: int, rng: random.Random) -> Guess | None:
    need = dict(facts.need)
    holdings: dict[int, list[CardId]] = {s: list(facts.known[s]) for s in need}
    discard: CardId | None = None
    free_discard = facts.discard_hidden
    barred = facts.barred
    for card in facts.pinned:  # in the dealer's hand or his discard
        options = []
        if need.get(dealer, 0) > 0 and card not in barred[dealer]:
            options.extend(["hand"] * need[dealer])
        if free_discard:
            options.append("discard")
        if not options:
            return None
        if rng.choice(options) == "hand":
            holdings[dealer].append(card)
            need[dealer] -= 1
        else:
            discard, free_discard = card, False
    pool = list(facts.pool)
    rng.shuffle(pool)
    order = sorted(need, key=lambda s: (-len(facts.voids[s]), rng.random()))
    for seat in order:
        want = need[seat]
        if want == 0:
            continue
        bar = barred[seat]
        if not bar:  # the commonest case: the first cards of the shuffled pool
            taken, pool = pool[:want], pool[want:]
        else:
            taken = [c for c in pool if c not in bar][:want]
            chosen = set(taken)
            pool = [c for c in pool if c not in chosen]
        if len(taken) < want:
            return None
        holdings[seat].extend(taken)
    if free_discard:
        if not pool:
            return None
        discard = pool.pop()
    return Guess({s: tuple(h) for s, h in holdings.items()}, discard)


def state_from_guess(
    view: View, guess: Guess, *, seed: int | None = None, single_hand: bool = True
) -> GameState:
    """The full state at ``view``'s decision in which the hidden cards are where ``guess`` says.

    :param seed: deals for hands after this one (only needed with ``single_hand=False``).
    :raises RuleError: if the guess does not fit the view (wrong counts, repeated cards, or a replayed
        action that would be illegal with those cards).
    """
    state = deal_from_guess(view, guess, seed=seed, single_hand=single_hand)
    discard = view.discard.id if view.discard is not None else guess.discard
    for seat, action_id in history_ids(view, discard):
        if state.current_player() != seat:
            raise RuleError(
                f"replaying the view's history: expected seat {seat}, engine says {state.current_player()}"
            )
        state.apply(action_id)
    if view.phase is not Phase.GAME_OVER and state.current_player() != view.to_act:
        raise RuleError("replayed state does not reach the view's decision")
    return state


def deal_from_guess(
    view: View, guess: Guess, *, seed: int | None = None, single_hand: bool = True
) -> GameState:
    """The state at the start of ``view``'s hand (no action taken yet), dealt so that replaying
    ``history_ids`` on it puts the hidden cards where ``guess`` says.

    Only the deal is checked (every seat five distinct cards, the picked-up and exposed cards with the
    dealer): a guess from ``sample_hidden`` always replays legally, so a search may replay it with
    ``apply_unchecked``; ``state_from_guess`` replays with every check.

    :raises RuleError: if the guess does not deal (wrong counts, repeated cards, known cards misplaced).
    """
    n, dealer = view.num_players, view.dealer
    holdings: dict[int, list[CardId]] = {s: list(h) for s, h in guess.holdings.items()}
    if view.hand is not None:
        holdings[view.seat] = [c.id for c in view.hand]
    if set(holdings) != set(range(n)):
        raise RuleError(f"guess covers seats {sorted(holdings)}, expected all of 0..{n - 1}")
    discard = view.discard.id if view.discard is not None else guess.discard
    dealt: dict[int, list[CardId]] = {s: list(holdings[s]) for s in range(n)}
    for p in view.played_cards():
        dealt[p.seat].append(p.card.id)
    up = view.up_card.id
    if view.up_card_fate is UpCardFate.TAKEN:
        if discard is not None:
            dealt[dealer].append(discard)
        if up not in dealt[dealer]:
            raise RuleError(f"guess does not put the picked-up card {view.up_card} with the dealer")
        dealt[dealer].remove(up)
    exposed = view.exposed_card.id if view.exposed_card is not None else -1
    if exposed >= 0:
        if exposed not in dealt[dealer]:
            raise RuleError(f"guess does not put the exposed card {view.exposed_card} with the dealer")
        dealt[dealer].remove(exposed)
        dealt[dealer].insert(0, exposed)  # FH-3.2: the exposed card is the dealer's first card
    deck_cards = deck_of(view.config)
    used = [c for s in range(n) for c in dealt[s]] + [up]
    if any(len(dealt[s]) != 5 for s in range(n)) or len(set(used)) != len(used):
        raise RuleError(f"guess does not give every seat five distinct cards: {dealt!r}")
    used_set = set(used)
    stock = [c for c in deck_cards if c not in used_set]
    deck: list[CardId] = [0] * (5 * n)
    for seat, positions in enumerate(deal_positions(n, dealer)):
        for pos, card in zip(positions, dealt[seat], strict=True):
            deck[pos] = card
    deck += [up, *stock]
    return GameState(
        view.config,
        seed=seed,
        decks=[deck],
        hand_index=view.hand_index,
        dealer=dealer,
        scores=view.scores_before,
        single_hand=single_hand,
    )


def history_ids(view: View, discard: CardId | None) -> list[tuple[int, ActionId]]:
    """The view's hand history as (seat, action id), the hidden discard (shown as ``None``) as ``discard``.

    :raises RuleError: if the dealer discarded unseen and ``discard`` is ``None``.
    """
    out: list[tuple[int, ActionId]] = []
    for seat, action in view.history:
        if action is None:
            if discard is None:
                raise RuleError("guess has no discard, but the dealer discarded")
            out.append((seat, DISCARD_BASE + discard))
        else:
            out.append((seat, encode(action)))
    return out


def determinize(view: View, rng: random.Random, *, single_hand: bool = True) -> GameState:
    """A random full state consistent with ``view``: ``state_from_guess(view, sample_hidden(view, rng))``."""
    seed = rng.getrandbits(32) if not single_hand else None
    return state_from_guess(view, sample_hidden(view, rng), seed=seed, single_hand=single_hand)


def hidden_holdings(state: GameState, view: View) -> Guess:
    """The true placement of the cards ``view`` cannot see (for tests: it must rebuild ``state``)."""
    seats: Sequence[int] = [s for s in range(view.num_players) if s != view.seat or view.hand is None]
    discard = state.discard if state.discard >= 0 and view.seat != view.dealer else None
    return Guess({s: tuple(state.hands[s]) for s in seats}, discard)
