"""The pages of an entrant's versions: upload one, see its check and its matches, make it the active one.

What may be uploaded is decided by the submissions service and its refusals (``Submissions.add``); who may
upload by ``access.require_entrant``. The API's upload (``arena.server.submissions.api``) reads its form
with the same ``upload``, so the two cannot differ.
"""

from __future__ import annotations

import asyncio

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena.conductor.requests import Decision
from arena.server import access
from arena.server.db.models import NOTE_MAX, VersionStatus
from arena.server.errors import Refused, not_found
from arena.server.settings import Runtime
from arena.server.submissions.checks import check_decisions
from arena.server.submissions.service import ASK_COMMAND, VersionView
from arena.server.web import asks
from arena.server.web.forms import text
from arena.server.web.site import Visit, Web


async def upload(web: Web, viewer: access.Viewer, form: FormData) -> int:
    """Store an uploaded version (``file``, ``runtime``, ``note``) and queue its check; the version's id.

    :raises Refused: a spectator (401) or the organiser (403) uploading, no file, or what
        ``Server.submit_version`` refuses.
    """
    user_id = access.require_entrant(viewer)
    file = form.get("file")
    if not isinstance(file, UploadFile):
        raise Refused(400, "choose a file to upload")
    data = await file.read(web.server.submissions.limits.upload_bytes + 1)
    note = text(form, "note", 10 * NOTE_MAX)  # longer than allowed is refused, not cut: the page says so
    return web.server.submit_version(
        user_id, file.filename or "upload", data, text(form, "runtime", 32), note
    )


async def submit(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit, web.server.submissions.limits.upload_bytes)
    version = await upload(web, visit.viewer, form)
    return web.redirect(f"/versions/{version}")


async def version_page(web: Web, request: Request, visit: Visit) -> Response:
    server = web.server
    version = server.submissions.get(int(request.path_params["id"]))
    access.require_owner(visit.viewer, version.user_id, "version")
    place = server.checks.place(version.id)
    mine = server.submissions.of_user(version.user_id)
    others = [v for v in mine if v.status == VersionStatus.PASSED and v.id != version.id]
    return web.page(request, visit, "version.html", version=version, place=place,
                    matches=server.unrated.of_version(version.id), baselines=others)  # fmt: skip


async def _check_decision(
    web: Web, request: Request, visit: Visit
) -> tuple[VersionView, list[Decision], Decision]:
    """A decision of a version's check, from the games its violations were found in (``checks``), for the
    version's owner and the organiser (404 for anybody else, as for no such decision)."""
    try:  # one answer whether the version exists or is another's (``access``)
        version = web.server.submissions.get(int(request.path_params["id"]))
    except Refused:
        raise not_found("decision") from None
    access.require_owner(visit.viewer, version.user_id, "decision")
    found = await asyncio.to_thread(  # a replay of the game: off the loop the ladder shares (web/budget.py)
        check_decisions, version.report, web.config.checks.decision_ms, request.path_params["game"]
    )
    if found is None:
        raise not_found("decision")
    return version, found, asks.find(found, int(request.path_params["decision"]))


async def check_decision_page(web: Web, request: Request, visit: Visit) -> Response:
    version, found, d = await _check_decision(web, request, visit)
    base = f"/versions/{version.id}/check/{d.game_id}/{d.decision_id}"
    return asks.page(
        web, request, visit, found, d,
        title=f"{version.user} {version.label}: check game {d.game_id}, decision {d.decision_id}",
        back=(f"/versions/{version.id}", f"back to {version.label}'s check"),
        export_url=f"{base}/export",
        launch=ASK_COMMAND[Runtime(version.runtime)],
    )  # fmt: skip


async def check_decision_export(web: Web, request: Request, visit: Visit) -> Response:
    _, found, d = await _check_decision(web, request, visit)
    return asks.download(found, d, request.query_params.get("hand") == "1")


async def activate(web: Web, request: Request, visit: Visit) -> Response:
    await web.form(request, visit)
    user_id = access.require_login(visit.viewer)
    web.server.submissions.activate(user_id, int(request.path_params["id"]))
    await web.server.field_changed()
    return web.redirect("/me")


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/submit", web.route(submit), methods=["POST"]),
        Route("/versions/{id:int}", web.route(version_page), methods=["GET"]),
        Route("/versions/{id:int}/activate", web.route(activate), methods=["POST"]),
        Route(
            "/versions/{id:int}/check/{game}/{decision:int}", web.route(check_decision_page), methods=["GET"]
        ),
        Route(
            "/versions/{id:int}/check/{game}/{decision:int}/export",
            web.route(check_decision_export),
            methods=["GET"],
        ),
    ]
