"""Two `arena serve` processes on one PostgreSQL database and one data directory (arena.server.db.multi): they
play the ladder at once without numbering two games alike, storing one twice or losing one; an upload to
one is checked and played by the other; their leaderboards agree; kill -9 of one leaves the other playing."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.postgres import Postgres
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml
from tests.server.finals.test_finals import equals_arena_run


def stored(server: ServerProcess) -> list[tuple[Any, ...]]:
    return server.rows("SELECT seq, id, public_seed FROM games ORDER BY seq")


def seatings(server: ServerProcess) -> dict[str, tuple[str, ...]]:
    rows = server.rows("SELECT game_id, seat, name FROM game_seats ORDER BY game_id, seat")
    found: dict[str, list[str]] = {}
    for game_id, _seat, name in rows:
        found.setdefault(game_id, []).append(name)
    return {k: tuple(v) for k, v in found.items()}


def board(server: ServerProcess) -> dict[str, Any]:
    reply: dict[str, Any] = httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()
    return reply


def until(what: str, ok: Any, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while not ok():
        assert time.monotonic() < deadline, f"not within {timeout_s} s: {what}"
        time.sleep(0.3)


def sound(games: list[tuple[Any, ...]], server: ServerProcess) -> None:
    """Numbered 1..n without a gap, no game stored twice (ids, public seeds), every game seated."""
    assert [seq for seq, _, _ in games] == list(range(1, len(games) + 1))
    assert len({gid for _, gid, _ in games}) == len({seed for _, _, seed in games}) == len(games)
    seats = seatings(server)  # read after the games: it may hold one stored since
    assert all(len(seats[gid]) == 5 for _, gid, _ in games)


# The sample bot, saying on stderr which game it plays and which bot process it is (a token of its own: in
# the sandbox's PID namespace every bot may have the same pid): a span holding two tokens holds lines of a
# game another server process played, since each server process launches its own bots.
ID_BOT = SAMPLE_BOT.read_text().replace(
    '        self.rng = random.Random(f"{game.game_id}/{game.seat}")',
    '        self.rng = random.Random(f"{game.game_id}/{game.seat}")\n'
    "        import os, sys\n"
    '        token = globals().setdefault("TOKEN", os.urandom(6).hex())\n'
    '        print(f"game {game.game_id} bot {token}", file=sys.stderr, flush=True)',
)
SPAN = re.compile(r'<pre id="game-log">(.*?)</pre>', re.S)
PIDS = re.compile(r"^game \S+ bot ([0-9a-f]+)$", re.M)


def span_pids(organiser: Client, game_id: str, version_id: int) -> set[str]:
    page = organiser.get(f"/games/{game_id}/logs/{version_id}")
    assert page.status_code == 200, page.text
    found = SPAN.search(page.text)
    return set(PIDS.findall(found.group(1))) if found else set()


def claimer(plan_id: int, processes: tuple[ServerProcess, ...]) -> ServerProcess | None:
    said = f"unrated plan {plan_id}: played by this process"
    playing = [p for p in processes if said in p.log.read_text()]
    assert len(playing) <= 1, "two processes took one plan"
    return playing[0] if playing else None


@pytest.mark.needs_postgres
def test_two_processes_share_one_database(tmp_path: Path, postgres: Postgres) -> None:
    url = postgres.url("multi")
    final = {"rounds": 1, "max_games": 10, "seed": 7, "confidence": 0.75}
    toml = competition_toml(
        "multi", url, ladder={"tables": 2, "challenge_games": 40, "match_share": 0.9}, final=final
    )
    a = ServerProcess(tmp_path, toml, url)  # one directory for all: deal.key, session.key, uploads
    b = ServerProcess(tmp_path, toml, url)
    w = ServerProcess(tmp_path, toml, url, ("--role", "web"))  # pages only: plays nothing
    for process in (a, b, w):
        process.start()
    try:
        organiser = Client(a.url)
        link = w.organiser_link  # each start makes a new one (the last is valid)
        assert link is not None
        organiser.follow(link)
        entrants: dict[str, Client] = {}
        for name in ("north", "south"):
            c = entrants[name] = Client(a.url)
            c.sign_up(name)
            location = c.upload("idbot.py", ID_BOT.encode()).headers["location"]
            on_b = Client(b.url)  # the same session cookie, signed with the shared key, works on b
            on_b.http.cookies = c.http.cookies
            assert "VERDICT: PASS" in on_b.verdict(location)
        until("6 games stored", lambda: len(stored(a)) >= 6)
        east = Client(a.url)
        east.sign_up("east")
        assert "VERDICT: PASS" in east.verdict(
            east.upload("random.py", SAMPLE_BOT.read_bytes()).headers["location"]
        )
        versions = dict(a.rows("SELECT u.name, v.id FROM versions v JOIN users u ON u.id = v.user_id"))

        organiser.get("/admin")
        assert organiser.post("/admin/ladder/pause").status_code == 303  # on a: b and w read it from the db
        until("the web process says paused", lambda: board(w)["paused"], 10)

        def settled() -> bool:
            n = len(stored(a))
            return all((s := board(p))["paused"] and not s["in_flight"] and s["games"] == n for p in (a, b))

        until("both paused, nothing in flight, both boards up to date", settled)
        sound(stored(a), a)
        assert board(a)["leaderboard"] == board(b)["leaderboard"]  # one replay of the same games

        # each process's bots write a log of their own: a game's span holds one bot process's lines only
        games = [gid for _, gid, _ in stored(a)][-30:]  # a and b played at once (the newest: a's log cap)
        spans = [span_pids(organiser, gid, versions["north"]) for gid in games]
        assert sum(len(p) == 1 for p in spans) >= len(games) // 2, spans  # most games: their own lines
        assert all(len(p) <= 1 for p in spans), spans
        users = dict(a.rows("SELECT name, id FROM users"))
        tail = organiser.get(f"/entrants/{users['north']}/logs").text  # both processes' logs, merged
        assert "--- p1 ---" in tail and "--- p2 ---" in tail, tail[:2000]

        assert organiser.post("/admin/ladder/resume").status_code == 303

        # a final frozen on the web process: one playing process plays it, both hold their tables while it
        # runs, and it equals arena run of its frozen field with its key
        organiser.http.base_url = httpx.URL(w.url)
        organiser.get("/admin")
        assert organiser.post("/admin/final").status_code == 303
        state = tmp_path / "results" / "multi" / "final-1" / "final.json"
        until("the final played", lambda: claimer_of_final((a, b, w)) is not None, 60)
        player = claimer_of_final((a, b, w))
        assert player is not None and player is not w
        waiting = b if player is a else a

        def held() -> bool:  # the final's player holds its tables before it starts; the other at its look
            over = json.loads(state.read_text())["state"] != "running"
            seen = "final 1: played by another process" in waiting.log.read_text()
            return over or (seen and all(board(p)["in_flight"] == 0 for p in (a, b)))

        until("both processes' tables held", held)
        assert json.loads(state.read_text())["state"] == "running", "the final ended before the hold was seen"
        held_at = time.time()
        until("the final done", lambda: json.loads(state.read_text())["state"] == "done", 120)
        during = f"SELECT id FROM games WHERE created_at > {held_at} AND created_at < {state.stat().st_mtime}"
        assert a.rows(during) == []  # no ladder game stored while it ran (after the ones in flight)
        equals_arena_run(state.parent, tmp_path / "again")

        # a challenge asked on the web process is played by a playing one; kill -9 of it mid-challenge:
        # the other takes it over and finishes it, no game stored twice
        asker = Client(w.url)
        asker.http.cookies = entrants["north"].http.cookies
        asker.get("/challenges")
        asked = asker.post("/challenges", {"opponent": str(users["south"]), "games": "20"})
        assert asked.status_code == 303, asked.text
        plan_id = int(asked.headers["location"].rsplit("/", 1)[1])
        played = f"SELECT idx FROM unrated_games WHERE match_id = {plan_id} ORDER BY idx"
        until("an unrated game stored", lambda: len(a.rows(played)) >= 1)
        first = claimer(plan_id, (a, b, w))
        assert first is not None and first is not w
        other = b if first is a else a
        assert len(a.rows(played)) < 20, "the challenge ended before its player could be killed"
        first.kill()
        until("the challenge finished by the other process",
              lambda: plan_done(other, plan_id), 60)  # fmt: skip
        assert claimer(plan_id, (other,)) is other
        assert [i for (i,) in other.rows(played)] == list(range(20))

        before = stored(other)
        sound(before, other)
        until(
            "the survivor goes on, with east (uploaded to a) in its games",
            lambda: (
                len(stored(other)) >= len(before) + 3
                and any(
                    f"v{versions['east']}" in seatings(other)[gid]
                    for _, gid, _ in stored(other)[len(before) :]
                )
            ),
        )
        after = stored(other)
        assert after[: len(before)] == before
        sound(after, other)

        for process in (a, b, w):  # no game lost to a clash of numbers, no check or table stopped by a bug
            log = process.log.read_text()
            assert "was not played" not in log and "Traceback" not in log, log[-3000:]
    finally:
        for process in (a, b, w):
            process.stop()


def claimer_of_final(processes: tuple[ServerProcess, ...]) -> ServerProcess | None:
    playing = [p for p in processes if "final 1: played by this process" in p.log.read_text()]
    assert len(playing) <= 1, "two processes played one final"
    return playing[0] if playing else None


def plan_done(process: ServerProcess, plan_id: int) -> bool:
    rows = process.rows(f"SELECT status FROM unrated_matches WHERE id = {plan_id}")
    return bool(rows) and rows[0][0] == "done"


def test_roles_need_a_shared_database(tmp_path: Path) -> None:
    """On SQLite one process serves everything: a web-only process is refused in one line."""
    import subprocess
    import sys

    (tmp_path / "c.toml").write_text(competition_toml("solo"))
    done = subprocess.run(
        [sys.executable, "-m", "arena", "serve", "c.toml", "--role", "web", "--port", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert len(lines) == 1 and "needs a PostgreSQL database" in lines[0]


@pytest.mark.needs_postgres
def test_the_fewest_games_rule_counts_every_process(
    tmp_path: Path, postgres: Postgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process's matchmaker counts the games every process stored (read at its look) and its own in
    flight: a version the other process left out is picked first here. Without them (the process's own
    count) the one that has played least is picked only as often as chance seats it."""
    from dataclasses import replace

    from sqlalchemy import insert

    from arena.server.db.database import open_database
    from arena.server.db.models import Game, GameSeat, User, Version
    from arena.server.ladder.ratings import Board
    from arena.server.ladder.service import Ladder
    from arena.server.settings import parse_competition
    from arena.server.submissions.service import Submissions

    monkeypatch.chdir(tmp_path)
    url = postgres.url("counts")
    config = parse_competition({"name": "counts", "database": url, "game": {"variant": "five-handed"}})
    config = replace(config, data_dir=tmp_path)
    other, here = open_database(url), open_database(url)  # two processes' connections
    try:
        with other.session() as s:
            for u in range(1, 11):
                s.add(User(id=u, name=f"u{u}", role="entrant", created_at=0.0))
                s.add(Version(id=u, user_id=u, number=1, runtime="python", filename="bot.py", size=1,
                              created_at=0.0, status="passed", active=True))  # fmt: skip
        ladder = Ladder(config, here, Submissions(here, config), Board(here, config), b"k" * 32, "p2")
        ladder.field = {f"v{v.id}": v for v, _ in ladder.submissions.active_field()}
        with other.session() as s:  # the other process's games since: v10 in none of them
            for seq in range(1, 10):
                gid = f"g{seq:06d}"
                seated = [f"v{(seq + k) % 9 + 1}" for k in range(4)] + ["house-1"]
                s.execute(insert(Game).values(id=gid, seq=seq, public_seed=seq, result="{}", rated=True,
                                              hands=1, created_at=0.0))  # fmt: skip
                s.execute(insert(GameSeat), [
                    {"game_id": gid, "seat": i, "name": n, "version_id": int(n[1:]) if n[0] == "v" else None,
                     "score": 0, "rank": i + 1, "forfeited": False, "faults": 0, "maker_hands": 0,
                     "maker_made": 0} for i, n in enumerate(seated)
                ])  # fmt: skip
        ladder.counts.look()  # what a table does every LOOK_S on a shared database
        assert ladder.counts.of("v10") == 0 and ladder.counts.of("v1") == 4
        assert all("v10" in ladder.pick(seed) for seed in range(30))  # fewest everywhere: first every time
        for _ in range(5):  # five games of v10 in flight here: now it has the most
            ladder.counts.started(("v10", "v1"))
        assert ladder.counts.of("v10") == 5 and ladder.counts.of("v1") == 9
        ladder.counts.ended(("v10", "v1"), stored=False)  # one lost (not stored): no longer counted
        assert ladder.counts.of("v10") == 4
    finally:
        other.close()
        here.close()


@pytest.mark.needs_postgres
def test_two_organisers_freezing_at_once_on_two_processes_make_one_final(
    tmp_path: Path, postgres: Postgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one process freezes a final (its advisory lock held), another's freeze is a 409 saying why,
    not a second final beside the first (both would have numbered theirs final-1)."""
    from dataclasses import replace

    from arena.server.db.database import open_database
    from arena.server.db.models import User, Version
    from arena.server.db.multi import CheckClaims
    from arena.server.errors import Refused
    from arena.server.finals.service import FREEZING, Finals
    from arena.server.ladder.ratings import Board
    from arena.server.ladder.service import Ladder
    from arena.server.settings import parse_competition
    from arena.server.submissions.service import Submissions

    monkeypatch.chdir(tmp_path)
    url = postgres.url("freeze")
    config = parse_competition({"name": "freeze", "database": url, "game": {"variant": "five-handed"}})
    config = replace(config, data_dir=tmp_path)
    other, here = open_database(url), open_database(url)
    other_claims, claims = CheckClaims(other), CheckClaims(here)
    try:
        with here.session() as s:
            for u in range(1, 4):
                s.add(User(id=u, name=f"u{u}", role="entrant", created_at=0.0))
                s.add(Version(id=u, user_id=u, number=1, runtime="python", filename="bot.py", size=1,
                              created_at=0.0, status="passed", active=True))  # fmt: skip
        ladder = Ladder(config, here, Submissions(here, config), Board(here, config), b"k" * 32, "p1")
        finals = Finals(config, ladder.submissions, ladder, claims)
        assert other_claims.claim_final(FREEZING)  # the other process is freezing now
        with pytest.raises(Refused) as refused:
            finals.freeze()
        assert refused.value.status == 409 and "freezing a final" in str(refused.value)
        assert finals.directories() == []
        other_claims.release_final(FREEZING)
        assert finals.freeze().name == "final-1"  # its turn now
        assert other_claims.claim_final(FREEZING)  # and the freeze let the lock go
    finally:
        other_claims.close()
        claims.close()
        other.close()
        here.close()
