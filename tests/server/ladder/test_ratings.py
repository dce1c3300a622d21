"""The ladder's board goes on from its last look (it reads only the games stored since): its ratings,
rating histories, points order and games per entrant equal those of a board that replays every stored game
at once, as after a restart; also when the field changes between two looks (a version replaced, one
disabled) and with unrated games, house seats and excluded seats among them."""

from __future__ import annotations

import json
import random
from pathlib import Path

from sqlalchemy import insert, update

from arena.server.db.database import ServerDatabase, open_database
from arena.server.db.models import Game, GameSeat, User, Version
from arena.server.ladder.ratings import Board
from arena.server.settings import parse_competition


def _field(db: ServerDatabase, users: int) -> list[int]:
    with db.session() as s:
        for u in range(1, users + 1):
            s.add(User(id=u, name=f"u{u}", role="entrant", created_at=0.0))
            s.add(Version(id=u, user_id=u, number=1, runtime="python", filename="bot.py", size=1,
                          created_at=0.0, status="passed", active=True))  # fmt: skip
    return list(range(1, users + 1))


def _games(db: ServerDatabase, rng: random.Random, first: int, count: int, versions: list[int]) -> None:
    with db.session() as s:
        for seq in range(first, first + count):
            gid = f"g{seq:06d}"
            seated = rng.sample(versions, 4)
            names = [f"v{v}" for v in seated] + ["house-1"]
            rng.shuffle(names)
            excluded = [names[0]] if seq % 7 == 0 else []
            result = json.dumps({"excluded": excluded})
            hands = rng.randint(3, 12)
            s.execute(insert(Game).values(id=gid, seq=seq, public_seed=seq, result=result,
                                          rated=seq % 11 != 0, hands=hands, created_at=0.0))  # fmt: skip
            ranks = list(range(1, 6))
            rng.shuffle(ranks)
            s.execute(insert(GameSeat), [
                {"game_id": gid, "seat": i, "name": n, "version_id": int(n[1:]) if n[0] == "v" else None,
                 "score": rng.randint(-2, 10), "rank": ranks[i], "forfeited": seq % 13 == 0 and i == 1,
                 "faults": 0, "maker_hands": 0, "maker_made": 0}
                for i, n in enumerate(names)
            ])  # fmt: skip


def _view(board: Board) -> tuple[object, ...]:
    return (board.rows, board.ratings, board.history, board.confidence, board.games)


def test_a_board_that_goes_on_equals_one_that_replays_everything(tmp_path: Path) -> None:
    for inherit in (False, True):
        data = {"name": "b", "game": {"variant": "five-handed"}}
        if inherit:
            data["ladder"] = {"new_version": "inherit"}
        config = parse_competition(data)
        db = open_database(f"sqlite:///{tmp_path / f'b{inherit}.sqlite'}")
        rng = random.Random(7)
        versions = _field(db, 6)
        going = Board(db, config)
        _games(db, rng, 1, 40, versions)
        going.refresh(force=True)
        assert going.games == 40 and len(going.rows) == 6
        _games(db, rng, 41, 30, versions)
        going.refresh(force=True)
        with db.session() as s:  # u6's v6 replaced by v7 (the same user), u5 leaves the field
            s.add(Version(id=7, user_id=6, number=2, runtime="python", filename="bot.py", size=1,
                          created_at=0.0, status="passed", active=True))  # fmt: skip
            s.execute(update(Version).where(Version.id.in_([5, 6])).values(active=False))
        _games(db, rng, 71, 30, [1, 2, 3, 4, 7])
        going.refresh(force=True)
        again = Board(db, config)
        again.refresh(force=True)
        assert _view(going) == _view(again)
        assert going.games == 100 and {r.version for r in going.rows} == {"v1", "v2"}
        db.close()
