"""What the commands print, read as a newcomer and a script read it: help that breaks lines only between
phrases, piped output without trailing spaces, one name for a game everywhere, and an event that ends by
saying how to make the report's copy to share."""

from __future__ import annotations

import itertools
import os
import re
import shlex
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from tests.helpers import arena_cli, event, write_toml

ENV = {**os.environ, "COLUMNS": "80"}
COMMANDS = sorted(
    c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands if c.callback
)

PHRASES = [
    "per-entrant figures",
    "rating plot",
    "final scores (* won)",
    "exit 0 pass, 1 fail",
    "0 pass, 1 fail, 2 the server refused the upload",
    "0 H1 accepted, 1 H0 accepted, 3 undecided",
    "for arena replay",
    "the columns of games.csv",
    "readable by you only",
]
"""Phrases of the help that a line break inside would garble. Rich wraps on any white space (a no-break
space too: its wrap splits on ``\\s``), so they are kept whole by wording, checked here at 80 columns."""

BREAK = "⏎"


def flattened(text: str) -> str:
    """The help's words with a mark where a line ends: box drawing gone, white space single."""
    lines = []
    for line in text.splitlines():
        words = re.sub(r"[│╭╮╰╯─]", " ", line).split()
        if words:
            lines.append(" ".join(words))
    return f" {BREAK} ".join(lines)


def broken(phrase: str, text: str) -> list[str]:
    words = [re.escape(w) for w in phrase.split(" ")]
    pattern = f" (?:{BREAK} )?".join(words)
    return [m.group() for m in re.finditer(pattern, flattened(text)) if BREAK in m.group()]


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    runner = CliRunner()
    out = {}
    for command in ["", *COMMANDS]:
        result = runner.invoke(app, [*([command] if command else []), "--help"], env={"COLUMNS": "80"})
        assert result.exit_code == 0, result.output
        assert max(len(line) for line in result.output.splitlines()) <= 80
        out[command] = result.output
    return out


def test_help_never_breaks_a_listed_phrase_at_80_columns(helps: dict[str, str]) -> None:
    everything = "\n".join(helps.values())
    for phrase in PHRASES:
        assert phrase in " ".join(flattened(everything).replace(BREAK, "").split()), f"{phrase!r} is gone"
    problems = [(name, b) for name, text in helps.items() for p in PHRASES for b in broken(p, text)]
    assert problems == [], problems


def test_the_command_list_gives_each_command_one_line(helps: dict[str, str]) -> None:
    """The list shows each command's first paragraph: kept to one line at 80 columns, it cannot be broken
    mid-phrase, and a source line break in a docstring cannot show through."""
    panel = helps[""].split("Commands")[1]
    rows = [line.strip("│ ") for line in panel.splitlines()[1:] if line.startswith("│")]
    named = [row.split()[0] for row in rows]
    assert sorted(named) == COMMANDS, f"a summary wraps onto a second line:\n{panel}"


def test_a_docstrings_line_breaks_do_not_show_through(helps: dict[str, str]) -> None:
    """Typer's rich help keeps single line breaks of a paragraph after the first: the source's wrapping at
    110 columns made short lines ("per-entrant / figures"). Each line of a paragraph is filled: the next
    line's first word would not have fitted on it."""
    for name, text in helps.items():
        lines = text.split("╭")[0].splitlines()  # the prose above the panels (the epilog is a table)
        for above, below in itertools.pairwise(lines):
            if above.strip() and below.strip() and not above.lstrip().startswith("Usage"):
                room = 80 - 1 - len(above.rstrip())
                assert len(below.split()[0]) + 1 > room, (
                    f"arena {name} --help: a short line:\n{above}\n{below}"
                )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("plain")
    config = write_toml(tmp / "event.toml", event(tmp, rounds=2))
    result = arena_cli("run", str(config), env=ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    return tmp / "out", result.stdout


def test_piped_output_has_no_trailing_spaces(played: tuple[Path, str]) -> None:
    """Rich pads a table whose column wraps, and typer's help, to 80 columns: through a pipe (as here:
    ``arena_cli`` captures stdout through one) no line may end in a space."""
    out, ran = played
    outputs = {"run": ran}
    for args in (["games", str(out)], ["--help"], ["games", "--help"], ["leaderboard", str(out)]):
        result = arena_cli(*args, env=ENV)
        assert result.returncode == 0, result.stderr
        outputs[" ".join(args)] = result.stdout
    for name, text in outputs.items():
        padded = [line for line in text.splitlines() if line != line.rstrip()]
        assert padded == [], f"arena {name}: {len(padded)} lines end in spaces, e.g. {padded[0]!r}"
    assert "seats: score (* won)" in outputs["games " + str(out)]  # the table itself was printed


def test_a_game_has_one_name_in_games_replay_and_faults(played: tuple[Path, str]) -> None:
    out, _ = played
    listing = arena_cli("games", str(out), env=ENV).stdout
    rows = [line.split() for line in listing.splitlines() if re.match(r"\s*r\d{3}-t\d{2}\b", line)]
    assert len(rows) >= 2 and "#" not in listing.split("seats")[0]  # led by the id, no number column
    first = rows[0][0]
    replay = arena_cli("replay", str(out), first, env=ENV)
    assert replay.returncode == 0 and replay.stdout.startswith(f"Game {first}:"), replay.stdout[:200]
    assert "#" not in arena_cli("replay", "--help", env=ENV).stdout.split("Options")[0]


def test_run_ends_with_how_to_make_the_public_copy(played: tuple[Path, str], tmp_path: Path) -> None:
    """The organiser's report is readable by its owner only (it holds the bots' logs): the end of the run
    says how to make the copy to share, and that command, run as printed, makes it."""
    out, ran = played
    assert stat.S_IMODE((out / "report.html").stat().st_mode) == 0o600
    said = re.search(r"the copy to share, without:\n  (arena report \S+ --public -o \S+)$", ran, re.M)
    assert said, ran[-600:]
    command = shlex.split(said.group(1))
    result = arena_cli(*command[1:], env=ENV, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    public = tmp_path / command[-1]
    assert stat.S_IMODE(public.stat().st_mode) == 0o644
