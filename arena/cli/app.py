"""The typer application, and the one place where the arena's errors become an exit code and one line.

Every command runs its work inside :func:`one_line_errors`: an ``ArenaError`` is printed as ``error:`` and
its message (a bot's log lines indented under it), never as a traceback. The organiser's input (a config, a
directory, a stored event: ``ConfigError``, ``StoreError``) exits with 2; anything else the arena refused
(a lost cluster, a bot that could not be played) with 1. A full disk, wherever the arena meets it, is one
line too.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from arena.errors import ArenaError, ConfigError, StoreError
from arena.text import printable, problem_block

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="euchre-arena: tournaments of Euchre bots (Call-Ace, Five-handed, classic) over gRPC.",
)

BAD_INPUT = 2
REFUSED = 1


WIDTH = 80


def echo(text: str, err: bool = False) -> None:
    """Print the arena's own prose wrapped on words to 80 columns (each line of ``text`` on its own; an
    indented line keeps its indent), so a log or a terminal of any width reads it whole."""
    import textwrap

    out = []
    for line in text.splitlines() or [""]:
        lead = line[: len(line) - len(line.lstrip())]
        out += textwrap.wrap(
            line, WIDTH, subsequent_indent=lead + "  ", break_on_hyphens=False, break_long_words=False
        ) or [""]
    typer.echo("\n".join(out), err=err)


def fail(message: str, code: int = BAD_INPUT) -> typer.Exit:
    """Print ``error:`` and the message (lines after its first, such as a bot's log, indented under it);
    return the ``Exit`` for the caller to raise."""
    text = "\n".join(printable(line) for line in message.splitlines())  # a bot's words may be in it
    typer.echo(problem_block("error", text), err=True)
    return typer.Exit(code)


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Turn the arena's errors raised inside into ``error:`` lines and an exit code (see the module)."""
    try:
        yield
    except (ConfigError, StoreError) as exc:
        problems = getattr(exc, "problems", None)  # executor.StartFailed: one line per entrant that failed
        if problems:
            for name, why in problems[:-1]:
                fail(f"{name}: {why}")
            name, why = problems[-1]
            raise fail(f"{name}: {why}") from None
        raise fail(str(exc)) from None
    except ArenaError as exc:
        raise fail(str(exc), REFUSED) from None
    except OSError as exc:
        # The one foreign error turned into a line here: a full disk (or quota) can meet any write of the
        # arena's (a log, the lock, a report), and is the organiser's to fix, as a full database is.
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        where = f" writing {exc.filename!r}" if exc.filename else ""
        raise fail(
            f"no space left on the device{where}: free some space and run the same command to resume"
        ) from None
