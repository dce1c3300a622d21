"""The live tables' pages: the list of games in flight, one game's live page, and its event stream.

Who may watch is who may see the games (``access.require_public``); who sees the hands is decided by
``LiveTables.shows_hands`` (the organiser, or everybody under ``[ladder] live_open_hands``), on the
server: the stream of anybody else is built without them (``arena.server.live.service``).

A watcher's frames are queued without waiting (``arena.server.live.service``), but its stream's writes wait
for its connection: a client that never reads (or a phone that lost its network without a word) would block
its stream on its first write past the socket's buffers, and keep its place among ``[ladder]
live_watchers`` until its connection closed, which TCP alone may never do. So each write may take
``[ladder] live_stall_s``; one that takes longer ends the stream and frees the place, and the server closes
the connection. A browser that was only slow reconnects by itself (``EventSource``) and gets the snapshot
of the moment.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Send

from arena.server import access
from arena.server.errors import Refused, not_found
from arena.server.web.site import Visit, Web


class LiveStream(StreamingResponse):
    """A stream of server-sent events whose every write may wait ``stall_s`` for the connection."""

    def __init__(self, frames: AsyncGenerator[str, None], stall_s: float) -> None:
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}  # nginx: do not buffer
        super().__init__(frames, media_type="text/event-stream", headers=headers)
        self.frames = frames
        self.stall_s = stall_s
        self.stalled = False

    async def stream_response(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        async for frame in self.frames:
            body = {"type": "http.response.body", "body": frame.encode(), "more_body": True}
            try:
                await asyncio.wait_for(send(body), self.stall_s)
            except TimeoutError:
                # The frames' generator lets the watcher's place go as it closes. The response is left
                # unfinished on purpose: finishing it would be one more write to the same stuck
                # connection, and the server closes a connection whose response was not finished.
                self.stalled = True
                await self.frames.aclose()
                return
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def tables(web: Web, request: Request, visit: Visit) -> Response:
    live = web.server.ladder.live
    access.require_public(visit.viewer, web.config)
    return web.page(request, visit, "live_list.html", tables=live.lines(), live=live)


async def table(web: Web, request: Request, visit: Visit) -> Response:
    live = web.server.ladder.live
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


async def events(web: Web, request: Request, visit: Visit) -> Response:
    """The game's server-sent events: one whole snapshot per action (see arena.server.live.service)."""
    live = web.server.ladder.live
    access.require_public(visit.viewer, web.config)
    game, watcher = live.join(request.path_params["id"], visit.viewer.organiser)
    return LiveStream(live.stream(game, watcher), web.config.ladder.live_stall_s)


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/live", web.route(tables), methods=["GET"]),
        Route("/live/{id}", web.route(table), methods=["GET"]),
        Route("/live/{id}/events", web.route(events), methods=["GET"]),
    ]
