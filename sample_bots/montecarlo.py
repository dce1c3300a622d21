"""A Monte-Carlo player: simulate every legal action on many guesses of the hidden cards, keep the best.

For each decision with a choice, the bot repeatedly guesses where the cards it cannot see are, consistent
with everything its view shows (``arena.engine.determinize``: known voids, the called card, the dealer's
picked-up card), builds the full engine state at the same decision, and plays every candidate action out to
the end of the hand with the ``rules`` policy at every seat (each simulated player sees only its own cards).
All candidates are scored on the same guesses (common random numbers), so their difference is measured with
far less noise than their values. The best average wins, provided it beats the rules player's choice by
``deviate`` standard errors of their paired difference (the samples are few and the model of the hidden
cards is imperfect: a close call stays with the rules).

Three refinements make the samples count:

* inference from the bidding: a guess in which another seat's bids or call differ from what the rules
  player would have done with the guessed cards is kept only with probability ``inference`` per difference
  (so a seat that ordered up is mostly dealt trumps, one that passed mostly is not);
* cards that are equivalent (no live card between them in one suit) are simulated once, and a Five-handed
  call is chosen among the sensible cards only (the missing top trumps, the aces, ALONE);
* racing: every 8 samples, candidates that are clearly worse than the leader on the same samples (by
  ``confidence`` standard errors of the paired difference) are dropped; the search stops when one is left,
  so clear decisions are cheap and the budget goes to the close ones.

What a simulated hand is worth (``hand_utility``) is the bot's chance of winning the game afterwards: exact
when the hand ends the game, else estimated from the scores (``win_chance``, fitted to rules-bot games). At
the start of a game that is about the bot's points minus the average of the others'; near the end, the
points of the leaders weigh most, and a hand that lets someone else reach the target is a disaster.

Budget: at most ``samples`` guesses per card play and ``samples * bid_factor`` per bidding-phase decision
(bids, discard, call, blind choices: rarer, and worth more), and never past ``self.time_left()``. When the
sample caps bind, the bot is deterministic: each decision's generator is seeded from ``seed``, the game id,
the seat and the position in the hand. Configure it with constructor arguments, by subclassing, or with
``MonteCarloBot.configured(samples=..., seed=...)`` for harnesses that instantiate the class themselves.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable
from typing import Any, ClassVar

from arena.bot import Bot, run
from arena.engine import ACTIONS, Action, GameState, Phase, View, state_from_guess
from arena.engine import actions as A
from arena.engine.actions import ActionKind
from arena.engine.cards import NO_TRUMP, CardId
from arena.engine.config import GameConfig, Variant, deck_of
from arena.engine.determinize import Guess, sample_hidden
from arena.engine.state import P_BID1, P_BID2, P_CALL, P_PLAY
from arena.engine.views import UpCardFate
from arena.errors import RuleError
from sample_bots._policy import (
    DEFAULT_STYLE,
    Ranks,
    Seen,
    Style,
    choose,
    ranks,
    rollout,
    seen_from_view,
)

SETTINGS = (
    "samples",
    "bid_factor",
    "seed",
    "objective",
    "inference",
    "tries",
    "confidence",
    "deviate",
    "style",
    "phases",
)


class MonteCarloBot(Bot):
    name = "montecarlo"
    author = "euchre-arena"
    version = "1"

    samples: ClassVar[int] = 200
    """Most guesses of the hidden cards per card play; every candidate action is played out on each."""
    bid_factor: ClassVar[int] = 4
    """Bidding-phase decisions may use this many times ``samples``."""
    seed: ClassVar[int] = 0
    """Base seed of the per-decision generators."""
    objective: ClassVar[str] = "win"
    """What a simulated hand is worth (``hand_utility``): ``"win"`` (chance of winning the game) or
    ``"points"`` (points relative to the other seats)."""
    inference: ClassVar[float] = 0.1
    """Chance of keeping a guess per bid or call of another seat that the rules player would not have made
    with the guessed cards (1 = no inference from the bidding)."""
    tries: ClassVar[int] = 12
    """Most guesses drawn per sample while looking for one that fits the bidding."""
    confidence: ClassVar[float] = 2.5
    """Drop a candidate (and stop when one is left) once it trails the best by this many standard errors."""
    deviate: ClassVar[float] = 1.0
    """Leave the rules player's choice only for a candidate better by this many standard errors."""
    style: ClassVar[Style] = DEFAULT_STYLE
    """The rules player that plays out every simulation."""
    phases: ClassVar[frozenset[Phase] | None] = None
    """Decision kinds to search (``None``: all); the others are left to the rules player."""

    def __init__(self, samples: int | None = None, seed: int | None = None) -> None:
        super().__init__()
        if samples is not None:
            self.samples = samples  # type: ignore[misc]
        if seed is not None:
            self.seed = seed  # type: ignore[misc]
        self.stats: list[int] = []  # samples used per searched decision (for tests and benchmarks)

    @classmethod
    def configured(cls, **settings: Any) -> type[MonteCarloBot]:
        """A subclass with other class settings, for harnesses that create bots from a class."""
        unknown = [k for k in settings if k not in SETTINGS]
        if unknown:
            raise TypeError(f"unknown MonteCarloBot settings {unknown}: expected some of {SETTINGS}")
        return type(cls.__name__, (cls,), dict(settings))

    def act(self, view: View) -> Action:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        seen = seen_from_view(view)
        default = choose(seen, self.style)
        if self.phases is not None and view.phase not in self.phases:
            return ACTIONS[default]
        actions = candidates(seen, default)
        if len(actions) == 1:
            return ACTIONS[actions[0]]
        results = self.evaluate(view, actions, default)
        if results is None:
            return ACTIONS[default]
        return ACTIONS[pick(results, default, self.deviate)]

    def rng_for(self, view: View) -> random.Random:
        game_id = self.game.game_id if self.game is not None else ""
        where = f"{game_id}/{view.seat}/{view.hand_index}/{len(view.history)}"
        return random.Random(f"montecarlo/{self.seed}/{where}")

    def evaluate(self, view: View, actions: list[int], default: int) -> dict[int, list[float]] | None:
        """The utility of each surviving candidate on each sample drawn; ``None`` if none was drawn."""
        rng = self.rng_for(view)
        cap = self.samples * (1 if view.phase is Phase.PLAY else self.bid_factor)
        fits = BiddingFilter(view, self.style) if self.inference < 1 else None
        results: dict[int, list[float]] = {a: [] for a in actions}
        seat, style, objective = view.seat, self.style, self.objective
        done = failures = 0
        started = time.monotonic()
        while done < cap and failures < 20 and len(results) > 1:
            left = self.time_left()
            if left <= 0 or (done and left < 1.5 * (time.monotonic() - started) / done):
                break
            state = self.sample(view, rng, fits)
            if state is None:  # no placement fits the view (should not happen): try a few more times
                failures += 1
                continue
            for action, values in results.items():
                sim = state.clone()
                sim.apply_unchecked(action)
                rollout(sim, style)
                values.append(hand_utility(sim, seat, objective))
            done += 1
            if done >= MIN_RACE and done % 8 == 0:
                results = race(results, self.confidence, default)
        self.stats.append(done)
        return results if done else None

    def sample(self, view: View, rng: random.Random, fits: BiddingFilter | None) -> GameState | None:
        """A determinization that fits the bidding: rejection sampling, kept with ``inference ** misfits``."""
        best: Guess | None = None
        best_weight = -1.0
        for _ in range(self.tries if fits is not None else 1):
            try:
                guess = sample_hidden(view, rng)
            except RuleError:
                continue
            weight = self.inference ** fits.misfits(guess) if fits is not None else 1.0
            if weight >= 1.0 or rng.random() < weight:
                best = guess
                break
            if weight > best_weight:
                best, best_weight = guess, weight
        if best is None:
            return None
        try:
            return state_from_guess(view, best)
        except RuleError:
            return None


def pick(results: dict[int, list[float]], default: int, deviate: float) -> int:
    """The candidate with the best average, unless the rules player's choice is still in the race and the
    best beats it by less than ``deviate`` standard errors of their paired difference."""
    done = len(next(iter(results.values())))
    means = {a: sum(v) / done for a, v in results.items()}
    best = max(means, key=lambda a: (means[a], a == default))
    if best == default or default not in results or deviate <= 0:
        return best
    if done < 2:
        return default
    diffs = [x - y for x, y in zip(results[best], results[default], strict=True)]
    mean = sum(diffs) / done
    var = sum((d - mean) ** 2 for d in diffs) / (done - 1)
    return best if mean > deviate * (var / done) ** 0.5 else default


MIN_RACE = 16
"""Samples before the first candidate may be dropped."""


def race(results: dict[int, list[float]], confidence: float, default: int) -> dict[int, list[float]]:
    """Drop the candidates that are clearly worse than the leader: their paired difference to it (same
    samples) is below zero by more than ``confidence`` standard errors, or exactly zero on every sample
    (they lead to the same hands). The rules player's choice leads among equals."""
    done = len(next(iter(results.values())))
    means = {a: sum(v) / done for a, v in results.items()}
    leader = max(means, key=lambda a: (means[a], a == default))
    top = results[leader]
    keep = {}
    for action, values in results.items():
        if action != leader:
            diffs = [x - y for x, y in zip(values, top, strict=True)]
            mean = sum(diffs) / done
            var = sum((d - mean) ** 2 for d in diffs) / (done - 1)
            if mean + confidence * (var / done) ** 0.5 < 0 or (var == 0 and mean == 0):
                continue
        keep[action] = values
    return keep


def hand_utility(state: GameState, seat: int, objective: str = "win") -> float:
    """How good a finished simulated hand is for ``seat``.

    ``"win"``: ten times its chance of winning the game from the scores after the hand (``win_chance``; exact
    when the hand ended the game). ``"points"``: its points minus the average of the others' (classic: its
    team's minus the other team's).
    """
    if objective == "win":
        outcome = state.outcome
        if outcome is not None:
            winners = outcome.winners
            if seat not in winners:
                return 0.0
            return 10.0 if state.config.team_play else 10.0 / len(winners)
        return 10.0 * win_chance(state.scores, seat, state.config)
    points = state.results[-1].points
    n = state.n
    if state.config.team_play:
        return float(points[seat] - points[(seat + 1) % n])
    return points[seat] - (sum(points) - points[seat]) / (n - 1)


WIN_STEEPNESS = 0.9
"""``win_chance``'s c, fitted by maximum likelihood to rules-bot games (five-handed and call-ace 5p/7p)."""


def win_chance(scores: list[int] | tuple[int, ...], seat: int, config: GameConfig) -> float:
    """Estimated chance that ``seat`` (classic: its team) wins the game from ``scores``.

    Each player's weight is ``exp(-beta * points still needed)``, with ``beta = c / (fewest needed) ** 0.25``:
    a point of lead matters more as the game nears its end.
    """
    target = config.target
    if config.team_play:
        needs = [max(0, target - scores[seat % 2]), max(0, target - scores[1 - seat % 2])]
        me = 0
    else:
        needs = [max(0, target - s) for s in scores]
        me = seat
    least = min(needs)
    beta = WIN_STEEPNESS / max(1, least) ** 0.25
    weights = [math.exp(-beta * (need - least)) for need in needs]
    return weights[me] / sum(weights)


# --------------------------------------------------------------------------------------------- candidates


def candidates(k: Seen, default: int) -> list[int]:
    """The legal actions worth simulating: one card of each run of equivalent cards (no card that could
    take a trick lies between them), and, for a Five-handed call among some 25 cards, the sensible calls."""
    legal = k.legal
    if k.phase == P_PLAY:
        r = ranks(k.config, k.trump)
        hand, dead = k.hand or [], k.dead
        out: list[int] = []
        for card in sorted(legal, key=lambda c: (r.eff[c], r.pos[c])):
            if out and same_run(out[-1], card, r, hand, dead):
                out[-1] = card  # keep the lowest card of the run
            else:
                out.append(card)
        if default not in out:  # the rules choice stands for its run
            out = [default if same_run(c, default, r, hand, dead) else c for c in out]
        return out
    if k.phase == P_CALL and len(legal) > 8:
        r = ranks(k.config, k.trump)
        hand = k.hand or []
        missing = [c for c in r.order[k.trump] if c not in hand][:3]
        aces = [order[0] for suit, order in enumerate(r.order) if suit != k.trump and order]
        wanted = {default, A.ALONE} | {A.CALL_BASE + c for c in (*missing, *aces)}
        return [a for a in legal if a in wanted]
    return list(legal)


def same_run(a: CardId, b: CardId, r: Ranks, hand: list[CardId], dead: set[CardId]) -> bool:
    """Two cards of one effective suit with nothing live between them are worth the same."""
    if r.eff[a] != r.eff[b]:
        return False
    lo, hi = sorted((r.pos[a], r.pos[b]))
    return all(c in hand or c in dead for c in r.order[r.eff[a]][lo + 1 : hi])


# --------------------------------------------------------------------------------------------- inference


class BiddingFilter:
    """The bids and calls of the other seats this hand, each with the knowledge its seat had (all but the
    cards), so that a guess can be checked against what the rules player would have done with its cards.

    The legal lists of those past decisions are rebuilt here from the rules (RULES.md CA-4, FH-4, CA-6,
    FH-6, CL-2.3), because a ``View`` only carries the legal actions of the current decision.
    """

    def __init__(self, view: View, style: Style) -> None:
        self.view = view
        self.style = style
        self.checks: list[tuple[Seen, int, bool]] = []  # (knowledge, action taken, at call time?)
        config, n, dealer = view.config, view.num_players, view.dealer
        proposed = int(view.proposed_trump) if view.proposed_trump is not None else -1
        passes, round_2 = 0, False
        for seat, action in view.history:
            if action is None:
                continue
            kind = action.kind
            if kind is ActionKind.PASS and not round_2:
                passes += 1
                round_2 = passes == n
                if seat != view.seat:
                    self._bid_1(seat, proposed, A.PASS)
            elif kind in (ActionKind.ORDER_UP, ActionKind.TAKE_UP):
                if seat != view.seat:
                    self._bid_1(seat, proposed, action.id)
            elif kind in (ActionKind.PASS, ActionKind.NAME):
                if seat != view.seat:
                    self._bid_2(seat, proposed, action.id)
            elif kind in (ActionKind.CALL, ActionKind.ALONE, ActionKind.PARTNER) and seat != view.seat:
                self._call(seat, proposed if not round_2 else -1, proposed if round_2 else -1, action.id)
        self.played = {s: [p.card.id for p in view.played_cards() if p.seat == s] for s in range(n)}
        self.dealer, self.config = dealer, config

    def _seen(self, seat: int, phase: int, legal: list[int], proposed: int, turned_down: int) -> Seen:
        view = self.view
        k = Seen()
        k.config, k.n, k.seat, k.dealer, k.phase = view.config, view.num_players, seat, view.dealer, phase
        k.hand, k.legal, k.up_card = None, legal, view.up_card.id
        k.proposed, k.turned_down, k.picked_up = proposed, turned_down, False
        k.exposed, k.discard, k.trump, k.maker, k.called = -1, -1, -1, -1, -1
        k.alone, k.partner, k.sitting_out, k.trick, k.dead = False, -1, -1, [], set()
        k.scores = view.scores_before
        return k

    def _bid_1(self, seat: int, proposed: int, action: int) -> None:
        accept = A.TAKE_UP if seat == self.view.dealer else A.ORDER_UP
        self.checks.append((self._seen(seat, P_BID1, [A.PASS, accept], proposed, -1), action, False))

    def _bid_2(self, seat: int, turned_down: int, action: int) -> None:
        config = self.view.config
        stuck = config.stick_the_dealer or config.variant is Variant.FIVE_HANDED
        legal = [] if stuck and seat == self.view.dealer else [A.PASS]
        legal += [A.NAME_BASE + s for s in range(4) if s != turned_down]
        if config.allow_no_trump:
            legal.append(A.NAME_BASE + NO_TRUMP)
        self.checks.append((self._seen(seat, P_BID2, legal, -1, turned_down), action, False))

    def _call(self, seat: int, proposed: int, turned_down: int, action: int) -> None:
        view = self.view
        k = self._seen(seat, P_CALL, [], proposed, turned_down)
        k.trump = int(view.trump) if view.trump is not None else -1
        k.maker = seat
        k.picked_up = view.up_card_fate is UpCardFate.TAKEN
        k.exposed = view.exposed_card.id if view.exposed_card is not None else -1
        self.checks.append((k, action, True))

    def call_legal(self, k: Seen, hand: list[CardId]) -> list[int]:
        """The maker's legal calls with ``hand`` (CA-6.1, FH-6.1, CL-2.3)."""
        config, trump = k.config, k.trump
        if config.variant is Variant.CLASSIC:
            return [A.ALONE, A.PARTNER]
        if config.variant is Variant.CALL_ACE:
            aces = [order[0] for suit, order in enumerate(ranks(config, NO_TRUMP).order) if suit != trump]
            return [A.CALL_BASE + c for c in aces if c not in hand] + [A.ALONE]
        eff = ranks(config, trump).eff
        return [
            A.CALL_BASE + c
            for c in deck_of(config)
            if c not in hand and (config.call_may_be_trump or eff[c] != trump)
        ] + [A.ALONE]

    def misfits(self, guess: Guess) -> int:
        """How many of the checked decisions the rules player would have taken differently with ``guess``."""
        miss = 0
        for k, action, at_call in self.checks:
            held = list(guess.holdings[k.seat]) + self.played[k.seat]
            if at_call:  # the maker's cards after any discard: what he holds plus what he played
                k.hand = sorted(held)
                k.discard = guess.discard if k.seat == self.dealer and guess.discard is not None else -1
                k.legal = self.call_legal(k, k.hand)
            else:  # bidding: the cards as dealt
                k.hand = sorted(self.dealt(k.seat, held, guess))
            if choose(k, self.style) != action:
                miss += 1
        return miss

    def dealt(self, seat: int, held: Iterable[CardId], guess: Guess) -> list[CardId]:
        """A seat's five dealt cards: its cards now and played, for the dealer without the up-card he took
        and with his discard."""
        cards = list(held)
        view = self.view
        if seat == view.dealer and view.up_card_fate is UpCardFate.TAKEN:
            if guess.discard is not None:
                cards.append(guess.discard)
            if view.up_card.id in cards:
                cards.remove(view.up_card.id)
        return cards


if __name__ == "__main__":
    run(MonteCarloBot)
