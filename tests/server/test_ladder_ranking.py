"""The ladder's leaderboard is looked at whenever a page opens: its verdicts must hold at every look."""

from __future__ import annotations

from arena.server.board import LADDER_RANKING
from arena.stats.confidence import look
from arena.stats.tally import Tally


def test_the_ladder_judges_by_the_confidence_sequence_not_by_planned_looks() -> None:
    assert LADDER_RANKING.plan() is None
    seen = look(Tally(["a", "b"], keep_rows=True).close(), "auto", 0.95, 1, plan=LADDER_RANKING.plan())
    assert seen.planned_looks == ()
