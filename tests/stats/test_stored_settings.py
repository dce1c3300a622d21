"""The leaderboard reads ``[ranking]`` back from each stored event (``Store.ranking``), and applies the stored
games to TrueSkill in schedule order; both must hold for events stored by any earlier arena."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.stats.leaderboard import RankingConfig
from arena.stats.rating import RatedGame, apply_in_order


def test_a_stored_ranking_comes_back_as_it_was_stored() -> None:
    stored = (
        '{"method": "paired", "confidence": 0.9, "max_games": 10, "check_every": 3, "tie_margin": 0.1, '
        '"look_growth": 2.0, "first_look": 20}'
    )
    ranking = RankingConfig.from_stored(json.loads(stored))
    assert json.dumps(ranking.to_dict()) == stored
    # events stored before planned looks (or before [ranking]) were judged by the confidence sequence
    assert RankingConfig.from_stored({}) == RankingConfig(look_growth=1.0)
    older = RankingConfig.from_stored({"max_games": 10, "tie_margin": 0.1})
    assert older.look_growth == 1.0 and older.plan() is None and RankingConfig().plan() is not None


def test_a_ranking_stored_by_an_earlier_arena_drops_its_retired_sharpening() -> None:
    """Events stored before the sharpening was retired still open; a config file that sets it is told why."""
    old = {"method": "paired", "confidence": 0.9, "max_games": 10, "check_every": 3, "sharpen": 2.0}
    ranking = RankingConfig.from_stored(old)
    assert ranking.confidence == 0.9 and "sharpen" not in ranking.to_dict()
    with pytest.raises(ConfigError, match=r"^ranking.sharpen is no longer an option"):
        RankingConfig.from_dict(old)


def test_numbers_written_as_integers_are_held_as_floats() -> None:
    ranking = RankingConfig.from_dict({"tie_margin": 1})
    assert type(ranking.tie_margin) is float and '"tie_margin": 1.0,' in json.dumps(ranking.to_dict())


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"method": 3}, "ranking.method=3: expected one of auto, points, paired, trueskill"),
        ({"confidence": True}, "ranking.confidence=True: expected a probability in (0.5, 1)"),
        ({"tie_margin": 11}, "ranking.tie_margin=11: expected points per hand 0..10"),
        ({"max_games": 2.0}, "ranking.max_games=2.0: expected an integer 1..10000000"),
    ],
)
def test_a_bad_ranking_is_refused_built_in_code_or_read(raw: dict[str, Any], message: str) -> None:
    for build in (RankingConfig.from_dict, lambda r: RankingConfig(**r)):
        with pytest.raises(ConfigError) as caught:
            build(raw)
        assert str(caught.value) == message


def test_games_out_of_schedule_order_are_a_callers_bug() -> None:
    games = [RatedGame(1, "b", ("a", "b"), (1, 2), (10, 0)), RatedGame(0, "a", ("a", "b"), (2, 1), (0, 10))]
    with pytest.raises(AssertionError, match=r"game a \(seq 0\) comes after seq 1"):
        apply_in_order(games, ["a", "b"])
