"""The ``arena`` command's entry point: a config that is no file is refused before the command line loads.

Importing the command line (typer, rich, numpy, the event and the results: ``python -X importtime -m arena``)
costs about 0.3 s of CPU on an idle machine and several times that on a loaded one, all of it before
``arena run`` could look at its config. ``arena run /dev/zero`` (or ``/dev/urandom``, a FIFO, a file of a
gigabyte) is refused by the same check the command makes (``arena.userfiles``, one line, exit 2), so here it
is made first, with nothing imported but that check: the refusal costs the interpreter's start and a
``stat``. (docs/security.md, "Files a person hands the arena", has the times; ``bench/bad_files.py``.)

Only what is certain is done here: when the arguments are ``run`` and options this module knows
(``RUN_VALUES``, ``RUN_FLAGS``; a test holds them to the command's own) around one config path. Anything
else (``--help``, an unknown option, two paths, another command) goes to the command line untouched, and
a config that passes is read again there, so this is only ever a faster way to the same line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

RUN_VALUES = frozenset(
    {
        "--seed",
        "--rounds",
        "--concurrency",
        "--output",
        "--deal-key",
        "--sandbox",
        "--executor",
        "--workers",
        "--scheduler",
        "--progress-every",
        "--standings-every",
    }
)
"""``arena run``'s options that take a value (the next argument, or ``--name=value``)."""
RUN_FLAGS = frozenset({"--duplicate", "--no-duplicate", "--quiet", "-q", "--strict", "--until-settled"})
"""``arena run``'s options that take none."""


def run_config(args: Sequence[str]) -> str | None:
    """The config path of ``arena ARGS`` when ARGS are certainly ``run``, known options and one path; else
    None (the command line will parse them, and say what is wrong)."""
    if not args or args[0] != "run":
        return None
    found: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        if arg == "--":
            found.extend(rest)
        elif arg.startswith("--") and "=" in arg:
            if arg.partition("=")[0] not in RUN_VALUES:
                return None
        elif arg in RUN_VALUES:
            if next(rest, None) is None:
                return None  # an option without its value: the command line's usage error
        elif arg in RUN_FLAGS:
            continue
        elif arg.startswith("-") and arg != "-":
            return None  # --help, a typo: the command line's to answer
        else:
            found.append(arg)
    return found[0] if len(found) == 1 else None


def refuse_early(args: Sequence[str]) -> int | None:
    """Exit status 2 when ``arena ARGS`` is a run whose config ``arena.userfiles`` refuses (its line printed
    as ``arena.cli.app.fail`` prints it); None when there is nothing to refuse here."""
    config = run_config(args)
    if config is None:
        return None
    from arena.errors import ConfigError
    from arena.text import error_lines
    from arena.userfiles import CONFIG_LIMIT, read_user_text

    try:
        read_user_text(Path(config), "config file", CONFIG_LIMIT)  # as arena.options.read_toml reads it
    except ConfigError as exc:
        print(error_lines("error", str(exc)), file=sys.stderr)
        return 2
    return None


def main() -> None:  # pragma: no cover - console entry point (tests run it as ``python -m arena``)
    code = refuse_early(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from arena.cli import main as command_line

    command_line()
