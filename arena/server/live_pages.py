"""The live tables' pages: the list of games in flight, one game's live page, and its event stream.

Who may watch is who may see the games (``access.require_public``); who sees the hands is decided by
``LiveTables.shows_hands`` (the organiser, or everybody under ``[ladder] live_open_hands``), on the
server: the stream of anybody else is built without them (``arena.server.live``).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.errors import Refused, not_found
from arena.server.web import Visit, Web


def live_routes(web: Web) -> list[BaseRoute]:
    live = web.server.ladder.live

    async def tables(request: Request, visit: Visit) -> Response:
        access.require_public(visit.viewer, web.config)
        return web.page(request, visit, "live_list.html", tables=live.lines(), live=live)

    async def table(request: Request, visit: Visit) -> Response:
        access.require_public(visit.viewer, web.config)
        game = live.games.get(request.path_params["id"]) or live.ended.get(request.path_params["id"])
        if game is None:
            raise not_found("game in flight (it may have ended: see the recent games)")
        if game.ended is None and live.watching >= live.max_watchers:  # the page says why
            raise Refused(
                503,
                f"{live.watching} people are watching live tables, as many as this server lets watch at "
                "once: try again in a minute, or open the game's replay once it ends",
                retry_after_s=30,
            )
        hands = live.shows_hands(visit.viewer.organiser)
        return web.page(request, visit, "live.html", game=game, hands=hands)

    async def events(request: Request, visit: Visit) -> Response:
        """The game's server-sent events: one whole snapshot per action (see arena.server.live)."""
        access.require_public(visit.viewer, web.config)
        game, watcher = live.join(request.path_params["id"], visit.viewer.organiser)
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}  # nginx: do not buffer
        return StreamingResponse(live.stream(game, watcher), media_type="text/event-stream", headers=headers)

    return [
        Route("/live", web.route(tables), methods=["GET"]),
        Route("/live/{id}", web.route(table), methods=["GET"]),
        Route("/live/{id}/events", web.route(events), methods=["GET"]),
    ]
