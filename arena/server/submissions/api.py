"""The JSON API of an entrant's versions, for `arena submit` and `arena status`: its standing and
versions, an upload (the page's ``upload``, so the two cannot differ), one version with its check.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.submissions.views import upload
from arena.server.web.site import Visit, Web


async def status(web: Web, request: Request, visit: Visit) -> Response:
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
    server = web.server
    who = web.api_viewer(request)
    user_id = access.require_login(who)
    versions = [v.to_dict() for v in server.submissions.of_user(user_id)]
    found = server.board.row_of(user_id)
    row = None if found is None else found.to_dict()
    limits = {
        "max_upload_kb": server.config.submissions.max_upload_kb
    }  # `arena submit` checks before sending
    return JSONResponse({"entrant": who.name, "standing": row, "versions": versions, "limits": limits})


async def submit(web: Web, request: Request, visit: Visit) -> Response:
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
    server = web.server
    who = web.api_viewer(request)
    form = await web.form(request, None, server.submissions.limits.upload_bytes)
    version_id = await upload(web, who, form)
    return JSONResponse(server.submissions.get(version_id).to_dict(), 201)


async def version(web: Web, request: Request, visit: Visit) -> Response:
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
    server = web.server
    who = web.api_viewer(request)
    found = server.submissions.get(int(request.path_params["id"]))
    access.require_owner(who, found.user_id, "version")
    return JSONResponse(found.to_dict() | {"queue_place": server.checks.place(found.id)})


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/api/status", web.route(status), methods=["GET"]),
        Route("/api/submit", web.route(submit), methods=["POST"]),
        Route("/api/versions/{id:int}", web.route(version), methods=["GET"]),
    ]
