"""Who may see and do what: every rule of the server's authorisation, in one place.

The web layer asks these functions and nothing else; each page's test proves a stranger is refused. An
entrant's own things (its versions' files, checks' stderr, ladder logs) are visible to that entrant and
the organiser only, and asking for another's gets the same 404 as asking for something that does not
exist (a 403 would confirm the id). What a spectator (nobody logged in) sees is what ``[people] public``
makes public: the leaderboard, entrants' pages (names, versions' verdicts, games) and the games.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from arena.server.db.models import ORGANISER
from arena.server.errors import Refused, not_found
from arena.server.settings import CompetitionConfig


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who asks: a logged-in user (``user_id``) or a spectator (``user_id`` None)."""

    user_id: int | None = None
    name: str = ""
    role: str = ""

    @property
    def organiser(self) -> bool:
        return self.role == ORGANISER

    @property
    def logged_in(self) -> bool:
        return self.user_id is not None


def require_login(viewer: Viewer) -> int:
    """:raises Refused: 401 for a spectator."""
    if viewer.user_id is None:
        raise Refused(401, "log in first")
    return viewer.user_id


def require_entrant(viewer: Viewer) -> int:
    """Who may upload bots and ask for matches and challenges: a logged-in entrant. The organiser does not
    enter bots (its versions would play on the ladder it runs): it invites itself as an entrant instead.

    :raises Refused: 401 for a spectator, 403 for the organiser.
    """
    user_id = require_login(viewer)
    if viewer.organiser:
        raise Refused(403, "the organiser does not enter bots: invite yourself as an entrant")
    return user_id


def require_organiser(viewer: Viewer) -> None:
    """:raises Refused: 401 for a spectator, 403 for an entrant."""
    require_login(viewer)
    if not viewer.organiser:
        raise Refused(403, "only the organiser may do this")


def require_public(viewer: Viewer, config: CompetitionConfig) -> None:
    """The leaderboard, the entrants' pages and the games: public, or for logged-in people only.

    :raises Refused: 401 for a spectator when the competition is not public.
    """
    if not config.people.public and not viewer.logged_in:
        raise Refused(401, "this competition's pages are for its entrants: log in")


def require_owner(viewer: Viewer, owner_id: int, what: str) -> None:
    """An entrant's private things (files, stderr, logs): its own, or the organiser's to see.

    :raises Refused: 404 for anybody else (see the module's docstring).
    """
    if not (viewer.organiser or (viewer.user_id is not None and viewer.user_id == owner_id)):
        raise not_found(what)


def may_see_private(viewer: Viewer, owner_id: int) -> bool:
    return viewer.organiser or (viewer.user_id is not None and viewer.user_id == owner_id)


def require_at_table(viewer: Viewer, person_id: int, owner_ids: Collection[int], what: str) -> None:
    """A person's game (``arena.server.matches.people``): the person who played it, the organiser, and
    each owner of a version seated at it (who sees it, and its version's log, as any game of its bot's).

    :raises Refused: 404 for anybody else (see the module's docstring).
    """
    if not (viewer.organiser or (viewer.user_id is not None and viewer.user_id in {person_id, *owner_ids})):
        raise not_found(what)
