"""The typer application, and the one place where the arena's errors become an exit code and one line.

Every command runs its work inside :func:`one_line_errors`: an ``ArenaError`` is printed as ``error:`` and
its message (a bot's log lines indented under it), never as a traceback. The organiser's input (a config, a
directory, a stored event: ``ConfigError``, ``StoreError``) exits with 2; anything else the arena refused
(a lost cluster, a bot that could not be played) with 1. A full disk, wherever the arena meets it, is one
line too.
"""

from __future__ import annotations

import errno
import inspect
import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import typer

from arena.errors import ArenaError, ConfigError, StoreError
from arena.text import error_lines


class TrimmedLines(io.TextIOBase):
    """Standard output into a pipe or a file, each line without its trailing spaces.

    Rich pads what it draws to the console's width (80 columns when not a terminal): a table whose column
    wraps, typer's help panels. On a terminal the padding is invisible; piped, every line carried it into
    ``grep``, a diff or a log. Spaces at the end of a written piece are held back until the rest of their
    line shows whether anything follows them.
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self.held = ""

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.stream.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.stream.errors

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.stream.fileno()

    def write(self, text: str) -> int:
        *lines, last = (self.held + text).split("\n")
        body = last.rstrip(" ")
        self.held = last[len(body) :]
        self.stream.write("".join(line.rstrip(" ") + "\n" for line in lines) + body)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


class ArenaTyper(typer.Typer):
    """The ``arena`` command: its standard output, when not a terminal, without trailing spaces
    (:class:`TrimmedLines`). Here rather than in ``main`` because the installed script calls ``app``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not sys.stdout.isatty() and not isinstance(sys.stdout, TrimmedLines):
            sys.stdout = TrimmedLines(sys.stdout)
        return super().__call__(*args, **kwargs)


app = ArenaTyper(
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


def unwrapped(help_text: str) -> str:
    """Help text with each paragraph on one line, for rich to wrap at the terminal's width.

    Typer's rich help keeps a docstring's single line breaks (in the commands list, and in every paragraph
    after the first of a command's own help), so the source's wrapping at 110 columns showed through: a
    line ended mid-phrase ("per-entrant / figures") and rich wrapped the rest again. Paragraphs are
    separated by a blank line; a paragraph that starts with ``\\b`` (click's "keep my line breaks") and an
    indented line (a table, a list) keep theirs.
    """
    paragraphs = inspect.cleandoc(help_text).split("\n\n")
    out = []
    for paragraph in paragraphs:
        lines = paragraph.split("\n")
        if paragraph.startswith("\b") or any(line.startswith(" ") for line in lines):
            out.append(paragraph)
        else:
            out.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(out)


def tidy_help(typer_app: typer.Typer) -> None:
    """Give every registered command its docstring :func:`unwrapped` as its help (and its epilog)."""
    if isinstance(typer_app.info.help, str):
        typer_app.info.help = unwrapped(typer_app.info.help)
    for command in typer_app.registered_commands:
        doc = command.help or (inspect.getdoc(command.callback) if command.callback else None)
        if doc:
            command.help = unwrapped(doc)
        if isinstance(command.epilog, str):
            command.epilog = unwrapped(command.epilog)


def fail(message: str, code: int = BAD_INPUT) -> typer.Exit:
    """Print ``error:`` and the message (lines after its first, such as a bot's log, indented under it);
    return the ``Exit`` for the caller to raise."""
    typer.echo(error_lines("error", message), err=True)  # a bot's words may be in it: printable per line
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
