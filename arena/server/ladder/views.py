"""The ladder's pages: the leaderboard (and its live parts), an entrant's public page, a stored game with
its replay, one version's stderr during one game, and an entrant's logs.

Each handler authorises through ``arena.server.access`` first, then reads through the services. A
spectator's leaderboard and game pages are rendered once for all spectators (``arena.server.web.cache``).
No page computes the board: each shows its last look (``Server.keep_board``).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena.conductor.requests import Decision
from arena.errors import ConfigError, FaultKind, StoreError
from arena.report.encode import CARD_LIST, encode_hand, pack, place_faults
from arena.results.record import Fault
from arena.server import access
from arena.server.errors import not_found
from arena.server.ladder import decisions, gamelogs
from arena.server.ladder.ratings import ladder_columns, rating_key
from arena.server.settings import Runtime
from arena.server.submissions.checks import public_text, version_log
from arena.server.submissions.service import ASK_COMMAND
from arena.server.web import asks
from arena.server.web.cache import BOARD_TTL_S
from arena.server.web.plots import rating_plot
from arena.server.web.site import Visit, Web
from arena.stats.rating import conservative
from arena.text import printable
from arena.userfiles import read_user_tail

log = logging.getLogger("arena.server")
LOG_TAIL_BYTES = 20_000


def _tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    try:  # a regular file only, and only its newest bytes (arena.userfiles)
        return read_user_tail(path, "bot log", limit).decode("utf-8", "replace")
    except ConfigError:
        return ""


def _tails(paths: list[Path], limit: int = LOG_TAIL_BYTES) -> str:
    """The newest output of a version's log in each process's directory (one on SQLite), the most recently
    written last, each under a line naming its directory when there are several."""
    if len(paths) < 2:
        return _tail(paths[0], limit) if paths else ""
    share = limit // len(paths)
    return "".join(f"--- {p.parent.name} ---\n{_tail(p, share)}\n" for p in paths)


def board_context(web: Web, recent: int = 0) -> dict[str, object]:
    server = web.server
    context: dict[str, object] = {
        "board": server.board,
        "state": server.ladder_state(),
        "columns": ladder_columns(),
        "sentence": server.board.sentence(),
        "order_line": server.board.order_line(),
    }
    if recent:
        context["recent"] = server.games.recent(recent)
    return context


async def leaderboard(web: Web, request: Request, visit: Visit) -> Response:
    access.require_public(visit.viewer, web.config)
    return web.public_page(request, visit, ("leaderboard",), BOARD_TTL_S, "leaderboard.html",
                           lambda: board_context(web, recent=15), web.server.board.generation)  # fmt: skip


async def leaderboard_rows(web: Web, request: Request, visit: Visit) -> Response:
    access.require_public(visit.viewer, web.config)
    return web.public_page(request, visit, ("rows",), BOARD_TTL_S, "board_rows.html",
                           lambda: board_context(web), web.server.board.generation)  # fmt: skip


async def leaderboard_recent(web: Web, request: Request, visit: Visit) -> Response:
    """The leaderboard's recent games alone, for live.js to swap in when the games count moves."""
    access.require_public(visit.viewer, web.config)
    server = web.server
    return web.public_page(request, visit, ("recent",), BOARD_TTL_S, "recent_games.html",
                           lambda: {"recent": server.games.recent(15), "state": server.ladder_state()},
                           server.board.generation)  # fmt: skip


async def entrant_page(web: Web, request: Request, visit: Visit) -> Response:
    server = web.server
    access.require_public(visit.viewer, web.config)
    user = server.accounts.entrant(int(request.path_params["id"]))
    if user is None:
        raise not_found("entrant")
    row = server.board.row_of(user.id)
    key = rating_key(web.config, row.version_id, user.id) if row is not None else ""
    history = server.board.history.get(key, [])
    plot = rating_plot([(seq, mu, conservative(mu, sigma)) for seq, mu, sigma in history])
    return web.page(
        request,
        visit,
        "entrant.html",
        entrant=user,
        versions=server.submissions.of_user(user.id),
        row=row,
        recent=server.games.recent(20, user.id),
        h2h=server.games.head_to_head(user.id),
        private=access.may_see_private(visit.viewer, user.id),
        plot=plot,
    )


async def logs_page(web: Web, request: Request, visit: Visit) -> Response:
    server = web.server
    user = server.accounts.entrant(int(request.path_params["id"]))
    if user is None:
        raise not_found("logs")
    access.require_owner(visit.viewer, user.id, "logs")
    data_dir = web.config.data_dir
    logs = []
    for v in server.submissions.of_user(user.id):
        check = _tail(version_log(web.config, user.id, v.number, "check"))
        ladder = _tails(server.ladder.log_paths(v.id)) or gamelogs.tail(server.db, v.id, LOG_TAIL_BYTES)
        # as the entrant may read them: no launch line, no path of the server (``public_text``)
        upload = server.submissions.directory(v)
        logs.append(
            (
                v,
                printable(public_text(check, data_dir, upload), lines=True),  # a bot's words: escaped
                printable(public_text(ladder, data_dir, upload), lines=True),
                server.games.of_version(v.id),
            )
        )
    return web.page(request, visit, "logs.html", entrant=user, logs=logs)


async def game_page(web: Web, request: Request, visit: Visit) -> Response:
    access.require_public(visit.viewer, web.config)
    game_id = request.path_params["id"]
    found = None
    if visit.viewer.logged_in:  # replayed in a thread: the loop is the ladder's games' too (web/budget.py)
        found = await asyncio.to_thread(_own_decisions, web, game_id, visit.viewer)
    return web.public_page(request, visit, ("game", game_id), None, "game.html",
                           lambda: game_context(web, game_id, visit.viewer, found))  # fmt: skip


def _own_decisions(web: Web, game_id: str, viewer: access.Viewer) -> decisions.SeatDecisions | None:
    """The game's decisions when ``viewer`` may take some of them (None otherwise, or for a record that
    does not replay: the page then shows the game without them, and the log says why)."""
    detail = web.server.games.detail(game_id)
    if detail is None or not decisions.may_ask_any(detail, viewer):
        return None
    try:
        return decisions.seat_decisions(detail, web.config)
    except StoreError as exc:
        log.warning("game %s: its decisions are not offered: %s", game_id, exc)
        return None


def game_context(
    web: Web, game_id: str, viewer: access.Viewer, found: decisions.SeatDecisions | None = None
) -> dict[str, object]:
    """A stored game's page: its seats, its replay, the logs ``viewer`` may open, and the decisions of
    ``found`` (``_own_decisions``) that ``viewer`` may take.

    :raises Refused: 404, no such game.
    """
    detail = web.server.games.detail(game_id)
    if detail is None:
        raise not_found("game")
    game = detail.game
    faults = [
        Fault(game.seats[f["seat"]].name, game.id, f["seat"], f["hand_index"], f["decision_id"],
              FaultKind(f["kind"]), f["detail"], f["elapsed_ms"], f["substitute"], game.seq)
        for f in detail.faults
    ]  # fmt: skip
    replay = {
        "cards": CARD_LIST,
        "num_players": len(game.seats),
        "games": [
            {
                "id": game.id, "n": game.seq, "round": 1, "table": 1,
                "seats": [s.label for s in game.seats], "scores": [s.score for s in game.seats],
                "ranks": [s.rank for s in game.seats],
                "forfeited": [s.seat for s in game.seats if s.forfeited],
                "termination": "", "rated": game.rated,
                "hands": [encode_hand(h) for h in detail.hands],
                "faults": place_faults(detail.hands, faults, web.config.faults.max_faults_per_game),
            }
        ],
    }  # fmt: skip
    logs = {s.seat for s in game.seats if s.user_id is not None and access.may_see_private(viewer, s.user_id)}
    asks: set[int] = set()
    ask_list: list[Decision] = []
    if found is not None and viewer.logged_in:  # a spectator's page (cached for all) offers no decision
        asks = found.mine(viewer)
        ask_list = [d for d in found.decisions if d.seat in asks]
        if asks:  # beside each of the viewer's seats' decisions in the replay (static/replay.js)
            entry = replay["games"][0]  # type: ignore[index]
            entry["decisions"] = decisions.per_action(found.decisions, len(detail.hands))
            entry["ask"] = {"url": f"/games/{game.id}/decisions/", "seats": sorted(asks)}
    return {"detail": detail, "replay": pack(replay), "logs": logs, "asks": asks, "ask_list": ask_list}


async def _decision(web: Web, request: Request, visit: Visit) -> tuple[decisions.SeatDecisions, Decision]:
    """The game's decision of the path, if the visitor may take it (404 otherwise, as for no game)."""
    detail = web.server.games.detail(request.path_params["id"])
    if detail is None or not decisions.may_ask_any(detail, visit.viewer):
        raise not_found("decision")
    found = await asyncio.to_thread(decisions.seat_decisions, detail, web.config)
    return found, found.find(visit.viewer, int(request.path_params["decision"]))


async def decision_page(web: Web, request: Request, visit: Visit) -> Response:
    """A decision of a stored game as its seat received it, for ``arena ask``: its owner's and the
    organiser's (``arena.server.ladder.decisions``)."""
    found, d = await _decision(web, request, visit)
    seat = found.detail.game.seats[d.seat]
    version = web.server.submissions.get(seat.version_id) if seat.version_id is not None else None
    game_id = found.detail.game.id
    return asks.page(
        web, request, visit, found.decisions, d,
        title=f"Game {game_id}, decision {d.decision_id}: {seat.label}",
        back=(f"/games/{game_id}", f"back to game {game_id}"),
        export_url=f"/games/{game_id}/decisions/{d.decision_id}/export",
        launch=ASK_COMMAND[Runtime(version.runtime)] if version is not None else None,
    )  # fmt: skip


async def decision_export(web: Web, request: Request, visit: Visit) -> Response:
    found, d = await _decision(web, request, visit)
    return asks.download(found.decisions, d, request.query_params.get("hand") == "1")


async def game_log(web: Web, request: Request, visit: Visit) -> Response:
    """One version's stderr during one game (``arena.server.ladder.gamelogs``): for its owner and the
    organiser."""
    game_id, version_id = request.path_params["id"], int(request.path_params["version"])
    found, shown = web.server.game_log(game_id, version_id, visit.viewer)
    # The bot's words as written, each control and line separator escaped: no \x0b or U+2028 of its own
    # begins a line on the page, no bidi control reorders it (as in the report: arena.text.printable).
    shown = replace(shown, text=printable(shown.text, lines=True), after=printable(shown.after, lines=True))
    return web.page(request, visit, "game_log.html", game_id=game_id, version_id=version_id,
                    label=f"v{found.number}", log=shown, overlapping=found.overlapping)  # fmt: skip


def board_routes(web: Web) -> list[BaseRoute]:
    """The leaderboard (listed first, as the site's front page)."""
    return [
        Route("/", web.route(leaderboard), methods=["GET"]),
        Route("/leaderboard/rows", web.route(leaderboard_rows), methods=["GET"]),
        Route("/leaderboard/recent", web.route(leaderboard_recent), methods=["GET"]),
    ]


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/entrants/{id:int}", web.route(entrant_page), methods=["GET"]),
        Route("/entrants/{id:int}/logs", web.route(logs_page), methods=["GET"]),
        Route("/games/{id}", web.route(game_page), methods=["GET"]),
        Route("/games/{id}/logs/{version:int}", web.route(game_log), methods=["GET"]),
        Route("/games/{id}/decisions/{decision:int}", web.route(decision_page), methods=["GET"]),
        Route("/games/{id}/decisions/{decision:int}/export", web.route(decision_export), methods=["GET"]),
    ]
