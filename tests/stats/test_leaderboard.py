"""The leaderboard (arena.stats.leaderboard) as stored: the rating history of a real event."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.conductor.tournament import run_event
from arena.event.config import parse_config
from arena.results.store import Store
from arena.stats.leaderboard import compute_standings
from arena.stats.rating import HistoryRow, rate
from tests.helpers import event


def test_stored_rating_history_is_every_step_in_schedule_order_written_in_batches(tmp_path: Path) -> None:
    config = parse_config(event(tmp_path, rounds=4))
    asyncio.run(run_event(config))
    with Store.open(config.output) as store:
        names = [e.name for e in store.entrants()]
        _, expected = rate(list(store.rated_games()), names)
        with store.rating_history_writer(batch=7) as record:  # 4 games x 5 seats: two full batches and a rest
            compute_standings(store, record)
        query = "SELECT seq, game_id, entrant, mu, sigma FROM ratings ORDER BY seq, entrant"
        rows = [HistoryRow(*row) for row in store.database.rows(query)]
    assert len(expected) == 20
    assert rows == sorted(expected, key=lambda h: (h.seq, h.entrant))
