"""Two small real events shared by the report tests (built once per session, a few seconds each).

``five``: five-handed; a launched bot (tests/bots/chaos.py, illegal plays: faults, forfeits, disqualified)
and in-process sample bots. ``ace``: Call-Ace, five in-process sample bots (random bots give thrown-in and
lone hands). ``twins``: five copies of the rules bot, with a tie margin wide enough for twelve games to
show them level. Fixed seeds and deal keys, so the same hands every run.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
from pathlib import Path

import pytest

from arena.conductor.tournament import run_event
from arena.event.config import parse_config
from tests.helpers import CHAOS

KEY = "5eed" * 16


def _event(out: Path, variant: str, entrants: list[dict[str, str]], rounds: int, **more: object) -> Path:
    config = parse_config(
        {
            "name": f"report-{variant}",
            "seed": 3,
            "rounds": rounds,
            "concurrency": 2,
            "output": str(out),
            "deal_key": KEY,
            "sandbox": "none",
            "game": {"variant": variant} | ({"use_joker": True} if variant == "call-ace" else {}),
            "faults": {"max_faults_per_game": 1, "decision_ms": 5000},
            "entrant": entrants,
        }
        | more
    )
    # in a thread of its own: a browser test's Playwright already runs an event loop in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run_event(config)).result()
    return out


@pytest.fixture(scope="session")
def five(tmp_path_factory: pytest.TempPathFactory) -> Path:
    entrants = [
        {"name": "chaos", "command": f"{sys.executable} {CHAOS} --mode illegal --port {{port}}"},
        {"name": "rules", "class": "sample_bots.rules:RulesBot"},
        {"name": "random", "class": "sample_bots.random:RandomBot"},
        {"name": "random-b", "class": "sample_bots.random:RandomBot"},
        {"name": "rules-b", "class": "sample_bots.rules:RulesBot"},
    ]
    return _event(tmp_path_factory.mktemp("five") / "out", "five-handed", entrants, 5)


@pytest.fixture(scope="session")
def ace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    entrants = [
        {"name": "rules", "class": "sample_bots.rules:RulesBot"},
        {"name": "random", "class": "sample_bots.random:RandomBot"},
        {"name": "random-b", "class": "sample_bots.random:RandomBot"},
        {"name": "passer", "class": "tests.report.report_bots:Passer"},
        {"name": "passer-b", "class": "tests.report.report_bots:Passer"},
    ]
    return _event(tmp_path_factory.mktemp("ace") / "out", "call-ace", entrants, 10)


@pytest.fixture(scope="session")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    entrants = [{"name": f"rules-{c}", "class": "sample_bots.rules:RulesBot"} for c in "abcde"]
    out = tmp_path_factory.mktemp("twins") / "out"
    return _event(out, "five-handed", entrants, 12, ranking={"tie_margin": 1.0})


@pytest.fixture(scope="session")
def chatty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A launched bot that logs each decision, among four in-process rules bots."""
    bot = Path(__file__).with_name("report_bots.py")
    entrants = [{"name": "chatty", "command": f"{sys.executable} {bot} --port {{port}}"}] + [
        {"name": f"rules-{c}", "class": "sample_bots.rules:RulesBot"} for c in "abcd"
    ]
    # one game at a time, so that each log line belongs to one game
    return _event(tmp_path_factory.mktemp("chatty") / "out", "five-handed", entrants, 3, concurrency=1)
