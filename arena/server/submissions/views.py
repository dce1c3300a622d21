"""The pages of an entrant's versions: upload one, see its check and its matches, make it the active one.

What may be uploaded is decided by the submissions service and its refusals (``Submissions.add``); who may
upload by ``access.require_entrant``. The API's upload (``arena.server.submissions.api``) reads its form
with the same ``upload``, so the two cannot differ.
"""

from __future__ import annotations

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.db.models import NOTE_MAX, VersionStatus
from arena.server.errors import Refused
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


async def activate(web: Web, request: Request, visit: Visit) -> Response:
    await web.form(request, visit)
    user_id = access.require_login(visit.viewer)
    web.server.submissions.activate(user_id, int(request.path_params["id"]))
    web.server.field_changed()
    return web.redirect("/me")


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/submit", web.route(submit), methods=["POST"]),
        Route("/versions/{id:int}", web.route(version_page), methods=["GET"]),
        Route("/versions/{id:int}/activate", web.route(activate), methods=["POST"]),
    ]
