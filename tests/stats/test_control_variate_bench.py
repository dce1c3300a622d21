"""bench/control_variate.py measures the deal-luck control variate (not adopted: docs/ranking.md); its
correction must be exactly "points minus c times the reference seat's points", and its reference games a
fixed function of the game's own seed and length, or its figures would mean nothing."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arena.stats.rating import RatedGame
from arena.stats.tally import Tally

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("control_variate", BENCH / "control_variate.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_the_correction_by_hand(bench: ModuleType) -> None:
    """Two games of two entrants on two seats, 4 and 5 hands: a scores 6 and 2, the reference seat it sat
    in made 4 and 1; b scores 3 and 7 against 2 and 5. At c = 1: a (6 - 4 + 2 - 1) / 9, b (3 - 2 + 7 - 5) / 9;
    at c = 0.5 likewise with halves."""
    games = [
        RatedGame(0, "g0", ("a", "b"), (1, 2), (6, 3), hands=4),
        RatedGame(1, "g1", ("b", "a"), (1, 2), (7, 2), hands=5),
    ]
    refs = [(4, 2), (5, 1)]
    for c, a, b in ((1.0, 3 / 9, 3 / 9), (0.5, (6 - 2 + 2 - 0.5) / 9, (3 - 1 + 7 - 2.5) / 9)):
        fixed = bench.corrected(games, refs, c)
        scores = Tally(["a", "b"]).add(fixed).close().totals["points"].scores()
        assert scores == pytest.approx([a, b])
    assert bench.corrected(games, refs, 0.0) == games


def test_a_reference_game_is_a_function_of_the_seed_and_its_length(bench: ModuleType) -> None:
    """The same seed and length give the same reference points whatever the game's id (the rules bot has
    no noise); the target is out of reach, so 60 hands are played and score far more than 3."""
    short = asyncio.run(bench.reference("g1", 1234, 3))
    assert asyncio.run(bench.reference("other-id", 1234, 3)) == short and len(short) == 5
    assert sum(asyncio.run(bench.reference("g1", 1234, 60))) > sum(short) + 10
