"""The final's JSON: ``/api/final`` (the latest) and ``/api/final/N``, public as ``/final`` is.

Once the final is done, its ``leaderboard`` is exactly what ``arena leaderboard --json`` prints for the
final's directory (``arena.results.listings.render_json`` over the same ``compute_leaderboard``): the
places, rank ranges, tiers and every P of the page, exact to four places. While it runs, the standings
stay sealed as on the page: the leaderboard is null.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.results.listings import render_json
from arena.server.access import require_public
from arena.server.errors import not_found
from arena.server.finals.views import directory_of
from arena.server.web.site import Visit, Web
from arena.stats import wording


def _final(web: Web, directory: Path) -> dict[str, Any]:
    view = web.server.finals.view(directory)
    board = view.board
    field = [{k: e[k] for k in ("name", "user", "version", "runtime")} for e in view.field]
    return {
        "number": view.number,
        "state": view.state,
        "frozen_at": view.frozen_at,
        "played": view.played,
        "stopped": view.stopped or None,
        "error": view.error or None,
        "field": field,
        "leaderboard": None if board is None else json.loads(render_json(board)),
        "sentence": None if board is None else wording.verdict_sentence(board.confidence),
        "confidence": None if board is None else board.confidence.to_dict(),
    }


async def latest(web: Web, request: Request, visit: Visit) -> Response:
    """The latest final.
    ---
    summary: the latest final
    description: As /api/final/{number} for the final /final shows.
    responses:
      "200":
        description: the final's state, its frozen field and, once it is done, its order
        content: {application/json: {schema: {$ref: "#/components/schemas/Final"}}}
      "401":
        description: the competition is not public and nobody is logged in
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
      "404":
        description: no such final (or none yet)
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
    """
    require_public(visit.viewer, web.config)
    directory = web.server.finals.latest()
    if directory is None:
        raise not_found("final")
    return JSONResponse(_final(web, directory))


async def one(web: Web, request: Request, visit: Visit) -> Response:
    """One final, by its number.
    ---
    summary: a final
    description: The final's state (running, done, failed), its frozen field and, once done, its order
      exactly as `arena leaderboard --json` prints it for the final's directory (places, rank ranges,
      tiers, P of every pair), the sentence under the table and the order's confidence. Public as the
      page is.
    parameters:
      - {name: number, in: path, required: true, schema: {type: integer}, description: "1 the first"}
    responses:
      "200":
        description: the final's state, its frozen field and, once it is done, its order
        content: {application/json: {schema: {$ref: "#/components/schemas/Final"}}}
      "401":
        description: the competition is not public and nobody is logged in
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
      "404":
        description: no such final (or none yet)
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
    """
    require_public(visit.viewer, web.config)
    return JSONResponse(_final(web, directory_of(web, request)))


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/api/final", web.route(latest), methods=["GET"]),
        Route("/api/final/{number:int}", web.route(one), methods=["GET"]),
    ]
