"""The README's two commands are what a newcomer runs; CI must run exactly the test one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    return re.findall(r"```bash\n(python3 -m venv .*?)\n```", (ROOT / "README.md").read_text())


def test_readme_has_one_demo_command_and_one_test_command() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    assert commands[0].endswith("pip install -e . && arena demo")
    assert commands[1].endswith("pip install -e '.[test]' && pytest")


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_commands()[1] in ci
