"""The board after a restart over a large stored ladder (issue 41, item 1): it used to freeze for minutes,
since the start-up look replays every stored game and the next look then waited twenty times that."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import update

from arena.server.db.database import open_database
from arena.server.db.models import Version
from arena.server.ladder import ratings
from arena.server.ladder.ratings import LONGEST_WAIT_S, REFRESH_S, Board
from arena.server.settings import load_competition
from arena.stats.rating import RatedGame
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml
from tests.server.ladder import seed


class Clock:
    """time.monotonic for the board: every reading moves it on by ``tick`` seconds, so a look's cost is
    what the board measures it to be, whatever the machine's load."""

    def __init__(self, tick: float) -> None:
        self.now = 1000.0
        self.tick = tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


@pytest.fixture
def board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Board, Clock, list[int]]]:
    (tmp_path / "c.toml").write_text(competition_toml("board-restart"))
    monkeypatch.chdir(tmp_path)
    config = load_competition(tmp_path / "c.toml")
    config.data_dir.mkdir(parents=True)
    db = open_database(config.database_url)
    versions = seed.entrants(db, 6)
    seed.games(db, versions, 600)
    clock = Clock(tick=2.0)  # a look costs a few ticks: twenty times that is minutes
    monkeypatch.setattr(ratings.time, "monotonic", clock)
    yield Board(db, config), clock, versions
    db.close()


def test_the_start_up_replay_does_not_delay_the_next_look(board: tuple[Board, Clock, list[int]]) -> None:
    b, clock, versions = board
    b.refresh(force=True)  # at start: every stored game
    assert b.games == 600
    seed.games(b.db, versions, 3, seed=2)
    clock.now += REFRESH_S
    b.refresh()
    assert b.games == 603  # the next look counts the new games at once


def test_after_the_start_up_look_the_first_new_games_show_at_once(
    board: tuple[Board, Clock, list[int]],
) -> None:
    """After a restart the board looks whenever asked until it has found a game played since: the first
    new games used to wait up to REFRESH_S for the next look (the bench's 9 s over 10,811 games)."""
    b, clock, versions = board
    b.refresh(force=True)
    b.refresh()  # nothing new yet: looked, and still asking
    seed.games(b.db, versions, 1, seed=7)
    b.refresh()  # one tick of the board's clock (2 s) later: less than REFRESH_S
    assert b.games == 601
    seed.games(b.db, versions, 1, seed=8)
    b.refresh()  # then the usual pace again: the next look waits
    assert b.games == 601
    clock.now += LONGEST_WAIT_S
    b.refresh()
    assert b.games == 602


def test_no_look_waits_longer_than_its_bound(board: tuple[Board, Clock, list[int]]) -> None:
    b, clock, versions = board
    b.refresh(force=True)
    seed.games(b.db, versions, 1, seed=3)
    clock.now += REFRESH_S
    b.refresh()
    assert 20 * b.cost_s > LONGEST_WAIT_S  # an expensive look (the clock says so) ...
    seed.games(b.db, versions, 1, seed=4)
    clock.now += LONGEST_WAIT_S
    b.refresh()
    assert b.games == 602  # ... still does not hold the next one past the bound


def test_a_resumed_board_equals_a_replay_of_every_game(board: tuple[Board, Clock, list[int]]) -> None:
    b, _, versions = board
    b.refresh(force=True)
    b.save()
    seed.games(b.db, versions, 40, seed=6)  # stored after the snapshot: applied on top of it
    resumed, replayed = Board(b.db, b.config), Board(b.db, b.config)
    replayed.snapshot_path.rename(replayed.snapshot_path.with_name("elsewhere"))
    resumed_path = replayed.snapshot_path.with_name("elsewhere")
    replayed.refresh(force=True)  # no snapshot: every game through TrueSkill
    resumed_path.rename(resumed.snapshot_path)
    resumed.refresh(force=True)
    assert resumed.games == replayed.games == 640
    assert resumed.rows == replayed.rows  # the same floats: a snapshot keeps every figure as it was
    assert resumed.steps("v1") == replayed.steps("v1")


def test_a_resumed_board_reads_only_the_games_after_its_snapshot_until_the_field_changes(
    board: tuple[Board, Clock, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading and summing every stored game was most of a restart at 10,000 games: the snapshot keeps
    the points order's sums too, and the older games are read only when the field changes."""
    b, _, versions = board
    b.refresh(force=True)
    b.save()
    seed.games(b.db, versions, 40, seed=9)
    read: list[int] = []
    original = ratings._Replay.read

    def counted(replay: ratings._Replay, db: object, up_to: int | None = None) -> list[RatedGame]:
        games = original(replay, db) if up_to is None else original(replay, db, up_to)  # type: ignore[arg-type]
        read.extend(g.seq for g in games)
        return games

    monkeypatch.setattr(ratings._Replay, "read", counted)
    resumed = Board(b.db, b.config)
    resumed.refresh(force=True)
    assert sorted(read) == list(range(601, 641))  # the 40 games after the snapshot, none before
    replayed = Board(b.db, b.config)
    replayed.snapshot_path.rename(replayed.snapshot_path.with_name("elsewhere"))
    replayed.refresh(force=True)
    assert resumed.rows == replayed.rows and resumed.confidence == replayed.confidence
    with b.db.session() as s:  # an entrant leaves the ladder: the field's sums are made again
        s.execute(update(Version).where(Version.id == versions[0]).values(active=False))
    read.clear()
    resumed.refresh(force=True)
    replayed.refresh(force=True)
    assert sorted(read) == list(range(1, 641))  # now every game stored, once
    assert resumed.rows == replayed.rows and resumed.confidence == replayed.confidence


def test_a_snapshot_of_other_games_is_not_used(board: tuple[Board, Clock, list[int]]) -> None:
    b, _, _ = board
    b.refresh(force=True)
    b.save()
    state = json.loads(b.snapshot_path.read_text())
    state["last_id"] = "another-database"
    state["ratings"] = {k: [99.0, 1.0] for k in state["ratings"]}
    b.snapshot_path.write_text(json.dumps(state))
    again = Board(b.db, b.config)
    again.refresh(force=True)
    assert again.rows == b.rows  # replayed from the games, the forged ratings ignored
    b.snapshot_path.write_text("{not json")
    broken = Board(b.db, b.config)
    broken.refresh(force=True)
    assert broken.rows == b.rows


def test_a_restarted_server_counts_new_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real server restarted over a large stored ladder, with a real bot playing: the leaderboard's
    count moves past the stored games while the test watches (it used to stay put for twenty times a
    replay of every game: minutes)."""
    process = ServerProcess(tmp_path, competition_toml("restart-board"))
    process.start()
    for name in ("ann", "bob"):  # the ladder plays from two entrants on
        player = Client(process.url)
        player.sign_up(name)
        page = player.upload("random.py", SAMPLE_BOT.read_bytes())
        assert "VERDICT: PASS" in player.verdict(page.headers["location"])
    process.stop()
    monkeypatch.chdir(tmp_path)  # where `arena serve` ran: the competition's directory is relative to it
    db = open_database(load_competition(process.config).database_url)
    seed.games(db, seed.entrants(db, 6, active=False), 2_000)
    db.close()
    process.start(timeout_s=600)  # the first start over games it never rated replays them all, once
    process.stop()
    stored = process.rows("SELECT COUNT(*) FROM games")[0][0]
    process.start()
    try:
        deadline = time.monotonic() + 90
        counted = 0
        while time.monotonic() < deadline and counted <= stored:
            counted = httpx.get(f"{process.url}/api/leaderboard", timeout=60).json()["games"]
            time.sleep(0.5)
        assert counted > stored, f"the board still counts {counted} of {stored} stored games"
    finally:
        process.stop()
