"""The ladder's leaderboard orders by TrueSkill's mu − 3σ (versions come and go), and its places, tiers and
P are of that same TrueSkill skill (arena.stats.skill), never of points per hand: a real board over stored
games, its rows and its JSON compared with the ratings they come from."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path
from statistics import NormalDist

from arena.server.db.database import open_database
from arena.server.ladder.ratings import LEVEL, Board, ladder_columns
from arena.server.settings import parse_competition
from arena.stats import wording
from arena.stats.rating import conservative
from arena.stats.skill import Rated, skill_confidence
from tests.server.ladder.test_ratings import _field, _games


def test_the_ladder_states_places_and_p_of_the_number_it_orders_by(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'b.sqlite'}")
    _games(db, random.Random(3), 1, 160, _field(db, 5))
    board = Board(db, parse_competition({"name": "b", "game": {"variant": "five-handed"}}))
    board.refresh(force=True)
    rows = board.rows
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]
    lows = [conservative(r.mu, r.sigma) for r in rows]
    assert lows == sorted(lows, reverse=True)  # the order: mu − 3σ
    for upper, lower in itertools.pairwise(rows):
        p = NormalDist().cdf((upper.mu - lower.mu) / math.hypot(upper.sigma, lower.sigma))
        assert upper.p_above_next is not None and math.isclose(upper.p_above_next, p)
        assert math.isclose(upper.p_above[lower.entrant], round(p, 4))
    assert rows[-1].p_above_next is None
    again = skill_confidence(
        [Rated(r.entrant, r.mu, r.sigma, r.games) for r in rows], LEVEL, board.config.ladder.seed, 1
    )
    assert [r.place for r in rows] == again.places() and [r.tier for r in rows] == again.tiers()
    assert board.confidence is not None and board.confidence.method == "trueskill"
    # every cell is the one list's, in its words: the P column is labelled and meant as TrueSkill's
    labels = {c.key: c for c in ladder_columns()}
    assert labels["score"].label == "mu − 3σ" and "TrueSkill skill" in labels["p_next"].meaning
    assert [r.cells["p_next"] for r in rows[:-1]] == [wording.p_text(r.p_above_next or 0) for r in rows[:-1]]
    assert all(r.verdict_next != "tied" for r in rows)
    data = rows[0].to_dict()
    assert data["rank_range"] == list(rows[0].rank_range) and data["place"] == rows[0].place
    assert data["score"] == round(lows[0], 4)
    db.close()
