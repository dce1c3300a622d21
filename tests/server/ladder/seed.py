"""A large stored ladder, written straight into a server's database: the restart tests and
``bench/server.py --restart`` need thousands of games without playing them."""

from __future__ import annotations

import json
import random
import time

from arena.server.db.database import ServerDatabase
from arena.server.db.models import Game, GameSeat, User, Version, VersionStatus


def entrants(db: ServerDatabase, count: int, active: bool = True) -> list[int]:
    """``count`` entrants, each with one passed version (on the ladder if ``active``: then the board lists
    it, and a running ladder would try to launch its bot, which has no file); their version ids."""
    ids = []
    with db.session() as s:
        for i in range(count):
            user = User(name=f"seeded-{i:02d}", role="entrant", created_at=0.0)
            s.add(user)
            s.flush()
            version = Version(user_id=user.id, number=1, runtime="python", filename="bot.py", size=1,
                              created_at=0.0, status=VersionStatus.PASSED.value, active=active,
                              checked_at=0.0)  # fmt: skip
            s.add(version)
            s.flush()
            ids.append(version.id)
    return ids


def games(db: ServerDatabase, versions: list[int], count: int, seats: int = 5, seed: int = 1) -> int:
    """``count`` finished five-seat games among ``versions`` after those stored; the last ``seq``."""
    rng = random.Random(seed)
    with db.session() as s:
        last = s.query(Game.seq).order_by(Game.seq.desc()).limit(1).scalar() or 0
        for seq in range(last + 1, last + count + 1):
            gid = f"seeded-{seq:07d}"
            s.add(Game(id=gid, seq=seq, public_seed=seq, result=json.dumps({}), rated=True, hands=8,
                       created_at=time.time()))  # fmt: skip
            table = rng.sample(versions, min(seats, len(versions)))
            scores = [rng.randint(0, 10) for _ in table]
            order = sorted(range(len(table)), key=lambda i: -scores[i])
            for seat, vid in enumerate(table):
                s.add(GameSeat(game_id=gid, seat=seat, version_id=vid, name=f"v{vid}", score=scores[seat],
                               rank=order.index(seat) + 1, forfeited=False, faults=0, maker_hands=0,
                               maker_made=0))  # fmt: skip
    return last + count
