"""The final's pages: the organiser's freeze (a CSRF form), the results page and the reports.

``/final`` is public as the rest of the competition is (``[people] public``). While the final runs it
shows the frozen field and the games played, never the standings (the final is sealed until it ends);
once done, the order as ``arena leaderboard`` prints it for the final's directory, in its words
(``arena.stats.wording``): places as rank ranges, tiers, who won or may have, each neighbour pair settled,
tied (shown within the margin) or still open with the chance the upper is better, the whole order's
chance and every pair's P, and when those verdicts hold. ``report.html`` is the organiser's own copy (the
bots' logs beside the replays); everybody else gets the ``--public`` one. ``arena.server.finals.api``
gives the same order as ``arena leaderboard --json``.
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
from arena.stats.confidence import Confidence
from arena.stats.leaderboard import Leaderboard
from arena.stats.sequential import Verdict


def final_columns(conf: Confidence, rows: list[dict[str, str]]) -> list[wording.Column]:
    """The columns ``arena leaderboard`` prints for an event (the one list of arena.stats.wording), with
    the tier and the chance of being better than the next one down as the report shows them (a page has
    the room the terminal's 80 columns have not); forfeits only when some entrant has one, and the note
    beside the name, as the terminal does."""
    shown = [c for c in wording.columns(conf.method, conf.level) if not c.report_only or c.key == "p_next"]
    if not any(r["forfeits"] != "0" for r in rows):
        shown = [c for c in shown if c.key != "forfeits"]
    return [c for c in shown if c.key != "note"]


def board_context(board: Leaderboard) -> dict[str, Any]:
    """A finished final's order for ``final.html``, as ``arena leaderboard`` prints it for the final's
    directory: its heading, its rows (places as rank ranges, tiers), the verdict sentence, the note on
    TrueSkill, how sure each neighbour pair is and the whole order, the matrix of P; then the pairs
    settled, tied (shown within the margin) and open by name (``arena.stats.wording``)."""
    conf = board.confidence
    rows = [wording.cells(s, conf, i) for i, s in enumerate(board.standings)]
    columns = final_columns(conf, rows)
    for r in rows:  # DQ, house: beside the name, as the terminal shows them
        r["name"] += f" ({r['note']})" if r["note"] else ""
    return {
        "heading": wording.heading(conf),
        "columns": columns,
        "rows": rows,
        "tiers": conf.tiers(),
        "sentence": wording.verdict_sentence(conf),
        "rating_note": wording.rating_note(board.standings, conf) or "",
        "how_sure": wording.how_sure(conf),
        "pairs": [
            {"verdict": str(p.verdict), "line": wording.pair_line(p, i + 1, conf)}
            for i, p in enumerate(conf.adjacent)
        ],
        "whole": wording.p_text(conf.whole) if conf.adjacent else "",
        "matrix": [
            (i + 1, name, ["-" if j == i else wording.p_text(p) for j, p in enumerate(row)])
            for i, (name, row) in enumerate(zip(conf.order, conf.pairwise, strict=True))
        ],
        "tie_words": f"shown within {conf.margin:g} {wording.score_name(conf.method)}",
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
    await web.server.field_changed()
    return web.redirect(f"/final/{directory.name[6:]}")


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/final", web.route(latest), methods=["GET"]),
        Route("/final/{number:int}", web.route(one), methods=["GET"]),
        Route("/final/{number:int}/report.html", web.route(report), methods=["GET"]),
        Route("/admin/final", web.route(start), methods=["POST"]),
    ]
