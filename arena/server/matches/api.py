"""The JSON API of unrated games (``arena.server.matches.service``): a version's SPRT matches and an
entrant's challenges, private as their pages are (``arena.server.matches.views``, whose ``ask_match``,
``ask_challenge`` and ``owned`` both call, so the pages and the API cannot differ).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.matches.views import ask_challenge, ask_match, owned
from arena.server.web.site import Visit, Web


async def version_matches(web: Web, request: Request, visit: Visit) -> Response:
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
    server = web.server
    who = web.api_viewer(request)
    version = server.submissions.get(int(request.path_params["id"]))
    access.require_owner(who, version.user_id, "version")
    return JSONResponse({"matches": [m.to_dict() for m in server.unrated.of_version(version.id)]})


async def start_match(web: Web, request: Request, visit: Visit) -> Response:
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
    server = web.server
    who = web.api_viewer(request)
    form = await web.form(request, None)
    match_id = ask_match(web, who, int(request.path_params["id"]), form)
    return JSONResponse(server.unrated.view(match_id).to_dict(), 201)


async def one_match(web: Web, request: Request, visit: Visit) -> Response:
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
    who = web.api_viewer(request)
    return JSONResponse(owned(web, who, int(request.path_params["id"])).to_dict())


async def challenges(web: Web, request: Request, visit: Visit) -> Response:
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
    server = web.server
    user_id = access.require_login(web.api_viewer(request))
    return JSONResponse({"challenges": [c.to_dict() for c in server.unrated.challenges_of(user_id)]})


async def start_challenge(web: Web, request: Request, visit: Visit) -> Response:
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
    server = web.server
    who = web.api_viewer(request)
    form = await web.form(request, None)
    return JSONResponse(server.unrated.view(ask_challenge(web, who, form)).to_dict(), 201)


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/api/versions/{id:int}/matches", web.route(version_matches), methods=["GET"]),
        Route("/api/versions/{id:int}/matches", web.route(start_match), methods=["POST"]),
        Route("/api/matches/{id:int}", web.route(one_match), methods=["GET"]),
        Route("/api/challenges", web.route(challenges), methods=["GET"]),
        Route("/api/challenges", web.route(start_challenge), methods=["POST"]),
    ]
