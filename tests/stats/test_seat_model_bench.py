"""bench/ranking_seats.py measures a seat and table-mate model (not adopted: docs/ranking.md); its least
squares must be right, and its predictable fit must correct a unit only with what came before it, or the
corrected units would not be valid for the verdicts and its figures would mean nothing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from random import Random
from types import ModuleType

import pytest

from arena.stats.rating import RatedGame

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("ranking_seats", BENCH / "ranking_seats.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_the_seat_effects_by_hand(bench: ModuleType) -> None:
    """Two equal entrants on two seats, the first seat always 2 points per hand better: seat effects +1 and
    -1, and every corrected score is the entrants' common 2 per hand (4 with 2 hands)."""
    games = [
        RatedGame(0, "g0", ("a", "b"), (1, 2), (3, 1), hands=1),
        RatedGame(1, "g1", ("b", "a"), (1, 2), (6, 2), hands=2),
    ]
    model = bench.SeatModel(["a", "b"], 2)
    for g in games:
        model.add(g)
    seat, sit = model.effects()
    assert seat == pytest.approx([1.0, -1.0]) and sit.size == 0
    assert [model.correct(g, seat, sit).scores for g in games] == [
        pytest.approx((2.0, 2.0)),
        pytest.approx((4.0, 4.0)),
    ]


def test_the_predictable_fit_uses_only_earlier_units(bench: ModuleType) -> None:
    """Changing the last game changes no corrected score before it, and the first WARMUP units are left
    as they were; the in-sample fit, by contrast, moves every game."""
    rng = Random(5)
    entrants = [f"e{i}" for i in range(6)]

    def games(last: int) -> list[RatedGame]:
        out = []
        for g in range(60):
            seats = tuple(rng.sample(entrants, 5))
            scores = tuple(rng.randint(0, 12) for _ in seats) if g < 59 else (last,) * 5
            out.append(RatedGame(g, f"g{g}", seats, (1, 2, 3, 4, 5), scores, hands=6))
        return out

    rng.seed(5)
    one = games(0)
    rng.seed(5)
    other = games(60)
    fixed, moved = bench.predictable(one, entrants), bench.predictable(other, entrants)
    assert fixed[: bench.WARMUP] == one[: bench.WARMUP]
    assert fixed[:-1] == moved[:-1] and fixed[30] != one[30]
    assert bench.in_sample(one, entrants)[:-1] != bench.in_sample(other, entrants)[:-1]
