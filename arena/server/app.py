"""The ASGI app and ``arena serve``'s main loop: every domain's routes (its ``views`` and ``api``, in the
order below), the static files, error pages, and the server's checks and ladder running as the app's
lifespan (started with it, stopped with it). The one module that knows every domain and the web at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from importlib import resources
from types import FrameType

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server.accounts import views as accounts_views
from arena.server.admin import views as admin_views
from arena.server.analytics import api as analytics_api
from arena.server.analytics import views as analytics_views
from arena.server.db.multi import Role
from arena.server.errors import Refused
from arena.server.finals import api as finals_api
from arena.server.finals import views as finals_views
from arena.server.ladder import api as ladder_api
from arena.server.ladder import views as ladder_views
from arena.server.live import views as live_views
from arena.server.matches import api as matches_api
from arena.server.matches import views as matches_views
from arena.server.settings import CompetitionConfig
from arena.server.submissions import api as submissions_api
from arena.server.submissions import views as submissions_views
from arena.server.web import api
from arena.server.web.budget import LoopBudget
from arena.server.web.middleware import SecurityHeaders, WebShare
from arena.server.web.site import Web
from arena.server.wiring import Server

STOP_GRACE_S = 10
"""The longest a stop waits for the requests in flight (an upload being received, a page being built)
before it cuts them: what waits on a client ends as the stop begins (``Server.stop_waiting``)."""

STATIC = {
    "server.css": ("arena.server.web", "static/server.css", "text/css"),
    "live.js": ("arena.server.web", "static/live.js", "text/javascript"),
    "live_table.js": ("arena.server.web", "static/live_table.js", "text/javascript"),
    "replay.js": ("arena.report", "static/replay.js", "text/javascript"),
    "report.css": ("arena.report", "static/report.css", "text/css"),
    "play.js": ("arena.play", "static/play.js", "text/javascript"),  # a person's seat (/play): one page
    "play.css": ("arena.play", "static/play.css", "text/css"),  # with arena play's
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
        *accounts_views.people_routes(web),
        *ladder_views.board_routes(web),
        *accounts_views.routes(web),
        *submissions_views.routes(web),
        *ladder_views.routes(web),
        *admin_views.routes(web),
        *matches_views.routes(web),
        *analytics_views.routes(web),
        *api.routes(
            web,
            [
                *ladder_api.routes(web),
                *submissions_api.routes(web),
                *matches_api.routes(web),
                *analytics_api.routes(web),
                *finals_api.routes(web),
            ],
        ),
        *finals_views.routes(web),
        *live_views.routes(web),
    ]

    return Starlette(
        routes=routes,
        middleware=[Middleware(WebShare, budget=LoopBudget()), Middleware(SecurityHeaders)],
        exception_handlers={HTTPException: http_error},
        lifespan=lambda _app: server.running(),
    )


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
    server = Server(config, base_url, role, board_later=True)
    if role is not Role.LADDER:  # where students reach the pages: `arena invite` and `login-link` use it
        config.record_address(base_url)
    link = server.accounts.organiser_link()
    if link is not None:
        say(f"organiser: set your password once at {base_url}/link/{link}")

    class Uvicorn(uvicorn.Server):
        """uvicorn, telling the server when a signal asks it to stop: it waits for every request in flight
        to end, and a long poll or a live stream ends only when told (``Server.stop_waiting``)."""

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            super().handle_exit(sig, frame)
            if loop is not None:  # a signal handler: the loop is told through its thread-safe queue
                loop.call_soon_threadsafe(server.stop_waiting)

    loop: asyncio.AbstractEventLoop | None = None
    web = Uvicorn(
        uvicorn.Config(
            create_app(server),
            host=host,
            port=port,
            log_level="warning",
            timeout_graceful_shutdown=STOP_GRACE_S,
        )
    )
    # One event loop for the ladder's executor and the web app: the executor is started (a Dask cluster
    # joined or started) before the server serves, so that a bad ``[executor]`` is one line and exit 2.
    with asyncio.Runner(loop_factory=web.config.get_loop_factory()) as runner:
        try:
            runner.run(server.start())
        except BaseException:
            runner.run(server.ladder.stop())
            server.close()
            raise
        for line in server.ladder.executor.notices():
            say(line)
        what = "" if role is Role.ALL else f" as {role.value}"
        say(f"serving {config.name}{what} on http://{host}:{port} (data in {config.data_dir}; Ctrl-C stops)")
        loop = runner.get_loop()
        runner.run(web.serve())
