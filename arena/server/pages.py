"""The content pages: leaderboard, an entrant's home and public page, versions, games, logs, organiser.

Each handler authorises through ``arena.server.access`` first, then reads through the services; what an
entrant may upload, and what the organiser may change, is decided by those services and their refusals.
"""

from __future__ import annotations

from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from arena.errors import FaultKind
from arena.report.encode import CARD_LIST, encode_hand, pack, place_faults
from arena.results.listings import GAMES_CSV, HAND_RECORDS
from arena.results.record import Fault
from arena.server import access, export, workerlogs
from arena.server.board import rating_key
from arena.server.checks import version_log
from arena.server.errors import Refused, not_found
from arena.server.games import Games
from arena.server.models import DESCRIPTION_MAX, NOTE_MAX
from arena.server.service import Server
from arena.server.web import Visit, Web, _text

LOG_TAIL_BYTES = 20_000
BOARD_TTL_S = 1.0  # a spectator's leaderboard is at most this old (``arena.server.cache``)


def _tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    try:
        return path.read_bytes()[-limit:].decode("utf-8", "replace")
    except OSError:
        return ""


def _tails(paths: list[Path], limit: int = LOG_TAIL_BYTES) -> str:
    """The newest output of a version's log in each process's directory (one on SQLite), the most recently
    written last, each under a line naming its directory when there are several."""
    if len(paths) < 2:
        return _tail(paths[0], limit) if paths else ""
    share = limit // len(paths)
    return "".join(f"--- {p.parent.name} ---\n{_tail(p, share)}\n" for p in paths)


def _description(server: Server, user_id: int) -> str:
    user = server.accounts.user(user_id)
    return user.description if user is not None else ""


async def upload(server: Server, viewer: access.Viewer, form: FormData) -> int:
    """Store an uploaded version (``file``, ``runtime``) and queue its check; the version's id.

    :raises Refused: a spectator (401) or the organiser (403) uploading, no file, or what
        ``Submissions.add`` and the check queue refuse.
    """
    user_id = access.require_login(viewer)
    if viewer.organiser:
        raise Refused(403, "the organiser does not enter bots: invite yourself as an entrant")
    file = form.get("file")
    if not isinstance(file, UploadFile):
        raise Refused(400, "choose a file to upload")
    data = await file.read(server.submissions.limits.upload_bytes + 1)
    user = server.accounts.user(user_id)
    if user is None:
        raise Refused(401, "log in first")
    note = _text(form, "note", 10 * NOTE_MAX)  # longer than allowed is refused, not cut: the page says so
    version = server.submissions.add(user, file.filename or "upload", data, _text(form, "runtime", 32), note)
    server.checks.put(version.id)
    return version.id


def rating_plot(
    points: list[tuple[int, float, float]], width: int = 600, height: int = 160
) -> dict[str, str]:
    """A rating's history as SVG polylines (mu, and mu − 3σ), drawn on the server: no script needed."""
    if len(points) < 2:
        return {}
    lows = [mu - 3 * sigma for _, mu, sigma in points]
    top, bottom = max(mu for _, mu, _ in points), min(lows)
    span = (top - bottom) or 1.0
    first, last = points[0][0], points[-1][0]

    def line(values: list[float]) -> str:
        return " ".join(
            f"{(seq - first) / ((last - first) or 1) * width:.1f},{(top - v) / span * height:.1f}"
            for (seq, _, _), v in zip(points, values, strict=True)
        )

    return {
        "mu": line([mu for _, mu, _ in points]),
        "low": line(lows),
        "range": f"mu from {points[0][1]:.1f} to {points[-1][1]:.1f} over games #{first} to #{last}",
    }


def content_routes(web: Web) -> list[BaseRoute]:
    server = web.server
    submissions = server.submissions
    games = Games(server.db)

    def ladder_state() -> dict[str, object]:
        ladder = server.ladder
        return {
            "paused": ladder.paused,
            "field": len(ladder.field),
            "in_flight": ladder.in_flight,
            "games": server.board.games,
            "queue": len(server.checks.waiting) + (server.checks.current is not None),
        }

    def board_context(recent: int = 0) -> dict[str, object]:
        server.board.refresh()
        context: dict[str, object] = {"board": server.board, "state": ladder_state()}
        if recent:
            context["recent"] = games.recent(recent)
        return context

    async def leaderboard(request: Request, visit: Visit) -> Response:
        access.require_public(visit.viewer, web.config)
        return web.public_page(request, visit, ("leaderboard",), BOARD_TTL_S, "leaderboard.html",
                               lambda: board_context(recent=15))  # fmt: skip

    async def leaderboard_rows(request: Request, visit: Visit) -> Response:
        access.require_public(visit.viewer, web.config)
        return web.public_page(request, visit, ("rows",), BOARD_TTL_S, "board_rows.html", board_context)

    async def leaderboard_recent(request: Request, visit: Visit) -> Response:
        """The leaderboard's recent games alone, for live.js to swap in when the games count moves."""
        access.require_public(visit.viewer, web.config)
        return web.page(request, visit, "recent_games.html", recent=games.recent(15), state=ladder_state())

    async def home(request: Request, visit: Visit) -> Response:
        user_id = access.require_login(visit.viewer)
        versions = submissions.of_user(user_id)
        places = {v.id: server.checks.place(v.id) for v in versions}
        return web.page(request, visit, "me.html", versions=versions, places=places, token=None,
                        description=_description(server, user_id))  # fmt: skip

    async def new_token(request: Request, visit: Visit) -> Response:
        await web.form(request, visit)
        user_id = access.require_login(visit.viewer)
        token = server.accounts.new_api_token(user_id)
        versions = submissions.of_user(user_id)
        places = {v.id: server.checks.place(v.id) for v in versions}
        return web.page(request, visit, "me.html", versions=versions, places=places, token=token,
                        description=_description(server, user_id))  # fmt: skip

    async def submit(request: Request, visit: Visit) -> Response:
        form = await web.form(request, visit, submissions.limits.upload_bytes)
        version = await upload(server, visit.viewer, form)
        return web.redirect(f"/versions/{version}")

    async def version_page(request: Request, visit: Visit) -> Response:
        version = submissions.get(int(request.path_params["id"]))
        access.require_owner(visit.viewer, version.user_id, "version")
        place = server.checks.place(version.id)
        mine = submissions.of_user(version.user_id)
        others = [v for v in mine if v.status == "passed" and v.id != version.id]
        return web.page(request, visit, "version.html", version=version, place=place,
                        matches=server.unrated.of_version(version.id), baselines=others)  # fmt: skip

    async def describe(request: Request, visit: Visit) -> Response:
        form = await web.form(request, visit)
        user_id = access.require_login(visit.viewer)
        text = _text(form, "description", 10 * DESCRIPTION_MAX)
        server.board.describe(user_id, server.accounts.set_description(user_id, text))
        server.pages.clear()
        return web.redirect("/me")

    async def activate(request: Request, visit: Visit) -> Response:
        await web.form(request, visit)
        user_id = access.require_login(visit.viewer)
        submissions.activate(user_id, int(request.path_params["id"]))
        server.field_changed()
        return web.redirect("/me")

    async def entrant_page(request: Request, visit: Visit) -> Response:
        access.require_public(visit.viewer, web.config)
        user = server.accounts.entrant(int(request.path_params["id"]))
        if user is None:
            raise not_found("entrant")
        server.board.refresh()
        row = next((r for r in server.board.rows if r.user_id == user.id), None)
        key = rating_key(web.config, row.version_id, user.id) if row is not None else ""
        plot = rating_plot(server.board.history.get(key, []))
        return web.page(
            request,
            visit,
            "entrant.html",
            entrant=user,
            versions=submissions.of_user(user.id),
            row=row,
            recent=games.recent(20, user.id),
            h2h=games.head_to_head(user.id),
            private=access.may_see_private(visit.viewer, user.id),
            plot=plot,
        )

    async def logs_page(request: Request, visit: Visit) -> Response:
        user = server.accounts.entrant(int(request.path_params["id"]))
        if user is None:
            raise not_found("logs")
        access.require_owner(visit.viewer, user.id, "logs")
        logs = [
            (
                v,
                _tail(version_log(web.config, user.id, v.number, "check")),
                _tails(server.ladder.log_paths(v.id)) or workerlogs.tail(server.db, v.id, LOG_TAIL_BYTES),
                games.of_version(v.id),
            )
            for v in submissions.of_user(user.id)
        ]
        return web.page(request, visit, "logs.html", entrant=user, logs=logs)

    async def game_page(request: Request, visit: Visit) -> Response:
        access.require_public(visit.viewer, web.config)
        game_id = request.path_params["id"]
        return web.public_page(request, visit, ("game", game_id), None, "game.html",
                               lambda: game_context(game_id, visit.viewer))  # fmt: skip

    def game_context(game_id: str, viewer: access.Viewer) -> dict[str, object]:
        """A stored game's page: its seats, its replay, and the logs ``viewer`` may open.

        :raises Refused: 404, no such game.
        """
        detail = games.detail(game_id)
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
        logs = {
            s.seat for s in game.seats if s.user_id is not None and access.may_see_private(viewer, s.user_id)
        }
        return {"detail": detail, "replay": pack(replay), "logs": logs}

    async def game_log(request: Request, visit: Visit) -> Response:
        """One version's stderr during one game (``gamelogs``): for its owner and the organiser."""
        game_id, version_id = request.path_params["id"], int(request.path_params["version"])
        found = games.seat_log(game_id, version_id)
        if found is None:
            raise not_found("log")
        access.require_owner(visit.viewer, found.user_id, "log")
        path = server.ladder.log_path(version_id, found.values["log_inode"])  # whichever process's file
        shown = workerlogs.game_log(server.db, path, game_id, version_id, found.values)  # here, or a worker's
        return web.page(request, visit, "game_log.html", game_id=game_id, version_id=version_id,
                        label=f"v{found.number}", log=shown, overlapping=found.overlapping)  # fmt: skip

    async def admin(request: Request, visit: Visit) -> Response:
        access.require_organiser(visit.viewer)
        people = server.accounts.entrants()
        versions = {u.id: submissions.of_user(u.id) for u in people}
        return web.page(request, visit, "admin.html", people=people, versions=versions, state=ladder_state())

    async def export_hands(request: Request, visit: Visit) -> Response:
        access.require_organiser(visit.viewer)
        return StreamingResponse(
            export.hand_records(server.db), media_type="application/jsonl; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{HAND_RECORDS}"'},
        )  # fmt: skip

    async def export_games(request: Request, visit: Visit) -> Response:
        access.require_organiser(visit.viewer)
        text = await run_in_threadpool(export.games_csv, server.db)
        return Response(text, media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{GAMES_CSV}"'})  # fmt: skip

    async def admin_action(request: Request, visit: Visit) -> Response:
        await web.form(request, visit)
        access.require_organiser(visit.viewer)
        action = request.path_params["action"]
        target = int(request.path_params["id"])
        if action in ("disable", "enable"):
            server.accounts.set_disabled(target, action == "disable")
            server.field_changed()
        elif action == "recheck":
            submissions.get(target)
            submissions.set_status(target, "queued")
            server.checks.put(target)
            server.field_changed()
        else:
            raise not_found("action")
        return web.redirect("/admin")

    async def ladder_action(request: Request, visit: Visit) -> Response:
        await web.form(request, visit)
        access.require_organiser(visit.viewer)
        server.ladder.set_paused(request.path_params["action"] == "pause")
        return web.redirect("/admin")

    return [
        Route("/", web.route(leaderboard), methods=["GET"]),
        Route("/leaderboard/rows", web.route(leaderboard_rows), methods=["GET"]),
        Route("/leaderboard/recent", web.route(leaderboard_recent), methods=["GET"]),
        Route("/me", web.route(home), methods=["GET"]),
        Route("/me/token", web.route(new_token), methods=["POST"]),
        Route("/me/description", web.route(describe), methods=["POST"]),
        Route("/submit", web.route(submit), methods=["POST"]),
        Route("/versions/{id:int}", web.route(version_page), methods=["GET"]),
        Route("/versions/{id:int}/activate", web.route(activate), methods=["POST"]),
        Route("/entrants/{id:int}", web.route(entrant_page), methods=["GET"]),
        Route("/entrants/{id:int}/logs", web.route(logs_page), methods=["GET"]),
        Route("/games/{id}", web.route(game_page), methods=["GET"]),
        Route("/games/{id}/logs/{version:int}", web.route(game_log), methods=["GET"]),
        Route("/admin", web.route(admin), methods=["GET"]),
        Route(f"/admin/export/{HAND_RECORDS}", web.route(export_hands), methods=["GET"]),
        Route(f"/admin/export/{GAMES_CSV}", web.route(export_games), methods=["GET"]),
        Route("/admin/{action:str}/{id:int}", web.route(admin_action), methods=["POST"]),
        Route("/admin/ladder/{action:str}", web.route(ladder_action), methods=["POST"]),
    ]
