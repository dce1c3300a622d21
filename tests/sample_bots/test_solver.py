"""The double-dummy solver (sample_bots/policy/solver.py) against a brute-force search over the engine.

The brute force plays every legal card at every turn on copies of the engine's own ``GameState`` and takes
the best for the side to move, with nothing merged, cached or pruned, so where the two agree the solver's
rules (following, trick winners, sitting out, the making side) are the engine's and its search tools
(transposition table, merged equivalent cards, alpha-beta) lose nothing.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import GameConfig, GameState
from arena.engine.state import P_PLAY
from sample_bots.policy.solver import Position, Solver, solve

VARIANTS = {
    "five-handed": {},
    "call-ace": {"use_joker": True},
    "call-ace-nt": {"allow_no_trump": True, "num_players": 4},
    "classic": {},
}


def _config(name: str) -> GameConfig:
    return GameConfig.create(name.removesuffix("-nt"), **VARIANTS[name])


def position_after(name: str, seed: int, tricks: int, plays: int) -> GameState | None:
    """A game of random legal bids and plays, stopped in card play after ``tricks`` whole tricks and
    ``plays`` cards of the next; None when that hand was thrown in."""
    rng = random.Random(seed)
    state = GameState(_config(name), seed=seed)
    while not state.is_terminal():
        if state.phase == P_PLAY and len(state.tricks) == tricks and len(state.trick) == plays:
            return state
        if state.results:
            return None  # the first hand ended before the spot (thrown in)
        state.apply(rng.choice(state.legal_actions()))
    return None


def making_seats(state: GameState) -> set[int]:
    return {state.maker} | ({state.partner} if state.partner >= 0 else set())


def brute_force(state: GameState, making: set[int]) -> int:
    """The making side's tricks at the end of the hand by exhaustive minimax on engine copies."""
    hands_before = len(state.results)
    values = []
    for card in state.legal_actions():
        child = state.clone()
        child.apply(card)
        if len(child.results) > hands_before:
            won = child.results[-1].tricks_won
            values.append(sum(won[s] for s in making))
        else:
            values.append(brute_force(child, making))
    return max(values) if state.to_act in making else min(values)


def cases(tricks: int, count: int) -> list[tuple[str, int, int]]:
    return [(name, seed, plays) for name in VARIANTS for seed in range(count) for plays in (0, 2)][
        : 4 * count
    ]


@pytest.mark.parametrize(("name", "seed", "plays"), cases(tricks=2, count=12))
def test_the_solver_equals_brute_force_with_three_tricks_left(name: str, seed: int, plays: int) -> None:
    state = position_after(name, seed, tricks=2, plays=plays)
    if state is None:
        pytest.skip("that deal was thrown in")
    making = making_seats(state)
    position = Position.from_state(state)
    assert solve(position) == brute_force(state, making)
    values = Solver(position).move_values(position)
    assert set(values) == set(state.legal_actions())
    for card, value in values.items():
        child = state.clone()
        child.apply(card)
        assert value == brute_force(child, making), f"card {card}"


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 10**6), plays=st.integers(0, 3))
def test_thresholds_agree_with_the_exact_value(name: str, seed: int, plays: int) -> None:
    state = position_after(name, seed, tricks=1, plays=plays)
    if state is None or len(state.trick) != plays:
        return
    position = Position.from_state(state)
    exact = solve(position)
    solver = Solver(position)
    for tricks in range(6):
        assert solver.at_least(position, tricks) == (exact >= tricks), tricks


def test_a_full_hand_solves_and_its_moves_bracket_the_value() -> None:
    """From the first lead: the value is the best move's value for the side to lead."""
    for name in VARIANTS:
        for seed in range(30):
            state = position_after(name, seed, tricks=0, plays=0)
            if state is not None:
                break
        assert state is not None
        position = Position.from_state(state)
        values = Solver(position).move_values(position)
        best = max(values.values()) if state.to_act in making_seats(state) else min(values.values())
        assert solve(position) == best
