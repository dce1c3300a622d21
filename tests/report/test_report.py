"""The report's numbers against a hand-computed event, its replay encoding, and the CLI views (issue 12)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from arena.errors import FaultKind
from arena.report import build_report, leaderboard, render_html
from arena.report.encode import decode_hand, encode_hand, pack, place_faults, place_times, unpack
from arena.report.figures import event_figures
from arena.results.record import Fault, GameRecord, ScheduledGame, SeatStats, encode_hands, encode_latencies
from arena.results.store import Store
from arena.stats.latency import histogram, merge, percentile
from tests.helpers import ROOT

SCHEMA = json.loads((ROOT / "docs" / "hand-record.schema.json").read_text())


def arena_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


# ------------------------------------------------------------------ a tiny event whose figures are known


def _hand(
    maker: int | None, partner: int | None, alone: bool, outcome: str, points: list[int]
) -> dict[str, Any]:
    return {"maker": maker, "partner": partner, "alone": alone, "outcome": outcome, "points": points}


def _tiny(tmp_path: Path) -> Path:
    """Two three-seat games among a, b, c, d (seat lists, ranks and hands chosen to be checked by hand)."""
    games = [
        ("g1", ("a", "b", "c"), [10, 4, 2], [1, 2, 3], [],
         [_hand(0, 1, False, "made", [1, 1, 0]), _hand(2, None, True, "euchred", [2, 2, 0]),
          _hand(None, None, False, "thrown_in", [0, 0, 0])]),
        ("g2", ("b", "c", "d"), [10, 10, 3], [1, 1, 3], [2],
         [_hand(1, 0, False, "euchred", [0, 0, 2]), _hand(2, None, True, "march", [0, 0, 4])]),
    ]  # fmt: skip
    faults = [
        Fault("a", "g1", 0, 1, 4, FaultKind.ILLEGAL_ACTION, "not its card", 3.0, "PLAY(9C)"),
        Fault("d", "g2", 2, 0, 2, FaultKind.TIMEOUT, "no reply", 1000.0, "PASS"),
        Fault("d", "g2", 2, 0, 5, FaultKind.TIMEOUT, "no reply", 1000.0, "PASS"),
        Fault("d", "g2", 2, 1, 9, FaultKind.HARNESS, "the arena was late", 1200.0, "PASS"),
    ]
    schedule = [ScheduledGame(i, g[0], i + 1, 1, g[0], 0, 100 + i, g[1]) for i, g in enumerate(games)]
    with Store.open(tmp_path / "tiny") as store:
        entrants = [(n, "class", "m:C", False) for n in "abcd"]
        store.begin_event({"f": 1}, {"name": "tiny", "game": {"variant": "call-ace"}}, schedule, entrants)
        for sched, (game_id, seats, scores, ranks, forfeited, hands) in zip(schedule, games, strict=True):
            result = {
                "scores": scores,
                "ranks": ranks,
                "winners": [s for s in range(3) if ranks[s] == 1],
                "forfeited": forfeited,
                "outcome": {"termination": "target_reached", "hands_played": len(hands)},
                "decisions": 10,
                "wall_s": 0.1,
            }
            stats = [SeatStats(n, scores[s], ranks[s], s in forfeited, 0, 0, 0) for s, n in enumerate(seats)]
            records = [h | {"hand_index": i} for i, h in enumerate(hands)]
            game_faults = [f for f in faults if f.game_id == game_id]
            latencies = [[10.0] * 98 + [1000.0] * 2] if game_id == "g1" else []  # a's decision times
            record = GameRecord(
                game_id,
                result,
                tuple(stats),
                encode_hands(records),
                tuple(game_faults),
                encode_latencies(latencies),
                tuple(forfeited),
                10,
            )
            store.save_record(sched, record, True, [])
    return tmp_path / "tiny"


def test_figures_of_a_hand_computed_event(tmp_path: Path) -> None:
    with Store.open(_tiny(tmp_path), create=False) as store:
        fig = event_figures(store)
    e = {name: s.to_dict() for name, s in fig.entrants.items()}
    # a: 1 game won; 3 hands; points 1 + 2 + 0; made trump once and made it; one illegal action.
    assert (e["a"]["games"], e["a"]["wins"], e["a"]["hands"], e["a"]["points"]) == (1, 1, 3, 3)
    assert e["a"]["points_per_hand"] == 1.0 and e["a"]["maker_share"] == pytest.approx(1 / 3)
    assert e["a"]["made_share"] == 1.0 and e["a"]["faults"] == {"illegal_action": 1}
    # b: second in g1, first in g2 (a shared first place counts); partner twice, euchred once (g2).
    assert (e["b"]["games"], e["b"]["wins"], e["b"]["hands"], e["b"]["points"]) == (2, 1, 5, 3)
    assert e["b"]["points_per_hand"] == pytest.approx(0.6)
    assert (e["b"]["maker"], e["b"]["partner"], e["b"]["euchred"]) == (0, 2, 1)
    # c: maker twice (alone and euchred in g1, with b and euchred in g2), never made.
    assert (e["c"]["maker"], e["c"]["maker_made"], e["c"]["made_share"], e["c"]["euchred"]) == (2, 0, 0.0, 2)
    c = e["c"]
    assert (c["alone"], c["alone_made"], c["alone_march"], c["alone_euchred"]) == (1, 0, 0, 1)
    assert e["c"]["points"] == 0 and e["c"]["wins"] == 1
    # d: one game, forfeited; a lone march; two timeouts charged, the harness fault apart.
    assert (e["d"]["hands"], e["d"]["points"], e["d"]["points_per_hand"]) == (2, 6, 3.0)
    assert (e["d"]["alone"], e["d"]["alone_march"], e["d"]["forfeits"]) == (1, 1, 1)
    assert e["d"]["faults"] == {"timeout": 2}
    assert e["d"]["faults_charged"] == 2 and e["d"]["harness_faults"] == 1
    # head to head: W-L-D of the first against the second; the shared first place of g2 is a draw.
    assert fig.head_to_head("a", "b").wld() == "1-0-0" and fig.head_to_head("b", "a").wld() == "0-1-0"
    assert fig.head_to_head("b", "c").wld() == "1-0-1" and fig.head_to_head("c", "d").wld() == "1-0-0"
    assert fig.head_to_head("a", "d").games == 0
    # latencies: a answered 98 decisions in 10 ms and 2 in 1 s (histograms: within 9%); the rest unrecorded
    assert e["a"]["decisions_timed"] == 100
    assert e["a"]["latency_p50_ms"] == pytest.approx(10, rel=0.09)
    assert e["a"]["latency_p99_ms"] == pytest.approx(1000, rel=0.09)
    assert e["b"]["latency_p50_ms"] is None
    # the leaderboard charges d with its two timeouts only; the rating history has one row per seat played
    board = {s.name: s for s in fig.standings}
    assert board["d"].faults == 2 and board["a"].faults == 1
    assert len(fig.history) == 6 and [h.seq for h in fig.history] == [0, 0, 0, 1, 1, 1]


def test_latency_histogram_percentiles() -> None:
    times = [0.001, 0.5, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377]
    hist = merge([histogram(times[:7]), histogram(times[7:])])
    assert sum(hist.values()) == len(times)
    for q in (0.1, 0.5, 0.9, 1.0):
        exact = sorted(times)[max(1, math.ceil(q * len(times))) - 1]
        assert percentile(hist, q) == pytest.approx(max(exact, 0.01), rel=0.09)
    assert percentile({}, 0.5) is None


def test_report_leaderboard_cells_are_words_and_rounded_numbers(tmp_path: Path) -> None:
    """Every cell of the report's leaderboard is text for people (no JSON, no Python True/False, numbers
    rounded), every column has its explanation, and each row still carries the CLI's JSON row."""
    with Store.open(_tiny(tmp_path), create=False) as store:
        fig = event_figures(store)
    board = leaderboard(fig)
    assert [r["data"] for r in board["rows"]] == [s.to_dict() for s in fig.standings]
    for row in board["rows"]:
        for key, text in row["cells"].items():
            assert isinstance(text, str) and text, key
            assert not any(raw in text for raw in ("{", "[", "True", "False", "None", "nan")), (key, text)
            assert not re.search(r"\d\.\d{3,}", text), (key, text)  # rounded for people
    assert all(c.help and "added by the ranking" not in c.help for c in board["columns"])
    html = render_html(fig, {"cards": [], "num_players": 3, "games": []})
    for false_text in ("by conservative skill", "the leaderboard sorts on", "added by the ranking"):
        assert false_text not in html
    assert board["sentence"].endswith(".") and board["sentence"][0].isupper()


def test_leaderboard_csv_booleans_and_80_columns(tmp_path: Path) -> None:
    directory = _tiny(tmp_path)
    rows = list(csv.DictReader(io.StringIO(arena_cli("leaderboard", str(directory), "--csv").stdout)))
    assert {r["house"] for r in rows} == {"false"} and {r["disqualified"] for r in rows} == {"false"}
    assert {r["name"]: r["faults"] for r in rows}["d"] == "2"
    table = arena_cli("leaderboard", str(directory)).stdout
    assert max(len(line.rstrip()) for line in table.splitlines()) <= 80
    assert "pts/hand" in table and "maker" in table
    helptext = arena_cli("leaderboard", "--help").stdout
    for column in ("pts/hand", "TrueSkill", "maker", "faults", "forf", "note"):
        assert column in helptext


# ------------------------------------------------------------------ real events: encoding and CLI views


def test_replay_encoding_round_trips_every_hand(five: Path, ace: Path) -> None:
    for directory in (five, ace):
        with Store.open(directory, create=False) as store:
            stored = store.database.all("SELECT COUNT(*) FROM hands")[0][0]
            checked = 0
            for row in store.hand_records():
                record = row.record
                back = decode_hand(encode_hand(record))
                assert back["deck"] == record["deck"] and back["actions"] == record["actions"]
                assert back["winners"] == [t["winner"] for t in record["tricks"]]
                assert back["outcome"] == record["outcome"] and back["points"] == record["points"]
                checked += 1
        assert checked == stored > 10, f"{directory}: {checked} of {stored} hands checked"
    assert unpack(pack({"x": [1, "JKR"]})) == {"x": [1, "JKR"]}


def test_every_fault_is_placed_on_the_action_it_replaced(five: Path) -> None:
    placed = 0
    with Store.open(five, create=False) as store:
        stored = store.database.all("SELECT COUNT(*) FROM faults")[0][0]
        for game in store.games_overview():
            data = store.game(game.game_id)
            assert data is not None
            for h, i, seat, _kind, _detail, substitute, _decision in place_faults(data.hands, data.faults, 1):
                action = data.hands[h]["actions"][i]
                assert i >= 0 and action == {"seat": seat, "action": substitute}
                placed += 1
    assert placed == stored > 0, f"{placed} of {stored} faults placed"


def test_games_faults_and_export(five: Path, tmp_path: Path) -> None:
    listing = arena_cli("games", str(five))
    assert listing.returncode == 0 and "r001-t01" in listing.stdout
    assert max(len(line.rstrip()) for line in listing.stdout.splitlines()) <= 80
    only = arena_cli("games", str(five), "--entrant", "rules", "--csv")
    rows = list(csv.DictReader(io.StringIO(only.stdout)))
    assert rows and all("rules" in r["seats"].split(";") for r in rows)
    assert {r["rated"] for r in rows} <= {"true", "false"}

    faults = json.loads(arena_cli("faults", str(five), "--json").stdout)
    assert faults and {f["entrant"] for f in faults} == {"chaos"}
    assert {f["kind"] for f in faults} == {"illegal_action"} and all(f["charged"] for f in faults)
    one = json.loads(arena_cli("faults", str(five), "--json", "--game", faults[0]["game_id"]).stdout)
    assert {f["game_id"] for f in one} == {faults[0]["game_id"]}
    assert json.loads(arena_cli("faults", str(five), "--json", "--kind", "timeout").stdout) == []
    bad = arena_cli("faults", str(five), "--kind", "sneeze")
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown fault kind")
    assert "Traceback" not in bad.stderr

    out = tmp_path / "exported"
    done = arena_cli("export", str(five), "-o", str(out))
    assert done.returncode == 0, done.stderr
    lines = (out / "hands.jsonl").read_text().splitlines()
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for line in lines:
        validator.validate(json.loads(line))
    games = list(csv.DictReader((out / "games.csv").open()))
    assert sum(int(g["hands"]) for g in games) == len(lines)
    last = games[-1]
    assert int(last["first_hand_line"]) + int(last["hands"]) - 1 == len(lines)


def test_replay_shows_faults_in_their_hand_and_record_card_text(five: Path) -> None:
    text = arena_cli("replay", str(five), "0").stdout
    hands = text.split("\nHand ")
    assert any("fault: chaos" in h for h in hands[1:])
    with Store.open(five, create=False) as store:
        first = next(store.hand_records()).record
    seats = len(first["dealt"])
    dealt = [line.split()[1:] for line in hands[1].splitlines()[1 : 1 + seats]]
    assert dealt == first["dealt"], "each seat's dealt cards, in the record's own card text (TD, not 10♦)"


@pytest.mark.parametrize("make", ["missing", "empty", "file"])
def test_report_of_a_non_event_is_one_line_and_exit_2(tmp_path: Path, make: str) -> None:
    target = tmp_path / "x"
    if make == "empty":
        target.mkdir()
    elif make == "file":
        target.write_text("not an event")
    result = arena_cli("report", str(target))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and result.stderr.startswith("error:")
    assert arena_cli("games", str(target)).returncode == 2


def test_report_is_one_file_with_no_external_reference(ace: Path, tmp_path: Path) -> None:
    built = build_report(ace, tmp_path / "r.html")
    html = built.path.read_text()
    assert built.games == 10 and built.size < 3_000_000
    for external in ('src="http', 'href="http', "<link", 'src="//', "sourceMappingURL"):
        assert external not in html


def _games_of(html: str) -> list[dict[str, Any]]:
    packed = re.search(r'<script type="application/octet-stream" id="replay-data">([^<]*)</script>', html)
    assert packed is not None
    games: list[dict[str, Any]] = unpack(packed.group(1))["games"]
    return games


def test_organiser_copy_has_each_games_log_lines_and_public_has_none(chatty: Path, tmp_path: Path) -> None:
    own = arena_cli("report", str(chatty), "-o", str(tmp_path / "own.html"))
    public = arena_cli("report", str(chatty), "-o", str(tmp_path / "public.html"), "--public")
    assert own.returncode == public.returncode == 0, own.stderr + public.stderr
    mine = _games_of((tmp_path / "own.html").read_text())
    for game in mine:  # chatty sits in every game, and says something at each of its decisions
        assert any(line.startswith("chatty: thinking:") for line in game["log"]), game["id"]
        assert not any("[arena]" in line or "also in game" in line for line in game["log"])
    text = (tmp_path / "public.html").read_text()
    assert "thinking" not in text and 'id="replay-botlog"' not in text
    assert all("log" not in game for game in _games_of(text))
    assert (tmp_path / "public.html").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "own.html").stat().st_mode & 0o777 == 0o600  # the logs: its owner's eyes only


def test_every_answered_decision_time_is_placed_on_its_action(five: Path, chatty: Path) -> None:
    for directory in (five, chatty):
        with Store.open(directory, create=False) as store:
            times = store.decision_times()
            fig = event_figures(store)
            max_faults = int(fig.meta.faults_policy.get("max_faults_per_game", 3))
            for game in store.games_overview():
                data = store.game(game.game_id)
                assert data is not None
                placed = place_times(data.hands, data.faults, max_faults, times[game.game_id])
                assert [len(row) for row in placed] == [len(h["actions"]) for h in data.hands]
                flat = [t for row in placed for t in row if t is not None]
                assert len(flat) == sum(len(seat) for seat in times[game.game_id]) > 0
                faulted = {(f.hand_index, f.seat) for f in data.faults}
                for h, row in enumerate(placed):  # an action without a time is a fault's or the autopilot's
                    for i, t in enumerate(row):
                        seat = data.hands[h]["actions"][i]["seat"]
                        assert t is not None or (h, seat) in faulted or seat in game.forfeited
