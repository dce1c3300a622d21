"""The open ladder's order and how sure it is (arena.stats.skill): by mu − 3σ, with P and rank ranges of
the TrueSkill skill, never a tie, worded by arena.stats.wording as an event's board is."""

from __future__ import annotations

import math
from statistics import NormalDist

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.stats import wording
from arena.stats.rating import Standing, conservative
from arena.stats.sequential import Verdict
from arena.stats.skill import Rated, skill_confidence


def test_the_order_is_by_mu_minus_three_sigma_and_p_is_of_the_skill() -> None:
    # b has the higher mu but the wider σ: ordered below a, and P(a above b) is below one half.
    field = [Rated("b", 32.0, 2.0, 40), Rated("a", 30.0, 0.7, 400), Rated("c", 20.0, 0.7, 400)]
    conf = skill_confidence(field, 0.95, 1, 500)
    assert conf.order == ("a", "b", "c")
    assert [e.score for e in conf.entrants] == [
        conservative(30, 0.7),
        conservative(32, 2),
        conservative(20, 0.7),
    ]
    p_ab = NormalDist().cdf((30 - 32) / math.hypot(0.7, 2.0))
    assert math.isclose(conf.adjacent[0].probability, p_ab) and p_ab < 0.5
    assert math.isclose(conf.pairwise[1][0], 1 - p_ab)
    # c is far below both: shown below them, a tier of its own; a and b are not told apart.
    assert conf.rank_ranges() == [(1, 2), (1, 2), (3, 3)]
    assert conf.tiers() == [1, 1, 2]
    assert [p.verdict for p in conf.adjacent] == [Verdict.OPEN, Verdict.ABOVE]
    assert conf.winner() is None and conf.may_be_first() == ["a", "b"]


def test_a_newcomer_may_be_anywhere_and_one_far_ahead_is_first() -> None:
    field = [Rated("top", 40.0, 0.8, 300), Rated("mid", 30.0, 0.8, 300), Rated("new", 25.0, 25 / 3, 0)]
    conf = skill_confidence(field, 0.95, 1, 300)
    assert conf.order == ("top", "mid", "new")
    # top is shown above mid (10 points of mu, σ 0.8 each), but the newcomer's σ of 8.3 leaves it anywhere.
    assert conf.rank_ranges() == [(1, 2), (2, 3), (1, 3)]
    assert conf.may_be_first() == ["top", "new"]
    sentence = wording.verdict_sentence(conf)
    assert sentence.startswith("No winner yet: top and new may be first (at 0.95).")
    assert "ied" not in sentence  # no tie, ever: TrueSkill has no margin


def test_no_games_states_nothing() -> None:
    conf = skill_confidence([Rated("a", 25.0, 25 / 3, 0), Rated("b", 25.0, 25 / 3, 0)], 0.95, 1, 0)
    assert conf.rank_ranges() == [(1, 2), (1, 2)]
    assert wording.verdict_sentence(conf) == "No games yet: nothing is known of the order."


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 50), st.floats(0.3, 8.4), st.integers(0, 500)), min_size=2, max_size=12)
)
def test_never_tied_and_every_shown_pair_is_the_way_the_skills_lean(
    rows: list[tuple[float, float, int]],
) -> None:
    field = [Rated(f"e{i}", mu, sigma, n) for i, (mu, sigma, n) in enumerate(rows)]
    conf = skill_confidence(field, 0.95, 3, 100)
    assert all(p.verdict is not Verdict.TIED for p in conf.adjacent)
    assert conf.ranks is not None
    by_name = {e.name: e for e in field}
    for i, j in conf.ranks.shown:
        assert by_name[conf.order[i]].mu > by_name[conf.order[j]].mu
        assert conf.pairwise[i][j] > 0.95
    for lo, hi in conf.rank_ranges():
        assert 1 <= lo <= hi <= len(field)
    for row in conf.pairwise:
        assert all(0 <= p <= 1 for p in row)


def test_the_ladder_columns_come_from_the_one_list() -> None:
    event = wording.columns("points")
    ladder = wording.columns("trueskill", ladder=True)
    assert not any(c.ladder_only for c in event)  # the terminal's, the report's and a final's: unchanged
    assert [c.key for c in ladder if not c.ladder_only] == [c.key for c in event]
    score = next(c for c in ladder if c.key == "score")
    assert score.label == "mu − 3σ" and "the order is by this" in score.meaning
    rating = next(c for c in ladder if c.key == "rating")
    assert "the order is by its mu − 3σ" in rating.meaning
    assert "does not set the order" in next(c for c in event if c.key == "rating").meaning
    field = [Rated("a", 30.0, 0.7, 400, 0.81), Rated("b", 20.0, 0.7, 400, 0.4)]
    conf = skill_confidence(field, 0.95, 1, 500)
    cells = wording.cells(Standing("a", 30.0, 0.7, 400, extra={"version": "v3"}), conf, 0)
    assert cells["score"] == f"{conservative(30, 0.7):.2f}"  # not signed: a rating, not a difference
    assert (cells["version"], cells["points_per_hand"], cells["rating"]) == ("v3", "0.81", "30.0 ±0.7")
    assert cells["place"] == "1" and cells["p_next"] == "over 0.99"
