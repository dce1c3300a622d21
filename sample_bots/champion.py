"""The house champion: perfect-information Monte Carlo with every guess solved exactly.

Card play. At each card decision the bot draws guesses of the hidden cards that fit everything public
(``montecarlo.Sampler``: known voids, the called card never with the maker nor with a seat void in its
suit, the picked-up and exposed cards with the dealer, and the other seats' bids, discard, call and plays
weighted by how well the rules player would have made them with the guessed cards). Each guess is a full
deal, which the double-dummy solver (``policy.solver``) plays perfectly from here for every legal card
(``move_values``): the making side's final tricks. Tricks become points by RULES.md (``hand_points``: a
march, a lone hand, a card called into the kitty and a euchre all score differently), and points become
this seat's utility: its points minus the others' mean (classic: its team's minus the other team's), the
quantity that wins games (``objective``: ``"own"``, the seat's own points, which the arena's points per hand
counts, and ``"win"``, the Monte-Carlo bot's chance of winning the game, are settings, measured no better:
README's sample-bot table). The card with the best mean utility over the guesses is played; among equals
(most decisions have several), the rules player's choice.

Bidding, discarding, calling and the blind choices are the Monte-Carlo bot's: each option is simulated on
the same guesses and played out by the rules player (``MonteCarloBot.evaluate``), with racing and the
"leave the rules only when clearly better" guard. Solving them exactly instead (``bid_solver``,
``solve_choice``: each option bid out by the rules players, then null-window solves at the counts where
the points change) was measured and is off: on the same deals it gained less than the rollouts and cost
three times their CPU (a likely reason, not tested: a solved guess lets every seat play as if it saw all
the cards, which a bid's whole hand of play magnifies; figures: ``bench/hands.py``).
``bidding="learned"`` (an option, not the default) makes round 1, round 2 and going alone by a model
fitted to each option's value on real deals instead (``sample_bots.learned``, ``bench/train_bidding.py``;
its figures are in ``sample_bots/learned/bidding.md``); ``bidding="blend"`` (an option too) runs the
rollouts and adds the model's advantage to each option as a prior worth ``prior_samples`` guesses
(``blend_choice``); ``bidding="cfr"`` (an option too, Five-handed only) makes them by the average strategy
of Monte-Carlo CFR over a small abstraction of the bidding (``sample_bots.learned.cfr``,
``bench/cfr_bidding.py``; figures in ``bidding.md``). ``guesses="learned"`` (an option, not the default)
draws every search's guesses from the learned inference (``montecarlo.MonteCarloBot.guesses``; figures in
``sample_bots/learned/inference.md``).

Budget. A card decision stops at the first of: ``play_samples`` guesses; ``play_work`` units of work
(solver nodes, plus ``SAMPLE_WORK`` per guess drawn) once ``min_samples`` are in; ``budget_s`` of this
thread's CPU time; or ``time_share`` of ``self.time_left()`` on the wall clock (the request's deadline less
the SDK's margin; the time bank is never planned on, it is for accidents). A single solve is bounded too
(``Solver.bound``: the work left, and the wall-clock stop), and a deal too big to solve even once in the
budget (six or seven seats, early in the hand) falls back to the Monte-Carlo bot's rollouts. A search
stopped by the guess count or the work budget depends only on the ``seed`` (each decision's generator is
seeded from it, the game id, the seat and the position in the hand); one stopped by a clock depends on the
machine's load. ``stops`` records which it was; the shares measured are in README's champion paragraph
(``bench/champion_time.py``): the clocks stop some searches even on a quiet machine.
Figures: README's sample-bot table and ``bench/strength.py``.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any, ClassVar

from arena.bot import run
from arena.engine import ACTIONS, Action, Phase, View
from arena.engine.actions import ALONE as A_ALONE
from arena.engine.actions import PLAY_BASE, encode
from arena.engine.scoring import game_over, hand_points
from arena.engine.state import P_OVER, P_PLAY, GameState
from sample_bots.montecarlo import (
    SETTINGS,
    MonteCarloBot,
    Sampler,
    candidates,
    check_guesses,
    check_objective,
    game_worth,
    hand_utility,
    pick,
    points_worth,
)
from sample_bots.policy import Style, choose, choose_state, ismcts, seen_from_view
from sample_bots.policy.solver import TRICKS, Position, SearchAborted, Solver

if TYPE_CHECKING:
    from sample_bots.learned import Bidder
    from sample_bots.learned.cfr import CfrBidder

SAMPLE_WORK = 400
"""Work units charged per guess drawn (replaying the history with the inference checks costs about as much
as this many solver nodes)."""

OWN_SETTINGS = (
    "play_samples",
    "min_samples",
    "play_work",
    "bid_solver",
    "bid_samples",
    "bid_work",
    "ismcts_iterations",
    "ismcts_c",
    "bidding",
    "bidding_weights",
    "prior_samples",
)


BIDDINGS = ("rollouts", "learned", "blend", "cfr")


class ChampionBot(MonteCarloBot):
    name = "champion"
    author = "euchre-arena"
    version = "1"

    objective = "points"
    samples = 60
    """Bidding-phase decisions: at most ``samples * bid_factor`` rollout guesses (racing stops most early)."""
    play_samples: ClassVar[int] = 48
    """Most guesses solved per card decision."""
    min_samples: ClassVar[int] = 8
    """Guesses solved before the work budget may stop a card decision."""
    play_work: ClassVar[int] = 100_000
    """Work units (solver nodes plus ``SAMPLE_WORK`` per guess) a card decision may spend."""
    bid_solver: ClassVar[bool] = False
    """Bids, discards, calls and blind choices by ``solve_choice`` (each option played by rules players to
    the first lead, then solved exactly); ``False`` (the default, measured better in ``bench/hands.py``):
    the Monte-Carlo bot's rollouts."""
    bid_samples: ClassVar[int] = 24
    """Most guesses per bidding-phase decision (every option is solved on each)."""
    bid_work: ClassVar[int] = 60_000
    """Work units a bidding-phase decision may spend once ``min_samples`` guesses are in."""
    ismcts_iterations: ClassVar[int] = 0
    """Card play by SO-ISMCTS (``policy.ismcts``) with this many iterations (guesses) per decision instead
    of PIMC; 0 (the default): PIMC, which measured better (README's champion paragraph)."""
    ismcts_c: ClassVar[float] = 1.0
    """ISMCTS's UCB1 exploration constant, in points per hand (the rewards' unit)."""
    bidding: ClassVar[str] = "rollouts"
    """Round 1, round 2 and going alone: ``"rollouts"`` (the default: the Monte-Carlo bot's search) or
    ``"learned"`` (``sample_bots.learned``: a model fitted by ``bench/train_bidding.py``, a dot product per
    option; in a configuration its weights do not cover, the rollouts) or ``"blend"`` (both: each option's
    rollout total plus the model's advantage counted as ``prior_samples`` guesses, ``blend_choice``) or
    ``"cfr"`` (``sample_bots.learned.cfr``: the argmax of an average strategy of CFR over an abstraction of
    the bidding, trained by ``bench/cfr_bidding.py``; Five-handed only, the rollouts elsewhere). The
    discard, the called card and the blind choices stay with the rollouts either way."""
    bidding_weights: ClassVar[str] = ""
    """The learned bidder's weights file (``""``: the shipped ``sample_bots/learned/bidding.npz``, with
    ``bidding="cfr"`` ``sample_bots/learned/cfr.npz``); for benchmarks of other fits
    (``bench/train_bidding.py --out``, ``bench/cfr_bidding.py --out``)."""
    prior_samples: ClassVar[float] = 16.0
    """``bidding="blend"``: how many rollout guesses the model's advantage weighs as."""
    budget_s = 0.25
    """CPU-time cap of a decision of any kind (this thread's ``time.thread_time``): a busy machine slows
    the clock the deadline is measured by, not the CPU a search may use, so the budget that shapes the
    search is CPU time, and the wall clock only guards the deadline (``time_share`` of ``time_left()``)."""

    def __init__(self, samples: int | None = None, seed: int | None = None) -> None:
        super().__init__(samples, seed)
        self.play_stats: list[int] = []  # guesses solved per searched card decision (tests, benchmarks)
        self.stops: list[tuple[str, str]] = []
        """(``"play"`` or ``"bid"``, what stopped its search) per searched decision, for the tests and
        ``bench/champion_time.py``: the share stopped by a clock is the share that depended on the load."""

    @classmethod
    def configured(cls, **settings: Any) -> type[MonteCarloBot]:
        """A subclass with other class settings (the Monte-Carlo bot's and this bot's own)."""
        unknown = [k for k in settings if k not in (*SETTINGS, *OWN_SETTINGS)]
        if unknown:
            raise TypeError(f"unknown ChampionBot settings {unknown}")
        check_objective(settings)
        check_guesses(settings)
        if settings.get("bidding", "rollouts") not in BIDDINGS:
            raise TypeError(f"bidding={settings['bidding']!r}: expected one of {BIDDINGS}")
        return type(cls.__name__, (cls,), dict(settings))

    def act(self, view: View) -> Action:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if view.phase is not Phase.PLAY:
            if self.bidding in ("learned", "cfr"):
                learned = self.learned_choice(view)
                if learned is not None:
                    return learned
            if self.bidding == "blend":
                blended = self.blend_choice(view)
                if blended is not None:
                    return blended
            if self.bid_solver and (self.phases is None or view.phase in self.phases):
                return ACTIONS[self.solve_choice(view)]
            return self.rollout_action(view, "bid")
        if self.phases is not None and Phase.PLAY not in self.phases:
            return ACTIONS[choose(seen_from_view(view), self.style)]  # mix-and-match benches: rules play
        return ACTIONS[self.play_card(view)]

    def learned_choice(self, view: View) -> Action | None:
        """The learned bidder's choice (``sample_bots.learned``), or ``None`` where it does not decide. When
        it declines to go alone, the card called is the rollouts' among the calls other than ALONE (the rules
        player's without ALONE where the call is not searched: ``phases``)."""
        seen = seen_from_view(view)
        action = (self.cfr_bidder() if self.bidding == "cfr" else self.bidder()).decide(seen)
        if action is None:
            return None
        searched = self.phases is None or view.phase in self.phases
        if view.phase is Phase.CALL and action != A_ALONE and searched:
            options = [a for a in candidates(seen, choose(seen, self.style)) if a != A_ALONE]
            if action not in options:
                options.append(action)
            if len(options) > 1:
                results = self.evaluate(view, options, action)
                if results is not None:
                    return ACTIONS[pick(results, action, self.deviate)]
        return ACTIONS[action]

    def bidder(self) -> Bidder:
        """The learned bidder of ``bidding_weights`` (loaded once per process)."""
        from sample_bots.learned import WEIGHTS, shipped

        return shipped(self.bidding_weights or str(WEIGHTS))

    def cfr_bidder(self) -> CfrBidder:
        """``bidding="cfr"``: the CFR table of ``bidding_weights`` (loaded once per process)."""
        from sample_bots.learned.cfr import CFR_WEIGHTS, shipped_cfr

        return shipped_cfr(self.bidding_weights or str(CFR_WEIGHTS))

    def blend_choice(self, view: View) -> Action | None:
        """Round 1, round 2 and the call by rollouts and the learned model together, or ``None`` where the
        model does not decide. The rollouts run as usual (racing drops the options clearly worse); each
        surviving option scores its total utility over the guesses plus ``prior_samples`` times the
        model's advantage (0 for the options the model compares against), so the model is a prior that
        the guesses outweigh as they accumulate; the best score is played, ties to the model's choice. With
        no guess drawn in time, the model's choice."""
        seen = seen_from_view(view)
        bidder = self.bidder()
        prior = bidder.scores(seen)
        learned = bidder.decide(seen)
        if prior is None or learned is None:
            return None
        if self.phases is not None and view.phase not in self.phases:
            return ACTIONS[learned]
        options = candidates(seen, choose(seen, self.style))
        if learned not in options:
            options.append(learned)
        if len(options) < 2:
            return ACTIONS[options[0]]
        before = len(self.stopped)
        results = self.evaluate(view, options, learned)
        if len(self.stopped) > before:
            why = self.stopped[-1]
            self.stops.append(("bid", why if why in ("cpu", "wall") else "work"))
        if results is None:
            return ACTIONS[learned]
        weight = self.prior_samples

        def score(a: int) -> tuple[float, bool]:
            return (sum(results[a]) + weight * prior.get(a, 0.0), a == learned)

        return ACTIONS[max(results, key=score)]

    def _spent(
        self, done: int, work: int, budget: int, started: float, stop_at: float, cpu_stop: float
    ) -> str | None:
        """What stops a search of guesses before the next one, if anything: ``"wall"``, the request's
        deadline (with the margin ``time_share`` leaves, and room for one more guess at the pace so far);
        ``"cpu"``, this decision's CPU time; ``"work"``, its work ``budget`` once ``min_samples`` guesses
        are in. Only ``"work"`` (and the guess count) leave the choice a function of the seed alone."""
        now = time.monotonic()
        if done and (now >= stop_at or stop_at - now < 1.2 * (now - started) / done):
            return "wall"
        if done and time.thread_time() >= cpu_stop:
            return "cpu"
        return "work" if done >= self.min_samples and work >= budget else None

    def play_card(self, view: View) -> int:
        """The card (action id) with the best mean utility over solved guesses; ties go to the rules."""
        seen = seen_from_view(view)
        default = choose(seen, self.style)
        cards = candidates(seen, default)
        if len(cards) == 1:
            return cards[0]
        started, cpu_stop = time.monotonic(), time.thread_time() + self.budget_s
        stop_at = started + self.time_share * self.time_left()
        rng = self.rng_for(view)
        sampler = self.sampler(view)
        if self.ismcts_iterations > 0:
            return self.tree_card(view, sampler, rng, cards, default, (started, stop_at, cpu_stop))
        totals = dict.fromkeys(cards, 0.0)
        done = work = failures = 0
        seat = view.seat
        stop = "samples"
        while done < self.play_samples and failures < 20:
            spent = self._spent(done, work, self.play_work, started, stop_at, cpu_stop)
            if spent is not None:
                stop = spent
                break
            state = sampler.sample(rng)
            work += SAMPLE_WORK
            if state is None:
                failures += 1
                continue
            position = Position.from_state(state)
            solver = Solver(position)
            nodes = max(self.play_work - work, self.play_work // 4)
            solver.bound(nodes=nodes, deadline=stop_at, cpu_deadline=cpu_stop + self.budget_s / 4)
            try:
                values = solver.move_values(position)
            except SearchAborted:
                work += solver.nodes
                if not done:  # too big to solve even once in the budget (six or seven seats, early on)
                    self.play_stats.append(0)
                    return encode(self.rollout_action(view, "play"))
                stop = "work" if solver.nodes > solver.limit else clock_stop(solver)
                break
            work += solver.nodes
            worth = utilities(state, seat, self.objective)
            for card in cards:
                totals[card] += worth[values[card - PLAY_BASE]]
            done += 1
        self.play_stats.append(done)
        self.stops.append(("play", stop))
        if not done:
            return default
        best = max(totals.values())
        if totals[default] >= best - 1e-9 * done:
            return default
        return max(cards, key=lambda c: totals[c])

    def tree_card(
        self,
        view: View,
        sampler: Sampler,
        rng: random.Random,
        cards: list[int],
        default: int,
        clocks: tuple[float, float, float],
    ) -> int:
        """The card SO-ISMCTS picks (``policy.ismcts``), over ``ismcts_iterations`` guesses unless a clock
        stops it first (the same clocks as PIMC's: ``_spent`` without the work budget)."""
        started, stop_at, cpu_stop = clocks
        stopped: list[str] = []

        def stop(done: int) -> bool:
            why = self._spent(done, 0, 1, started, stop_at, cpu_stop)
            if why in ("wall", "cpu"):
                stopped.append(why)
                return True
            return False

        objective = self.objective

        def reward(state: GameState, seat: int) -> float:
            return hand_utility(state, seat, objective)

        root, done = ismcts.search(
            lambda: sampler.sample(rng), self.ismcts_iterations, reward, rng, self.ismcts_c, self.style, stop
        )
        self.play_stats.append(done)
        self.stops.append(("play", stopped[0] if stopped else "samples"))
        return ismcts.best_move(root, cards, default)  # the root's seat knows its hand: its moves are legal

    def solve_choice(self, view: View) -> int:
        """A bid, discard, call or blind choice: each option, on each guess, is followed by the rules
        players' remaining bidding (each sees only its own cards) and then solved from the first lead; the
        option with the best mean utility wins if it beats the rules player's by ``deviate`` standard
        errors of their paired difference (``montecarlo.pick``: a close call stays with the rules)."""
        seen = seen_from_view(view)
        default = choose(seen, self.style)
        options = candidates(seen, default)
        if len(options) == 1:
            return options[0]
        started, cpu_stop = time.monotonic(), time.thread_time() + self.budget_s
        stop_at = started + self.time_share * self.time_left()
        rng = self.rng_for(view)
        sampler = self.sampler(view)
        results: dict[int, list[float]] = {a: [] for a in options}
        done = work = failures = 0
        while done < self.bid_samples and failures < 20:
            if self._spent(done, work, self.bid_work, started, stop_at, cpu_stop) is not None:
                break
            state = sampler.sample(rng)
            work += SAMPLE_WORK
            if state is None:
                failures += 1
                continue
            values: dict[int, float] = {}
            try:
                for option in options:
                    limit = max(self.bid_work - work, self.bid_work // 4)
                    values[option], nodes = option_value(
                        state, option, view.seat, self.style, limit, stop_at, cpu_stop + self.budget_s / 4,
                        self.objective,
                    )  # fmt: skip
                    work += nodes
            except SearchAborted:
                break
            for option, value in values.items():
                results[option].append(value)
            done += 1
        self.stats.append(done)
        if not done:
            return encode(super().act(view))
        return pick(results, default, self.deviate)

    def rollout_action(self, view: View, kind: str) -> Action:
        """The Monte-Carlo bot's choice, recording in ``stops`` what ended its search (``MonteCarloBot``
        says which clock, if any, in ``stopped``; the rest is the work it was given)."""
        before = len(self.stopped)
        action = super().act(view)
        if len(self.stopped) > before:  # a search ran (not a single candidate)
            why = self.stopped[-1]
            self.stops.append((kind, why if why in ("cpu", "wall") else "work"))
        return action


def clock_stop(solver: Solver) -> str:
    """Which clock aborted ``solver``'s search: its CPU deadline or (else) the wall-clock one."""
    return "cpu" if time.thread_time() > solver.cpu_deadline else "wall"


def bid_out(state: GameState, style: Style) -> None:
    """Play the rest of the bidding (discard and call too) with the rules player, up to the first lead."""
    while state.phase != P_PLAY and state.phase != P_OVER:
        legal = state.legal_actions()
        state.apply_unchecked(legal[0] if len(legal) == 1 else choose_state(state, state.to_act, style))


def option_value(
    state: GameState,
    option: int,
    seat: int,
    style: Style,
    nodes: float = float("inf"),
    deadline: float = float("inf"),
    cpu_deadline: float = float("inf"),
    objective: str = "points",
) -> tuple[float, int]:
    """What ``option`` at ``state`` (a full deal in the bidding) is worth to ``seat`` (by ``objective``:
    ``utilities``) and the solver nodes it took: the rules players bid out the rest (``bid_out``), then
    both sides play perfectly.

    :raises SearchAborted: past ``nodes`` (or the clocks) in the solve.
    """
    sim = state.clone()
    sim.apply_unchecked(option)
    bid_out(sim, style)
    if sim.phase != P_PLAY:  # the hand ended in the bidding
        return hand_utility(sim, seat, objective), 0
    position = Position.from_state(sim)
    solver = Solver(position)
    solver.bound(nodes=nodes, deadline=deadline, cpu_deadline=cpu_deadline)
    return solved_utility(solver, position, utilities(sim, seat, objective)), solver.nodes


def solved_utility(solver: Solver, position: Position, worth: list[float]) -> float:
    """``worth[tricks]`` for the making side's tricks under perfect play, found with null-window searches
    at the counts where the worth changes only (3 and 5 in most variants: making it, and the march), which
    visits far fewer nodes than the exact count (``Solver.value``)."""
    steps = [t for t in range(1, TRICKS + 1) if worth[t] != worth[t - 1]]
    for t in steps:
        if not solver.at_least(position, t):
            return worth[t - 1]
    return worth[TRICKS]


def utilities(state: GameState, seat: int, objective: str = "points") -> list[float]:
    """What the hand is worth to ``seat`` for each count of the making side's tricks (0..5), by RULES.md:
    its points minus the mean of the others' (classic: its team's minus the other team's); with
    ``objective="own"`` its own points, with ``"win"`` ten times its chance of winning the game from the
    scores after the hand (``montecarlo.hand_utility``'s three objectives)."""
    config, before = state.config, state.scores
    out = []
    for tricks in range(TRICKS + 1):
        _, points = hand_points(config, state.maker, state.partner, state.alone, tricks)
        if objective == "win":  # exact where the hand ends the game (the engine's game_over)
            after = [b + p for b, p in zip(before, points, strict=True)]
            outcome = game_over(config, after, before, state.hand_index + 1)
            out.append(game_worth(outcome, after, seat, config))
        else:
            out.append(points_worth(points, seat, config, objective))
    return out


if __name__ == "__main__":
    run(ChampionBot)
