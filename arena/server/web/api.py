"""The JSON API for `arena submit` and `arena status` (docs/server.md lists it; ``/api/openapi.json``
describes it, from the YAML after ``---`` in each handler's docstring: ``arena.server.web.openapi``).

Authenticated by ``Authorization: Bearer TOKEN`` (a token made on the entrant's page), never by the
session cookie: so no other site can drive it from a browser, and it needs no CSRF token. Errors are
``{"error": "..."}`` with the same status codes as the pages.
"""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server.web import openapi
from arena.server.web.site import Visit, Web


def _arena_version() -> str:
    try:
        return package_version("euchre-arena")
    except PackageNotFoundError:
        return "0"


async def described(web: Web, request: Request, visit: Visit) -> Response:
    """This document.
    ---
    summary: the API's OpenAPI description
    responses:
      "200":
        description: OpenAPI 3.1
        content: {application/json: {schema: {type: object}}}
    """
    return JSONResponse(web.openapi())


def routes(web: Web, api: list[BaseRoute]) -> list[BaseRoute]:
    """``api`` (every domain's API routes, in order) and ``/api/openapi.json``, which describes them all."""
    own = Route("/api/openapi.json", web.route(described), methods=["GET"])

    @functools.cache
    def document() -> dict[str, Any]:  # once, when first asked: not at every start
        made = openapi.schema(api, _arena_version())
        made["paths"] |= openapi.schema([own], "")["paths"]
        return made

    web.openapi = document
    return [*api, own]
