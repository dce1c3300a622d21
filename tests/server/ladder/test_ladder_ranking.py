"""The ladder's leaderboard is looked at whenever a page opens: its verdicts must hold at every look, so a
real board over stored games judges them by the confidence sequence, not by the planned looks that
``arena run --until-settled`` uses by default."""

from __future__ import annotations

import random
from pathlib import Path

from arena.server.db.database import open_database
from arena.server.ladder.ratings import Board
from arena.server.settings import parse_competition
from arena.stats.leaderboard import RankingConfig
from arena.stats.sequential import boundary, mixture_units
from tests.server.ladder.test_ratings import _field, _games


def test_the_ladder_judges_by_the_confidence_sequence_not_by_planned_looks(tmp_path: Path) -> None:
    assert RankingConfig().plan() is not None  # what an event would use by default
    db = open_database(f"sqlite:///{tmp_path / 'b.sqlite'}")
    _games(db, random.Random(3), 1, 120, _field(db, 5))
    board = Board(db, parse_competition({"name": "b", "game": {"variant": "five-handed"}}))
    board.refresh(force=True)
    conf = board.confidence
    assert conf is not None and conf.planned_looks == ()
    n = conf.units
    assert conf.boundary == boundary(n, conf.level, mixture_units(conf.games / n))
    db.close()
