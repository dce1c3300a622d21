"""The pages added to the ladder against a real server: a version's log for one game (a span of its ladder
log, escaped, its owner's and the organiser's only), the organiser's export in the format of `arena
export`, descriptions and notes, and the OpenAPI document; and the database's newest migration upgrading
a database made by the one before it."""

from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect

from arena.engine.records import verify_record
from arena.errors import FaultKind
from arena.results.listings import GAME_COLUMNS
from arena.results.record import Fault, GameRecord, ScheduledGame, SeatStats
from arena.results.store import Store
from arena.server.db.database import MIGRATIONS, open_database
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess

NOISY = b"""import os
import sys
from arena.bot import run
from sample_bots.random import RandomBot


FORGED = (
    "[arena] forged\\x0b[arena] bot exited with status 0\\x1c[arena] fs\\u2028[arena] ls\\u2029[arena] ps"
    "\\x85[arena] nel\\x0c[arena] ff\\r[arena] cr"
)


class Noisy(RandomBot):
    def on_game_start(self, game):
        super().on_game_start(game)
        print(f"<script>start {game.game_id}</script>", file=sys.stderr, flush=True)
        print(f"running from {os.path.abspath(__file__)}", file=sys.stderr, flush=True)
        print(FORGED, file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(Noisy)
"""


@pytest.fixture(scope="module")
def people(server: ServerProcess) -> dict[str, Client]:
    """The owner of a noisy bot, another entrant with the sample bot, the organiser; a few games played."""
    owner, other, organiser = Client(server.url), Client(server.url), Client(server.url)
    owner.sign_up("noisy-owner")
    other.sign_up("quiet-other")
    assert server.organiser_link is not None
    organiser.follow(server.organiser_link)
    for client, data in ((owner, NOISY), (other, SAMPLE_BOT.read_bytes())):
        page = client.upload("bot.py", data)
        assert page.status_code == 303, page.text
        assert "VERDICT: PASS" in client.verdict(page.headers["location"])
    deadline = time.monotonic() + 120
    while httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()["games"] < 3:
        assert time.monotonic() < deadline, "the ladder played no 3 games in 120 s"
        time.sleep(0.5)
    return {"owner": owner, "other": other, "organiser": organiser}


def read_rows(server: ServerProcess, sql: str) -> list[tuple[Any, ...]]:
    """``sql`` on the server's database, read as an outsider: by ``ServerProcess.rows`` where the suite's
    conftest has it (it knows the PostgreSQL runs), else from the SQLite file, read-only."""
    if hasattr(server, "rows"):
        return list(server.rows(sql))
    path = server.directory / "results" / "test-pages" / "server.sqlite"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as db:
        return db.execute(sql).fetchall()


def owner_games(server: ServerProcess, name: str) -> tuple[int, dict[str, int]]:
    """``name``'s version and its stored games: (version id, {game id: public seed})."""
    found = read_rows(
        server,
        "SELECT s.game_id, s.version_id, g.result FROM game_seats s JOIN games g ON g.id = s.game_id "
        "JOIN versions v ON v.id = s.version_id JOIN users u ON u.id = v.user_id "
        f"WHERE u.name = '{name}' ORDER BY g.seq",  # a name of this module's own
    )
    return found[0][1], {game_id: json.loads(result)["public_seed"] for game_id, _, result in found}


@contextlib.contextmanager
def ladder_paused(server: ServerProcess, organiser: Client) -> Iterator[None]:
    """The ladder paused and no game in flight: every game played is stored, none is added meanwhile."""
    organiser.get("/admin")
    assert organiser.post("/admin/ladder/pause").status_code == 303
    deadline = time.monotonic() + 60
    while httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()["in_flight"]:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    try:
        yield
    finally:
        organiser.get("/admin")
        organiser.post("/admin/ladder/resume")


def test_a_version_s_log_for_one_game(server: ServerProcess, people: dict[str, Client]) -> None:
    owner, organiser = people["owner"], people["organiser"]
    owner.get("/me")
    token = owner.post("/me/token").text.split('<code id="token">')[1].split("<")[0]
    with ladder_paused(server, organiser):
        version_id, seeds = owner_games(server, "noisy-owner")
        game_id = next(iter(seeds))
        game = owner.get(f"/games/{game_id}")
        assert "my bot&#39;s log for this game" in game.text
        link = f"/games/{game_id}/logs/{version_id}"
        assert f'href="{link}"' in game.text
        page = owner.get(link)
        assert page.status_code == 200
        log = page.text.split('<pre id="game-log">')[1].split("</pre>")[0]
        after = (
            page.text.split('<pre id="after-log">')[1].split("</pre>")[0] if "after-log" in page.text else ""
        )
        # the game's start line, escaped, in its span or just after it (the copy to the log can lag)
        assert f"&lt;script&gt;start L{seeds[game_id]:x}&lt;/script&gt;" in log + after, page.text
        assert "<script>start" not in page.text
        # the bot's words as its entrant may read them, as a check's reason is (issue 41, item 6): its
        # upload's folder named so, no path of the server's machine
        assert "running from &lt;your upload&gt;/bot.py" in log + after, page.text
        for host in {str(server.directory), str(server.directory.resolve()), "/results/"}:
            assert host not in page.text, (host, page.text)
        assert organiser.get(link).status_code == 200
        assert "its log for this game" in organiser.get(f"/games/{game_id}").text
        # nobody else sees a link
        assert link not in people["other"].get(f"/games/{game_id}").text
        assert link not in Client(server.url).get(f"/games/{game_id}").text
        # every game of the version: its own start line in its span or just after it; none overlaps
        # another at one table (tests/server/ladder/test_gamelogs.py makes overlapping spans on purpose)
        for game_id in list(seeds)[:12]:
            path = f"/api/games/{game_id}/logs/{version_id}"
            got = httpx.get(f"{server.url}{path}", headers={"Authorization": f"Bearer {token}"}, timeout=30)
            assert got.status_code == 200 and got.json()["recorded"], got.text
            assert f"<script>start L{seeds[game_id]:x}</script>" in got.json()["log"] + got.json()["after"]
            assert got.json()["overlapping"] == []
            assert str(server.directory.resolve()) not in got.text, got.text


FORGED_SHOWN = (
    "[bot] [arena] forged\\x0b[arena] bot exited with status 0\\x1c[arena] fs\\u2028[arena] ls"
    "\\u2029[arena] ps\\x85[arena] nel\\x0c[arena] ff\\x0d[arena] cr"
)
"""The noisy bot's forged line as the pages show it: one line, marked by the shim as the bot's, each
character that ``str.splitlines`` would end a line at written as an escape."""


def test_a_bot_s_line_separators_begin_no_line_on_its_pages(
    server: ServerProcess, people: dict[str, Client]
) -> None:
    """Issue 42: the bot writes \\x0b, \\x1c, U+2028, U+2029, \\x85, \\x0c and \\r inside one line of
    ``[arena] ...`` pieces. Its logs page, its game's log page and its log search show that line whole,
    after the ``[bot]`` mark; no line of theirs is a piece of it that begins ``[arena]`` (before: the logs
    page, which split the log with ``str.splitlines``, showed seven of them as lines of their own)."""
    owner, organiser = people["owner"], people["organiser"]
    user_id = read_rows(server, "SELECT id FROM users WHERE name = 'noisy-owner'")[0][0]
    with ladder_paused(server, organiser):
        version_id, seeds = owner_games(server, "noisy-owner")
        game_id = next(iter(seeds))
        pages = {
            "logs": owner.get(f"/entrants/{user_id}/logs").text,
            "game log": owner.get(f"/games/{game_id}/logs/{version_id}").text,
        }
    for what, page in pages.items():
        shown = "\n".join(html.unescape(p) for p in re.findall(r"<pre[^>]*>(.*?)</pre>", page, re.DOTALL))
        lines = shown.split("\n")
        assert any(line.endswith(FORGED_SHOWN) for line in lines), (what, shown)
        pieces = {f"[arena] {w}" for w in ("fs", "ls", "ps", "nel", "ff", "cr")}  # the forgery's, split
        assert not [line for line in lines if line in pieces or line.startswith("[arena] forged")], shown
        for c in "\x0b\x1c\u2028\u2029\x85\x0c\r":
            assert c not in shown, (what, repr(c))
    found = owner.get(f"/entrants/{user_id}/logs/search?q=bot+exited+with").text
    assert "\\x0b[arena] <mark>bot exited with</mark> status 0\\x1c" in html.unescape(found), found


def export_as_an_event(server: ServerProcess, tmp_path: Path) -> Path:
    """The server's stored games written into an event's results store, as the mapping of docs/server.md
    says (round 1, table 1, block = the game's id), then `arena export` of that event: its directory."""
    games = read_rows(server, "SELECT id, seq, public_seed, result, rated FROM games ORDER BY seq")
    seats = read_rows(
        server,
        "SELECT game_id, name, score, rank, forfeited, maker_hands, maker_made, faults FROM game_seats "
        "ORDER BY game_id, seat",
    )
    hands = read_rows(server, "SELECT game_id, hand_index, record FROM hands ORDER BY game_id, hand_index")
    faults = read_rows(
        server,
        "SELECT game_id, name, seat, hand_index, decision_id, kind, detail, elapsed_ms, substitute "
        "FROM faults ORDER BY id",
    )
    schedule = []
    for game_id, seq, seed, result, _ in games:
        names = tuple(json.loads(result)["seats"])
        schedule.append(ScheduledGame(seq, game_id, 1, 1, game_id, 0, seed, names))
    entrants = sorted({n for g in schedule for n in g.seats})
    event = tmp_path / "event"
    with Store.open(event) as store:
        store.begin_event(
            {"ladder": True}, {}, schedule, [(n, "command", "", n.startswith("house")) for n in entrants]
        )
        for planned, (game_id, _, _, text, rated) in zip(schedule, games, strict=True):
            result = json.loads(text)
            stats = [
                SeatStats(r[1], r[2], r[3], bool(r[4]), r[5], r[6], r[7]) for r in seats if r[0] == game_id
            ]
            kept = [
                Fault(f[1], game_id, f[2], f[3], f[4], FaultKind(f[5]), *f[6:])
                for f in faults
                if f[0] == game_id
            ]
            record = GameRecord(
                game_id, result, tuple(stats), tuple((h[1], h[2]) for h in hands if h[0] == game_id),
                tuple(kept), (), tuple(result["forfeited"]), result["decisions"],
            )  # fmt: skip
            store.save_record(planned, record, bool(rated), result.get("excluded", []))
    done = subprocess.run(
        [sys.executable, "-m", "arena", "export", str(event), "-o", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return tmp_path / "out"


def test_the_organiser_exports_the_ladder_as_arena_export_does(
    server: ServerProcess, people: dict[str, Client], tmp_path: Path
) -> None:
    organiser = people["organiser"]
    with ladder_paused(server, organiser):
        assert 'href="/admin/export/games.csv"' in organiser.get("/admin").text
        hands = organiser.get("/admin/export/hands.jsonl")
        table = organiser.get("/admin/export/games.csv")
        exported = export_as_an_event(server, tmp_path)  # while the same games are stored
        # read before the ladder resumes (after it, a game may be stored before the reads)
        games = read_rows(server, "SELECT id, seq, hands, result, rated FROM games ORDER BY seq")
        joined = "SELECT h.record FROM hands h JOIN games g ON g.id = h.game_id ORDER BY g.seq, h.hand_index"
        stored = [r for (r,) in read_rows(server, joined)]
        seats = read_rows(server, "SELECT game_id, name, score, rank FROM game_seats ORDER BY game_id, seat")
        faults = dict(read_rows(server, "SELECT game_id, COUNT(*) FROM faults GROUP BY game_id"))
    assert hands.status_code == 200 and 'filename="hands.jsonl"' in hands.headers["content-disposition"]
    assert table.status_code == 200 and table.headers["content-type"].startswith("text/csv")
    lines = hands.text.splitlines()
    rows = list(csv.DictReader(io.StringIO(table.text)))
    assert table.text.splitlines()[0] == ",".join(GAME_COLUMNS)
    assert lines == stored and len(rows) == len(games) >= 3
    line = 1
    for row, (game_id, seq, count, result, rated) in zip(rows, games, strict=True):
        mine = [s for s in seats if s[0] == game_id]
        outcome = json.loads(result)
        names = [s[1] for s in mine]
        assert row == {
            "number": str(seq), "game_id": game_id, "round": "1", "table": "1", "block": game_id,
            "rotation": "0", "seats": ";".join(names), "scores": ";".join(str(s[2]) for s in mine),
            "ranks": ";".join(str(s[3]) for s in mine),
            "winners": ";".join(names[w] for w in outcome["winners"]),
            "termination": outcome["outcome"]["termination"], "hands": str(count),
            "rated": "true" if rated else "false",
            "forfeited": ";".join(names[f] for f in outcome["forfeited"]),
            "faults": str(faults.get(game_id, 0)), "first_hand_line": str(line),
        }  # fmt: skip
        for record in lines[line - 1 : line - 1 + count]:
            assert verify_record(json.loads(record)) == []  # each line is a sound hand record
        line += count
    assert line - 1 == len(lines)
    # and byte for byte what `arena export` writes for the same games, stored as an event's
    assert (exported / "hands.jsonl").read_text() == hands.text
    assert (exported / "games.csv").read_text() == table.text
    # nobody but the organiser downloads it
    for path in ("/admin/export/hands.jsonl", "/admin/export/games.csv"):
        assert people["owner"].get(path).status_code == 403
        assert Client(server.url).get(path).status_code == 401


def test_an_entrant_s_page_and_me_state_its_row_of_the_leaderboard(
    server: ServerProcess, people: dict[str, Client]
) -> None:
    """The entrant's page and ``/me`` say its place (the rank range, not a bare rank), its TrueSkill as
    mu ± σ and its P as its leaderboard row does, in the row's own cells (arena.stats.wording)."""
    owner = people["owner"]
    with ladder_paused(server, people["organiser"]):
        board = httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()["leaderboard"]
        row = next(r for r in board if r["entrant"] == "noisy-owner")
        mine = html.unescape(owner.get("/me").text)
        user_id = mine.split('href="/entrants/')[1].split('"')[0]
        public = html.unescape(Client(server.url).get(f"/entrants/{user_id}").text)
    for page in (mine, public):
        line = re.search(r'<p id="standing">(.*?)</p>', page)
        assert line is not None, page
        text = re.sub(r"<[^>]+>", "", line.group(1))
        assert text.startswith(f"On the ladder with {row['version']}: place {row['place']}, TrueSkill ")
        assert f"{row['games']} games" in text and "rank " not in text
        if row["p_above_next"] is not None:
            assert "chance its skill is above the next one's: " in text
        else:
            assert "chance" not in text


def test_descriptions_and_notes_are_shown(server: ServerProcess, people: dict[str, Client]) -> None:
    owner = people["owner"]
    owner.get("/me")
    said = "Plays the left bower early.\nNever goes alone."
    assert owner.post("/me/description", {"description": said}).status_code == 303
    assert said in owner.get("/me").text
    user_id = owner.get("/me").text.split('href="/entrants/')[1].split('"')[0]
    public = Client(server.url).get(f"/entrants/{user_id}").text
    assert 'id="description">Plays the left bower early.\nNever goes alone.</p>' in public
    assert "Plays the left bower early." in Client(server.url).get("/").text
    board = httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()["leaderboard"]
    assert next(r for r in board if r["entrant"] == "noisy-owner")["description"] == said
    files = {"file": ("bot.py", SAMPLE_BOT.read_bytes(), "text/x-python")}
    sent = owner.post("/submit", {"runtime": "python", "note": "v2: plain random"}, files=files)
    assert sent.status_code == 303
    assert "v2: plain random" in owner.get(sent.headers["location"]).text
    assert "v2: plain random" in Client(server.url).get(f"/entrants/{user_id}").text


def test_a_spectator_s_pages_are_shared_but_never_a_visitor_s_own(
    server: ServerProcess, people: dict[str, Client]
) -> None:
    """Spectators share one rendering of the leaderboard and of a stored game (``arena.server.web.cache``):
    it must hold no visitor's token or name, and a logged-in visitor's page must stay their own."""
    owner = people["owner"]
    game = next(iter(owner_games(server, "noisy-owner")[1]))
    first, second = Client(server.url), Client(server.url)
    seen = [first.get(f"/games/{game}"), owner.get(f"/games/{game}"), second.get(f"/games/{game}")]
    assert [page.status_code for page in seen] == [200, 200, 200]
    assert seen[0].text == seen[2].text  # one rendering for both spectators
    assert seen[0].cookies.get("arena") != seen[2].cookies.get("arena")  # each still has a cookie of theirs
    for page in (seen[0], seen[2]):
        assert 'name="csrf"' not in page.text and "log out" not in page.text
        assert "log for this game" not in page.text
    assert "log out noisy-owner" in seen[1].text
    assert "my bot&#39;s log for this game" in seen[1].text
    assert "log out noisy-owner" in owner.get("/").text
    board = Client(server.url).get("/").text
    assert 'name="csrf"' not in board and "log out" not in board
    for _ in range(2):  # a missing game is not kept as a page
        assert Client(server.url).get("/games/g999999").status_code == 404
    # The spectators' leaderboard is at most a second old: it catches up with the games stored.
    stored = httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()["games"]
    deadline = time.monotonic() + 60
    while True:
        shown = Client(server.url).get("/").text.split('class="state" hidden data-games="')[1]
        if int(shown.split('"')[0]) >= stored:
            break
        assert time.monotonic() < deadline, shown[:200]
        time.sleep(0.3)


def test_the_head_to_head_equals_a_count_over_the_stored_games(
    server: ServerProcess, people: dict[str, Client]
) -> None:
    """The entrant page's head-to-head is counted by the database; here it is counted again seat by seat."""
    ranks: dict[str, dict[str, int]] = {}
    with ladder_paused(server, people["organiser"]):
        for game_id, name, rank in read_rows(
            server,
            "SELECT s.game_id, u.name, s.rank FROM game_seats s JOIN versions v ON v.id = s.version_id "
            "JOIN users u ON u.id = v.user_id",
        ):
            ranks.setdefault(game_id, {})[name] = rank
        user_id = people["owner"].get("/me").text.split('href="/entrants/')[1].split('"')[0]
        page = Client(server.url).get(f"/entrants/{user_id}").text
    together = [r for r in ranks.values() if {"noisy-owner", "quiet-other"} <= r.keys()]
    above = sum(r["noisy-owner"] < r["quiet-other"] for r in together)
    below = sum(r["noisy-owner"] > r["quiet-other"] for r in together)
    assert together, "no game of the two together"
    row = (
        f'<tr><td>quiet-other</td><td class="num">{len(together)}</td><td class="num">{above}</td>'
        f'<td class="num">{below}</td></tr>'
    )
    assert row in page, page.split("<h2>Head to head</h2>")[1][:600]


def test_the_openapi_document_is_valid_and_describes_every_api_route(
    server: ServerProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    validator = pytest.importorskip("openapi_spec_validator", reason="openapi-spec-validator (test extra)")
    document = httpx.get(f"{server.url}/api/openapi.json", timeout=30).json()
    validator.validate(document)
    # every /api/ route of the app, as the app declares them (built here, never started)
    from arena.server.app import create_app
    from arena.server.settings import load_competition
    from arena.server.wiring import Server

    monkeypatch.chdir(tmp_path)
    own = [line for line in server.config.read_text().splitlines() if not line.startswith("database =")]
    (tmp_path / "c.toml").write_text("\n".join(own).replace('"bubblewrap"', '"none"') + "\n")
    built = Server(load_competition(tmp_path / "c.toml"), "http://127.0.0.1:1")
    try:
        routes = {
            (r.path.replace(":int}", "}"), method.lower())
            for r in create_app(built).routes
            if r.path.startswith("/api/")  # type: ignore[attr-defined]
            for method in r.methods or ()  # type: ignore[attr-defined]
            if method != "HEAD"
        }
    finally:
        built.db.close()
        built.lock.release()
    described = {(path, method) for path, ops in document["paths"].items() for method in ops}
    assert (
        routes == described and len(routes) == 15
    )  # 5 of unrated games (matches/api.py), 2 of analytics, 2 of finals
    for path, method in described:
        operation = document["paths"][path][method]
        assert operation["summary"] and {"200", "201"} & set(operation["responses"]), (path, method)


def test_the_newest_migration_upgrades_a_database_of_the_one_before(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    engine = create_engine(url)
    with engine.begin() as connection:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
    with sqlite3.connect(tmp_path / "old.sqlite") as raw:
        raw.execute("INSERT INTO users VALUES (1, 'ada', '', 'entrant', NULL, 0, 1.0)")
        raw.execute(
            "INSERT INTO versions VALUES (1, 1, 1, 'python', 'bot.py', 10, 1.0, 'passed', 1, '{}', 2.0, NULL)"
        )
        raw.execute("INSERT INTO games VALUES ('g000001', 1, 7, '{}', 1, 0, 3.0)")
        raw.execute("INSERT INTO game_seats VALUES ('g000001', 0, 1, 'v1', 5, 1, 0, 0, 1, 1)")
    engine.dispose()
    db = open_database(url)  # upgrades to the newest revision, keeping every row
    with db.engine.connect() as connection:
        head = ScriptDirectory.from_config(config).get_current_head()  # the newest, whichever it is
        assert head is not None and head >= "0002"
        assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == head
        assert connection.exec_driver_sql("SELECT name, description FROM users").all() == [("ada", "")]
        assert connection.exec_driver_sql("SELECT number, note FROM versions").all() == [(1, "")]
        assert connection.exec_driver_sql("SELECT score, log_start, log_end FROM game_seats").all() == [
            (5, None, None)
        ]
        assert {"log_inode", "log_end_inode"} <= {
            c["name"] for c in inspect(connection).get_columns("game_seats")
        }
    db.close()
