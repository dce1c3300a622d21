"""The ASGI app and ``arena serve``'s main loop: the routes of every module, the static files, error pages,
and the server's checks and ladder running as the app's lifespan (started with it, stopped with it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.server.analytics_web import analytics_routes
from arena.server.api import api_routes
from arena.server.budget import LoopBudget
from arena.server.config import CompetitionConfig
from arena.server.errors import Refused
from arena.server.final_pages import final_routes
from arena.server.live_pages import live_routes
from arena.server.match_pages import match_page_routes
from arena.server.multi import Role
from arena.server.pages import content_routes
from arena.server.service import Server
from arena.server.web import Web, people_routes

STATIC = {
    "server.css": ("arena.server", "static/server.css", "text/css"),
    "live.js": ("arena.server", "static/live.js", "text/javascript"),
    "live_table.js": ("arena.server", "static/live_table.js", "text/javascript"),
    "replay.js": ("arena.report", "static/replay.js", "text/javascript"),
    "report.css": ("arena.report", "static/report.css", "text/css"),
}


def create_app(server: Server) -> Starlette:
    """The ASGI app of ``server``: its routes, error pages, and the checks and ladder as its lifespan."""
    web = Web(server)
    files = {name: (resources.files(pkg) / path).read_bytes() for name, (pkg, path, _) in STATIC.items()}

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            raise HTTPException(404)
        return Response(files[name], media_type=STATIC[name][2], headers={"Cache-Control": "max-age=3600"})

    async def healthz(_request: Request) -> Response:
        return PlainTextResponse("ok")

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        message = {404: "no such page", 405: "this page does not take that method"}.get(status, "error")
        return web.refused(request, web.visit(request), Refused(status, message))

    routes: list[BaseRoute] = [
        Route("/healthz", healthz),
        Route("/static/{name}", static),
        *people_routes(web),
        *content_routes(web),
        *match_page_routes(web),
        *analytics_routes(web),
        *api_routes(web),
        *final_routes(web),
        *live_routes(web),
    ]

    return Starlette(
        routes=routes,
        middleware=[Middleware(WebShare, budget=LoopBudget()), Middleware(SecurityHeaders)],
        exception_handlers={HTTPException: http_error},
        lifespan=lambda _app: server.running(),
    )


class WebShare:
    """Each request waits its turn of the loop (``arena.server.budget``), and its time is counted.

    Not counted or held: the health check (a monitor must see a busy server answer), the static files
    (sent from memory), and live tables' event streams (open for a whole game; each event is sent by the
    table's producer, not by a request).
    """

    def __init__(self, app: ASGIApp, budget: LoopBudget) -> None:
        self.app = app
        self.budget = budget

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or path == "/healthz"
            or path.startswith("/static/")
            or (path.startswith("/live/") and path.endswith("/events"))
        ):
            await self.app(scope, receive, send)
            return
        await self.budget.turn()
        began = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            self.budget.spend(time.perf_counter() - began)


class SecurityHeaders:
    """``nosniff``, no framing, same-origin referrers on every response.

    A plain ASGI middleware that adds three headers to the response's start message: Starlette's
    ``BaseHTTPMiddleware`` would run every request through an extra task and memory streams, a cost paid
    on the event loop the ladder's games share.
    """

    HEADERS = (
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"same-origin"),
    )

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in self.HEADERS if n not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def serve(
    config: CompetitionConfig, host: str, port: int, say: Callable[[str], None], role: Role = Role.ALL
) -> None:
    """Run the server until SIGINT or SIGTERM; ``say`` prints the lines the organiser must see.

    :raises ConfigError: bubblewrap missing (``service.check_sandbox``), another server on the directory,
        a bad database URL or key file, an ``[executor]`` that cannot start (no Dask scheduler there).
    :raises StoreError: the database cannot be opened or migrated.
    """
    import logging

    import uvicorn

    logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", level=logging.WARNING)
    logging.getLogger("arena.server").setLevel(logging.INFO)
    base_url = config.base_url(host, port)
    server = Server(config, base_url, role)
    link = server.accounts.organiser_link()
    if link is not None:
        say(f"organiser: set your password once at {base_url}/link/{link}")
    web = uvicorn.Server(uvicorn.Config(create_app(server), host=host, port=port, log_level="warning"))
    # One event loop for the ladder's executor and the web app: the executor is started (a Dask cluster
    # joined or started) before the server serves, so that a bad ``[executor]`` is one line and exit 2.
    with asyncio.Runner(loop_factory=web.config.get_loop_factory()) as runner:
        try:
            if role.plays:  # a web process starts no executor (arena.server.multi)
                runner.run(server.ladder.start())
        except BaseException:
            runner.run(server.ladder.stop())
            server.close()
            raise
        for line in server.ladder.executor.notices():
            say(line)
        what = "" if role is Role.ALL else f" as {role.value}"
        say(f"serving {config.name}{what} on http://{host}:{port} (data in {config.data_dir}; Ctrl-C stops)")
        runner.run(web.serve())
