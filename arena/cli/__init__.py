"""The ``arena`` command. Thin on purpose: each command parses its arguments, calls one function a test
could call directly, and prints; errors become one ``error:`` line and an exit code in one place
(``arena.cli.app.one_line_errors``: 2 for bad input). The commands live by what they work on: ``run``
(run, demo), ``results`` (leaderboard, replay, report, games, faults, export), ``match``, ``play`` (a seat
played by a person, in the browser), ``check`` (check-bot, version), ``ask`` (a stored decision, again),
``server`` (serve, invite, submit, status); ``progress`` is the terminal's view of a running event."""

from __future__ import annotations

# The commands are registered in the order `arena --help` lists them.
# isort: off
from arena.cli.app import app
from arena.cli import run, results, match, play, check, ask, server

# isort: on
from arena.cli.app import tidy_help

tidy_help(app)  # after every command is registered

__all__ = ["app", "ask", "check", "main", "match", "play", "results", "run", "server"]


def main() -> None:  # pragma: no cover - console entry point
    app(prog_name="arena")
