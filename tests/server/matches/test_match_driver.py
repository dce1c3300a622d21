"""The driver of unrated games (``arena.server.matches.service``) on a real database with a fake executor:
fast enough to run every case of the SPRT to its end. Its fake plays no cards: each seat scores from a
generator seeded by the game's id and seat, plus the edge the test gives the candidate's version, so
"better", "not better" and "identical" are known, and the games replay identically after a restart.
The real server plays real bots in tests/server/matches/test_matches.py."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from arena.event.table import TableSpec
from arena.results.record import GameRecord, SeatStats
from arena.server.db.models import Game, UnratedGame, UnratedMatch, User, Version
from arena.server.matches.plans import CHALLENGE, DONE
from arena.server.matches.service import SlotShare
from arena.server.settings import load_competition
from arena.server.wiring import Server

HANDS = 10


class FakeExecutor:
    """Scores out of a seeded generator; ``edge`` points per hand for the named entrants."""

    def __init__(self, edge: dict[str, float], noise: float) -> None:
        self.edge = edge
        self.noise = noise
        self.played: list[TableSpec] = []
        self.added: set[str] = set()

    def unavailable(self) -> dict[str, str]:
        return {}

    async def add(self, specs: Sequence[Any]) -> None:
        self.added |= {s.name for s in specs}

    async def remove(self, names: Sequence[str]) -> None:
        self.added -= set(names)

    async def stop(self) -> None:
        pass

    async def play(self, spec: TableSpec, disqualified: Collection[str], public_seed: int) -> GameRecord:
        self.played.append(spec)
        scores = []
        for seat, name in enumerate(spec.seat_names):
            rng = random.Random(f"{spec.game_id}/{seat}")
            per_hand = 1.0 + self.edge.get(name, 0.0) + rng.gauss(0, self.noise)
            scores.append(max(0, round(per_hand * HANDS)))
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        ranks = [order.index(i) + 1 for i in range(len(scores))]
        seats = tuple(
            SeatStats(n, sc, r, False, 0, 0, 0)
            for n, sc, r in zip(spec.seat_names, scores, ranks, strict=True)
        )
        hands = tuple((i, "{}") for i in range(HANDS))
        return GameRecord(spec.game_id, {}, seats, hands, (), (), (), 0)


def _server(tmp: Path, **ladder: object) -> Server:
    lines = ['name = "drv"', 'sandbox = "none"', "[game]", 'variant = "five-handed"', "target = 5"]
    lines.append("[ladder]")
    lines += [f"{k} = {v}" for k, v in ladder.items()]
    (tmp / "c.toml").write_text("\n".join(lines) + "\n")
    return Server(load_competition(tmp / "c.toml"), "http://127.0.0.1:1")


@pytest.fixture
def make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.chdir(tmp_path)
    made: list[Server] = []

    def build(**ladder: object) -> Server:
        server = _server(tmp_path, **ladder)
        made.append(server)
        return server

    yield build
    for server in made:
        server.close()


def _entrant(server: Server, user_id: int, versions: int) -> list[int]:
    """An entrant with ``versions`` passed versions, the last active; their ids."""
    with server.db.session() as s:
        s.add(User(id=user_id, name=f"e{user_id}", role="entrant", created_at=0.0))
        ids = [user_id * 10 + n for n in range(1, versions + 1)]
        for n, vid in enumerate(ids, start=1):
            s.add(Version(id=vid, user_id=user_id, number=n, runtime="python", filename="bot.py", size=1,
                          created_at=0.0, status="passed", active=n == versions))  # fmt: skip
    return ids


def _drive(server: Server, match_id: int, limit: int = 5000) -> None:
    """Offer slots until the match is done (every slot as an idle table's)."""

    async def run() -> None:
        for _ in range(limit):
            if server.unrated.view(match_id).plan.status == DONE:
                return
            assert await server.unrated.offer(False)
        raise AssertionError("the match did not end")

    asyncio.run(run())


CASES = [
    pytest.param(1.0, 0.5, "better", id="better"),
    pytest.param(-1.0, 0.5, "not better", id="worse"),
    pytest.param(0.0, 1.0, "undecided", id="identical"),
]


@pytest.mark.parametrize(("edge", "noise", "decision"), CASES)
def test_the_sprt_decides_better_and_not_better_and_waits_for_an_identical_version_until_its_budget(
    make: Any, edge: float, noise: float, decision: str
) -> None:
    server = make(match_min_deals=3, match_deals=8, match_h1=0.5 if edge else 0.1)
    old, new = _entrant(server, 1, 2)
    server.ladder.executor = FakeExecutor({f"s{new}": edge}, noise)
    match_id = server.unrated.ask_match(1, new, old)
    _drive(server, match_id)
    found = server.unrated.view(match_id).to_dict()
    assert found["decision"] == decision
    sprt = found["sprt"]
    if decision == "undecided":
        assert sprt["deals"] == 8 and sprt["lower"] < sprt["llr"] < sprt["upper"]
        assert found["games"] >= 8 * 2 * 5
    else:
        assert sprt["deals"] < 8 and (sprt["llr"] >= sprt["upper"]) == (decision == "better")
    # the same deals for both sides: every deal at the candidate's table and the baseline's, all rotations
    played = server.ladder.executor.played
    first = [p for p in played if "-d00001-" in p.game_id]
    assert len(first) == 10 and len({p.seed for p in first}) == 1
    seats = sorted(p.seat_names.index(f"s{new}") for p in first if f"s{new}" in p.seat_names)
    assert seats == [0, 1, 2, 3, 4]
    assert not any(f"s{old}" in p.seat_names and f"s{new}" in p.seat_names for p in played)
    with server.db.session() as s:  # unrated: nothing in the ladder's games, nothing on the board
        assert s.scalar(select(func.count()).select_from(Game)) == 0
    server.board.refresh(force=True)
    assert server.board.games == 0


def test_a_restart_resumes_a_match_where_its_stored_games_end_with_the_same_result(make: Any) -> None:
    first = make(match_min_deals=3, match_deals=8, match_h1=0.1)
    old, new = _entrant(first, 1, 2)
    first.ladder.executor = FakeExecutor({f"s{new}": 0.3}, 1.0)
    match_id = first.unrated.ask_match(1, new, old)

    async def some(server: Server, n: int) -> None:
        for _ in range(n):
            await server.unrated.offer(False)

    asyncio.run(some(first, 23))
    first.close()  # a stop: what was stored stays
    again = make(match_min_deals=3, match_deals=8, match_h1=0.1)
    again.ladder.executor = FakeExecutor({f"s{new}": 0.3}, 1.0)
    _drive(again, match_id)
    resumed = again.unrated.view(match_id)
    assert again.ladder.executor.played[0].game_id.endswith("-d00003-c3")  # game 23 next
    with again.db.session() as s:  # each game once
        assert s.scalar(select(func.count()).select_from(UnratedGame)) == resumed.to_dict()["games"]
    # an uninterrupted replay of the same games gives the same test
    whole = FakeExecutor({f"s{new}": 0.3}, 1.0)
    for row in resumed.games:
        assert json.loads(row.scores) == [
            st.score for st in asyncio.run(whole.play(_spec(resumed.plan.id, row, again), (), 0)).seats
        ]


def _spec(match_id: int, row: UnratedGame, server: Server) -> TableSpec:
    from arena.server.matches.plans import planned

    game = planned(server.unrated.view(match_id).plan, row.idx, 5)
    assert game is not None
    return TableSpec(game.game_id, server.ladder.tournament.game, 0, game.seats)


def test_a_newer_version_becoming_active_starts_its_match_against_the_one_it_replaced(make: Any) -> None:
    server = make()
    old, new = _entrant(server, 1, 2)
    with server.db.session() as s:
        s.get(Version, new).active, s.get(Version, old).active = False, True
    server.unrated._active = server.unrated._actives()
    server.submissions.activate(1, new)
    asyncio.run(server.field_changed())
    (match,) = server.unrated.of_version(new)
    assert (match.plan.version_id, match.plan.baseline_id) == (new, old)
    server.submissions.activate(1, old)  # going back to an older version asks nothing
    asyncio.run(server.field_changed())
    assert server.unrated.of_version(old) == []


def test_the_share_of_slots_and_an_idle_table() -> None:
    share = SlotShare()
    taken = []
    for second in range(5):
        took = share.takes(0.25, float(second), True)
        share.started(float(second), took, True)
        taken.append(took)
    assert taken == [True, False, False, False, True]
    assert not SlotShare().takes(0.0, 0.0, True)  # no share: only idle tables
    assert SlotShare().takes(0.0, 0.0, False)  # an idle table is spare, whatever the share


def test_a_quiet_spell_is_no_debt_repaid_later() -> None:
    """Ten minutes of ladder games with nothing asked, then twenty activations at once (every slot offered
    to a pending match): over every minute, unrated games have at most a quarter of the slots, plus one.
    Counted since the start (the old rule), they took every slot for minutes."""
    share, slots = SlotShare(), []
    tables, game_s = 4, 2.0
    for tick in range(int(900 / game_s)):
        now = tick * game_s
        for _ in range(tables):
            pending = now >= 600  # the burst of activations
            took = pending and share.takes(0.25, now, True)
            share.started(now, took, True)
            slots.append((now, took))
    for start in range(600, 900 - 60, 5):
        window = [took for when, took in slots if start <= when < start + 60]
        assert sum(window) <= 0.25 * len(window) + 1, (start, sum(window), len(window))
        assert sum(window) >= 0.25 * len(window) - 1  # and they do get their share
    spare = SlotShare()
    assert all(spare.takes(0.25, float(t), False) for t in range(100))  # idle tables always go


def test_a_minute_of_ladder_games_is_no_credit_for_a_burst_of_slower_unrated_games() -> None:
    """One table: ladder games of 0.12 s for two minutes, then every slot offered to a pending match whose
    games take 0.5 s (each starts its bots). In every stretch of consecutive games, unrated games have at
    most a quarter plus one, and in every minute at least a quarter minus one. Kept over the whole last
    minute only (the rule before), the minute of ladder games before the burst was credit: 75 unrated games
    in a row (bench/server.py --matches 20 saw exactly that)."""
    share, games, now = SlotShare(), [], 0.0
    while now < 300:
        pending = now >= 120
        took = pending and share.takes(0.25, now, True)
        share.started(now, took, True)
        games.append((now, took))
        now += 0.5 if took else 0.12
    after = [(when, took) for when, took in games if when >= 120]
    for i in range(len(after)):
        unrated = 0
        for j in range(i, len(after)):
            if after[j][0] - after[i][0] >= 60:
                break
            unrated += after[j][1]
            assert unrated < 0.25 * (j - i + 1) + 1, (i, j, unrated)
    for start in range(120, 300 - 60, 5):
        window = [took for when, took in after if start <= when < start + 60]
        assert sum(window) >= 0.25 * len(window) - 1  # and they do get their share


def test_a_challenge_plays_its_games_and_rates_nothing(make: Any) -> None:
    server = make(challenges_per_day=1, challenge_games=4)
    _entrant(server, 1, 1)
    (theirs,) = _entrant(server, 2, 1)
    server.ladder.executor = FakeExecutor({}, 1.0)
    challenge = server.unrated.ask_challenge(1, [2], 4)
    _drive(server, challenge)
    found = server.unrated.view(challenge).to_dict()
    assert found["kind"] == CHALLENGE and found["games"] == 4 and found["status"] == DONE
    assert all("e2 v1" in r["seats"] and "e1 v1" in r["seats"] for r in found["results"])
    with server.db.session() as s:
        assert s.scalar(select(func.count()).select_from(Game)) == 0
        assert s.scalar(select(func.count()).select_from(UnratedMatch)) == 1
    assert f"s{theirs}" not in server.ladder.executor.added  # its bots stopped once no match needs them


def test_a_person_s_game_kept_by_another_process_is_never_shown_as_an_error(make: Any) -> None:
    """Two processes on one database: the one that plays a person's game keeps it and ends its plan
    ("played"), then publishes that the game is kept. A poll answered by the other process in between read a
    plan ended without its table's word, as a stopped process leaves it, and said the game had failed with
    the error "played" (seen beside two CPU burners, tests/server/matches/test_people_processes.py). It says
    the game is kept; a plan ended otherwise without its table's word still says why."""
    from arena.server.matches import relay
    from arena.server.matches.people import ABANDONED, PERSON, PLAYED

    server = make()
    with server.db.session() as s:
        s.add(User(id=1, name="alice", role="entrant", created_at=0.0))
        s.flush()
        for plan_id, ended in ((1, PLAYED), (2, ABANDONED)):
            result = json.dumps({"decision": ended})
            s.add(UnratedMatch(id=plan_id, kind=PERSON, user_id=1, version_id=0, field="[]", seed=0,
                               budget=1, status=DONE, result=result, created_at=0.0))  # fmt: skip
    last_word = {"version": 7, "decision": 0, "stored": None, "error": None}  # over, not yet kept
    for plan_id in (1, 2):
        relay.publish(server.db, plan_id, last_word, {}, 0.0)
    kept = asyncio.run(server.people.state(1, 1, since=-1, timeout_s=0.0))
    assert kept["error"] is None and kept["stored"] == {"url": "/play/1/game"}, kept
    stopped = asyncio.run(server.people.state(2, 1, since=-1, timeout_s=0.0))
    assert stopped["error"] == ABANDONED and not stopped["stored"], stopped
