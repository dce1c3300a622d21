"""The ladder's games in the format of ``arena export``: ``hands.jsonl`` and ``games.csv``, for the organiser.

Both files are written by the very functions ``arena export`` uses (``arena.results.listings``:
``write_hand_records``, ``write_games_csv`` and its ``game_row``), from the ladder's stored games in the
order they were stored (``seq``). How a ladder game fills the columns of an event's game (docs/server.md
says the same for readers):

* ``number`` is the game's ``seq`` (from 1, the ``#`` of its page), ``game_id`` its id (``g000012``);
* a ladder has no schedule: ``round`` and ``table`` are 1, ``block`` is the game's id and ``rotation`` 0,
  exactly as for an event that is not duplicate and has one table;
* ``seats`` are the ladder's names, ``v`` + the version's id (the id of ``/versions/ID``), or ``house-N``
  for the house bots; ``winners`` and ``forfeited`` name seats the same way;
* ``faults`` counts every recorded fault of the game, ``rated`` is false for a void game, and
  ``first_hand_line`` / ``hands`` say which lines of ``hands.jsonl`` are the game's, as in an event.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

from sqlalchemy import func, select

from arena.results.listings import ListedGame, write_games_csv, write_hand_records
from arena.results.queries import GameSummary
from arena.server.db.database import ServerDatabase
from arena.server.db.models import Game, GameFault, Hand

BATCH = 500  # games read per query while the hands are streamed


def hand_records(db: ServerDatabase) -> Iterator[str]:
    """``hands.jsonl``, a piece per batch of games (the download streams: a term's ladder can be large)."""
    last = 0
    while True:
        with db.session() as s:
            ids = list(
                s.execute(select(Game.seq, Game.id).where(Game.seq > last).order_by(Game.seq).limit(BATCH))
            )
            if not ids:
                return
            rows = s.execute(
                select(Hand.game_id, Hand.record)
                .join(Game, Game.id == Hand.game_id)
                .where(Game.seq > last, Game.seq <= ids[-1][0])
                .order_by(Game.seq, Hand.hand_index)
            ).all()
        out = io.StringIO()
        write_hand_records((json.loads(record) for _, record in rows), out)
        yield out.getvalue()
        last = ids[-1][0]


def listed_games(db: ServerDatabase) -> list[ListedGame]:
    """Every stored ladder game as ``arena export`` lists an event's (see the module's docstring)."""
    with db.session() as s:
        games = s.scalars(select(Game).order_by(Game.seq)).all()
        faults = dict(
            s.execute(select(GameFault.game_id, func.count()).group_by(GameFault.game_id)).tuples().all()
        )
    out = []
    line = 1
    for game in games:
        result = json.loads(game.result)
        summary = GameSummary(
            seq=game.seq,
            game_id=game.id,
            round=1,
            table=1,
            block=game.id,
            rotation=0,
            seats=tuple(result["seats"]),
            scores=tuple(result["scores"]),
            ranks=tuple(result["ranks"]),
            winners=tuple(result["winners"]),
            forfeited=tuple(result["forfeited"]),
            excluded=tuple(result.get("excluded", [])),
            rated=game.rated,
            termination=result["outcome"]["termination"],
            decisions=result.get("decisions", 0),
            hands=game.hands,
            wall_s=result.get("wall_s", 0.0),
            faults=faults.get(game.id, 0),
        )
        out.append(ListedGame(summary, line))
        line += game.hands
    return out


def games_csv(db: ServerDatabase) -> str:
    out = io.StringIO()
    write_games_csv(listed_games(db), out)
    return out.getvalue()
