"""The champion's ISMCTS card play (``policy.ismcts``): the tree holds only moves legal in some guess it was
grown on, its availability counts are those of the paper, and the same seed makes the same choices; its
legal play through ``arena check-bot`` in every variant."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from arena.engine import GameState, Phase
from arena.engine.state import P_PLAY
from sample_bots.champion import ChampionBot
from sample_bots.montecarlo import Sampler, hand_utility
from sample_bots.policy import ismcts
from tests.helpers import check_launched, configured_bot
from tests.sample_bots.test_champion import play_views


def _paths(node: ismcts.Node, prefix: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], ismcts.Node]]:
    out = []
    for action, child in node.children.items():
        out.append(((*prefix, action), child))
        out += _paths(child, (*prefix, action))
    return out


def _legal_along(state: GameState, path: tuple[int, ...]) -> bool:
    sim = state.clone()
    for action in path:
        if sim.phase != P_PLAY or action not in sim.legal_actions():
            return False
        sim.apply_unchecked(action)
    return True


@pytest.mark.parametrize("variant", ["five-handed", "call-ace"])
def test_every_move_in_the_tree_was_legal_in_a_guess_it_was_grown_on(variant: str) -> None:
    """Early card decisions, where the other seats' holdings (and so their legal cards: a void lets a seat
    play anything) differ from guess to guess: every path of the tree replays legally on at least one of
    the guesses drawn, and some path is legal on one guess and not on another (the case that matters)."""
    views = [v for v in play_views(variant, range(3)) if v.phase is Phase.PLAY][:6]
    differing = 0
    for view in views:
        rng = random.Random(7)
        sampler = Sampler(view, ChampionBot.style, ChampionBot.inference, ChampionBot.tries)
        drawn: list[GameState] = []

        def draw(sampler: Sampler = sampler, rng: random.Random = rng, drawn: list[GameState] = drawn) -> Any:
            state = sampler.sample(rng)
            if state is not None:
                drawn.append(state.clone())
            return state

        root, done = ismcts.search(draw, 60, lambda s, seat: hand_utility(s, seat, "points"), rng)
        assert done == 60
        for path, node in _paths(root):
            legal_in = [_legal_along(state, path) for state in drawn]
            assert any(legal_in), f"{path} legal in no guess"
            differing += not all(legal_in)
            assert node.available >= node.visits >= 1
        assert sum(child.visits for child in root.children.values()) == done
    assert differing > 0, "no guess differed in what was legal: the test tests nothing"


def test_availability_counts_every_iteration_where_the_move_was_legal() -> None:
    """At the root the searching seat knows its own hand, so each of its moves is legal in every guess:
    each root child's ``available`` is the iterations run since it was expanded, and the visits add up."""
    view = next(v for v in play_views("five-handed", range(2)) if v.phase is Phase.PLAY)
    rng = random.Random(3)
    sampler = Sampler(view, ChampionBot.style, ChampionBot.inference, ChampionBot.tries)
    root, done = ismcts.search(
        lambda: sampler.sample(rng), 40, lambda s, seat: hand_utility(s, seat, "points"), rng
    )
    legal = {a.id for a in view.legal_actions}
    assert set(root.children) <= legal
    first = len(root.children)  # the first iterations expand each root move once, one per iteration
    assert sorted(c.available for c in root.children.values()) == sorted(done - i for i in range(first))


def test_ismcts_card_play_is_deterministic_given_its_seed() -> None:
    """With the clocks far away the iteration count binds, so the same seed draws the same guesses, grows
    the same tree and plays the same card."""
    views = [v for v in play_views("call-ace", range(2)) if v.phase is Phase.PLAY][:8]
    tree = ChampionBot.configured(ismcts_iterations=40, budget_s=60.0)
    for view in views:
        first, second = tree(seed=5), tree(seed=5)
        first._deadline = second._deadline = time.monotonic() + 120.0
        assert first.act(view) == second.act(view)
        assert first.play_stats == second.play_stats
        assert first.stops == second.stops and {why for _, why in first.stops} <= {"samples"}


def test_check_bot_passes_the_champion_with_ismcts_card_play(tmp_path: Path) -> None:
    settings = "samples=6, min_samples=2, ismcts_iterations=24, bid_work=4000"
    report = check_launched(configured_bot("champion", "champion", "ChampionBot", settings, tmp_path))
    assert report.passed, report.render()
    assert report.violations == []
    assert report.identity is not None and set(report.identity.variants) == {
        "call-ace",
        "five-handed",
        "classic",
    }
    assert "PLAY" in report.kinds_seen
