"""Paths in a config are relative to the TOML file, whatever the working directory ``arena run`` starts in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BOT = """\
from arena.bot import run
from sample_bots.random import RandomBot

if __name__ == "__main__":
    run(RandomBot)
"""


@pytest.mark.parametrize("sandbox", ["none", pytest.param("bubblewrap", marks=pytest.mark.needs_bwrap)])
def test_an_event_runs_the_same_from_another_directory(tmp_path: Path, sandbox: str) -> None:
    tmp_path.chmod(0o755)  # as root the sandbox runs the bot as nobody, who must be able to read it
    cup = tmp_path / "cup"
    (cup / "bots").mkdir(parents=True)
    (cup / "bots" / "mine.py").write_text(BOT)
    (cup / "cup.toml").write_text(
        f'name = "cup"\nrounds = 2\noutput = "results"\nsandbox = "{sandbox}"\n'
        '[game]\nvariant = "five-handed"\n'
        '[[entrant]]\nname = "mine"\ncommand = "{python} bots/mine.py --address {address}"\n'
        '[[entrant]]\nname = "wd"\ncommand = "{python} bots/mine.py --address {address}"\nworkdir = "bots"\n'
        '[[entrant]]\nname = "rules"\nclass = "sample_bots.rules:RulesBot"\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "arena", "run", "../cup/cup.toml", "-q"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (cup / "results" / "event.sqlite").is_file()
    assert not (elsewhere / "results").exists()
    assert (cup / "results" / "logs" / "mine.log").is_file()
