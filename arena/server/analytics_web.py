"""The analytics pages and their JSON: ``/entrants/ID/analytics``, ``/entrants/ID/games`` (filtered,
paginated), ``/entrants/ID/logs/search`` (the entrant's own stderr), and ``/api/entrants/ID/...``.

The figures and the list of games are public as the entrant's page is (``access.require_public``): they
show only what the games' pages show already. The log search is the entrant's own and the organiser's:
anybody else gets the 404 of the logs pages (``access.require_owner``). The rating is drawn as inline SVG
by the server (``pages.rating_plot``), with a table of the same figures by day beside it: the report's
Vega charts need JavaScript, and these pages must read without it and fit a phone (the SVG scales to the
screen's width; the tables scroll sideways).
"""

from __future__ import annotations

import weakref
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server import access, analytics
from arena.server.analytics import GameFilter
from arena.server.errors import not_found
from arena.server.models import User
from arena.server.pages import rating_plot
from arena.server.service import Server
from arena.server.web import Visit, Web


def _entrant(web: Web, request: Request, what: str) -> User:
    user = web.server.accounts.entrant(int(request.path_params["id"]))
    if user is None:
        raise not_found(what)
    return user


_SUMMARIES: weakref.WeakKeyDictionary[Server, analytics.Summaries] = weakref.WeakKeyDictionary()


def _summaries(web: Web) -> analytics.Summaries:
    """The server's one store of entrants' summaries, shared by the pages and the API."""
    found = _SUMMARIES.get(web.server)
    if found is None:
        found = _SUMMARIES[web.server] = analytics.Summaries(web.server.db, web.config.game.variant)
    return found


def _games(web: Web, user: User) -> list[analytics.Played]:
    return _summaries(web).of(user.id, user.name).games


def _figures(web: Web, user: User) -> dict[str, Any]:
    """Everything the analytics page shows (read in a worker thread: see ``arena.server.analytics``)."""
    server = web.server
    summary = _summaries(web).of(user.id, user.name)
    games = summary.games
    steps = analytics.rating_steps(server.db, server.board, web.config, user)
    return {
        "games": games,
        "breakdown": summary.breakdown,
        "opponents": analytics.opponents(user.name, games),
        "steps": steps,
        "days": analytics.by_day(steps),
    }


def _plots(steps: list[analytics.Step]) -> list[tuple[str, dict[str, str]]]:
    """One chart per rating series, by game (x: the ladder's game number)."""
    series: dict[str, list[tuple[int, float, float]]] = {}
    for st in steps:
        series.setdefault(st.series, []).append((st.seq, st.mu, st.sigma))
    plots = [(name, rating_plot(analytics.thinned(points))) for name, points in series.items()]
    return [(name, plot) for name, plot in plots if plot]


def analytics_routes(web: Web) -> list[BaseRoute]:
    """The pages (the API's are ``analytics_api_routes``, listed with the other /api/ routes)."""
    server = web.server
    _summaries(web)  # made here, before any request's thread could race to make it

    async def analytics_page(request: Request, visit: Visit) -> Response:
        access.require_public(visit.viewer, web.config)
        user = _entrant(web, request, "entrant")
        server.board.refresh()
        found = await run_in_threadpool(_figures, web, user)
        return web.page(request, visit, "analytics.html", entrant=user, plots=_plots(found["steps"]),
                        private=access.may_see_private(visit.viewer, user.id), **found)  # fmt: skip

    async def games_page(request: Request, visit: Visit) -> Response:
        access.require_public(visit.viewer, web.config)
        user = _entrant(web, request, "entrant")
        wanted = GameFilter.parse(request.query_params)
        games = await run_in_threadpool(_games, web, user)
        shown = analytics.filtered(games, wanted)
        others = sorted({n for p in games for n in p.opponents if n != user.name})
        variants = sorted({p.variant for p in games})
        return web.page(request, visit, "entrant_games.html", entrant=user, wanted=wanted, shown=shown,
                        results=analytics.RESULTS, page_size=analytics.PAGE_SIZE, opponents=others,
                        variants=variants)  # fmt: skip

    async def search_page(request: Request, visit: Visit) -> Response:
        user = _entrant(web, request, "logs")
        access.require_owner(visit.viewer, user.id, "logs")
        query = request.query_params.get("q", "")
        found = await run_in_threadpool(
            analytics.search_logs, server.db, server.ladder.log_path, user.id, query
        )
        return web.page(request, visit, "log_search.html", entrant=user, search=found,
                        bounds=(analytics.SEARCH_GAMES, analytics.SEARCH_BYTES, analytics.SEARCH_MATCHES,
                                analytics.SEARCH_QUERY_MAX))  # fmt: skip

    return [
        Route("/entrants/{id:int}/analytics", web.route(analytics_page), methods=["GET"]),
        Route("/entrants/{id:int}/games", web.route(games_page), methods=["GET"]),
        Route("/entrants/{id:int}/logs/search", web.route(search_page), methods=["GET"]),
    ]


def analytics_api_routes(web: Web) -> list[BaseRoute]:
    server = web.server
    _summaries(web)

    async def figures(request: Request, visit: Visit) -> Response:
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
        user = _entrant(web, request, "entrant")
        server.board.refresh()
        found = await run_in_threadpool(_figures, web, user)
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

    async def game_list(request: Request, visit: Visit) -> Response:
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
        user = _entrant(web, request, "entrant")
        wanted = GameFilter.parse(request.query_params)
        games = await run_in_threadpool(_games, web, user)
        shown = analytics.filtered(games, wanted)
        return JSONResponse({"matched": shown.matched, "page": shown.page, "pages": shown.pages,
                             "games": [p.to_dict() for p in shown.games]})  # fmt: skip

    return [
        Route("/api/entrants/{id:int}/analytics", web.route(figures), methods=["GET"]),
        Route("/api/entrants/{id:int}/games", web.route(game_list), methods=["GET"]),
    ]
