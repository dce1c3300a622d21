"""The leaderboard's statistics (arena.stats.confidence, tally, sequential, ebayes) against hand-computed
cases, and their behaviour on real events and on fields of identical entrants.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from random import Random
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest

from arena.conductor.tournament import run_event
from arena.event.config import parse_config
from arena.results.store import Store
from arena.stats.confidence import collect, confidence, look, scores
from arena.stats.ebayes import Prior, fit_prior, posterior
from arena.stats.rating import RatedGame
from arena.stats.sequential import Verdict, boundary, decide
from arena.stats.tally import Tally
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


def test_p_above_of_a_lone_pair_is_the_normal_formula_on_the_exact_standard_error() -> None:
    """Per game, a - b points differ by d_i (10 hands each). The delta-method standard error of the gap is
    the standard error of the mean of d/10 (no resampling noise), and with one pair there is no field to
    learn a prior from, so P(a above b) = Φ(mean / se) exactly; the verdict's interval is mean ± b(n)·se."""
    diffs = [3, -1, 4, 1, -5, 9, 2, -6, 5, 3, 5, -8, 9, 7, -9, 3, 2, 3, -8, 4]
    games = [game(i, ("a", "b"), (10 + d, 10)) for i, d in enumerate(diffs)]
    n = len(diffs)
    mean = sum(diffs) / n / 10
    se = math.sqrt(sum((d / 10 - mean) ** 2 for d in diffs) / (n - 1)) / math.sqrt(n)
    conf = confidence(collect(games, ["a", "b"]), "points", 0.95, 3)
    pair = conf.adjacent[0]
    assert conf.order == ("a", "b") and pair.gap == pytest.approx(mean)
    assert pair.probability == pytest.approx(NormalDist().cdf(mean / se), abs=1e-9)
    assert conf.pairwise[1][0] == pytest.approx(1 - pair.probability, abs=1e-9)
    rho = 40.0  # MIXTURE_GAMES, one game per unit
    b = math.sqrt((n + rho) / n * math.log((n + rho) / (rho * 0.05**2)))
    assert conf.boundary == pytest.approx(b)
    assert pair.interval == pytest.approx((mean - b * se, mean + b * se))
    assert pair.verdict is Verdict.OPEN and not pair.settled  # about 0.83: open, with a finite estimate
    assert pair.more_games is not None and pair.more_games > n
    assert conf.whole == pair.probability  # the whole order of two is its one pair


def test_the_delta_method_spread_agrees_with_the_bootstrap() -> None:
    """The bootstrap interval of a's points per hand is about ±1.96 of the delta-method standard error."""
    rng = Random(4)
    games = [game(i, ("a", "b", "c"), tuple(rng.randint(0, 12) for _ in range(3))) for i in range(200)]
    units = collect(games, ["a", "b", "c"])
    conf = confidence(units, "points", 0.95, 1, replicates=2000)
    cov = Tally(["a", "b", "c"]).add(games).close().totals["points"].covariance()
    a = next(e for e in conf.entrants if e.name == "a")
    assert (a.points_ci[1] - a.points_ci[0]) / 2 == pytest.approx(1.96 * math.sqrt(cov[0, 0]), rel=0.08)


def test_a_tally_fed_game_by_game_gives_the_figures_of_one_fed_at_once() -> None:
    """--until-settled adds the games of each look to a running tally; its figures are the leaderboard's."""
    rng = Random(9)
    games = [game(i, ("a", "b", "c"), tuple(rng.randint(0, 12) for _ in range(3))) for i in range(60)]
    running = Tally(["a", "b", "c"])
    for start in range(0, 60, 15):
        running.add(games[start : start + 15]).close()
    once = Tally(["a", "b", "c"], keep_rows=True).add(games).close()
    assert look(running, "points", 0.9, 2) == look(once, "points", 0.9, 2)
    full = confidence(once.units(), "points", 0.9, 2, tally=once)
    assert full.adjacent == look(running, "points", 0.9, 2).adjacent


def test_an_event_with_method_trueskill_orders_and_states_as_points() -> None:
    """docs/config.md: "trueskill" orders an event as "points" does; it raised KeyError in the look."""
    rng = Random(4)
    games = [game(i, ("a", "b", "c"), tuple(rng.randint(0, 12) for _ in range(3))) for i in range(40)]
    tally = Tally(["a", "b", "c"], keep_rows=True).add(games).close()
    assert look(tally, "trueskill", 0.95, 3) == look(tally, "points", 0.95, 3)
    full = confidence(tally.units(), "trueskill", 0.95, 3, tally=tally)
    assert full.method == "points" and full.order == look(tally, "points", 0.95, 3).order


def test_the_verdicts_by_hand() -> None:
    """Above: the interval clears zero; tied: it lies inside ± the margin; open otherwise; and nothing is
    decided on fewer than MIN_UNITS units."""
    b = math.sqrt((100 + 40) / 100 * math.log((100 + 40) / (40 * 0.05**2)))  # 100 games, level 0.95
    assert decide(0.031, 0.01, 100, 0.95, 0.05, 40.0)[0] is (
        Verdict.ABOVE if b * 0.01 < 0.031 else Verdict.OPEN
    )
    assert decide(0.5, 0.1, 100, 0.95, 0.05, 40.0) == (Verdict.ABOVE, 0.5 - b * 0.1, 0.5 + b * 0.1)
    assert decide(0.01, 0.01, 100, 0.95, 0.05, 40.0)[0] is Verdict.TIED  # 0.01 + 3.1 * 0.01 < 0.05
    assert decide(0.01, 0.02, 100, 0.95, 0.05, 40.0)[0] is Verdict.OPEN
    assert decide(0.01, 0.01, 100, 0.95, 0.0, 40.0)[0] is Verdict.OPEN  # no margin: never tied
    assert decide(0.5, 0.01, 9, 0.95, 0.05, 40.0)[0] is Verdict.OPEN
    assert boundary(40, 0.95, 40.0) == pytest.approx(math.sqrt(2 * math.log(2 / 0.0025)))


def test_the_boundary_holds_under_continuous_monitoring_of_a_null_walk() -> None:
    """The confidence sequence's promise: a walk of mean 0 crosses ± b(n)·sqrt(n) at some n <= 2000 in at
    most alpha of walks (normal steps, unit variance; 2000 seeded walks; a fixed 1.96 crosses in most)."""
    rng = np.random.default_rng(5)
    steps = rng.standard_normal((2000, 2000))
    walks = np.cumsum(steps, axis=1)
    n = np.arange(1, 2001)
    edge = np.array([boundary(int(k), 0.95, 40.0) for k in n]) * np.sqrt(n)
    crossed = np.mean(np.any(np.abs(walks[:, 9:]) >= edge[9:], axis=1))
    fixed = np.mean(np.any(np.abs(walks[:, 9:]) >= 1.96 * np.sqrt(n[9:]), axis=1))
    assert crossed <= 0.05 and fixed > 0.3


def test_the_prior_learns_a_field_of_copies_and_a_ladder() -> None:
    """Gaps all within noise: the weight goes to "exactly equal" and every P stays near 1/2; gaps many
    standard errors wide: it goes to the wide components and a modest gap is believed."""
    rng = Random(2)
    same = fit_prior([rng.gauss(0, 0.02) for _ in range(15)], [0.02] * 15)
    near = sum(
        w for c, sc, w in zip(same.centres(), same.scales, same.weights, strict=True) if abs(c) + sc <= 0.01
    )
    assert near > 0.9  # all but nothing on gaps beyond half a standard error
    assert posterior(same, 0.04, 0.02).finishes_above < 0.75  # z = 2 among copies: still a coin, nearly
    ladder = fit_prior([0.1 * k + rng.gauss(0, 0.02) for k in (1, 2, 3, 4, 5) * 3], [0.02] * 15)
    assert ladder.null < 0.1
    assert posterior(ladder, 0.04, 0.02).finishes_above > 0.85
    assert posterior(ladder, 0.2, 0.02).finishes_above > NormalDist().cdf(10) - 1e-9


def test_the_posterior_by_hand() -> None:
    """A prior of half "equal", half N(0, 1): for gap 1 ± 1 the evidence for each is N(1; 0, 1) against
    N(1; 0, 2); within the normal part the gap is N(1/2, 1/2)."""
    prior = Prior((0.0, 1.0), (0.5, 0.5))
    null, wide = NormalDist(0, 1).pdf(1), NormalDist(0, math.sqrt(2)).pdf(1)
    equal = null / (null + wide)
    post = posterior(prior, 1.0, 1.0, margin=0.5)
    assert post.equal == pytest.approx(equal)
    assert post.above == pytest.approx((1 - equal) * (1 - NormalDist(0.5, math.sqrt(0.5)).cdf(0)))
    inside = NormalDist(0.5, math.sqrt(0.5)).cdf(0.5) - NormalDist(0.5, math.sqrt(0.5)).cdf(-0.5)
    assert post.within == pytest.approx(equal + (1 - equal) * inside)
    assert post.finishes_above == pytest.approx(post.above + equal / 2)


def test_places_and_the_summary_show_ties() -> None:
    """Two neighbours shown to be within the margin are tied, and each place is its rank range: a is first
    for sure, b, c and d (d's points spread widely about b's and c's) may be any of 2 to 4; the line for
    the organiser says which pairs are settled, tied or open."""
    rng = Random(3)
    games = [
        game(
            i,
            ("a", "b", "c", "d"),
            (30 + rng.randint(-2, 2), 10, 10 + rng.choice((-1, 1)), rng.randint(-10, 30)),
        )
        for i in range(200)
    ]
    conf = confidence(collect(games, list("abcd")), "points", 0.95, 1, margin=0.2)
    assert conf.order[0] == "a" and set(conf.order[1:3]) == {"b", "c"}
    assert [p.verdict for p in conf.adjacent[:2]] == [Verdict.ABOVE, Verdict.TIED]
    assert conf.places() == ["1", "2–4", "2–4", "2–4"]
    assert conf.tiers() == [1, 2, 2, 2] and conf.winner() == "a"
    assert conf.summary().startswith("Not settled at 0.95 (1 of 3 pairs open): 1 > 2 = 3 ? 4")
    assert "= tied within 0.2 points per hand" in conf.summary()


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
    five, six = confidence(units, "points", 0.95, 5), confidence(units, "points", 0.95, 6)
    assert five.pairwise == six.pairwise  # the pairs' figures are exact: no resampling
    assert five.entrants != six.entrants  # the bootstrap's seed


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
    p, verdicts = [], []
    for n in (5, 20, 60):
        conf = confidence(collect(games[:n], names), "points", 0.95, 11)
        p.append(conf.pairwise[conf.order.index("eps00")][conf.order.index("eps100")])
        verdicts.append([pair.verdict for pair in conf.adjacent])
    assert p[0] <= p[1] + 1e-9 and p[1] <= p[2] + 1e-9 and p[2] >= 0.99
    assert verdicts[0] == [Verdict.OPEN] * 4  # 5 games: fewer than MIN_UNITS
    assert Verdict.ABOVE in verdicts[2]


def test_identical_bots_in_duplicate_stay_at_one_half_and_never_settle(tmp_path: Path) -> None:
    """Five copies of the deterministic rules bot on the same deals from every seat play identically, so
    every paired score is 0 and every P(A above B) is exactly 1/2."""
    entrants = [{"name": f"same-{i}", "class": "sample_bots.rules:RulesBot"} for i in range(5)]
    config = parse_config(call_ace_event(tmp_path, entrants, rounds=3, duplicate=True))
    summary = asyncio.run(run_event(config))
    conf = summary.confidence
    assert conf.method == "paired" and conf.unit == "deal block" and conf.units == 3
    assert all(
        p == pytest.approx(0.5) for i, row in enumerate(conf.pairwise) for j, p in enumerate(row) if i != j
    )
    assert conf.prior_null > 0.3  # the rest on widths far below any gap seen
    assert all(p.p_tied == pytest.approx(1.0, abs=1e-4) for p in conf.adjacent)
    assert not any(pair.settled for pair in conf.adjacent)  # 3 blocks: fewer than MIN_UNITS
    # five exchangeable entrants: one order of 5! (multiplying the neighbours' ½ said 1/16)
    assert conf.whole == pytest.approx(1 / 120, abs=0.006)
