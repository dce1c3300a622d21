"""The ladder's JSON API: the leaderboard, and one of the token's versions' stderr during one game.

The API as a whole (authentication, errors, the OpenAPI document) is described in ``arena.server.web.api``.
"""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.ladder.ratings import ladder_columns
from arena.server.web.cache import BOARD_TTL_S
from arena.server.web.site import Visit, Web


async def leaderboard(web: Web, request: Request, visit: Visit) -> Response:
    """The leaderboard, as its page shows it; public as the page is.
    ---
    summary: the leaderboard
    description: Every entrant's active version, best first by TrueSkill's mu - 3 sigma with drift, with
      its place (rank range) and tier and the probability that its skill is above each other's, all of
      the TrueSkill skill; points per hand beside them. The page's columns, the line saying how it is
      ordered and the sentence under it come too. No token needed when the competition is public;
      otherwise the session of a logged-in person.
    responses:
      "200":
        description: the leaderboard's rows and the ladder's state
        content: {application/json: {schema: {$ref: "#/components/schemas/Leaderboard"}}}
      "304":
        description: unchanged since the ETag sent as If-None-Match; no body (poll with it)
      "401":
        description: the competition is not public and nobody is logged in
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
    """
    server = web.server
    access.require_public(visit.viewer, web.config)

    def make() -> str:
        ladder = server.ladder
        return json.dumps(
            {
                "leaderboard": [r.to_dict() for r in server.board.rows],
                "order": server.board.order_line(),
                "sentence": server.board.sentence(),
                "columns": [{"key": c.key, "label": c.label, "meaning": c.meaning} for c in ladder_columns()],
                "games": server.board.games,
                "paused": ladder.paused,
                "in_flight": ladder.in_flight,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    # alike for every caller (it names none): made once per look of the board and second, as the page is
    return web.cached(request, ("api", "leaderboard"), BOARD_TTL_S, server.board.generation, make,
                      "application/json")  # fmt: skip


async def game_log(web: Web, request: Request, visit: Visit) -> Response:
    """One of the token's versions' stderr during one ladder game.
    ---
    summary: my version's log for one game
    security: [{token: []}]
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}, description: "a game's id: g000012"}
      - {name: version, in: path, required: true, schema: {type: integer}, description: "a version's id"}
    responses:
      "200":
        description: the span of the version's ladder log between the game's start and end
        content: {application/json: {schema: {$ref: "#/components/schemas/GameLog"}}}
      "401":
        description: no valid token
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
      "404":
        description: no such game, the version did not play it, or it is not the token's (one answer)
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
    """
    who = web.api_viewer(request)
    game_id, version_id = request.path_params["id"], int(request.path_params["version"])
    found, shown = web.server.game_log(game_id, version_id, who)
    return JSONResponse(
        {"game": game_id, "version": f"v{found.number}", "recorded": shown.recorded, "log": shown.text,
         "after": shown.after, "notes": list(shown.notes), "overlapping": list(found.overlapping)}
    )  # fmt: skip


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/api/leaderboard", web.route(leaderboard), methods=["GET"]),
        Route("/api/games/{id}/logs/{version:int}", web.route(game_log), methods=["GET"]),
    ]
