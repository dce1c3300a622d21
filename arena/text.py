"""A bot's words as data: the one function that makes text from a bot safe to print or render.

A bot writes what it likes into its log, into the details of a gRPC status it aborts with, and into its
handshake (name, author, version). The arena quotes all of these to the organiser: a failed bot's log
tail under ``arena run``'s warning, fault details in ``arena faults``, ``arena replay``, ``arena
check-bot`` and the HTML report. Printed raw, an escape sequence in them is a command to the organiser's
terminal: clear the screen, set the window title, write the clipboard (OSC 52), hide lines behind a
carriage return, or, with bidirectional overrides, show text in another order than it is stored.

:func:`printable` writes every such character as a visible escape (``\\x1b``, ``\\u202e``) rather than
dropping it: the organiser sees that a bot tried, and what. It is applied where text leaves the arena (the
terminal's error and notice lines, the listings, the report), not where it is stored, so events stored
before it are shown safely too, and ``--json`` output stays the stored text (JSON escapes control
characters itself).

:func:`problem_block` is the one shape of a problem that quotes a bot's words over several lines (a start
warning with its log's last lines, an ``error:`` with a bot's log under it): the arena's line first, the
quoted lines indented under it, so the organiser reads where the bot's words begin and end.

This module sits at the bottom of the house (it imports nothing of the arena) so that the CLI, the report,
the results' listings, the conductor and the players can all use it.
"""

from __future__ import annotations

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Unicode's bidirectional formatting characters: they reorder what a terminal or browser shows."""
LINE_SEPARATORS = (0x2028, 0x2029)
"""Unicode's line and paragraph separators: Python's ``splitlines`` (and JavaScript) end a line at each, so
a bot's line could seem to hold a second one that begins where it likes."""

_ESCAPED: dict[int, str] = {
    **{c: f"\\x{c:02x}" for c in (*range(0x00, 0x20), 0x7F)},  # C0 and DEL: ESC, BEL, CR, BS ...
    **{c: f"\\x{c:02x}" for c in range(0x80, 0xA0)},  # C1: CSI (0x9b) and OSC (0x9d) in one character
    **{ord(c): f"\\u{ord(c):04x}" for c in BIDI_CONTROLS},
    **{c: f"\\u{c:04x}" for c in LINE_SEPARATORS},
}
_ESCAPED_KEEPING_LINES = {c: e for c, e in _ESCAPED.items() if c not in (0x09, 0x0A)}


def printable(text: str, lines: bool = False) -> str:
    """``text`` with every control character (C0, DEL, C1) and bidirectional control written as a visible
    escape; with ``lines``, newlines and tabs are kept (a log excerpt, a multi-line message).

    >>> printable("\\x1b]52;c;cHduZWQ=\\x07bot")
    '\\\\x1b]52;c;cHduZWQ=\\\\x07bot'
    >>> printable("one\\ntwo\\r", lines=True)
    'one\\ntwo\\\\x0d'
    """
    return text.translate(_ESCAPED_KEEPING_LINES if lines else _ESCAPED)


def error_lines(level: str, message: str) -> str:
    """An arena error's ``message`` as the terminal shows it: :func:`printable` line by line (a bot's words,
    a path, may be in it), then :func:`problem_block`. One shape for ``arena.cli.app.fail`` and the early
    refusal of ``arena.start``."""
    return problem_block(level, "\n".join(printable(line) for line in message.splitlines()))


def problem_block(level: str, text: str, then: str = "") -> str:
    """``level:`` and the first line of ``text``; each later line (a bot's log's last lines) indented four
    spaces under it, unless it already starts with two (the caller indented it: a nested excerpt keeps its
    shape); then ``then``, what the arena does about it, indented two.

    One rule for the terminal's warnings (``arena.conductor.tournament``) and its ``error:`` lines
    (``arena.cli.app.fail``), so a quoted log looks the same under either. Apply :func:`printable` to a
    bot's words before: this only arranges lines.
    """
    first, *rest = text.splitlines() or [""]
    lines = [f"{level}: {first}", *(line if line.startswith("  ") else f"    {line}" for line in rest)]
    if then:
        lines.append(f"  {then}")
    return "\n".join(lines)
