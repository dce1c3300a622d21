"""W-L-D, Elo ± error and LOS of a pair, against figures worked out by hand."""

from __future__ import annotations

import math

import pytest

from arena.stats.headtohead import PairRecord, elo_estimate, elo_of, head_to_head, los, record_of


def test_sixty_forty_by_hand() -> None:
    # s = 0.6: Elo = -400·log10(1/0.6 - 1) = -400·log10(2/3) = 70.44; per-game sd² = 0.6·0.4 = 0.24, so
    # s ± 1.96·sqrt(0.24/100) = 0.6 ± 0.0960: Elo 2.77 .. 143.91, half-width 70.57; LOS = Φ(20/10) = Φ(2).
    est = elo_estimate(PairRecord("a", "b", 60, 40, 0))
    assert est.elo == pytest.approx(70.4365, abs=1e-4)
    assert est.error == pytest.approx(70.5712, abs=1e-3)
    assert est.los == pytest.approx(0.97725, abs=1e-5)


def test_draws_count_half_and_leave_los_alone() -> None:
    # 3-1-1: s = 3.5/5 = 0.7, Elo = -400·log10(3/7) = 147.19; the interval 0.7 ± 0.35 leaves (0, 1): no error.
    est = elo_estimate(PairRecord("a", "b", 3, 1, 1))
    assert est.elo == pytest.approx(147.1907, abs=1e-4)
    assert est.error is None
    assert est.los == pytest.approx(0.5 * (1 + math.erf(2 / math.sqrt(2 * 4))))
    assert elo_estimate(PairRecord("a", "b", 3, 1, 9)).los == est.los == los(3, 1)  # draws never enter


def test_degenerate_pairs() -> None:
    assert elo_estimate(PairRecord("a", "b")) == elo_estimate(PairRecord("a", "b", 0, 0, 0))
    assert elo_estimate(PairRecord("a", "b")).los is None
    everything = elo_estimate(PairRecord("a", "b", 5, 0, 0))
    assert everything.elo is None and everything.error is None  # unbounded, as the testers' "inf"
    assert everything.los == pytest.approx(0.5 * (1 + math.erf(5 / math.sqrt(10))))
    drawn = elo_estimate(PairRecord("a", "b", 0, 0, 4))
    assert drawn.elo == 0.0 and drawn.error is None and drawn.los == 0.5  # no spread, no decided game
    assert elo_of(0.5) == 0.0 and elo_of(0.0) is None and elo_of(1.0) is None


def test_symmetric() -> None:
    rec = PairRecord("a", "b", 7, 4, 2)
    mine, theirs = elo_estimate(rec), elo_estimate(rec.flipped())
    assert mine.elo == pytest.approx(-theirs.elo)  # type: ignore[operator]
    assert mine.error == pytest.approx(theirs.error)
    assert mine.los == pytest.approx(1 - theirs.los)  # type: ignore[operator]
    assert rec.wld() == "7-4-2" and rec.flipped().wld() == "4-7-2"


def test_head_to_head_counts_each_shared_game_once() -> None:
    games = [
        (("x", "y", "z"), (1, 2, 3)),
        (("y", "x", "z"), (1, 1, 3)),  # x and y share first: a draw
        (("z", "x", "x"), (1, 2, 3)),  # x twice: never against itself
    ]
    pairs = head_to_head(games, order=["x", "y", "z"])
    assert record_of(pairs, "x", "y") == PairRecord("x", "y", 1, 0, 1)
    assert record_of(pairs, "y", "x") == PairRecord("y", "x", 0, 1, 1)
    assert record_of(pairs, "x", "z") == PairRecord("x", "z", 2, 2, 0)
    assert record_of(pairs, "y", "z") == PairRecord("y", "z", 2, 0, 0)
    assert set(pairs) == {("x", "y"), ("x", "z"), ("y", "z")}  # keyed by the order
    assert record_of(pairs, "x", "nobody").games == 0
