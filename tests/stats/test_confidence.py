"""The leaderboard's statistics (arena.stats.confidence) against hand-computed cases, and their behaviour on
real events.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest

from arena.conductor.tournament import run_event
from arena.event.config import parse_config
from arena.results.store import Store
from arena.stats.confidence import collect, confidence, effective_sharpen, pair_probability, scores
from arena.stats.rating import RatedGame
from tests.helpers import LADDER, call_ace_event


def game(seq: int, seats: tuple[str, ...], scores: tuple[int, ...], hands: int = 10, **kw: Any) -> RatedGame:
    ranks = tuple(1 + sum(t > s for t in scores) for s in scores)
    return RatedGame(seq, kw.pop("game_id", f"g{seq}"), seats, ranks, scores, hands=hands, **kw)


# ------------------------------------------------------------------------------ hand-computed statistics


def test_bootstrap_interval_of_two_games_is_their_extremes() -> None:
    """Two games, a scoring 10 then 0 points in 10 hands: resamples give 1.0, 0.5 or 0.0 points per hand
    with probability 1/4, 1/2, 1/4, so the 95% interval is [0, 1] around the estimate 0.5."""
    games = [game(0, ("a", "b"), (10, 5)), game(1, ("a", "b"), (0, 5))]
    conf = confidence(collect(games, ["a", "b"]), "points", 0.95, event_seed=1)
    a = next(e for e in conf.entrants if e.name == "a")
    assert a.points_per_hand == 0.5
    assert a.points_ci == (0.0, 1.0)
    assert a.mean_rank == 1.5 and a.rank_ci == (1.0, 2.0)
    b = next(e for e in conf.entrants if e.name == "b")
    assert b.points_ci == (0.5, 0.5)  # b scored the same in both: every resample agrees


def test_p_above_on_a_constructed_event_matches_the_normal_formula() -> None:
    """Per game, a - b points differ by d_i (10 hands each): the (n-1)-corrected bootstrap sd of the mean
    difference is the standard error of d/10, so P(a above b) = Φ(mean / (s / sqrt(n)))."""
    diffs = [3, -1, 4, 1, -5, 9, 2, -6, 5, 3, 5, -8, 9, 7, -9, 3, 2, 3, -8, 4]
    games = [game(i, ("a", "b"), (10 + d, 10)) for i, d in enumerate(diffs)]
    n = len(diffs)
    mean = sum(diffs) / n / 10
    sd = math.sqrt(sum((d / 10 - mean) ** 2 for d in diffs) / (n - 1)) / math.sqrt(n)
    expected = NormalDist().cdf(mean / sd)
    conf = confidence(collect(games, ["a", "b"]), "points", 0.95, 3, replicates=4000, sharpen=1.0)
    assert conf.order == ("a", "b")
    assert conf.pairwise[0][1] == pytest.approx(expected, abs=0.02)
    assert conf.pairwise[1][0] == pytest.approx(1 - conf.pairwise[0][1], abs=1e-9)
    assert conf.adjacent[0].probability == conf.pairwise[0][1]
    # the whole order of two is their one pair: read from the replicates, it is that pair's P up to noise
    assert conf.whole == pytest.approx(conf.pairwise[0][1], abs=0.02) and conf.whole <= conf.pairwise[0][1]
    assert not conf.adjacent[0].settled  # about 0.83: open, with a finite estimate of the games it needs
    assert conf.adjacent[0].more_games is not None and conf.adjacent[0].more_games > n


def test_whole_order_is_joint_over_the_replicates_not_the_product_of_the_pairs() -> None:
    """a and c score the same every game; b's score swings. When b is lucky the gap a-b shrinks exactly as
    b-c widens, so the two pairs are rarely both in doubt in one replicate: being right about both is less
    likely than the product of the two pairs' P says only if their errors are anti-correlated, and here they
    are perfectly so (one can fail or the other, never both), so P(whole) = P1 + P2 - 1, below the product."""
    swings = [4, -3, 5, -2, 6, -4, 3, -5, 2, 1, -1, 4, -6, 5, 0, 3, -2, 2, -3, -9]  # mean 0: b is midway
    games = [game(i, ("a", "b", "c"), (20, 10 + 10 * d, 0)) for i, d in enumerate(swings)]
    conf = confidence(collect(games, ["a", "b", "c"]), "points", 0.95, 5, replicates=4000, sharpen=1.0)
    assert conf.order == ("a", "b", "c")
    p1, p2 = (pair.probability for pair in conf.adjacent)
    assert 0.7 < p1 < 0.999 and 0.7 < p2 < 0.999  # both pairs in doubt, so the two figures differ
    assert conf.whole == pytest.approx(p1 + p2 - 1, abs=0.03)
    assert conf.whole < p1 * p2 - 0.01


def test_the_sharpening_ramps_up_over_the_first_fifty_games() -> None:
    assert effective_sharpen(1.75, 0) == 1.0
    assert effective_sharpen(1.75, 25) == pytest.approx(1.375)
    assert effective_sharpen(1.75, 50) == effective_sharpen(1.75, 5000) == 1.75
    assert effective_sharpen(1.0, 10) == 1.0  # the plain bootstrap stays plain


def test_pair_probability_is_the_normal_cdf_of_the_sharpened_gap_over_its_sd() -> None:
    assert pair_probability(1.0, 1.0, sharpen=1.0) == pytest.approx(0.841345, abs=1e-6)
    assert pair_probability(1.0, 1.0, sharpen=1.5) == pytest.approx(NormalDist().cdf(1.5))
    assert pair_probability(0.3, 0.0) == 1.0 and pair_probability(0.0, 0.0) == 0.5


def test_paired_score_cancels_the_luck_of_the_seat_and_deal() -> None:
    """A duplicate block of three rotations: seat 0 holds the good cards (+6). Everyone scores the same from
    the same seat except b, who makes 3 more wherever it sits: only b's paired score differs from zero."""
    base = (8, 2, 2)
    names = ("a", "b", "c")
    games = []
    for r in range(3):
        seats = tuple(names[(s - r) % 3] for s in range(3))
        pts = tuple(base[s] + (3 if seats[s] == "b" else 0) for s in range(3))
        games.append(game(r, seats, pts, block="blk", game_id=f"blk-{r}"))
    units = collect(games, list(names))
    assert units.duplicate and units.count == 1
    paired = scores(units, "paired")
    assert paired["b"] == pytest.approx(2 / 10 * 3 / 3)  # +3 - 1 (its share in the seat mean) per game
    assert paired["a"] == pytest.approx(paired["c"]) == pytest.approx(-1 / 10)


def test_a_forfeit_scores_no_points_and_a_disqualified_entrant_is_printed_last() -> None:
    games = [game(0, ("a", "b"), (10, 2), forfeited=("a",)), game(1, ("a", "b"), (10, 2))]
    units = collect(games, ["a", "b"])
    assert scores(units, "points") == {"a": 0.5, "b": 0.2}
    conf = confidence(units, "points", 0.95, 1, demoted=["a"])
    assert conf.order == ("b", "a") and conf.adjacent[0].probability == 1.0


def test_same_event_same_figures_and_the_seed_is_the_events() -> None:
    games = [game(i, ("a", "b", "c"), (i % 4, (i * 7) % 5, 3)) for i in range(30)]
    units = collect(games, ["a", "b", "c"])
    assert confidence(units, "points", 0.95, 5) == confidence(units, "points", 0.95, 5)
    assert confidence(units, "points", 0.95, 5).pairwise != confidence(units, "points", 0.95, 6).pairwise


# ------------------------------------------------------------------------------ on real games


def test_confidence_rises_with_games_on_a_ladder_with_a_real_gap(tmp_path: Path) -> None:
    entrants = [
        *LADDER,
        {"name": "eps100-b", "class": "sample_bots.noisy:Noisy100"},
        {"name": "eps60", "class": "sample_bots.noisy:Noisy60"},
    ]
    config = parse_config(call_ace_event(tmp_path, entrants, rounds=60))
    asyncio.run(run_event(config))
    with Store.open(config.output) as store:
        games = list(store.rated_games())
    names = [e["name"] for e in entrants]
    p = []
    for n in (5, 20, 60):
        conf = confidence(collect(games[:n], names), "points", 0.95, 11)
        p.append(conf.pairwise[conf.order.index("eps00")][conf.order.index("eps100")])
    assert p[0] < p[1] < p[2] or p[1] == p[2] == 1.0
    assert p[2] >= 0.99


def test_identical_bots_in_duplicate_stay_at_one_half_and_never_settle(tmp_path: Path) -> None:
    """Five copies of the deterministic rules bot on the same deals from every seat play identically, so
    every paired score is 0 and every P(A above B) is exactly 1/2."""
    entrants = [{"name": f"same-{i}", "class": "sample_bots.rules:RulesBot"} for i in range(5)]
    config = parse_config(call_ace_event(tmp_path, entrants, rounds=3, duplicate=True))
    summary = asyncio.run(run_event(config))
    conf = summary.confidence
    assert conf.method == "paired" and conf.unit == "deal block" and conf.units == 3
    assert all(p == 0.5 for i, row in enumerate(conf.pairwise) for j, p in enumerate(row) if i != j)
    assert not any(pair.settled for pair in conf.adjacent)
    assert conf.whole == pytest.approx(0.5**4)
