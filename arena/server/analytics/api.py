"""The JSON of an entrant's analytics: ``/api/entrants/ID/analytics`` and ``/api/entrants/ID/games``,
public as the pages are (``arena.server.analytics.views``), from the same service calls.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.analytics import service as analytics
from arena.server.analytics.service import GameFilter
from arena.server.analytics.views import entrant_of
from arena.server.web.site import Visit, Web


async def figures(web: Web, request: Request, visit: Visit) -> Response:
    """One entrant's analytics, as its page shows them; public as the page is.
    ---
    summary: an entrant's analytics
    description: The entrant's rating after each of its games (one series per version, or one for the
      entrant when new versions inherit the rating) and at the end of each UTC day; its record against
      each opponent (wins = finished above) with the Elo difference, the half-width of its 95% interval
      and the LOS; and per variant and per seat its games, hands, maker success, lone hands, euchres,
      faults by kind, forfeits and decision latency (p50/p99 from log-scale histograms, within 9%).
    parameters:
      - {name: id, in: path, required: true, schema: {type: integer}, description: "the entrant's id"}
    responses:
      "200":
        description: the figures
        content:
          application/json:
            schema:
              type: object
              required: [entrant, games, rating, rating_by_day, head_to_head, figures]
              properties:
                entrant: {type: string}
                games: {type: integer}
                rating: {type: array, items: {type: object}, description: "seq, day, series, mu, sigma"}
                rating_by_day: {type: array, items: {type: object}}
                head_to_head: {type: array, items: {type: object}}
                figures: {type: object, description: "total, variants, seats: the report's figures"}
      "401":
        description: the competition is not public and nobody is logged in
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
      "404":
        description: no such entrant
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
    """
    access.require_public(visit.viewer, web.config)
    user = entrant_of(web, request, "entrant")
    found = await run_in_threadpool(web.server.summaries.figures, user, web.server.board, web.config)
    return JSONResponse(
        {
            "entrant": user.name,
            "games": len(found["games"]),
            "rating": [s.to_dict() for s in found["steps"]],
            "rating_by_day": [d.to_dict() for d in found["days"]],
            "head_to_head": [o.to_dict() for o in found["opponents"]],
            "figures": found["breakdown"].to_dict(),
        }
    )


async def game_list(web: Web, request: Request, visit: Visit) -> Response:
    """One entrant's games, filtered and paginated as on its page.
    ---
    summary: an entrant's games
    parameters:
      - {name: id, in: path, required: true, schema: {type: integer}, description: "the entrant's id"}
      - {name: opponent, in: query, schema: {type: string}, description: "an entrant's name, or house"}
      - {name: variant, in: query, schema: {type: string}}
      - {name: result, in: query, schema: {type: string, enum: [won, lost, forfeited]}}
      - {name: since, in: query, schema: {type: string, format: date}, description: "a UTC day"}
      - {name: until, in: query, schema: {type: string, format: date}, description: "a UTC day"}
      - {name: page, in: query, schema: {type: integer, minimum: 1}, description: "25 games a page"}
    responses:
      "200":
        description: the matching games, newest first
        content:
          application/json:
            schema:
              type: object
              required: [matched, page, pages, games]
              properties:
                matched: {type: integer}
                page: {type: integer}
                pages: {type: integer}
                games: {type: array, items: {type: object}}
      "400":
        description: a bad filter (a result not offered, a date not YYYY-MM-DD, a page below 1)
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
      "401":
        description: the competition is not public and nobody is logged in
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
      "404":
        description: no such entrant
        content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
    """
    access.require_public(visit.viewer, web.config)
    user = entrant_of(web, request, "entrant")
    wanted = GameFilter.parse(request.query_params)
    games = await run_in_threadpool(web.server.summaries.games_of, user)
    shown = analytics.filtered(games, wanted)
    return JSONResponse({"matched": shown.matched, "page": shown.page, "pages": shown.pages,
                         "games": [p.to_dict() for p in shown.games]})  # fmt: skip


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/api/entrants/{id:int}/analytics", web.route(figures), methods=["GET"]),
        Route("/api/entrants/{id:int}/games", web.route(game_list), methods=["GET"]),
    ]
