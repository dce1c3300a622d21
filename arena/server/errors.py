"""What the server's services refuse, with the HTTP status the web layer answers it with.

A service (accounts, submissions, the organiser's actions) raises :class:`Refused` with a message written
for the person who asked; the web layer turns it into a page (or JSON) with that status and that message,
and nothing else: so the words an entrant reads and the code a client sees are decided in one place, next
to the rule that refused.
"""

from __future__ import annotations

from arena.errors import ArenaError


class Refused(ArenaError):
    """A request the server will not do; ``status`` is its HTTP status (400, 403, 404, 413, 429 ...)."""

    def __init__(self, status: int, message: str, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after_s = retry_after_s


def not_found(what: str = "page") -> Refused:
    """The one answer for what does not exist *and* for what the asker may not see: telling them apart
    would tell a stranger which ids exist."""
    return Refused(404, f"no such {what}")
