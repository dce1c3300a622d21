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

* inference from the other seats' decisions (``Sampler``): a guess with which another seat's bids, discard,
  call or card plays this hand differ from what the rules player would have done with the guessed cards is
  kept only with probability ``inference`` per difference (so a seat that ordered up is mostly dealt
  trumps, one that passed mostly is not, and one that followed low mostly had nothing to win with); with
  ``guesses = "learned"`` the guesses that check weighs are drawn from a model fitted to where the cards
  really were in rules players' games (``sample_bots.learned.inference``) instead of uniformly;
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
(bids, discard, call, blind choices: rarer, and worth more), and never past ``time_share`` (half) of
``self.time_left()``, which keeps a safety margin for a busy machine. When the
sample caps bind, the bot is deterministic: each decision's generator is seeded from ``seed``, the game id,
the seat and the position in the hand. Configure it with constructor arguments, by subclassing, or with
``MonteCarloBot.configured(samples=..., seed=...)`` for harnesses that instantiate the class themselves.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from arena.bot import Bot, run
from arena.engine import ACTIONS, Action, GameState, Phase, View
from arena.engine import actions as A
from arena.engine.cards import CardId
from arena.engine.config import GameConfig
from arena.engine.determinize import Guess, deal_from_guess, hidden_facts, history_ids, sample_hidden
from arena.engine.scoring import Outcome
from arena.engine.state import P_CALL, P_EXPOSE, P_PLAY
from arena.errors import RuleError

if TYPE_CHECKING:
    from sample_bots.learned.inference import Inference, Table
from sample_bots.policy import (
    DEFAULT_STYLE,
    Ranks,
    Seen,
    Style,
    choose,
    ranks,
    rollout,
    seen_from_state,
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
    "budget_s",
    "guesses",
)

GUESSES = ("rules", "learned")


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
    """What a simulated hand is worth (``hand_utility``): ``"win"`` (chance of winning the game),
    ``"points"`` (points relative to the other seats) or ``"own"`` (the seat's own points: what the arena's
    points per hand ranks)."""
    inference: ClassVar[float] = 0.1
    """Chance of keeping a guess per decision of another seat this hand (bid, discard, call, card played)
    that the rules player would not have made with the guessed cards (1 = no inference)."""
    tries: ClassVar[int] = 12
    """Most guesses drawn per sample while looking for one that fits the other seats' decisions."""
    confidence: ClassVar[float] = 2.5
    """Drop a candidate (and stop when one is left) once it trails the best by this many standard errors."""
    deviate: ClassVar[float] = 1.0
    """Leave the rules player's choice only for a candidate better by this many standard errors."""
    style: ClassVar[Style] = DEFAULT_STYLE
    """The rules player that plays out every simulation."""
    phases: ClassVar[frozenset[Phase] | None] = None
    """Decision kinds to search (``None``: all); the others are left to the rules player."""
    time_share: ClassVar[float] = 0.5
    """Search for at most this share of what ``time_left()`` allows. The rest is a safety margin for a busy
    machine: several games thinking at once in one process, a process starved of CPU, a reply that waits
    for the GIL. Half keeps ``arena demo`` free of timeouts on a loaded 2-core machine."""

    guesses: ClassVar[str] = "rules"
    """Where the guesses of the hidden cards come from: ``"rules"`` (the default: drawn uniformly, then
    weighed by the rules player's fit, ``inference``) or ``"learned"`` (drawn from the learned model of
    ``sample_bots.learned.inference``, then weighed by the same fit; ``inference=1`` leaves the model
    alone). A configuration the model's weights do not cover draws uniformly."""

    budget_s: ClassVar[float] = math.inf
    """Most CPU seconds (this thread's ``time.thread_time``) a searched decision may use, beside the
    deadline (``time_share``); the champion bot sets it, so that its budget holds on a busy machine."""

    def __init__(self, samples: int | None = None, seed: int | None = None) -> None:
        super().__init__()
        if samples is not None:
            self.samples = samples  # type: ignore[misc]
        if seed is not None:
            self.seed = seed  # type: ignore[misc]
        self.stats: list[int] = []  # samples used per searched decision (for tests and benchmarks)
        self.stopped: list[str] = []
        """What ended each searched decision: ``"wall"`` or ``"cpu"`` (a clock: the choice depended on the
        load), else ``"samples"`` (the cap, the race, or the sampler giving up: the seed alone)."""

    @classmethod
    def configured(cls, **settings: Any) -> type[MonteCarloBot]:
        """A subclass with other class settings, for harnesses that create bots from a class."""
        unknown = [k for k in settings if k not in SETTINGS]
        if unknown:
            raise TypeError(f"unknown MonteCarloBot settings {unknown}: expected some of {SETTINGS}")
        check_objective(settings)
        check_guesses(settings)
        return type(cls.__name__, (cls,), dict(settings))

    def sampler(self, view: View) -> Sampler:
        """The ``Sampler`` of one decision, with the learned model when ``guesses`` asks for it."""
        model = None
        if self.guesses == "learned":
            from sample_bots.learned.inference import shipped

            model = shipped().get(view)
        return Sampler(view, self.style, self.inference, self.tries, model)

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
        sampler = self.sampler(view)
        results: dict[int, list[float]] = {a: [] for a in actions}
        seat, style, objective = view.seat, self.style, self.objective
        done = failures = 0
        started, cpu_stop = time.monotonic(), time.thread_time() + self.budget_s
        stop_at = started + self.time_share * self.time_left()
        reason = "samples"
        while done < cap and failures < 20 and len(results) > 1:
            left = stop_at - time.monotonic()
            if left <= 0 or (done and left < 1.5 * (time.monotonic() - started) / done):
                reason = "wall"
                break
            if done and time.thread_time() >= cpu_stop:
                reason = "cpu"
                break
            state = sampler.sample(rng)
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
        self.stopped.append(reason)
        return results if done else None


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
    team's minus the other team's). ``"own"``: its points (classic: its team's), the number the arena's
    points per hand and ``arena match`` measure: no score is ever negative, so a euchre costs the maker
    nothing there, only the points it did not make.
    """
    if objective == "win":
        return game_worth(state.outcome, state.scores, seat, state.config)
    return points_worth(state.results[-1].points, seat, state.config, objective)


def game_worth(outcome: Outcome | None, scores: Sequence[int], seat: int, config: GameConfig) -> float:
    """``"win"``'s worth of a hand that left ``scores`` (and ended the game with ``outcome``, if not
    ``None``): ten times ``seat``'s share of the win, or of its estimated chance (``win_chance``)."""
    if outcome is None:
        return 10.0 * win_chance(scores, seat, config)
    if seat not in outcome.winners:
        return 0.0
    return 10.0 if config.team_play else 10.0 / len(outcome.winners)


def points_worth(points: Sequence[int], seat: int, config: GameConfig, objective: str) -> float:
    """``"own"``'s or ``"points"``'s worth of a hand that scored ``points``."""
    if objective == "own":
        return float(points[seat])
    if config.team_play:
        return float(points[seat] - points[(seat + 1) % len(points)])
    return points[seat] - (sum(points) - points[seat]) / (len(points) - 1)


OBJECTIVES = ("win", "points", "own")


def check_guesses(settings: dict[str, Any]) -> None:
    """``configured``'s check of a ``guesses`` setting."""
    if "guesses" in settings and settings["guesses"] not in GUESSES:
        raise TypeError(f"guesses={settings['guesses']!r}: expected one of {GUESSES}")


def check_objective(settings: dict[str, Any]) -> None:
    """``configured``'s check of an ``objective`` setting: a misspelt one would silently mean ``points``."""
    if "objective" in settings and settings["objective"] not in OBJECTIVES:
        raise TypeError(f"objective={settings['objective']!r}: expected one of {OBJECTIVES}")


WIN_STEEPNESS = 0.9
"""``win_chance``'s c, fitted by maximum likelihood to rules-bot games (five-handed and call-ace 5p/7p)."""


def win_chance(scores: Sequence[int], seat: int, config: GameConfig) -> float:
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


class Sampler:
    """Draws the determinizations of one decision: guesses of the hidden cards that fit the view, replayed
    to the decision, preferring those with which the other seats' past decisions are the rules player's.

    A guess is replayed on the engine (``deal_from_guess`` and ``history_ids``: every guess from
    ``sample_hidden`` replays legally, so without checks), and at each past decision of another seat that
    saw its cards and had a choice, the rules player's choice with the guessed cards is compared with the
    action taken (bids, the dealer's discard, the call, and the cards played). The guess is kept with
    probability ``inference ** misfits``, else another is drawn, up to ``tries``; when none is kept, the
    one with the fewest misfits is used. The replay stops early once a guess can neither be kept nor beat
    the best so far.
    """

    def __init__(
        self, view: View, style: Style, inference: float, tries: int, model: Inference | None = None
    ) -> None:
        self.view, self.style = view, style
        self.inference = inference if inference < 1 else 1.0
        self.tries = tries if self.inference < 1 else 1
        self.facts = hidden_facts(view)  # costs as much as a sample: once per decision
        self.last_guess: Guess | None = None
        """The guess behind the last determinization returned (for ``bench/train_inference.py``)."""
        self.learned: tuple[Table, list[list[float]]] | None = None
        if model is not None:  # the learned inference draws the guesses (sample_bots.learned.inference)
            from sample_bots.learned.inference import table

            found = table(view, self.facts)
            self.learned = (found, model.weights(found))
        self.discard_hidden = view.discard is None and any(a is None for _, a in view.history)
        shown = view.discard.id if view.discard is not None else None
        self.history = None if self.discard_hidden else history_ids(view, shown)

    def sample(self, rng: random.Random) -> GameState | None:
        """A determinization at the view's decision, or ``None`` if no guess fitted (should not happen)."""
        best: GameState | None = None
        best_guess: Guess | None = None
        best_misfits = math.inf
        for _ in range(self.tries):
            try:
                guess = self.guess(rng)
                state = deal_from_guess(self.view, guess)
            except RuleError:
                continue
            tolerated = self.tolerated(rng.random()) if self.inference < 1 else math.inf
            misfits = self.replay(state, guess, max(tolerated + 1, best_misfits))
            if misfits is None:
                continue
            if misfits <= tolerated:
                self.last_guess = guess
                return state
            best, best_guess, best_misfits = state, guess, misfits
        self.last_guess = best_guess
        return best

    def guess(self, rng: random.Random) -> Guess:
        """A guess of the hidden cards: the learned model's draw when there is one (a few tries, as a
        random order may reach a dead end), else (or then) the uniform ``sample_hidden``."""
        if self.learned is not None:
            from sample_bots.learned.inference import draw

            t, weights = self.learned
            for _ in range(20):
                found = draw(self.view, self.facts, t, weights, rng)
                if found is not None:
                    return found
        return sample_hidden(self.view, rng, facts=self.facts)

    def tolerated(self, u: float) -> float:
        """The most misfits a guess may have and still be kept, when the kept ones are those with
        ``inference ** misfits > u``."""
        count = 0
        while self.inference ** (count + 1) > u and count < 20:
            count += 1
        return count

    def replay(self, state: GameState, guess: Guess, stop: float) -> int | None:
        """Replay the view's history on ``state``, counting the other seats' decisions that differ from
        the rules player's; ``None`` (the replay abandoned) once there are ``stop`` of them."""
        history = self.history if self.history is not None else history_ids(self.view, guess.discard)
        me, style, check = self.view.seat, self.style, self.inference < 1
        misfits = 0
        played: set[CardId] = set()
        for seat, action in history:
            phase = state.phase
            informative = check and seat != me and phase > P_EXPOSE  # blind decisions tell nothing
            if informative and len(state.legal_actions()) > 1:
                seen = seen_from_state(state, seat, played if phase == P_PLAY else None)
                if choose(seen, style) != action:
                    misfits += 1
                    if misfits >= stop:
                        return None
            if phase == P_PLAY:
                played.add(action)
            state.apply_unchecked(action)
        return misfits


if __name__ == "__main__":
    run(MonteCarloBot)
