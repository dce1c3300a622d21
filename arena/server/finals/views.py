"""The final's pages: the organiser's freeze (a CSRF form), the results page and the reports.

``/final`` is public as the rest of the competition is (``[people] public``). While the final runs it
shows the frozen field and the games played, never the standings (the final is sealed until it ends);
once done, the order with its confidence in the words of the terminal and the report
(``arena.stats.wording``): the verdict sentence, each neighbour pair settled, tied within the evidence or
still open, and when those verdicts hold. ``report.html`` is the organiser's own copy (the bots' logs
beside the replays); everybody else gets the ``--public`` one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server.access import Viewer, may_see_private, require_organiser, require_public
from arena.server.errors import Refused, not_found
from arena.server.web.site import Visit, Web
from arena.stats import wording
from arena.stats.leaderboard import Leaderboard
from arena.stats.sequential import Verdict

SHOWN = ("place", "name", "score", "interval", "games", "wins", "faults", "note")
"""The leaderboard's columns the final's page shows (the report has them all)."""


def board_context(board: Leaderboard) -> dict[str, Any]:
    """A finished final's order for ``final.html``: its rows, the verdict sentence, when the verdicts hold,
    every neighbour pair in words, and the pairs settled, tied and open (``arena.stats.wording``)."""
    conf = board.confidence
    return {
        "columns": [c for c in wording.columns(conf.method, conf.level) if c.key in SHOWN],
        "rows": [wording.cells(s, conf, i) for i, s in enumerate(board.standings)],
        "sentence": wording.verdict_sentence(conf),
        "validity": wording.validity(conf),
        "pairs": [
            {"verdict": str(p.verdict), "line": wording.pair_line(p, i + 1, conf)}
            for i, p in enumerate(conf.adjacent)
        ],
        "settled": [p for p in conf.adjacent if p.verdict is Verdict.ABOVE],
        "tied": [p for p in conf.adjacent if p.verdict is Verdict.TIED],
        "open": conf.open_pairs(),
    }


def _context(web: Web, directory: Path | None, viewer: Viewer) -> dict[str, Any]:
    finals = web.server.finals
    if directory is None:
        return {"final": None, "finals": []}
    view = finals.view(directory)
    context: dict[str, Any] = {"final": view, "finals": [int(p.name[6:]) for p in finals.directories()]}
    # A version's page is its owner's and the organiser's: everyone else is linked to the entrant's page.
    context["private"] = {e["version_id"] for e in view.field if may_see_private(viewer, e["user_id"])}
    if view.board is not None:
        context |= board_context(view.board)
    return context


def directory_of(web: Web, request: Request) -> Path:
    """:raises Refused: 404, no final of that number."""
    number = request.path_params["number"]
    for path in web.server.finals.directories():
        if path.name == f"final-{number}":
            return path
    raise not_found("final")


async def latest(web: Web, request: Request, visit: Visit) -> Response:
    """The latest final (or none yet)."""
    finals = web.server.finals
    require_public(visit.viewer, web.config)
    return web.page(request, visit, "final.html", **_context(web, finals.latest(), visit.viewer))


async def one(web: Web, request: Request, visit: Visit) -> Response:
    """One final, by its number."""
    require_public(visit.viewer, web.config)
    return web.page(request, visit, "final.html", **_context(web, directory_of(web, request), visit.viewer))


async def report(web: Web, request: Request, visit: Visit) -> Response:
    """The final's self-contained report: the organiser's own, or the public copy."""
    finals = web.server.finals
    require_public(visit.viewer, web.config)
    path = finals.report(directory_of(web, request), visit.viewer.organiser)
    if path is None:
        raise Refused(404, "the final's report is written when the final ends")
    return FileResponse(path, media_type="text/html")


async def start(web: Web, request: Request, visit: Visit) -> Response:
    """Freeze the field and start the final (the organiser only)."""
    finals = web.server.finals
    require_organiser(visit.viewer)
    await web.form(request, visit)
    directory = finals.freeze()
    web.server.field_changed()
    return web.redirect(f"/final/{directory.name[6:]}")


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/final", web.route(latest), methods=["GET"]),
        Route("/final/{number:int}", web.route(one), methods=["GET"]),
        Route("/final/{number:int}/report.html", web.route(report), methods=["GET"]),
        Route("/admin/final", web.route(start), methods=["POST"]),
    ]
