"""What an entrant's analytics cost: ``python bench/server_analytics.py GAMES``.

Stores GAMES five-handed ladder games (real hand records: random legal play by the engine, reused round
the games) in a fresh SQLite database, with one entrant at every table, and times what one request to its
analytics page computes (``arena.server.analytics.service``: its games, the figures of their hands and faults,
the head-to-head) and one to its filtered list of games. docs/server.md quotes the figures.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, ".")  # the repository's arena, not bench/arena.py

from sqlalchemy import insert

from arena.engine.config import GameConfig
from arena.engine.records import hand_record
from arena.engine.state import GameState
from arena.server.analytics import service as analytics
from arena.server.db.database import ServerDatabase, open_database
from arena.server.db.models import Game, GameSeat, Hand, User, Version


def games_of_hands(count: int) -> list[list[dict[str, object]]]:
    rng = random.Random(1)
    out = []
    for seed in range(count):
        state = GameState(GameConfig.create("five-handed"), seed=seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        out.append([hand_record(r) for r in state.results])
    return out


def store(db: ServerDatabase, samples: list[list[dict[str, object]]], first: int, count: int) -> int:
    """``count`` games from seq ``first``; the hands stored."""
    hands = 0
    with db.session() as s:
        for seq in range(first, first + count):
            gid, game = f"g{seq:06d}", samples[seq % len(samples)]
            hands += len(game)
            result = {"scores": [0] * 5, "forfeited": [], "latency": [[0, 30, {"26": 30}]]}
            s.execute(insert(Game).values(id=gid, seq=seq, public_seed=seq, result=json.dumps(result),
                                          rated=True, hands=len(game), created_at=seq * 60.0))  # fmt: skip
            s.execute(insert(GameSeat), [
                {"game_id": gid, "seat": i, "name": f"v{i + 1}", "version_id": i + 1, "score": 0,
                 "rank": i + 1, "forfeited": False, "faults": 0, "maker_hands": 0, "maker_made": 0}
                for i in range(5)
            ])  # fmt: skip
            s.execute(insert(Hand), [{"game_id": gid, "hand_index": i, "record": json.dumps(h)}
                                     for i, h in enumerate(game)])  # fmt: skip
    return hands


def request(summaries: analytics.Summaries) -> float:
    """What one analytics request computes for entrant u1: its summary, head-to-head, a filtered page."""
    began = time.perf_counter()
    summary = summaries.of(1, "u1")
    analytics.opponents("u1", summary.games)
    analytics.filtered(summary.games, analytics.GameFilter(opponent="u2", page=3))
    return time.perf_counter() - began


def main(total: int) -> None:
    db = open_database(f"sqlite:///{Path(tempfile.mkdtemp()) / 'a.sqlite'}")
    samples = games_of_hands(20)
    with db.session() as s:
        for u in range(1, 6):
            s.add(User(id=u, name=f"u{u}", role="entrant", created_at=0.0))
            s.add(Version(id=u, user_id=u, number=1, runtime="python", filename="b.py", size=1,
                          created_at=0.0))  # fmt: skip
    hands = store(db, samples, 1, total)
    summaries = analytics.Summaries(db, "five-handed")
    cold = request(summaries)
    same = request(summaries)
    store(db, samples, total + 1, 100)
    warm = request(summaries)
    print(
        f"{total} games, {hands} hands: the first request after a start {cold:.2f} s; "
        f"the next with no new game {same:.3f} s; after 100 new games {warm:.3f} s"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
