"""TrueSkill ratings (arena.stats.rating): the winner rises, ties move alike, void games and excluded seats
are not rated, and games are applied one at a time in schedule order only.
"""

from __future__ import annotations

import pytest

from arena.stats.rating import HistoryRow, RatedGame, apply_in_order, rate


def test_trueskill_a_bot_that_always_wins_rises_to_the_top() -> None:
    names = ["a", "b", "c", "d", "e"]
    games = [
        RatedGame(
            i,
            f"g{i}",
            tuple(names[(i + k) % 5] for k in range(5)),
            tuple(1 if names[(i + k) % 5] == "c" else 2 + k for k in range(5)),
            (0,) * 5,
        )
        for i in range(30)
    ]
    ratings, history = rate(games, names)
    best = max(names, key=lambda n: ratings[n].mu - 3 * ratings[n].sigma)
    assert best == "c"
    assert ratings["c"].mu > 30 and all(ratings[n].mu < ratings["c"].mu for n in names if n != "c")
    assert len(history) == 30 * 5


def test_trueskill_ties_share_a_rank_and_move_alike() -> None:
    ratings, _ = rate([RatedGame(0, "g", ("a", "b", "c"), (1, 1, 3), (10, 10, 4))], ["a", "b", "c"])
    assert ratings["a"].mu == pytest.approx(ratings["b"].mu, rel=1e-3)  # TrueSkill iterates to 1e-4
    assert ratings["a"].mu > 25 > ratings["c"].mu


def test_void_games_and_excluded_seats_are_not_rated() -> None:
    ratings, history = rate(
        [
            RatedGame(0, "g", ("a", "b"), (1, 2), (10, 0), rated=False),
            RatedGame(1, "h", ("a", "b", "c"), (1, 2, 3), (10, 5, 0), excluded=("c",)),
        ],
        ["a", "b", "c"],
    )
    assert ratings["c"].mu == 25 and {h.game_id for h in history} == {"h"}


def test_ratings_are_applied_one_game_at_a_time_only_in_schedule_order() -> None:
    games = [RatedGame(1, "b", ("a", "b"), (1, 2), (10, 0)), RatedGame(0, "a", ("a", "b"), (2, 1), (0, 10))]
    with pytest.raises(AssertionError, match="seq 0"):
        apply_in_order(games, ["a", "b"])
    streamed: list[HistoryRow] = []
    ratings = apply_in_order(reversed(games), ["a", "b"], streamed.append)
    expected, history = rate(games, ["a", "b"])  # ``rate`` sorts them itself
    assert streamed == history and ratings == expected
