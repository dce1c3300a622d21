"""The sealed final: only the organiser starts it (with the form's CSRF token); it freezes the field; a
kill -9 of the server mid-final and a restart resume it; and what it stores and the order it gives equal
those of ``arena run`` of its frozen field with the same seed and key. Its page says which pairs are
settled and which tied, in the report's own sentences."""

from __future__ import annotations

import html
import json
import re
import sqlite3
import subprocess
import sys
import time
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.event.deals import read_key_file
from arena.results.queries import Queries
from arena.stats import wording
from arena.stats.confidence import Confidence
from arena.stats.leaderboard import compute_leaderboard
from arena.stats.sequential import Verdict
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, crawl

SQLITE_ONLY = True  # no SQL of its own: the final lives in its event directory, the pages are the same
COMPETITION = {
    "ladder": {"paused": True},  # the ladder's games are not what this module watches
    "final": {"rounds": 1, "max_games": 10, "seed": 7, "confidence": 0.75},
}
RULES_BOT = SAMPLE_BOT.with_name("rules.py")
PLAYED = re.compile(r"FINAL: running · (\d+) of at most (\d+) games played")


def final_dir(server: ServerProcess) -> Path:
    return next(server.directory.glob("results/*/final-1"))


def stored(directory: Path) -> dict[str, list[tuple[Any, ...]]]:
    """The games, seats and hand records an event stored, read as an outsider would."""
    path = directory / "event.sqlite"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return {
            "games": db.execute(  # all but wall_s, the time a game took
                "SELECT game_id, seq, seats, scores, ranks, winners, forfeited, excluded, rated, outcome,"
                " decisions, hands FROM games ORDER BY game_id"
            ).fetchall(),
            "seats": db.execute("SELECT * FROM game_seats ORDER BY 1, 2").fetchall(),
            "hands": db.execute("SELECT * FROM hands ORDER BY 1, 2").fetchall(),
            "schedule": db.execute("SELECT * FROM schedule ORDER BY 1").fetchall(),
        }


def wait_page(client: Client, path: str, pattern: str, timeout_s: float = 240) -> str:
    deadline = time.monotonic() + timeout_s
    while True:
        page = client.get(path).text
        if re.search(pattern, page):
            return page
        assert time.monotonic() < deadline, f"{pattern!r} not on {path} in {timeout_s} s: {page[-2000:]}"
        time.sleep(0.2)


def equals_arena_run(directory: Path, again: Path) -> Confidence:
    """``arena run`` of the final's frozen field in ``again``, with the final's seed (in final.toml) and its
    key: the same games, seats and hands stored, the same order and verdicts; the replay's confidence."""
    key = read_key_file(directory)
    assert key is not None
    subprocess.run(
        [sys.executable, "-m", "arena", "run", str(directory / "final.toml"), "--output", str(again),
         "--deal-key", key.hex(), "--until-settled", "--quiet"],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert stored(again) == stored(directory)
    with Queries.open(directory) as store:
        board = compute_leaderboard(store)
    with Queries.open(again) as store:
        replayed = compute_leaderboard(store)
    assert [s.name for s in board.standings] == [s.name for s in replayed.standings]
    conf = replayed.confidence
    assert [p.verdict for p in board.confidence.adjacent] == [p.verdict for p in conf.adjacent]
    return conf


def table_cells(page: str, table: str) -> list[dict[str, str]]:
    """The cells of ``table``'s body on ``page``, a row each, keyed by their ``data-key``."""
    body = re.search(rf'<table[^>]*id="{table}".*?<tbody>(.*?)</tbody>', page, re.S)
    assert body is not None, f"no table {table}"
    return [
        {
            key: html.unescape(text)
            for key, text in re.findall(r'<td data-key="([a-z_]+)"[^>]*>(.*?)</td>', row)
        }
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1), re.S)
    ]


def the_page_and_api_say_what_arena_leaderboard_says(directory: Path, client: Client, text: str) -> None:
    """``arena leaderboard DIR --json`` of the final's directory, against ``/api/final/1`` (the same rows,
    every figure) and the page (each row's place as its rank range, its tier, its name and its chance of
    being better than the next; the matrix of P; the heading and the sentence, in the terminal's words)."""
    printed = subprocess.run(
        [sys.executable, "-m", "arena", "leaderboard", str(directory), "--json"],
        check=True, capture_output=True, text=True, timeout=300,
    ).stdout  # fmt: skip
    cli = [{k: v for k, v in row.items() if k != "pairs"} for row in json.loads(printed)]  # + collusion
    api = client.get("/api/final/1").json()
    assert api["state"] == "done" and api["leaderboard"] == cli
    assert client.get("/api/final").json() == api
    with Queries.open(directory) as store:
        conf = compute_leaderboard(store).confidence  # the exact figures the JSON rounds to four places
    page = client.get("/final/1").text
    rows = table_cells(page, "final-order")
    assert len(rows) == len(cli) >= 2
    for i, (shown, row) in enumerate(zip(rows, cli, strict=True)):
        name = row["name"] + (" (house)" if row["house"] else "") + (" (DQ)" if row["disqualified"] else "")
        assert shown["name"] == name
        assert shown["place"] == row["place"] == (
            str(row["rank_range"][0]) if row["rank_range"][0] == row["rank_range"][1]
            else "{}–{}".format(*row["rank_range"])
        )  # fmt: skip
        assert shown["tier"] == str(row["tier"])
        p = conf.adjacent[i].probability if i < len(conf.adjacent) else None
        assert row["p_above_next"] == (None if p is None else round(p, 4))
        assert shown["p_next"] == ("-" if p is None else wording.p_text(p))
    matrix = re.search(r'<table[^>]*id="final-matrix".*?<tbody>(.*?)</tbody>', page, re.S)
    assert matrix is not None
    lines = re.findall(r"<tr>(.*?)</tr>", matrix.group(1))
    for i, (line, row, chances) in enumerate(zip(lines, cli, conf.pairwise, strict=True)):
        cells = [html.unescape(c) for c in re.findall(r'<td class="num">(.*?)</td>', line)]
        assert cells == ["-" if j == i else wording.p_text(p) for j, p in enumerate(chances)]
        assert row["p_above"] == {
            o["name"]: round(p, 4) for o, p in zip(cli, chances, strict=True) if o != row
        }
    assert wording.heading(conf) in text and wording.how_sure(conf) in text
    assert wording.verdict_sentence(conf) == api["sentence"]


@pytest.fixture(scope="module")
def organiser(server: ServerProcess) -> Client:
    client = Client(server.url)
    assert server.organiser_link is not None
    client.follow(server.organiser_link)
    return client


def test_only_the_organiser_starts_a_final_with_the_forms_token(
    server: ServerProcess, organiser: Client
) -> None:
    spectator = Client(server.url)
    assert spectator.post("/admin/final", csrf=False).status_code == 401
    entrant = Client(server.url)
    entrant.sign_up("mallory")
    assert entrant.post("/admin/final").status_code == 403
    organiser.get("/admin")
    assert organiser.post("/admin/final", csrf=False).status_code == 403
    assert organiser.post("/admin/final", {"csrf": "forged"}, csrf=False).status_code == 403
    assert "No final yet" in spectator.get("/final").text
    assert not list(server.directory.glob("results/*/final-*"))


def test_a_final_resumes_after_kill_9_and_equals_arena_run(
    server: ServerProcess, organiser: Client, tmp_path: Path
) -> None:
    entrants = {}
    for name, bot in (("alice", RULES_BOT), ("bob", SAMPLE_BOT)):  # rules beat random: a pair to settle
        c = Client(server.url)
        c.sign_up(name)
        c.verdict(c.upload("random.py", bot.read_bytes()).headers["location"])
        entrants[name] = c
    organiser.get("/admin")
    started = organiser.post("/admin/final")
    assert started.status_code == 303 and started.headers["location"] == "/final/1"
    assert organiser.post("/admin/final").status_code == 409  # one final at a time
    # A version uploaded after the freeze: it may become active, but it is not in the final.
    late = entrants["alice"].upload("random.py", SAMPLE_BOT.read_bytes() + b"\n# v2\n")
    assert late.status_code == 303

    page = wait_page(organiser, "/final/1", r"FINAL: running · [1-9]\d* of at most")
    server.kill()
    found = PLAYED.search(page)
    assert found is not None
    before = stored(final_dir(server))
    server.start()
    done = wait_page(organiser, "/final/1", "FINAL: done")
    directory = final_dir(server)
    after = stored(directory)
    assert len(before["games"]) < len(after["games"])  # the kill came mid-final
    assert len(after["games"]) <= int(found.group(2))  # "of at most N" while running: never passed
    assert set(before["games"]) <= set(after["games"])  # nothing stored before the kill changed

    frozen = json.loads((directory / "final.json").read_text())["field"]
    assert [(e["user"], e["version"]) for e in frozen] == [("alice", 1), ("bob", 1)]
    event = tomllib.loads((directory / "final.toml").read_text())
    assert [Path(e["workdir"]).name for e in event["entrant"]] == ["v1", "v1"]
    assert event["duplicate"] and event["seed"] == 7 and event["game"]["target"] == 5

    assert stored(directory) == after
    conf = equals_arena_run(directory, tmp_path / "again")

    # The page: the order's verdicts in the report's words, settled and tied pairs named.
    spectator = Client(server.url)
    shown = spectator.get("/final").text
    text = html.unescape(shown)
    assert wording.verdict_sentence(conf) in text
    for i, pair in enumerate(conf.adjacent):
        assert wording.pair_line(pair, i + 1, conf) in text
    settled = [f"{p.upper} above {p.lower}" for p in conf.adjacent if p.verdict is Verdict.ABOVE]
    tied = [f"{p.upper} and {p.lower}" for p in conf.adjacent if p.verdict is Verdict.TIED]
    assert f"Settled: {'; '.join(settled) or 'none'}." in text
    assert (
        f"Tied (shown within {conf.margin:g} {wording.score_name(conf.method)}): {'; '.join(tied) or 'none'}."
        in text
    )
    assert "FINAL: done" in done
    the_page_and_api_say_what_arena_leaderboard_says(directory, spectator, text)

    # The reports: the spectator's is the public copy; the organiser's is the full one.
    public = spectator.get("/final/1/report.html")
    assert public.status_code == 200
    assert public.content == (directory / "report-public.html").read_bytes()
    full = organiser.get("/final/1/report.html")
    assert full.content == (directory / "report.html").read_bytes()


def test_every_link_a_visitor_sees_leads_somewhere(server: ServerProcess) -> None:
    """The public pages after a final, crawled as a spectator and as another entrant: no link leads to a
    page that visitor may not see (the final's field linked versions' pages, a 404 to all but their
    owners and the organiser)."""
    stranger = Client(server.url)
    stranger.sign_up("stranger")
    for who in (Client(server.url), stranger):
        pages = crawl(who, ["/", "/final", "/final/1"])
        assert "/final/1" in pages and len(pages) > 10
        broken = {path: found for path, found in pages.items() if found[0] in (403, 404) or found[0] >= 500}
        assert broken == {}, broken


def test_the_page_names_settled_and_tied_pairs(server: ServerProcess) -> None:
    """The previous test's final, its verdicts set to one of each kind (a small final rarely settles a
    pair): the page lists the settled pair, the tied one and the open ones, each in the report's words."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    from arena.server.access import Viewer
    from arena.server.finals.views import board_context
    from arena.server.settings import load_competition

    with Queries.open(final_dir(server)) as store:
        board = compute_leaderboard(store)
    conf = board.confidence
    verdicts = [Verdict.ABOVE, Verdict.TIED] + [Verdict.OPEN] * (len(conf.adjacent) - 2)
    adjacent = tuple(replace(p, verdict=v) for p, v in zip(conf.adjacent, verdicts, strict=True))
    board = replace(board, confidence=replace(conf, adjacent=adjacent))
    conf = board.confidence
    config = load_competition(server.config)
    env = Environment(loader=PackageLoader("arena.server.web", "templates"), autoescape=select_autoescape())
    view = json.loads((final_dir(server) / "final.json").read_text())
    context = {
        "final": {**view, "state": "done", "played": 10, "total": 10, "error": "", "stopped": "budget"}
    }
    page = env.get_template("final.html").render(
        viewer=Viewer(), csrf="", config=config, open_signup=False, request_path="/final", finals=[1],
        **context, **board_context(board),
    )  # fmt: skip
    text = html.unescape(page)
    first, second, *rest = conf.adjacent
    assert f"Settled: {first.upper} above {first.lower}." in text
    tie = f"shown within {conf.margin:g} {wording.score_name(conf.method)}"
    assert f"Tied ({tie}): {second.upper} and {second.lower}." in text
    assert "Tied within the evidence" not in text  # "tied" means shown within the margin, nothing else
    assert "Still open: " + "; ".join(f"{p.upper} / {p.lower}" for p in rest) + "." in text
    assert wording.verdict_sentence(conf) in text
    for i, pair in enumerate(conf.adjacent):
        assert wording.pair_line(pair, i + 1, conf) in text
    assert "settled: the upper is better" in text and "tied: shown within" in text


def test_the_frozen_field_is_a_tournament_file_arena_run_reads(tmp_path: Path) -> None:
    """``final.toml`` as ``arena run`` reads it: the [final] settings, duplicate deals, the competition's
    executor (only what it sets), and commands with quotes and backslashes kept to the character."""
    from arena.event.config import load_config
    from arena.server.finals.service import event_toml
    from arena.server.settings import parse_competition

    competition = parse_competition(
        {
            "name": "c" * 64,
            "game": {"variant": "five-handed", "target": 5},
            "executor": {"kind": "dask", "workers": 2},
            "final": {"variant": "classic", "target": 7, "rounds": 2, "seed": 3, "max_games": 30},
        }
    )
    command = "python3 \"my bot.py\" --say 'a\\b' --address {address}"
    entrants = [{"name": n, "command": command, "workdir": str(tmp_path)} for n in ("ann", "ben")]
    (tmp_path / "final.toml").write_text(event_toml(competition, 1, entrants))
    config = load_config(tmp_path / "final.toml")
    assert (config.game.variant.value, config.game.target) == ("classic", 7)
    assert (config.rounds, config.seed, config.duplicate, config.ranking.max_games) == (2, 3, True, 30)
    assert config.output == tmp_path and config.name.endswith("-final-1")
    assert [(e.name, e.target) for e in config.entrants] == [("ann", command), ("ben", command)]
    assert (config.executor.kind.value, config.executor.workers) == ("dask", 2)


def test_a_bad_final_setting_is_one_line_naming_it() -> None:
    from arena.errors import ConfigError
    from arena.server.settings import parse_competition

    with pytest.raises(ConfigError, match=r"final\.confidence"):
        parse_competition({"name": "c", "game": {"variant": "classic"}, "final": {"confidence": 2}})
    with pytest.raises(ConfigError, match="final"):
        parse_competition({"name": "c", "game": {"variant": "classic"}, "final": {"budget": 2}})
