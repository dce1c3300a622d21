"""The page of ``arena play`` and its small JSON API (starlette), served on 127.0.0.1 only.

Plain HTML and one small script (``static/play.js``), no framework: the page is one table redrawn from one
JSON state, which a long-polled ``GET /api/state`` keeps current, and three POSTs (a move, take the seat
back, finish). htmx would swap server-rendered fragments, but the table is drawn from the seat's view on
the client exactly as the report's replay draws it, so a fragment server would only add a second renderer.

Every API call carries the session's key (in the URL printed and opened, sent back as ``X-Play-Key``): on
a shared machine another user could otherwise reach the port and play the seat. The custom header also
keeps another site's page from posting a move (a cross-origin request with it needs a preflight, which
this app never grants).
"""

from __future__ import annotations

import json
import secrets
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.play.seat import MoveRefused
from arena.play.session import PlaySession

LONG_POLL_S = 20.0
STATIC = {
    "play.js": ("arena.play", "static/play.js", "text/javascript"),
    "play.css": ("arena.play", "static/play.css", "text/css"),
    "report.css": ("arena.report", "static/report.css", "text/css"),
}
SECURITY_HEADERS = {
    # style-src 'unsafe-inline': each seat is placed round the table by its style attribute, as in the report
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _error(status: int, reason: str) -> JSONResponse:
    return JSONResponse({"error": reason}, status_code=status, headers=SECURITY_HEADERS)


def new_key() -> str:
    """A session's key: unguessable, and safe in a URL."""
    return secrets.token_urlsafe(18)


def create_play_app(session: PlaySession, key: str, long_poll_s: float = LONG_POLL_S) -> Starlette:
    """The page and API of one session; ``key`` guards the API (the page itself holds nothing secret)."""
    files = {name: (resources.files(pkg) / path).read_bytes() for name, (pkg, path, _) in STATIC.items()}
    page = (resources.files("arena.play") / "static/play.html").read_bytes()

    def allowed(request: Request) -> bool:
        given = request.headers.get("x-play-key") or request.query_params.get("key") or ""
        return secrets.compare_digest(given.encode(), key.encode())

    async def index(_request: Request) -> Response:
        return Response(page, media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS)

    async def favicon(_request: Request) -> Response:
        return Response(status_code=204)  # none: a browser asks for one, and a 404 shows as a console error

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in files:
            return _error(404, f"no file {name!r}")
        return Response(files[name], media_type=STATIC[name][2], headers=SECURITY_HEADERS)

    async def state(request: Request) -> Response:
        if not allowed(request):
            return _error(403, "this page's key is missing or wrong: open the address arena play printed")
        try:
            since = int(request.query_params.get("since", "-1"))
        except ValueError:
            return _error(400, "since: give the version number the page has")
        await session.wait_for(since, long_poll_s)
        return JSONResponse(session.state(), headers=SECURITY_HEADERS | {"Cache-Control": "no-store"})

    async def move(request: Request) -> Response:
        if not allowed(request):
            return _error(403, "this page's key is missing or wrong: open the address arena play printed")
        try:
            body: Any = json.loads(await request.body() or b"{}")
        except ValueError:
            return _error(400, 'the body is not JSON: send {"action": "PLAY(JH)"}')
        text = body.get("action") if isinstance(body, dict) else None
        decision = body.get("decision") if isinstance(body, dict) else None
        if not isinstance(text, str) or not (decision is None or isinstance(decision, int)):
            return _error(400, 'send {"action": "PLAY(JH)", "decision": N} (decision optional)')
        try:
            action = session.seat.submit(text, decision)
        except MoveRefused as refused:
            return _error(refused.status, refused.reason)
        return JSONResponse({"action": str(action)}, headers=SECURITY_HEADERS)

    async def back(request: Request) -> Response:
        if not allowed(request):
            return _error(403, "this page's key is missing or wrong")
        session.seat.take_back()
        return JSONResponse({"away": session.seat.away}, headers=SECURITY_HEADERS)

    async def finish(request: Request) -> Response:
        if not allowed(request):
            return _error(403, "this page's key is missing or wrong")
        session.finished.set()
        session.changed()  # every long poll answers now, so that the server stops without waiting for them
        return JSONResponse({"finished": True}, headers=SECURITY_HEADERS)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/favicon.ico", favicon),
            Route("/static/{name}", static),
            Route("/api/state", state),
            Route("/api/move", move, methods=["POST"]),
            Route("/api/back", back, methods=["POST"]),
            Route("/api/finish", finish, methods=["POST"]),
        ]
    )
