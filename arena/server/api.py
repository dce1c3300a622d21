"""The JSON API for `arena submit` and `arena status` (docs/server.md lists it; ``/api/openapi.json``
describes it, from the YAML after ``---`` in each handler's docstring: ``arena.server.openapi``).

Authenticated by ``Authorization: Bearer TOKEN`` (a token made on the entrant's page), never by the
session cookie: so no other site can drive it from a browser, and it needs no CSRF token. Errors are
``{"error": "..."}`` with the same status codes as the pages.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server import access, openapi, workerlogs
from arena.server.access import Viewer
from arena.server.analytics_web import analytics_api_routes
from arena.server.errors import Refused, not_found
from arena.server.games import Games
from arena.server.match_pages import match_api_routes
from arena.server.pages import upload
from arena.server.web import Visit, Web


def _arena_version() -> str:
    try:
        return package_version("euchre-arena")
    except PackageNotFoundError:
        return "0"


def api_routes(web: Web) -> list[BaseRoute]:
    server = web.server
    games = Games(server.db)

    def viewer(request: Request) -> Viewer:
        """:raises Refused: 401 without a valid token."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        user = server.accounts.api_user(token.strip()) if scheme.lower() == "bearer" and token else None
        if user is None:
            raise Refused(401, "a valid API token is needed: make one on your page (/me)")
        return Viewer(user.id, user.name, user.role)

    async def leaderboard(request: Request, visit: Visit) -> Response:
        """The leaderboard, as its page shows it; public as the page is.
        ---
        summary: the leaderboard
        description: Every entrant's active version, best first (TrueSkill mu - 3 sigma with drift), with
          points per hand and the probability that each is truly above the next. No token needed when the
          competition is public; otherwise the session of a logged-in person.
        responses:
          "200":
            description: the leaderboard's rows and the ladder's state
            content: {application/json: {schema: {$ref: "#/components/schemas/Leaderboard"}}}
          "401":
            description: the competition is not public and nobody is logged in
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        access.require_public(visit.viewer, web.config)
        server.board.refresh()
        ladder = server.ladder
        return JSONResponse(
            {
                "leaderboard": [r.to_dict() for r in server.board.rows],
                "games": server.board.games,
                "paused": ladder.paused,
                "in_flight": ladder.in_flight,
            }
        )

    async def status(request: Request, _visit: Visit) -> Response:
        """The token's entrant: its standing and its versions.
        ---
        summary: my standing and versions
        security: [{token: []}]
        responses:
          "200":
            description: the entrant, its row of the leaderboard (null off the ladder), its versions
            content: {application/json: {schema: {$ref: "#/components/schemas/Status"}}}
          "401":
            description: no valid token
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        who = viewer(request)
        user_id = access.require_login(who)
        server.board.refresh()
        versions = [v.to_dict() for v in server.submissions.of_user(user_id)]
        row = next((r.to_dict() for r in server.board.rows if r.user_id == user_id), None)
        return JSONResponse({"entrant": who.name, "standing": row, "versions": versions})

    async def submit(request: Request, _visit: Visit) -> Response:
        """Upload a new version; its check is queued at once.
        ---
        summary: upload a new version
        security: [{token: []}]
        requestBody:
          required: true
          content:
            multipart/form-data:
              schema:
                type: object
                required: [file, runtime]
                properties:
                  file: {type: string, contentMediaType: application/octet-stream,
                         description: "one program, or a .zip / .tar.gz"}
                  runtime: {type: string, description: "one of the competition's runtimes (python, ...)"}
                  note: {type: string, maxLength: 120, description: "what changed (optional)"}
        responses:
          "201":
            description: the new version, queued for its check
            content: {application/json: {schema: {$ref: "#/components/schemas/Version"}}}
          "400":
            description: a runtime not offered, a bad note, an unsafe archive
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "401":
            description: no valid token
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "413":
            description: the upload, or what it unpacks to, is too large
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "429":
            description: this hour's uploads are used up, or the check queue is full (see Retry-After)
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        who = viewer(request)
        form = await web.form(request, None, server.submissions.limits.upload_bytes)
        version_id = await upload(server, who, form)
        return JSONResponse(server.submissions.get(version_id).to_dict(), 201)

    async def version(request: Request, _visit: Visit) -> Response:
        """One of the token's versions, with its check.
        ---
        summary: one of my versions
        security: [{token: []}]
        parameters:
          - {name: id, in: path, required: true, schema: {type: integer}, description: "the version's id"}
        responses:
          "200":
            description: the version, its check and its place in the check queue
            content: {application/json: {schema: {$ref: "#/components/schemas/Version"}}}
          "401":
            description: no valid token
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "404":
            description: no such version, or not the token's (the same answer)
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        who = viewer(request)
        found = server.submissions.get(int(request.path_params["id"]))
        access.require_owner(who, found.user_id, "version")
        return JSONResponse(found.to_dict() | {"queue_place": server.checks.place(found.id)})

    async def game_log(request: Request, _visit: Visit) -> Response:
        """One of the token's versions' stderr during one ladder game.
        ---
        summary: my version's log for one game
        security: [{token: []}]
        parameters:
          - {name: id, in: path, required: true, schema: {type: string}, description: "a game's id: g000012"}
          - {name: version, in: path, required: true, schema: {type: integer}, description: "a version's id"}
        responses:
          "200":
            description: the span of the version's ladder log between the game's start and end
            content: {application/json: {schema: {$ref: "#/components/schemas/GameLog"}}}
          "401":
            description: no valid token
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          "404":
            description: no such game, the version did not play it, or it is not the token's (one answer)
            content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
        """
        who = viewer(request)
        game_id, version_id = request.path_params["id"], int(request.path_params["version"])
        found = games.seat_log(game_id, version_id)
        if found is None:
            raise not_found("log")
        access.require_owner(who, found.user_id, "log")
        path = server.ladder.log_path(version_id, found.values["log_inode"])  # whichever process's file
        shown = workerlogs.game_log(server.db, path, game_id, version_id, found.values)  # here, or a worker's
        return JSONResponse(
            {"game": game_id, "version": f"v{found.number}", "recorded": shown.recorded, "log": shown.text,
             "after": shown.after, "notes": list(shown.notes), "overlapping": list(found.overlapping)}
        )  # fmt: skip

    routes: list[BaseRoute] = [
        Route("/api/leaderboard", web.route(leaderboard), methods=["GET"]),
        Route("/api/status", web.route(status), methods=["GET"]),
        Route("/api/submit", web.route(submit), methods=["POST"]),
        Route("/api/versions/{id:int}", web.route(version), methods=["GET"]),
        Route("/api/games/{id}/logs/{version:int}", web.route(game_log), methods=["GET"]),
        *match_api_routes(web, viewer),
        *analytics_api_routes(web),
    ]
    document = openapi.schema(routes, _arena_version())

    async def described(request: Request, _visit: Visit) -> Response:
        """This document.
        ---
        summary: the API's OpenAPI description
        responses:
          "200":
            description: OpenAPI 3.1
            content: {application/json: {schema: {type: object}}}
        """
        return JSONResponse(document)

    own = Route("/api/openapi.json", web.route(described), methods=["GET"])
    document["paths"] |= openapi.schema([own], "")["paths"]
    return [*routes, own]
