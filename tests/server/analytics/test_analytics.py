"""An entrant's analytics against a real server: a small set of games is stored in its database (as the
ladder stores them: seats, hands, faults, the latency histograms in the result, the spans of the versions'
logs), and every figure the page and the API show is compared with one counted by hand here.

The ladder does not play meanwhile: the stored versions are not active, so the field is empty. The hand
records carry only the fields the figures read (maker, partner, alone, outcome, points, the variant); the
report's tests check the same counting on complete records (tests/report/test_report.py).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, insert

from arena.server.analytics import service as analytics
from arena.server.analytics.service import GameFilter, Played
from arena.server.db.models import Game, GameFault, GameSeat, Hand, Version
from arena.stats.headtohead import PairRecord, elo_estimate
from arena.stats.latency import bucket
from tests.server.conftest import Client, ServerProcess

NOV30 = datetime(2026, 11, 30, 12, tzinfo=UTC).timestamp()
DEC01 = datetime(2026, 12, 1, 9, tzinfo=UTC).timestamp()
ANA_V1, ANA_V2, BOB_V1 = 101, 102, 103
VERSIONS = ((ANA_V1, "ana", 1), (ANA_V2, "ana", 2), (BOB_V1, "bob", 1))
LOGS = {  # what each version wrote during each of its games (the spans are stored with the seats)
    (ANA_V1, "g000001"): "hello from g1\nneedle one <script>alert(1)</script>\na+b literal\n",
    (ANA_V2, "g000002"): "g2 starts\nneedle two\n",
    (ANA_V2, "g000003"): "nothing here\n",
    (BOB_V1, "g000001"): "bob's needle secret\n",
    (BOB_V1, "g000004"): "bob's needle secret again\n",
}


def _hand(variant: str, maker: int | None, partner: int | None, alone: bool, outcome: str,
          points: list[int]) -> dict[str, Any]:  # fmt: skip
    return {"config": {"variant": variant}, "maker": maker, "partner": partner, "alone": alone,
            "outcome": outcome, "points": points}  # fmt: skip


# (game, seq, time, variant, seats (version id or None), ranks, forfeited seats, hands, faults, latency)
GAMES: list[tuple[Any, ...]] = [
    ("g000001", 1, NOV30, "five-handed", [ANA_V1, BOB_V1, None, None, None], [1, 3, 2, 4, 5], [],
     [_hand("five-handed", 0, 2, False, "made", [1, 0, 1, 0, 0]),
      _hand("five-handed", 1, 0, False, "euchred", [0, 0, 2, 2, 2]),
      _hand("five-handed", 0, None, True, "march", [4, 0, 0, 0, 0])],
     [(0, "timeout"), (0, "harness"), (1, "illegal_action")],
     [[0, 3, {str(bucket(10)): 3}], [1, 2, {str(bucket(50)): 2}]]),
    ("g000002", 2, DEC01, "call-ace", [BOB_V1, None, None, ANA_V2, None], [1, 3, 4, 2, 5], [],
     [_hand("call-ace", 3, 1, False, "euchred", [2, 0, 2, 0, 2]),
      _hand("call-ace", None, None, False, "thrown_in", [0, 0, 0, 0, 0])],
     [], [[3, 1, {str(bucket(100)): 1}]]),
    ("g000003", 3, DEC01 + 60, "five-handed", [None, ANA_V2, None, None, None], [1, 4, 2, 3, 5], [1],
     [_hand("five-handed", 2, None, False, "made", [0, 0, 1, 0, 0])], [(1, "crashed")], []),
    ("g000004", 4, DEC01 + 120, "five-handed", [BOB_V1, None, None, None, None], [2, 1, 3, 4, 5], [],
     [_hand("five-handed", 0, None, True, "made", [2, 0, 0, 0, 0])], [(0, "timeout")], []),
]  # fmt: skip
ANA_GAMES = {  # game -> (opponents, variant, result, day), counted by hand from GAMES
    "g000001": ({"bob", "house"}, "five-handed", "won", "2026-11-30"),
    "g000002": ({"bob", "house"}, "call-ace", "lost", "2026-12-01"),
    "g000003": ({"house"}, "five-handed", "forfeited", "2026-12-01"),
}


def _seed(server: ServerProcess, users: dict[str, int]) -> None:
    """The versions, games and logs above, written into the running server's database and directory."""
    data_dir = next(server.directory.glob("results/*/"))
    log_dir = data_dir / "logs" / "ladder"
    log_dir.mkdir(parents=True, exist_ok=True)
    spans: dict[tuple[int, str], dict[str, int]] = {}
    for version in (ANA_V1, ANA_V2, BOB_V1):
        path = log_dir / f"v{version}.log"
        offset = 0
        with path.open("w") as out:
            for (v, game), text in LOGS.items():
                if v == version:
                    out.write(text)
                    spans[v, game] = {"log_start": offset, "log_end": offset + len(text.encode())}
                    offset += len(text.encode())
        for key in spans:
            if key[0] == version:
                inode = os.stat(path).st_ino
                spans[key] |= {"log_inode": inode, "log_end_inode": inode}
    url = server.database or f"sqlite:///{next(server.directory.glob('results/*/server.sqlite'))}"
    _insert(url, users, spans, GAMES)


def _insert(url: str, users: dict[str, int], spans: dict[tuple[int, str], dict[str, int]],
            games: list[tuple[Any, ...]], versions: bool = True) -> None:  # fmt: skip
    engine = create_engine(url)
    with engine.begin() as c:
        for vid, user, number in VERSIONS if versions else ():
            row = {
                "id": vid,
                "user_id": users[user],
                "number": number,
                "runtime": "python",
                "size": 1,
                "filename": "bot.py",
                "created_at": NOV30,
                "status": "passed",
                "active": False,
            }
            c.execute(insert(Version).values(**row))
        for gid, seq, when, _variant, seats, ranks, forfeited, hands, faults, latency in games:
            names = [f"v{v}" if v else f"house-{i}" for i, v in enumerate(seats)]
            scores = [sum(h["points"][i] for h in hands) for i in range(5)]
            result = {"seats": names, "scores": scores, "ranks": ranks, "winners": [ranks.index(1)],
                      "forfeited": forfeited, "outcome": {"termination": "target"}, "decisions": 10,
                      "excluded": [], "latency": latency}  # fmt: skip
            c.execute(insert(Game).values(id=gid, seq=seq, public_seed=seq, result=json.dumps(result),
                                          rated=True, hands=len(hands), created_at=when))  # fmt: skip
            c.execute(insert(GameSeat), [
                {"game_id": gid, "seat": i, "name": names[i], "version_id": v, "score": scores[i],
                 "rank": ranks[i], "forfeited": i in forfeited, "faults": 0, "maker_hands": 0,
                 "maker_made": 0, **spans.get((v, gid), dict.fromkeys(["log_inode", "log_start",
                                                                      "log_end_inode", "log_end"]))}
                for i, v in enumerate(seats)
            ])  # fmt: skip
            c.execute(insert(Hand), [{"game_id": gid, "hand_index": i, "record": json.dumps(h)}
                                     for i, h in enumerate(hands)])  # fmt: skip
            for seat, kind in faults:
                c.execute(insert(GameFault).values(game_id=gid, seat=seat, name=names[seat], hand_index=0,
                          decision_id=1, kind=kind, detail="", elapsed_ms=5.0, substitute=""))  # fmt: skip
    engine.dispose()


@pytest.fixture(scope="module")
def seeded(server: ServerProcess) -> dict[str, Any]:
    ana, bob = Client(server.url), Client(server.url)
    ana.sign_up("ana")
    bob.sign_up("bob")
    users = {name: uid for uid, name in server.rows("SELECT id, name FROM users")}
    _seed(server, users)
    organiser = Client(server.url)
    assert server.organiser_link is not None
    organiser.follow(server.organiser_link)
    # the board looks at new games every few seconds; the organiser's "enable" makes it look now
    assert organiser.post(f"/admin/enable/{users['ana']}").status_code == 303
    return {"ana": ana, "bob": bob, "organiser": organiser, "users": users}


def _figures(server: ServerProcess, user_id: int) -> dict[str, Any]:
    """The API's figures once the board has looked at the stored games (it looks every few seconds)."""
    deadline = time.monotonic() + 60
    while True:
        response = Client(server.url).get(f"/api/entrants/{user_id}/analytics")
        assert response.status_code == 200, response.text
        found: dict[str, Any] = response.json()
        if len(found["rating"]) == 3 or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def test_the_figures_equal_those_counted_by_hand(server: ServerProcess, seeded: dict[str, Any]) -> None:
    ana = seeded["users"]["ana"]
    found = _figures(server, ana)
    assert found["games"] == 3
    total, variants, seats = (found["figures"][k] for k in ("total", "variants", "seats"))
    # ana: g1 won (seat 0), g2 second (seat 3), g3 forfeited (seat 1); 3 + 2 + 1 hands, 1 + 0 + 4 points
    assert (total["games"], total["wins"], total["forfeits"], total["hands"], total["points"]) == (
        3,
        1,
        1,
        6,
        5,
    )
    # maker in g1 h0 (made), g1 h2 (alone, march), g2 h0 (euchred); partner of bob in g1 h1 (euchred)
    assert (total["maker"], total["maker_made"], total["partner"], total["euchred"]) == (3, 2, 1, 2)
    assert (total["alone"], total["alone_made"], total["alone_march"]) == (1, 0, 1)
    assert total["made_share"] == pytest.approx(2 / 3)
    # faults of ana's seats only: g1 a timeout and the harness's own; g3 a crash (bob's are not hers)
    assert total["faults"] == {"crashed": 1, "timeout": 1} and total["harness_faults"] == 1
    # latency: three decisions near 10 ms (g1), one near 100 ms (g2); g3 recorded none
    assert total["decisions_timed"] == 4
    assert total["latency_p50_ms"] == pytest.approx(10, rel=0.09)
    assert total["latency_p99_ms"] == pytest.approx(100, rel=0.09)
    assert set(variants) == {"five-handed", "call-ace"}
    ace = variants["call-ace"]
    assert (ace["games"], ace["hands"], ace["maker"], ace["maker_made"], ace["euchred"], ace["wins"]) == (
        1, 2, 1, 0, 1, 0)  # fmt: skip
    five = variants["five-handed"]
    assert (five["games"], five["hands"], five["points"], five["maker"], five["faults"]) == (
        2, 4, 5, 2, {"crashed": 1, "timeout": 1})  # fmt: skip
    assert set(seats) == {"0", "1", "3"}
    assert (seats["0"]["hands"], seats["0"]["maker"], seats["0"]["alone"]) == (3, 2, 1)
    assert (seats["1"]["forfeits"], seats["1"]["hands"], seats["1"]["faults"]) == (1, 1, {"crashed": 1})
    assert seats["3"]["latency_p50_ms"] == pytest.approx(100, rel=0.09)
    # head to head: the house left out; against bob a win (g1: 1st vs 3rd) and a loss (g2: 2nd vs 1st)
    [bob] = found["head_to_head"]
    assert (bob["opponent"], bob["games"], bob["wins"], bob["losses"], bob["draws"]) == ("bob", 2, 1, 1, 0)
    est = elo_estimate(PairRecord("ana", "bob", 1, 1, 0))
    assert (bob["elo"], bob["elo_error_95"], bob["los"]) == (est.elo, est.error, est.los)
    # the rating: v1 after g1, v2 after g2 and g3 (a new version starts fresh); by day, the last of each
    steps = found["rating"]
    assert [(s["seq"], s["series"], s["day"]) for s in steps] == [
        (1, "v1", "2026-11-30"), (2, "v2", "2026-12-01"), (3, "v2", "2026-12-01")]  # fmt: skip
    days = found["rating_by_day"]
    assert [(d["day"], d["series"], d["games"]) for d in days] == [
        ("2026-11-30", "v1", 1),
        ("2026-12-01", "v2", 2),
    ]
    assert days[-1]["mu"] == steps[-1]["mu"] and steps[0]["mu"] > 25  # won against four: up


def test_the_page_shows_them_without_script_and_is_linked(
    server: ServerProcess, seeded: dict[str, Any]
) -> None:
    ana = seeded["users"]["ana"]
    _figures(server, ana)
    spectator = Client(server.url)
    assert 'id="analytics-link"' in spectator.get(f"/entrants/{ana}").text
    page = spectator.get(f"/entrants/{ana}/analytics")
    assert page.status_code == 200
    text = page.text
    assert "<script" not in text.split("<footer>")[0]  # the figures need no script
    assert text.count("<svg") == 1 and 'aria-label="v2:' in text  # v1 has one rated game: no line to draw
    assert "2026-11-30" in text and "1-1-0" in text and ">call-ace<" in text and ">seat 3<" in text
    assert "search its logs" not in text  # a spectator is not shown the private link
    assert "search its logs" in seeded["ana"].get(f"/entrants/{ana}/analytics").text
    assert Client(server.url).get("/entrants/999999/analytics").status_code == 404


def _listed(client: Client, user_id: int, query: str) -> list[str]:
    response = client.get(f"/api/entrants/{user_id}/games?{query}")
    assert response.status_code == 200, (query, response.text)
    return [g["game"] for g in response.json()["games"]]


def test_the_filter_returns_exactly_the_matching_games(server: ServerProcess, seeded: dict[str, Any]) -> None:
    ana, client = seeded["users"]["ana"], Client(server.url)
    assert _listed(client, ana, "") == ["g000003", "g000002", "g000001"]  # newest first; not bob's g4
    for opponent, variant, result, (since, until) in itertools.product(
        ["", "bob", "house"], ["", "five-handed", "call-ace"], ["", *analytics.RESULTS],
        [("", ""), ("2026-12-01", ""), ("", "2026-11-30"), ("2026-11-30", "2026-11-30")],
    ):  # fmt: skip
        wanted = [
            gid for gid, (opp, var, res, day) in sorted(ANA_GAMES.items(), reverse=True)
            if (not opponent or opponent in opp) and (not variant or variant == var)
            and (not result or result == res) and (not since or day >= since) and (not until or day <= until)
        ]  # fmt: skip
        fields = {"opponent": opponent, "variant": variant, "result": result, "since": since, "until": until}
        query = "&".join(f"{k}={v}" for k, v in fields.items() if v)
        assert _listed(client, ana, query) == wanted, query
    page = Client(server.url).get(f"/entrants/{ana}/games?opponent=bob&result=lost")
    assert page.status_code == 200 and 'href="/games/g000002"' in page.text
    assert 'href="/games/g000001"' not in page.text and "1 game matches" in page.text
    for bad in ("result=drawn", "since=yesterday", "page=0", "page=x", "opponent=" + "a" * 100):
        response = Client(server.url).get(f"/entrants/{ana}/games?{bad}")
        assert response.status_code == 400, bad


def test_pages_of_games_cover_the_list_once() -> None:
    games = [Played(f"g{i}", i, NOV30, "five-handed", True, 0, "v1", 0, 1, False, ("a",), (1,), ("a v1",), {})
             for i in range(7, 0, -1)]  # fmt: skip
    pages = [analytics.filtered(games, GameFilter(page=n), size=3) for n in (1, 2, 3, 4)]
    assert [len(p.games) for p in pages] == [3, 3, 1, 1] and {p.pages for p in pages} == {3}
    assert [g.seq for p in pages[:3] for g in p.games] == list(range(7, 0, -1))
    assert pages[3].page == 3  # past the end: the last page
    assert GameFilter(opponent="b o", page=2).query(2) == "opponent=b+o&page=2"


def test_the_log_search_finds_its_own_lines_only(server: ServerProcess, seeded: dict[str, Any]) -> None:
    ana = seeded["users"]["ana"]
    page = seeded["ana"].get(f"/entrants/{ana}/logs/search?q=needle")
    assert page.status_code == 200
    text = page.text
    assert "needle one" not in text  # the match is marked: <mark>needle</mark> one
    assert "<mark>needle</mark> one" in text and "<mark>needle</mark> two" in text
    assert "secret" not in text  # bob's log, in the same game g1, is not searched
    assert "2 lines found in 3 games" in text and "newest 200 games" in text  # the bound, said
    assert seeded["organiser"].get(f"/entrants/{ana}/logs/search?q=needle").text.count("<mark>") == 2
    # literal, not a pattern: "a+b" is found as written, "n..dle" matches nothing
    assert "<mark>a+b</mark> literal" in seeded["ana"].get(f"/entrants/{ana}/logs/search?q=a%2Bb").text
    assert "no line holds it" in seeded["ana"].get(f"/entrants/{ana}/logs/search?q=n..dle").text


def test_hostile_log_searches(server: ServerProcess, seeded: dict[str, Any]) -> None:
    ana = seeded["users"]["ana"]
    # another entrant, and a spectator: the same 404 as the logs page gives them (and as a missing page)
    for who in (seeded["bob"], Client(server.url)):
        logs = who.get(f"/entrants/{ana}/logs")
        search = who.get(f"/entrants/{ana}/logs/search?q=needle")
        assert logs.status_code == search.status_code == 404
        assert "needle" not in search.text and "<mark>" not in search.text
    assert seeded["ana"].get("/entrants/999999/logs/search?q=x").status_code == 404
    # markup in the query, and in the log line found, is shown as text
    page = seeded["ana"].get(f"/entrants/{ana}/logs/search?q=%3Cscript%3Ealert(1)")
    assert page.status_code == 200
    assert "<script>alert" not in page.text and "&lt;script&gt;alert(1)" in page.text
    assert "<mark>&lt;script&gt;alert(1)</mark>&lt;/script&gt;" in page.text
    # a huge query is refused, with a page saying why; nothing is searched
    huge = seeded["ana"].get(f"/entrants/{ana}/logs/search?q={'x' * 5000}")
    assert huge.status_code == 400 and "at most 200 characters" in huge.text
    assert "at most 200 characters; this one has 5,000" in huge.text
    assert seeded["ana"].get(f"/entrants/{ana}/logs/search?q=a%0Ab").status_code == 400


def test_the_search_reads_no_more_than_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.server.db.database import open_database
    from arena.server.db.models import User

    db = open_database(f"sqlite:///{tmp_path / 's.sqlite'}")
    log = tmp_path / "v1.log"
    line = "x" * 99 + "\n"
    log.write_text(line * 50)  # 5,000 bytes; each game's span is 1,000 of them
    inode = os.stat(log).st_ino
    with db.session() as s:
        s.add(User(id=1, name="a", role="entrant", created_at=0.0))
        s.add(Version(id=1, user_id=1, number=1, runtime="python", filename="b.py", size=1, created_at=0.0))
        for i in range(5):
            gid = f"g{i + 1:06d}"
            s.add(Game(id=gid, seq=i + 1, public_seed=i, result="{}", rated=True, hands=0, created_at=0.0))
            s.flush()
            s.add(GameSeat(game_id=gid, seat=0, version_id=1, name="v1", score=0, rank=1, forfeited=False,
                           faults=0, maker_hands=0, maker_made=0, log_inode=inode, log_start=1000 * i,
                           log_end_inode=inode, log_end=1000 * (i + 1)))  # fmt: skip
    monkeypatch.setattr(analytics, "SEARCH_BYTES", 2500)
    found = analytics.search_logs(db, lambda _v, _i: log, 1, "x")
    assert found.bytes <= 2500 and found.games == 3 and "2,500 bytes" in found.stopped
    monkeypatch.setattr(analytics, "SEARCH_BYTES", 10**6)
    monkeypatch.setattr(analytics, "SEARCH_GAMES", 2)
    found = analytics.search_logs(db, lambda _v, _i: log, 1, "x")
    assert found.games == 2 and "newest 2 games" in found.stopped
    assert [m.game_id for m in found.matches][:1] == ["g000005"]  # newest first
    db.close()


def test_kept_figures_grow_by_the_new_games_as_a_recount_would(tmp_path: Path) -> None:
    from arena.server.db.database import open_database
    from arena.server.db.models import User

    url = f"sqlite:///{tmp_path / 'k.sqlite'}"
    db = open_database(url)
    with db.session() as s:
        s.add_all([User(id=2, name="ana", role="entrant", created_at=0.0),
                   User(id=3, name="bob", role="entrant", created_at=0.0)])  # fmt: skip
    users = {"ana": 2, "bob": 3}
    _insert(url, users, {}, GAMES[:1])
    kept = analytics.Summaries(db, "five-handed")
    first = kept.of(2, "ana")
    assert [p.game_id for p in first.games] == ["g000001"] and first.breakdown.total.hands == 3
    _insert(url, users, {}, GAMES[1:], versions=False)
    grown, again = kept.of(2, "ana"), analytics.Summaries(db, "five-handed").of(2, "ana")
    assert grown.breakdown.to_dict() == again.breakdown.to_dict() and grown.games == again.games
    assert grown.breakdown.total.hands == 6 and first.breakdown.total.hands == 3  # the first is unchanged
    db.close()


@pytest.fixture(scope="module")
def phone_browser() -> Iterator[Any]:
    sync = pytest.importorskip("playwright.sync_api", reason="playwright (the test extra) is not installed")
    from tests.report.test_browser import ARGS, CHROMIUM

    with sync.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.mark.needs_chromium
def test_the_pages_fit_a_phone_without_script(
    server: ServerProcess, seeded: dict[str, Any], request: Any
) -> None:
    if server.database is not None:
        pytest.skip("a browser sees the same pages on both databases: SQLite only (time)")
    browser = request.getfixturevalue("phone_browser")
    page = browser.new_page(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    ana = seeded["users"]["ana"]
    for path in (f"/entrants/{ana}/analytics", f"/entrants/{ana}/games", f"/entrants/{ana}"):
        page.goto(server.url + path)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path  # tables scroll inside
        assert page.locator("table").count() >= 1
    page.goto(f"{server.url}/entrants/{ana}/analytics")
    assert page.locator("svg.rating").bounding_box()["width"] <= 390
    page.close()


def test_the_ladder_keeps_each_seats_decision_times_for_the_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.results.record import GameRecord, SeatStats, encode_latencies
    from arena.server.db.models import User
    from arena.server.settings import load_competition
    from arena.server.wiring import Server
    from arena.stats.latency import histogram
    from tests.server.conftest import competition_toml

    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text(competition_toml("lat").replace('"bubblewrap"', '"none"'))
    built = Server(load_competition(tmp_path / "c.toml"), "http://127.0.0.1:1")
    try:
        with built.db.session() as s:
            s.add(User(id=2, name="ana", role="entrant", created_at=0.0))
            s.add(
                Version(id=1, user_id=2, number=1, runtime="python", filename="b.py", size=1, created_at=0.0)
            )
        times = [[4.0, 5.0, 6.0, 250.0], [], [1.0], [], []]
        seats = ("v1", "house-1", "house-2", "house-3", "house-4")
        result = {"seats": list(seats), "scores": [5, 0, 0, 0, 0], "ranks": [1, 2, 3, 4, 5], "winners": [0],
                  "forfeited": [], "outcome": {"termination": "target"}, "decisions": 5}  # fmt: skip
        record = GameRecord("t1", result, tuple(SeatStats(n, 0, 1, False, 0, 0, 0) for n in seats), (), (),
                            encode_latencies(times), (), 5)  # fmt: skip
        built.ladder.store(seats, 7, record, frozenset())
        [game] = analytics.played(built.db, 2, "five-handed")
        assert game.latency == histogram(times[0])
        total = analytics.breakdown(built.db, 2, "ana", [game]).total
        assert total.decisions_timed == 4 and total.latency_p99_ms == pytest.approx(250, rel=0.09)
    finally:
        built.db.close()
        built.lock.release()
