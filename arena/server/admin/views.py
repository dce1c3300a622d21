"""The organiser's page: the entrants and their versions, the ladder's state, the exports, and its
actions (disable or enable an entrant, check a version again, pause or resume the ladder). Every handler
asks ``access.require_organiser`` first; the work is the services' (``arena.server.admin.service``).
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from arena.results.listings import GAMES_CSV, HAND_RECORDS
from arena.server import access
from arena.server.admin import service
from arena.server.errors import not_found
from arena.server.ladder import export
from arena.server.web.site import Visit, Web


async def admin(web: Web, request: Request, visit: Visit) -> Response:
    server = web.server
    access.require_organiser(visit.viewer)
    people = server.accounts.entrants()
    versions = {u.id: server.submissions.of_user(u.id) for u in people}
    # in a worker thread: the stored games are read under the board's lock, which a look holds (service.pairs)
    pairs = await run_in_threadpool(service.pairs, server)  # computed again only when games were added
    return web.page(request, visit, "admin.html", people=people, versions=versions,
                    state=server.ladder_state(), pairs=pairs)  # fmt: skip


async def export_hands(web: Web, request: Request, visit: Visit) -> Response:
    access.require_organiser(visit.viewer)
    return StreamingResponse(
        export.hand_records(web.server.db), media_type="application/jsonl; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{HAND_RECORDS}"'},
    )  # fmt: skip


async def export_games(web: Web, request: Request, visit: Visit) -> Response:
    access.require_organiser(visit.viewer)
    text = await run_in_threadpool(export.games_csv, web.server.db)
    return Response(text, media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{GAMES_CSV}"'})  # fmt: skip


async def admin_action(web: Web, request: Request, visit: Visit) -> Response:
    await web.form(request, visit)
    access.require_organiser(visit.viewer)
    action = request.path_params["action"]
    target = int(request.path_params["id"])
    if action in ("disable", "enable"):
        await service.set_disabled(web.server, target, action == "disable")
    elif action == "recheck":
        await service.recheck(web.server, target)
    else:
        raise not_found("action")
    return web.redirect("/admin")


async def ladder_action(web: Web, request: Request, visit: Visit) -> Response:
    await web.form(request, visit)
    access.require_organiser(visit.viewer)
    web.server.ladder.set_paused(request.path_params["action"] == "pause")
    return web.redirect("/admin")


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/admin", web.route(admin), methods=["GET"]),
        Route(f"/admin/export/{HAND_RECORDS}", web.route(export_hands), methods=["GET"]),
        Route(f"/admin/export/{GAMES_CSV}", web.route(export_games), methods=["GET"]),
        Route("/admin/{action:str}/{id:int}", web.route(admin_action), methods=["POST"]),
        Route("/admin/ladder/{action:str}", web.route(ladder_action), methods=["POST"]),
    ]
