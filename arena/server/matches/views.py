"""The pages of unrated games (``arena.server.matches.service``): a version's SPRT matches and an
entrant's challenges. Both are private: only the entrant who asked and the organiser see them, and anybody
else gets the same 404 as for an id that does not exist (``arena.server.access``). The pages and the API
(``arena.server.matches.api``) call the same functions (``ask_match``, ``ask_challenge``, ``owned``,
``MatchView.to_dict``), so they cannot differ.
"""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.access import Viewer
from arena.server.matches.plans import MatchView
from arena.server.web.forms import whole_number
from arena.server.web.site import Visit, Web


def ask_match(web: Web, viewer: Viewer, version_id: int, form: FormData) -> int:
    """Start an SPRT match of the viewer's version (``baseline``: optional, another of its versions).

    :raises Refused: 401 a spectator, 403 the organiser, and what ``UnratedGames.ask_match`` refuses.
    """
    user_id = access.require_entrant(viewer)
    baseline = form.get("baseline")
    chosen = whole_number(baseline, "baseline") if baseline not in (None, "") else None
    return web.server.unrated.ask_match(user_id, version_id, chosen)


def ask_challenge(web: Web, viewer: Viewer, form: FormData) -> int:
    """Start a challenge: ``opponent`` (entrant ids, repeated) and ``games``.

    :raises Refused: 401 a spectator, 403 the organiser, and what ``UnratedGames.ask_challenge`` refuses.
    """
    user_id = access.require_entrant(viewer)
    opponents = [whole_number(o, "an opponent") for o in form.getlist("opponent")]
    return web.server.unrated.ask_challenge(user_id, opponents, whole_number(form.get("games", "1"), "games"))


def owned(web: Web, viewer: Viewer, match_id: int) -> MatchView:
    """:raises Refused: 404 no such match, or not the viewer's (the same answer)."""
    found = web.server.unrated.view(match_id)
    access.require_owner(viewer, found.plan.user_id, "match")
    return found


async def start_match(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit)
    return web.redirect(f"/matches/{ask_match(web, visit.viewer, int(request.path_params['id']), form)}")


async def start_challenge(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit)
    return web.redirect(f"/matches/{ask_challenge(web, visit.viewer, form)}")


async def match_page(web: Web, request: Request, visit: Visit) -> Response:
    found = owned(web, visit.viewer, int(request.path_params["id"]))
    return web.page(request, visit, "match.html", match=found, data=found.to_dict(), state=found.state)


async def challenges_page(web: Web, request: Request, visit: Visit) -> Response:
    server = web.server
    user_id = access.require_login(visit.viewer)
    return web.page(
        request,
        visit,
        "challenges.html",
        challenges=server.unrated.challenges_of(user_id),
        opponents=server.unrated.challengeable(user_id),
    )


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/versions/{id:int}/match", web.route(start_match), methods=["POST"]),
        Route("/matches/{id:int}", web.route(match_page), methods=["GET"]),
        Route("/challenges", web.route(challenges_page), methods=["GET"]),
        Route("/challenges", web.route(start_challenge), methods=["POST"]),
    ]
