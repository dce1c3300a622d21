"""The pages and the JSON API of unrated games (``arena.server.matches``): a version's SPRT matches and an
entrant's challenges. Both are private: only the entrant who asked and the organiser see them, and anybody
else gets the same 404 as for an id that does not exist (``arena.server.access``). The pages and the API
call the same functions (``ask_match``, ``ask_challenge``, ``MatchView.to_dict``), so they cannot differ.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.access import Viewer
from arena.server.errors import Refused
from arena.server.match_plans import MatchView
from arena.server.web import Visit, Web


def _int(value: object, what: str) -> int:
    """:raises Refused: 400 not a whole number."""
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 12:
        return int(value)
    raise Refused(400, f"{what} must be a whole number")


def ask_match(web: Web, viewer: Viewer, version_id: int, form: FormData) -> int:
    """Start an SPRT match of the viewer's version (``baseline``: optional, another of its versions).

    :raises Refused: 401 a spectator, 403 the organiser, and what ``UnratedGames.ask_match`` refuses.
    """
    user_id = access.require_login(viewer)
    if viewer.organiser:
        raise Refused(403, "the organiser does not enter bots")
    baseline = form.get("baseline")
    chosen = _int(baseline, "baseline") if baseline not in (None, "") else None
    return web.server.unrated.ask_match(user_id, version_id, chosen)


def ask_challenge(web: Web, viewer: Viewer, form: FormData) -> int:
    """Start a challenge: ``opponent`` (entrant ids, repeated) and ``games``.

    :raises Refused: 401 a spectator, 403 the organiser, and what ``UnratedGames.ask_challenge`` refuses.
    """
    user_id = access.require_login(viewer)
    if viewer.organiser:
        raise Refused(403, "the organiser does not enter bots")
    opponents = [_int(o, "an opponent") for o in form.getlist("opponent")]
    return web.server.unrated.ask_challenge(user_id, opponents, _int(form.get("games", "1"), "games"))


def owned(web: Web, viewer: Viewer, match_id: int) -> MatchView:
    """:raises Refused: 404 no such match, or not the viewer's (the same answer)."""
    found = web.server.unrated.view(match_id)
    access.require_owner(viewer, found.plan.user_id, "match")
    return found


def match_page_routes(web: Web) -> list[BaseRoute]:
    server = web.server

    async def start_match(request: Request, visit: Visit) -> Response:
        form = await web.form(request, visit)
        return web.redirect(f"/matches/{ask_match(web, visit.viewer, int(request.path_params['id']), form)}")

    async def start_challenge(request: Request, visit: Visit) -> Response:
        form = await web.form(request, visit)
        return web.redirect(f"/matches/{ask_challenge(web, visit.viewer, form)}")

    async def match_page(request: Request, visit: Visit) -> Response:
        found = owned(web, visit.viewer, int(request.path_params["id"]))
        return web.page(request, visit, "match.html", match=found, data=found.to_dict(), state=found.state)

    async def challenges_page(request: Request, visit: Visit) -> Response:
        user_id = access.require_login(visit.viewer)
        return web.page(
            request,
            visit,
            "challenges.html",
            challenges=server.unrated.challenges_of(user_id),
            opponents=server.unrated.challengeable(user_id),
        )

    return [
        Route("/versions/{id:int}/match", web.route(start_match), methods=["POST"]),
        Route("/matches/{id:int}", web.route(match_page), methods=["GET"]),
        Route("/challenges", web.route(challenges_page), methods=["GET"]),
        Route("/challenges", web.route(start_challenge), methods=["POST"]),
    ]


def match_api_routes(web: Web, viewer: Callable[[Request], Viewer]) -> list[BaseRoute]:
    """The API's routes for unrated games; ``viewer`` is the API's bearer-token check."""
    server = web.server

    async def version_matches(request: Request, _visit: Visit) -> Response:
        """One of the token's versions' SPRT matches, newest first.
        ---
        summary: my version's matches
        security: [{token: []}]
        parameters:
          - {name: id, in: path, required: true, schema: {type: integer}, description: "the version's id"}
        responses:
          "200":
            description: the matches with this version as the candidate
            content: {application/json: {schema: {type: object, properties: {matches: {type: array,
                      items: {$ref: "#/components/schemas/Match"}}}}}}
          "401":
            description: no valid token
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "404":
            description: no such version, or not the token's (the same answer)
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        who = viewer(request)
        version = server.submissions.get(int(request.path_params["id"]))
        access.require_owner(who, version.user_id, "version")
        return JSONResponse({"matches": [m.to_dict() for m in server.unrated.of_version(version.id)]})

    async def start_match(request: Request, _visit: Visit) -> Response:
        """Ask whether this version is better than another of the token's versions (an SPRT match).
        ---
        summary: start a match of my version against another
        security: [{token: []}]
        parameters:
          - {name: id, in: path, required: true, schema: {type: integer}, description: "the candidate's id"}
        requestBody:
          content:
            application/x-www-form-urlencoded:
              schema:
                type: object
                properties:
                  baseline: {type: integer, description: "the baseline's id (default: the newest passed
                    version before the candidate)"}
        responses:
          "201":
            description: the match, queued for the tables' spare capacity
            content: {application/json: {schema: {$ref: "#/components/schemas/Match"}}}
          "400":
            description: a version that has not passed, the same version twice, nothing to compare with
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "401":
            description: no valid token
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "404":
            description: no such version, or not the token's (the same answer)
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "429":
            description: a match of the entrant's is still running
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        who = viewer(request)
        form = await web.form(request, None)
        match_id = ask_match(web, who, int(request.path_params["id"]), form)
        return JSONResponse(server.unrated.view(match_id).to_dict(), 201)

    async def one_match(request: Request, _visit: Visit) -> Response:
        """One of the token's matches or challenges: its games so far and, for a match, the SPRT.
        ---
        summary: one of my matches or challenges
        security: [{token: []}]
        parameters:
          - {name: id, in: path, required: true, schema: {type: integer}, description: "the match's id"}
        responses:
          "200":
            description: the match or challenge
            content: {application/json: {schema: {$ref: "#/components/schemas/Match"}}}
          "401":
            description: no valid token
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "404":
            description: no such match, or not the token's (the same answer)
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        who = viewer(request)
        return JSONResponse(owned(web, who, int(request.path_params["id"])).to_dict())

    async def challenges(request: Request, _visit: Visit) -> Response:
        """The token's challenges, newest first.
        ---
        summary: my challenges
        security: [{token: []}]
        responses:
          "200":
            description: the challenges with their results
            content: {application/json: {schema: {type: object, properties: {challenges: {type: array,
                      items: {$ref: "#/components/schemas/Match"}}}}}}
          "401":
            description: no valid token
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        user_id = access.require_login(viewer(request))
        return JSONResponse({"challenges": [c.to_dict() for c in server.unrated.challenges_of(user_id)]})

    async def start_challenge(request: Request, _visit: Visit) -> Response:
        """Ask for unrated games of the token's active version against chosen opponents.
        ---
        summary: start a challenge
        security: [{token: []}]
        requestBody:
          required: true
          content:
            application/x-www-form-urlencoded:
              schema:
                type: object
                required: [opponent]
                properties:
                  opponent: {type: array, items: {type: integer}, description: "entrant ids, repeated"}
                  games: {type: integer, description: "how many games (default 1)"}
        responses:
          "201":
            description: the challenge, queued for the tables' spare capacity
            content: {application/json: {schema: {$ref: "#/components/schemas/Match"}}}
          "400":
            description: no active version, no or too many opponents, a bad number of games
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "401":
            description: no valid token
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "404":
            description: an opponent that is not an entrant with an active version
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "429":
            description: this day's challenges are used up (see Retry-After)
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        who = viewer(request)
        form = await web.form(request, None)
        return JSONResponse(server.unrated.view(ask_challenge(web, who, form)).to_dict(), 201)

    return [
        Route("/api/versions/{id:int}/matches", web.route(version_matches), methods=["GET"]),
        Route("/api/versions/{id:int}/matches", web.route(start_match), methods=["POST"]),
        Route("/api/matches/{id:int}", web.route(one_match), methods=["GET"]),
        Route("/api/challenges", web.route(challenges), methods=["GET"]),
        Route("/api/challenges", web.route(start_challenge), methods=["POST"]),
    ]
