"""The analytics pages: ``/entrants/ID/analytics``, ``/entrants/ID/games`` (filtered, paginated) and
``/entrants/ID/logs/search`` (the entrant's own stderr); their JSON, ``/api/entrants/ID/...``, is
``arena.server.analytics.api``.

The figures and the list of games are public as the entrant's page is (``access.require_public``): they
show only what the games' pages show already. The log search is the entrant's own and the organiser's:
anybody else gets the 404 of the logs pages (``access.require_owner``). The rating is drawn as inline SVG
by the server (``arena.server.web.plots``), with a table of the same figures by day beside it: the report's
Vega charts need JavaScript, and these pages must read without it and fit a phone (the SVG scales to the
screen's width; the tables scroll sideways).
"""

from __future__ import annotations

from dataclasses import replace

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.analytics import service as analytics
from arena.server.analytics.service import GameFilter
from arena.server.db.models import User
from arena.server.errors import not_found
from arena.server.web.plots import rating_plot
from arena.server.web.site import Visit, Web
from arena.text import printable


def entrant_of(web: Web, request: Request, what: str) -> User:
    user = web.server.accounts.entrant(int(request.path_params["id"]))
    if user is None:
        raise not_found(what)
    return user


def _plots(steps: list[analytics.Step]) -> list[tuple[str, dict[str, str]]]:
    """One chart per rating series, by game (x: the ladder's game number)."""
    series: dict[str, list[tuple[int, float, float]]] = {}
    for st in steps:
        series.setdefault(st.series, []).append((st.seq, st.mu, st.conservative))
    plots = [(name, rating_plot(analytics.thinned(points))) for name, points in series.items()]
    return [(name, plot) for name, plot in plots if plot]


async def analytics_page(web: Web, request: Request, visit: Visit) -> Response:
    access.require_public(visit.viewer, web.config)
    user = entrant_of(web, request, "entrant")
    found = await run_in_threadpool(web.server.summaries.figures, user, web.server.board, web.config)
    return web.page(request, visit, "analytics.html", entrant=user, plots=_plots(found["steps"]),
                    private=access.may_see_private(visit.viewer, user.id), **found)  # fmt: skip


async def games_page(web: Web, request: Request, visit: Visit) -> Response:
    access.require_public(visit.viewer, web.config)
    user = entrant_of(web, request, "entrant")
    wanted = GameFilter.parse(request.query_params)
    games = await run_in_threadpool(web.server.summaries.games_of, user)
    shown = analytics.filtered(games, wanted)
    others = sorted({n for p in games for n in p.opponents if n != user.name})
    variants = sorted({p.variant for p in games})
    return web.page(request, visit, "entrant_games.html", entrant=user, wanted=wanted, shown=shown,
                    results=analytics.RESULTS, page_size=analytics.PAGE_SIZE, opponents=others,
                    variants=variants)  # fmt: skip


async def search_page(web: Web, request: Request, visit: Visit) -> Response:
    user = entrant_of(web, request, "logs")
    access.require_owner(visit.viewer, user.id, "logs")
    query = request.query_params.get("q", "")
    found = await run_in_threadpool(
        analytics.search_logs, web.server.db, web.server.ladder.log_path, user.id, query
    )
    # shown as the game's log page shows it: the bot's controls and line separators escaped
    found.matches = [replace(m, before=printable(m.before), after=printable(m.after)) for m in found.matches]
    return web.page(request, visit, "log_search.html", entrant=user, search=found,
                    bounds=(analytics.SEARCH_GAMES, analytics.SEARCH_BYTES, analytics.SEARCH_MATCHES,
                            analytics.SEARCH_QUERY_MAX))  # fmt: skip


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/entrants/{id:int}/analytics", web.route(analytics_page), methods=["GET"]),
        Route("/entrants/{id:int}/games", web.route(games_page), methods=["GET"]),
        Route("/entrants/{id:int}/logs/search", web.route(search_page), methods=["GET"]),
    ]
