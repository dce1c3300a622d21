"""Rank ranges from all pairs (arena.stats.ranks): hand-computed small cases, their joint coverage over
seeded synthetic events of identical and of graded fields, and the sentences that read them."""

from __future__ import annotations

import math
from random import Random
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.stats.confidence import look
from arena.stats.leaderboard import answered
from arena.stats.ranks import rank_ranges, step_down, t_boundary
from arena.stats.rating import RatedGame
from arena.stats.sequential import LookPlan
from arena.stats.tally import Tally
from arena.stats.wording import verdict_sentence

Z = NormalDist()


def holm(alpha: float = 0.05) -> Any:
    return lambda share: Z.inv_cdf(1 - alpha * share)


def test_three_entrants_by_hand() -> None:
    """Gaps a−b 3 se, b−c 1 se, a−c 4 se. Six ordered pairs: the first step tests each at 0.05/6, one-sided,
    z = 2.394: a above b (3) and a above c (4) are shown; then four remain, z = 2.241, and b − c (1) is not.
    So a is [1, 1]; b and c are each [2, 3]; a alone is the first tier."""
    gaps = np.array([[0, 3, 4], [-3, 0, 1], [-4, -1, 0]], dtype=float)
    ses = np.ones((3, 3))
    shown = step_down(gaps, ses, [0, 1, 2], holm())
    assert shown == {(0, 1), (0, 2)}
    ranks = rank_ranges(3, [0, 1, 2], shown)
    assert ranks.ranges == ((1, 1), (2, 3), (2, 3))
    assert ranks.tiers == (1, 2, 2)
    assert ranks.may_be_first() == [0]


def test_the_step_down_rejects_what_one_step_would_not() -> None:
    """Gaps 2.35 se apart in a row of three (a−c 4.7): the first step (z 2.394 at 0.05/6) shows only a over
    c; with five left (c over a stays untested-positive: z 2.326 at 0.05/5) a over b and b over c follow:
    every range is a single place. A single step would have left b and c in [2, 3] and a in [1, 2]."""
    gaps = np.array([[0, 2.35, 4.7], [-2.35, 0, 2.35], [-4.7, -2.35, 0]])
    shown = step_down(gaps, np.ones((3, 3)), [0, 1, 2], holm())
    assert shown == {(0, 2), (0, 1), (1, 2)}
    assert rank_ranges(3, [0, 1, 2], shown).ranges == ((1, 1), (2, 2), (3, 3))


def test_entrants_placed_by_rule_share_the_last_places() -> None:
    """Two rated entrants, a shown above b; two disqualified ones after them by rule."""
    ranks = rank_ranges(4, [0, 1], {(0, 1)})
    assert ranks.ranges == ((1, 1), (2, 2), (3, 4), (3, 4))
    assert ranks.tiers == (1, 2, 3, 3)


def test_the_lone_one_that_may_be_first_is_first() -> None:
    """b and c are each shown below a or below each other, so only a may be first; a's range is [1, 1] even
    though a itself is shown above only c."""
    ranks = rank_ranges(3, [0, 1, 2], {(0, 2), (1, 2)} | {(0, 1)} - {(0, 1)} | {(2, 1)} - {(2, 1)})
    assert ranks.may_be_first() == [0, 1]
    ranks = rank_ranges(3, [0, 1, 2], {(0, 1), (1, 2)})
    assert ranks.ranges[0] == (1, 1)


def test_t_boundary_is_students_quantile() -> None:
    """Against scipy's quantile where it is installed, else against printed tables (t 0.975: 2.262 at 9
    df, 2.093 at 19)."""
    assert t_boundary(Z.inv_cdf(0.975), 9) == pytest.approx(2.262, abs=2e-3)
    assert t_boundary(Z.inv_cdf(0.975), 19) == pytest.approx(2.093, abs=2e-3)
    assert t_boundary(3.3, 19) == pytest.approx(3.898, abs=5e-3)
    assert t_boundary(2.0, math.inf) == 2.0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-2, 2), min_size=2, max_size=9),
    st.floats(0.01, 1.0),
)
def test_ranges_are_consistent(scores: list[float], se: float) -> None:
    """Whatever the scores: each range is within 1..k, lo <= hi, the shown pairs follow the order of the
    scores, and every rank 1..k lies in some entrant's range."""
    k = len(scores)
    order = sorted(range(k), key=lambda i: -scores[i])
    s = np.array([scores[i] for i in order])
    gaps = s[:, None] - s[None, :]
    shown = step_down(gaps, np.full((k, k), se * math.sqrt(2)), list(range(k)), holm())
    assert all(s[i] > s[j] for i, j in shown)
    ranks = rank_ranges(k, list(range(k)), shown)
    assert all(1 <= lo <= hi <= k for lo, hi in ranks.ranges)
    for r in range(1, k + 1):
        assert any(lo <= r <= hi for lo, hi in ranks.ranges)


def synthetic(strengths: list[float], units: int, seed: int) -> tuple[Tally, list[str]]:
    """Games of every entrant at one table, each scoring its strength plus normal noise (sd 3 points over
    10 hands): a field whose truth is known."""
    rng = Random(seed)
    names = [f"e{i:02d}" for i in range(len(strengths))]
    tally = Tally(names)
    games = []
    for u in range(units):
        scores = tuple(round(10 * s + rng.gauss(0, 3)) for s in strengths)
        ranks = tuple(1 + sum(t > x for t in scores) for x in scores)
        games.append(RatedGame(u, f"g{u}", tuple(names), ranks, scores, hands=10))
    tally.add(games).close()
    return tally, names


PLAN = LookPlan(100, 1.5, 400, 200.0)


def wrong(tally: Tally, strengths: dict[str, float], plan: LookPlan | None) -> bool:
    conf = look(tally, "points", 0.95, 1, plan=plan)
    assert conf.ranks is not None
    return any(strengths[conf.order[i]] <= strengths[conf.order[j]] for i, j in conf.ranks.shown)


@pytest.mark.parametrize("field", ["identical", "graded"])
def test_the_ranges_cover_jointly_over_seeded_events(field: str) -> None:
    """Over 60 seeded events of 8 entrants (identical, or graded in four tiers of two copies), looked at at
    every planned look up to 400 games: in at least 95% of events no pair is ever shown in the wrong order
    (or ordered while tied), so every true rank lies in its range at every look. (A test at the one-look
    level 1.96 without the step-down's share of α shows a wrong pair in most identical events.)"""
    base = [0.0] * 8 if field == "identical" else [1.0, 1.0, 0.8, 0.8, 0.6, 0.6, 0.4, 0.4]
    failures = 0
    for seed in range(60):
        rng = Random(seed)
        names = [f"e{i:02d}" for i in range(8)]
        tally = Tally(names)
        truth = dict(zip(names, base, strict=True))
        ever = False
        last = 0
        for b in PLAN.points(1):
            games = []
            for u in range(last, b):
                scores = tuple(round(10 * s + rng.gauss(0, 3)) for s in base)
                ranks = tuple(1 + sum(t > x for t in scores) for x in scores)
                games.append(RatedGame(u, f"g{u}", tuple(names), ranks, scores, hands=10))
            tally.add(games).close()
            last = b
            ever = ever or wrong(tally, truth, PLAN)
        failures += ever
    assert failures <= 3


def test_a_graded_field_is_told_apart() -> None:
    """The same graded field at 400 games: the top pair's ranges lie above the bottom pair's, and the
    board names tiers (the power the neighbour-only places lacked)."""
    tally, _ = synthetic([1.0, 1.0, 0.8, 0.8, 0.6, 0.6, 0.4, 0.4], 400, 5)
    conf = look(tally, "points", 0.95, 1, plan=PLAN)
    ranges = conf.rank_ranges()
    assert max(hi for lo, hi in ranges[:2]) < min(lo for lo, hi in ranges[-2:])
    assert len(set(conf.tiers())) >= 2
    assert "tiers: places" in verdict_sentence(conf)


def test_copies_get_a_p_near_one_half_and_far_pairs_near_certainty() -> None:
    """Four tiers of two copies: P for each copy pair is between 0.05 and 0.95; P for the top tier over the
    bottom is over 0.99 (the prior is fitted to the whole field, not to the neighbours' gaps)."""
    tally, _ = synthetic([1.0, 1.0, 0.8, 0.8, 0.6, 0.6, 0.4, 0.4], 300, 7)
    conf = look(tally, "points", 0.95, 1, plan=PLAN)
    p = {(a, b): conf.pairwise[i][j] for i, a in enumerate(conf.order) for j, b in enumerate(conf.order)}
    for a, b in (("e00", "e01"), ("e02", "e03"), ("e04", "e05"), ("e06", "e07")):
        assert 0.05 < p[a, b] < 0.95
    assert min(p[a, b] for a in ("e00", "e01") for b in ("e06", "e07")) > 0.99


# ------------------------------------------------------------------------------ sentences, as text


def test_sentence_of_one_game() -> None:
    tally, _ = synthetic([1.0, 0.5, 0.0], 1, 1)
    conf = look(tally, "points", 0.95, 1, plan=PLAN)
    assert verdict_sentence(conf) == (
        "No winner yet: any of the 3 ranked entrants may be first (at 0.95). One tier: no group of entrants "
        "is yet shown better than the rest."
    )


def test_sentence_of_two_entrants_told_apart() -> None:
    tally, _ = synthetic([1.5, 0.0], 200, 1)
    conf = look(tally, "points", 0.95, 1, plan=PLAN)
    assert verdict_sentence(conf) == (
        "e00 is first (every other entrant is shown below someone, at 0.95). Every place is settled: each "
        "entrant is shown better than every one below it (at 0.95)."
    )
    assert answered(conf, "winner") and answered(conf, "tiers") and answered(conf, "top", 1)


def test_sentence_with_a_disqualified_entrant() -> None:
    tally, _ = synthetic([1.5, 0.0, 0.7], 200, 1)
    conf = look(tally, "points", 0.95, 1, demoted={"e02"}, plan=PLAN)
    assert conf.order[-1] == "e02" and conf.rank_ranges()[-1] == (3, 3)
    assert verdict_sentence(conf).endswith(
        "e02 is placed last by rule (disqualified, or without a rated game)."
    )


def test_sentence_of_all_tied() -> None:
    """Three identical deterministic entrants: every neighbour is shown within the margin, none above."""
    names = ["a", "b", "c"]
    tally = Tally(names)
    rng = Random(2)
    games = []
    for u in range(300):
        x = rng.randint(0, 10)
        games.append(RatedGame(u, f"g{u}", tuple(names), (1, 1, 1), (x, x, x), hands=10))
    tally.add(games).close()
    conf = look(tally, "points", 0.95, 1, plan=PLAN)
    assert verdict_sentence(conf) == (
        "No winner yet: any of the 3 ranked entrants may be first (at 0.95). One tier: no group of entrants "
        "is yet shown better than the rest. Tied (shown within 0.08 points per hand): 1 a and 2 b; 2 b and "
        "3 c."
    )
    assert answered(conf, "order") and answered(conf, "tiers") and not answered(conf, "winner")


def test_sentence_of_thirty_entrants_names_few() -> None:
    """Thirty entrants in ten tiers: the sentence lists at most four names of those that may be first."""
    tally, _ = synthetic([t / 4 for t in range(10) for _ in range(3)][::-1], 60, 3)
    conf = look(tally, "points", 0.95, 1, plan=PLAN)
    text = verdict_sentence(conf)
    assert text.startswith("No winner yet:") and text.count("e") < 200
    assert "more may be first" in text or "ranked entrants may be first" in text


def reference_step_down(
    gaps: np.ndarray, ses: np.ndarray, rated: list[int], critical: Any, df: np.ndarray | None
) -> set[tuple[int, int]]:
    """Holm's step-down written pair by pair, as the definition in arena.stats.ranks reads."""
    stat = {}
    for i in rated:
        for j in rated:
            if i != j:
                few = df is not None and df[i, j] < 9
                ok = ses[i, j] > 0 and math.isfinite(ses[i, j]) and math.isfinite(gaps[i, j]) and not few
                stat[i, j] = gaps[i, j] / ses[i, j] if ok else -math.inf
    remaining, shown = set(stat), set()
    while remaining:
        c = critical(1 / len(remaining))
        new = {p for p in remaining if stat[p] > (c if df is None else t_boundary(c, float(df[p])))}
        if not new:
            break
        shown |= new
        remaining -= new
    return shown


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 9),
    st.integers(0, 10_000),
    st.booleans(),
)
def test_the_vectorised_step_down_is_the_pairwise_one(k: int, seed: int, with_df: bool) -> None:
    """The step-down over arrays (one look of 30 entrants in a few milliseconds) shows exactly the pairs
    the pair-by-pair definition shows: random gaps, spreads (some zero or missing) and degrees of freedom
    (some under the floor of nine), a random subset rated."""
    rng = np.random.default_rng(seed)
    s = rng.normal(0, 1.5, k)
    gaps = s[:, None] - s[None, :]
    ses = rng.uniform(0.2, 1.0, (k, k))
    ses = (ses + ses.T) / 2
    ses[rng.random((k, k)) < 0.05] = 0.0
    ses[rng.random((k, k)) < 0.05] = math.nan
    df = rng.integers(0, 60, (k, k)).astype(float) if with_df else None
    rated = sorted(int(i) for i in rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False))
    assert step_down(gaps, ses, rated, holm(), df) == reference_step_down(gaps, ses, rated, holm(), df)
