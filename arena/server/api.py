"""The JSON API for `arena submit` and `arena status` (docs/server.md lists it).

Authenticated by ``Authorization: Bearer TOKEN`` (a token made on the entrant's page), never by the
session cookie: so no other site can drive it from a browser, and it needs no CSRF token. Errors are
``{"error": "..."}`` with the same status codes as the pages.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.access import Viewer
from arena.server.errors import Refused
from arena.server.pages import upload
from arena.server.web import Visit, Web


def api_routes(web: Web) -> list[BaseRoute]:
    server = web.server

    def viewer(request: Request) -> Viewer:
        """:raises Refused: 401 without a valid token."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        user = server.accounts.api_user(token.strip()) if scheme.lower() == "bearer" and token else None
        if user is None:
            raise Refused(401, "a valid API token is needed: make one on your page (/me)")
        return Viewer(user.id, user.name, user.role)

    async def leaderboard(request: Request, visit: Visit) -> Response:
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
        who = viewer(request)
        user_id = access.require_login(who)
        server.board.refresh()
        versions = [v.to_dict() for v in server.submissions.of_user(user_id)]
        row = next((r.to_dict() for r in server.board.rows if r.user_id == user_id), None)
        return JSONResponse({"entrant": who.name, "standing": row, "versions": versions})

    async def submit(request: Request, _visit: Visit) -> Response:
        who = viewer(request)
        form = await web.form(request, None, server.submissions.limits.upload_bytes)
        version_id = await upload(server, who, form)
        return JSONResponse(server.submissions.get(version_id).to_dict(), 201)

    async def version(request: Request, _visit: Visit) -> Response:
        who = viewer(request)
        found = server.submissions.get(int(request.path_params["id"]))
        access.require_owner(who, found.user_id, "version")
        return JSONResponse(found.to_dict() | {"queue_place": server.checks.place(found.id)})

    return [
        Route("/api/leaderboard", web.route(leaderboard), methods=["GET"]),
        Route("/api/status", web.route(status), methods=["GET"]),
        Route("/api/submit", web.route(submit), methods=["POST"]),
        Route("/api/versions/{id:int}", web.route(version), methods=["GET"]),
    ]
