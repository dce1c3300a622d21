"""``arena.text``: a bot's words made safe to print, and the one shape of a problem that quotes them."""

from __future__ import annotations

import pytest
import typer

from arena.cli.app import fail
from arena.text import problem_block

# A bot's log as the arena quotes it: raw lines (never indented by the bot), a traceback's own indented
# lines, and an empty line.
LOG = 'exited; its log ends:\nTraceback (most recent call last):\n  File "bot.py", line 3\n\nValueError: no'


def test_a_problem_block_indents_the_quoted_lines_under_the_arenas_line() -> None:
    assert problem_block("warning", f"a: {LOG}", "retrying") == (
        "warning: a: exited; its log ends:\n"
        "    Traceback (most recent call last):\n"
        '  File "bot.py", line 3\n'
        "    \n"
        "    ValueError: no\n"
        "  retrying"
    )


def test_a_one_line_problem_is_one_line_and_an_empty_one_still_names_its_level() -> None:
    assert problem_block("error", "no such file") == "error: no such file"
    assert problem_block("error", "") == "error: "
    assert problem_block("warning", "a: down", "retrying") == "warning: a: down\n  retrying"


def test_the_cli_error_line_has_the_same_shape(capsys: pytest.CaptureFixture[str]) -> None:
    """``arena``'s ``error:`` lines and the conductor's warnings quote a log alike (one rule, one place),
    and the bot's words are made printable first."""
    exit_ = fail(f"a: {LOG}\n\x1b[2J")
    assert isinstance(exit_, typer.Exit) and exit_.exit_code == 2
    assert capsys.readouterr().err == problem_block("error", f"a: {LOG}\n\\x1b[2J") + "\n"
