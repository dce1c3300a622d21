"""Issue 42: the collusion check on the competition server's organiser page, and on no page anybody else sees.

A real server over a stored ladder where two entrants' versions score 0.3 points per hand more whenever both
sit at a table (written into its database, as tests/server/ladder/seed.py writes large ladders): the
organiser's page says so in the leaderboard's words (``flag_heading``, ``describe``), naming the entrants as
the pages do; an entrant and a visitor, as real HTTP clients, are refused the organiser's page and find the
check on none of the pages they can reach.
"""

from __future__ import annotations

import html
import json
import random
import time
from pathlib import Path

import pytest

from arena.server.db.database import ServerDatabase, open_database
from arena.server.db.models import Game, GameSeat
from arena.server.settings import load_competition
from tests.server.conftest import Client, ServerProcess, competition_toml, crawl
from tests.server.ladder import seed

GAMES = 400
HANDS = 8


def colluding_games(db: ServerDatabase, versions: list[int], pair: tuple[int, int]) -> None:
    """``GAMES`` five-seat games among six versions: scores at random, plus ``0.3 × HANDS`` points for each
    of ``pair`` at every table both sit at (taken from nobody: only the pair's own change is tested)."""
    rng = random.Random(7)
    with db.session() as s:
        for seq in range(1, GAMES + 1):
            gid = f"seeded-{seq:07d}"
            s.add(Game(id=gid, seq=seq, public_seed=seq, result=json.dumps({}), rated=True, hands=HANDS,
                       created_at=time.time()))  # fmt: skip
            absent = versions[
                seq % len(versions)
            ]  # each sits out one game in six: every pair meets and parts
            table = rng.sample([v for v in versions if v != absent], 5)
            together = all(v in table for v in pair)
            scores = [rng.randint(0, 10) + (3 if together and v in pair else 0) for v in table]
            order = sorted(range(5), key=lambda i: -scores[i])
            for seat, vid in enumerate(table):
                s.add(GameSeat(game_id=gid, seat=seat, version_id=vid, name=f"v{vid}", score=scores[seat],
                               rank=order.index(seat) + 1, forfeited=False, faults=0, maker_hands=0,
                               maker_made=0))  # fmt: skip


def test_only_the_organiser_sees_the_flagged_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    process = ServerProcess(tmp_path, competition_toml("collusion-page"))
    monkeypatch.chdir(tmp_path)  # where `arena serve` runs: the competition's directory is relative to it
    config = load_competition(process.config)
    config.data_dir.mkdir(parents=True)
    db = open_database(config.database_url)
    versions = seed.entrants(db, 6, active=False)  # not on the ladder: no bot to launch, games stored
    colluding_games(db, versions, (versions[0], versions[1]))
    db.close()
    process.start(timeout_s=300)
    try:
        organiser, student, visitor = Client(process.url), Client(process.url), Client(process.url)
        assert process.organiser_link is not None
        organiser.follow(process.organiser_link)
        student.sign_up("student")
        page = organiser.get("/admin")
        assert page.status_code == 200
        text = " ".join(html.unescape(page.text).split())
        heading = (
            "Collusion? 1 pair scores differently at the same table than their strengths predict (an honest "
            "field of bots alike shows any such pair in at most 5% of events, however often it is looked at; "
            "two honest bots far weaker than the rest may gain together too; docs/ranking.md, Collusion):"
        )
        assert heading in text, text
        assert "seeded-00 v1 and seeded-01 v1: seeded-00 v1 +" in text
        assert "points per hand with seeded-01 v1 at the table" in text
        assert "after Holm over 15 pairs" in text
        for client, refused in ((student, 403), (visitor, 401)):
            assert client.get("/admin").status_code in (refused, 303)
            seen = crawl(client, ["/", "/leaderboard", "/me", "/api/leaderboard"])
            assert "/admin" not in seen or seen["/admin"][0] != 200
            for path, (status, _) in seen.items():
                if status == 200:
                    body = client.http.get(path).text
                    assert "Collusion?" not in body and "Pairs at the same table" not in body, path
    finally:
        process.stop()
