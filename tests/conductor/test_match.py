"""``arena match`` (arena.conductor.match): entrant specs, the paired schedule, deal differences, and whole
matches that decide for a clearly better candidate, against a clearly worse one, and not at all for
identical bots until the budget.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.conductor.match import (
    MatchSettings,
    deal_differences,
    match_schedule,
    parse_spec,
    run_match,
    sprt_of_store,
)
from arena.errors import ConfigError
from arena.results.store import Store
from arena.stats.rating import RatedGame
from arena.stats.sprt import SprtResult, SprtSettings
from tests.helpers import ROOT, arena_cli


def test_specs_and_schedule_pair_the_two_sides_on_the_same_deals_and_seats() -> None:
    assert parse_spec("c", "sample_bots.rules:RulesBot") == {
        "name": "c",
        "class": "sample_bots.rules:RulesBot",
    }
    assert parse_spec("c", "127.0.0.1:50051") == {"name": "c", "address": "127.0.0.1:50051"}
    assert parse_spec("c", "class:pkg.m:C") == {"name": "c", "class": "pkg.m:C"}
    assert parse_spec("c", "{python} bot.py --port {port}")["command"].endswith("{port}")
    with pytest.raises(ConfigError, match=r"expected package\.module:Class"):
        parse_spec("c", "not a spec")
    games = match_schedule(3, 5, ["f1", "f2", "f3", "f4"], 2)
    assert len(games) == 20 and [g.seq for g in games] == list(range(20))
    for block in ("d00001", "d00002"):
        deal = [g for g in games if g.block == block]
        assert len({g.seed for g in deal}) == 1
        cand = [g.seats for g in deal if "candidate" in g.seats]
        base = [g.seats for g in deal if "baseline" in g.seats]
        assert [tuple("X" if n == "candidate" else n for n in s) for s in cand] == [
            tuple("X" if n == "baseline" else n for n in s) for s in base
        ]
        assert sorted(s.index("candidate") for s in cand) == [0, 1, 2, 3, 4]
    assert match_schedule(3, 5, ["f1", "f2", "f3", "f4"], 3)[:20] == games


def test_deal_differences_need_whole_deals_in_order() -> None:
    def g(seq: int, block: str, who: str, score: int, hands: int = 10) -> RatedGame:
        return RatedGame(
            seq, f"{block}-{who}-{seq}", (who, "f"), (1, 2), (score, 0), block=block, hands=hands
        )

    whole = [
        g(0, "d1", "candidate", 6),
        g(1, "d1", "candidate", 4),
        g(2, "d1", "baseline", 3),
        g(3, "d1", "baseline", 1),
    ]
    # d2 is incomplete (the baseline has not played it, the candidate only from one seat) and d3, after it
    # in the schedule, is whole: the list stops at d2 and never reaches d3, or the test would skip ahead.
    later = [
        g(4, "d2", "candidate", 9),
        g(5, "d3", "candidate", 8),
        g(6, "d3", "candidate", 8),
        g(7, "d3", "baseline", 0),
        g(8, "d3", "baseline", 0),
    ]
    assert deal_differences(whole + later, 2) == [pytest.approx(10 / 20 - 4 / 20)]
    # Without d2, d3 counts: the stop above is d2's doing, not d3's.
    without_d2 = [game for game in whole + later if game.block != "d2"]
    assert deal_differences(without_d2, 2) == [pytest.approx(10 / 20 - 4 / 20), pytest.approx(16 / 20)]


def settings(tmp_path: Path, candidate: str, baseline: str, max_deals: int, h0: float = 0.0) -> MatchSettings:
    return MatchSettings(
        candidate,
        baseline,
        ("sample_bots.rules:RulesBot",),
        {"variant": "call-ace"},
        7,
        tmp_path / "match",
        SprtSettings(h0, 0.1, 0.05, 0.05),
        max_deals=max_deals,
        concurrency=1,
    )


def test_a_clearly_better_candidate_is_accepted_and_a_clearly_worse_one_rejected(tmp_path: Path) -> None:
    better = asyncio.run(
        run_match(settings(tmp_path / "a", "sample_bots.noisy:Noisy00", "sample_bots.noisy:Noisy100", 40))
    )
    assert better.state.result is SprtResult.H1 and better.state.deals <= 20 and better.state.mean > 0.1
    worse = asyncio.run(
        run_match(settings(tmp_path / "b", "sample_bots.noisy:Noisy100", "sample_bots.noisy:Noisy00", 40))
    )
    assert worse.state.result is SprtResult.H0 and worse.state.deals <= 20 and worse.state.mean < 0
    with Store.open(tmp_path / "a" / "match") as store:  # stored like an event, and reportable
        stored = sprt_of_store(store)
        assert stored is not None and stored[1] == better.state
        assert len(store.finished()) == better.games and better.games % 10 == 0


def test_identical_bots_stay_undecided_until_the_budget_and_resume_identically(tmp_path: Path) -> None:
    """Symmetric hypotheses (-0.1 vs +0.1): a difference of exactly 0 on every deal sits midway, so the
    LLR stays 0. (Against H0 = 0 it would rightly accept H0 at once: a constant 0 is strong evidence.)"""
    same = settings(tmp_path, "sample_bots.rules:RulesBot", "sample_bots.rules:RulesBot", 12, h0=-0.1)
    result = asyncio.run(run_match(same))
    assert (
        result.state.result is SprtResult.UNDECIDED and result.state.deals == 12 and result.state.llr == 0.0
    )
    assert result.games == 12 * 2 * 5
    again = asyncio.run(run_match(same))  # nothing left to play: the stored match is read back
    assert again.resumed and again.state == result.state and again.games == result.games


def test_cli_match_prints_the_running_llr_and_exits_by_result(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "m"
    result = runner.invoke(
        app,
        [
            "match",
            "sample_bots.noisy:Noisy00",
            "sample_bots.noisy:Noisy100",
            "--output",
            str(out),
            "--max-deals",
            "30",
            "--concurrency",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "LLR" in result.output and "H1 accepted" in result.output
    board = runner.invoke(app, ["leaderboard", str(out)])
    assert board.exit_code == 0 and "SPRT" in board.output
    named = "SPRT of the candidate sample_bots.noisy:Noisy00 against the baseline sample_bots.noisy:Noisy100,"
    assert named in " ".join(board.output.split())  # the stored match names its sides as given
    bad = runner.invoke(app, ["match", "nonsense", "sample_bots.rules:RulesBot", "--output", str(out)])
    assert bad.exit_code == 2 and "expected package.module:Class" in bad.output
    bad = runner.invoke(app, ["match", "a.b:C", "a.b:C", "--h1", "-1", "--output", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "must be greater than h0" in bad.output


@pytest.mark.parametrize("max_deals", ["9", "6", "1", "0", "-3"])
def test_a_budget_below_the_first_look_is_refused_in_one_line(max_deals: str, tmp_path: Path) -> None:
    """Six deals were accepted and played, and could never decide (the test looks from deal 10 on)."""
    out = tmp_path / "m"
    done = arena_cli(
        "match", "sample_bots.rules:RulesBot", "sample_bots.random:RandomBot", "--max-deals", max_deals,
        "--output", str(out), "--sandbox", "none",
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "" and done.stderr == (
        f"error: --max-deals {max_deals} is below the test's first look, at deal 10: the SPRT could never "
        "decide; give at least 10\n"
    )
    assert not out.exists()


def test_the_match_names_both_sides_and_states_its_estimate(tmp_path: Path) -> None:
    """As a user runs it: the two sides named before the looks and in the verdict, the verdict stating the
    measured edge (never "by about h1 or more"), and no share of the way past 100%."""
    candidate, baseline = "sample_bots.noisy:Noisy00", "sample_bots.noisy:Noisy100"
    done = arena_cli(
        "match", candidate, baseline, "--max-deals", "12", "--output", str(tmp_path / "m"), "--sandbox",
        "none", "--concurrency", "1", env={**os.environ, "COLUMNS": "80"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"candidate {candidate} against baseline {baseline}", done.stdout
    text = " ".join(done.stdout.split())
    assert text.startswith(
        f"{lines[0]} field sample_bots.rules:RulesBot in the other 4 seats; five-handed; seed 1; at most 12 "
        "deals deal 10: edge "
    ), done.stdout
    assert f"SPRT of the candidate {candidate} against the baseline {baseline}," in text
    assert f"H1 accepted: {candidate}'s edge over {baseline} is nearer h1 (+0.1) than h0 (+0); as " in text
    assert "or more" not in text and not re.search(r"\b(\d{3,})% of the way", text), done.stdout
    assert all(len(line) <= 80 for line in lines), done.stdout


def test_the_default_variant_is_the_examples() -> None:
    """README's first event and ``arena demo`` play Five-handed; a match with no --variant does too."""
    from arena.cli.match import DEFAULT_VARIANT

    readme = (ROOT / "README.md").read_text()
    assert f'variant = "{DEFAULT_VARIANT}"' in readme.split("# my-event.toml", 1)[1].split("```", 1)[0]
    done = arena_cli("match", "--help", env={**os.environ, "COLUMNS": "200"})
    assert f"[default: {DEFAULT_VARIANT}]" in done.stdout, done.stdout
