"""The commands (arena.cli) as a user sees them: bad configs and settings in one line with exit 2, and what
``arena leaderboard`` and ``arena run --until-settled`` print.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app
from arena.conductor.tournament import run_event
from arena.event.config import parse_config
from tests.helpers import LADDER, arena_cli, call_ace_event, event, write_toml


def test_bad_config_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    path = write_toml(tmp_path / "bad.toml", event(tmp_path, rounds=-1))
    result = arena_cli("run", str(path))
    assert result.returncode == 2
    assert "rounds=-1" in result.stderr and "Traceback" not in result.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("name = [unclosed\n")
    result = arena_cli("run", str(broken))
    assert result.returncode == 2 and "not valid TOML" in result.stderr
    result = arena_cli("run", str(tmp_path / "missing.toml"))
    assert result.returncode == 2 and "does not exist" in result.stderr


def test_an_unknown_arena_loop_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena", "demo", "--output", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ARENA_LOOP": "trio"},
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: ARENA_LOOP='trio': expected one of 'auto', 'uvloop', 'asyncio'"
    ]


def test_leaderboard_prints_and_exports_the_confidence(tmp_path: Path) -> None:
    config = parse_config(
        call_ace_event(tmp_path, [*LADDER, {"name": "eps60", "class": "sample_bots.noisy:Noisy60"}])
    )
    asyncio.run(run_event(config))
    runner = CliRunner()
    text = runner.invoke(app, ["leaderboard", str(config.output)])
    assert text.exit_code == 0
    assert "Chance the whole order is right:" in text.output
    assert "Chance the row's entrant is truly better than the column's" in text.output
    assert "pts/hand" in text.output and "95% interval" in text.output and "TrueSkill" in text.output
    assert max(len(line.rstrip()) for line in text.output.splitlines()) <= 80
    rows = json.loads(runner.invoke(app, ["leaderboard", str(config.output), "--json"]).output)
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5]
    assert set(rows[0]["p_above"]) == {r["name"] for r in rows[1:]}
    assert rows[0]["p_above_next"] == rows[0]["p_above"][rows[1]["name"]]
    assert rows[-1]["p_above_next"] is None and rows[-1]["settled_above_next"] is None
    lo, hi = rows[0]["points_per_hand_ci"]
    assert lo <= rows[0]["score"] <= hi  # plain event: the score is points per hand
    assert len({r["whole_order"] for r in rows}) == 1 and 0 <= rows[0]["whole_order"] <= 1
    again = json.loads(runner.invoke(app, ["leaderboard", str(config.output), "--json"]).output)
    assert again == rows  # seeded: the same event prints the same figures
    csv_text = runner.invoke(app, ["leaderboard", str(config.output), "--csv"]).output
    header, first = csv_text.splitlines()[:2]
    assert header.startswith("rank,place,name,score,score_lo,score_hi,")  # the order's number first
    assert first.startswith("1,")
    assert rows[0]["verdict_next"] in ("above", "tied", "open") and rows[-1]["verdict_next"] is None
    lo, hi = rows[0]["rank_range"]  # the place is the first entrant's rank range, which starts at 1
    assert lo == 1 and rows[0]["place"] == (str(lo) if lo == hi else f"{lo}–{hi}")
    assert "Settled at 0.95" in text.output or "Not settled at 0.95" in text.output


def test_cli_run_until_settled_reports_the_open_pairs_at_the_budget(tmp_path: Path) -> None:
    config = tmp_path / "e.toml"
    config.write_text(
        f'seed = 3\nrounds = 2\nconcurrency = 1\noutput = "{tmp_path / "out"}"\n'
        '[game]\nvariant = "call-ace"\n[ranking]\nmax_games = 6\ncheck_every = 2\n'
        '[[entrant]]\nname = "a"\nclass = "sample_bots.rules:RulesBot"\n'
    )
    result = CliRunner().invoke(app, ["run", str(config), "--until-settled", "--quiet"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the console wraps long lines
    assert "after 2 games 4 of 4 adjacent pairs are open" in text and "extending to 6 games" in text
    assert "until-settled: budget of 6 games spent (6 played) before" in text
    assert "neighbour pairs still open:" in text
    assert "Chance the whole order is right" in text
