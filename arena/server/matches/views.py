"""The pages of unrated games (``arena.server.matches.service``): a version's SPRT matches, an
entrant's challenges, and a person's games (``arena.server.matches.people``: ``/play``, whose table is
``arena play``'s own page, ``arena/play/static/play.html``, given this game's API and the visitor's CSRF
token). Both are private: only the entrant who asked and the organiser see them, and anybody
else gets the same 404 as for an id that does not exist (``arena.server.access``). The pages and the API
(``arena.server.matches.api``) call the same functions (``ask_match``, ``ask_challenge``, ``owned``,
``MatchView.to_dict``), so they cannot differ.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from importlib import resources
from typing import Any

from markupsafe import escape
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.play.seat import MoveRefused
from arena.report.encode import CARD_LIST, encode_hand, pack
from arena.server import access
from arena.server.access import Viewer
from arena.server.errors import Refused
from arena.server.matches.people import PersonGameView
from arena.server.matches.plans import MatchView
from arena.server.web.forms import whole_number
from arena.server.web.site import Visit, Web


def ask_match(web: Web, viewer: Viewer, version_id: int, form: FormData) -> int:
    """Start an SPRT match of the viewer's version (``baseline``: optional, another of its versions).

    :raises Refused: 401 a spectator, 403 the organiser, and what ``UnratedGames.ask_match`` refuses.
    """
    user_id = access.require_entrant(viewer)
    baseline = form.get("baseline")
    chosen = whole_number(baseline, "baseline") if baseline not in (None, "") else None
    return web.server.unrated.ask_match(user_id, version_id, chosen)


def ask_challenge(web: Web, viewer: Viewer, form: FormData) -> int:
    """Start a challenge: ``opponent`` (entrant ids, repeated) and ``games``.

    :raises Refused: 401 a spectator, 403 the organiser, and what ``UnratedGames.ask_challenge`` refuses.
    """
    user_id = access.require_entrant(viewer)
    opponents = [whole_number(o, "an opponent") for o in form.getlist("opponent")]
    return web.server.unrated.ask_challenge(user_id, opponents, whole_number(form.get("games", "1"), "games"))


def owned(web: Web, viewer: Viewer, match_id: int) -> MatchView:
    """:raises Refused: 404 no such match, or not the viewer's (the same answer)."""
    found = web.server.unrated.view(match_id)
    access.require_owner(viewer, found.plan.user_id, "match")
    return found


async def start_match(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit)
    return web.redirect(f"/matches/{ask_match(web, visit.viewer, int(request.path_params['id']), form)}")


async def start_challenge(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit)
    return web.redirect(f"/matches/{ask_challenge(web, visit.viewer, form)}")


async def match_page(web: Web, request: Request, visit: Visit) -> Response:
    found = owned(web, visit.viewer, int(request.path_params["id"]))
    return web.page(request, visit, "match.html", match=found, data=found.to_dict(), state=found.state)


async def challenges_page(web: Web, request: Request, visit: Visit) -> Response:
    server = web.server
    user_id = access.require_login(visit.viewer)
    return web.page(
        request,
        visit,
        "challenges.html",
        challenges=server.unrated.challenges_of(user_id),
        opponents=server.unrated.challengeable(user_id),
    )


# --- a person's seat -------------------------------------------------------------------------------

LONG_POLL_S = 20.0
PLAY_PAGE = (resources.files("arena.play") / "static/play.html").read_text()


def ask_person_game(web: Web, viewer: Viewer, form: FormData) -> int:
    """Start a game of the viewer's own: ``opponent`` (entrant ids, repeated; house bots fill the other
    seats) and ``seat`` (empty: drawn).

    :raises Refused: 401 a spectator, and what ``PersonGames.ask`` refuses (409 a game of theirs still on).
    """
    user_id = access.require_login(viewer)
    opponents = [whole_number(o, "an opponent") for o in form.getlist("opponent")]
    seat = form.get("seat")
    chosen = whole_number(seat, "seat") if seat not in (None, "") else None
    return web.server.people.ask(user_id, opponents, chosen)


def play_start_page_context(web: Web, viewer: Viewer) -> dict[str, Any]:
    user_id = access.require_login(viewer)
    people = web.server.people
    return {
        "opponents": web.server.unrated.challengeable(user_id),
        "games": people.of_person(user_id),
        "against": people.of_versions([v.id for v in web.server.submissions.of_user(user_id)]),
        "seats": people.seats,
    }


async def play_start_page(web: Web, request: Request, visit: Visit) -> Response:
    return web.page(request, visit, "play_start.html", **play_start_page_context(web, visit.viewer))


async def start_person_game(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit)
    return web.redirect(f"/play/{ask_person_game(web, visit.viewer, form)}")


def own_game(web: Web, request: Request, visit: Visit) -> tuple[int, int, bool]:
    """The game's id, the person's, and whether it is still on.

    :raises Refused: 401 a spectator; 404 not the viewer's game.
    """
    user_id = access.require_login(visit.viewer)
    plan_id = int(request.path_params["id"])
    return plan_id, user_id, web.server.people.own(plan_id, user_id)


async def play_page(web: Web, request: Request, visit: Visit) -> Response:
    """``arena play``'s page, given this game's API and the visitor's CSRF token (sent back in a header)."""
    plan_id, _user_id, on = own_game(web, request, visit)
    if not on:
        return web.redirect(f"/play/{plan_id}/game")  # over: its page is the kept game's
    body = (
        f'<body data-api="/play/{plan_id}" data-key="{escape(web.csrf(visit))}" '
        f'data-home="/play/{plan_id}/game">'
    )
    title = f"{escape(web.config.name)}: play a seat"
    html = (
        PLAY_PAGE.replace("<body>", body, 1)
        .replace("<title>arena play</title>", f"<title>{title}</title>", 1)
        .replace("<h1>arena play</h1>", f'<h1><a href="/">{escape(web.config.name)}</a>: play a seat</h1>', 1)
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


def _json_error(status: int, reason: str) -> JSONResponse:
    return JSONResponse({"error": reason}, status_code=status)


def _same_page(web: Web, request: Request, visit: Visit) -> bool:
    """A move comes from the play page: it sends the visitor's CSRF token in ``X-Play-Key`` (a header
    another site's page cannot set without a preflight, which this server never grants)."""
    sent = request.headers.get("x-play-key", "")
    return hmac.compare_digest(sent.encode(), web.csrf(visit).encode())


async def play_state(web: Web, request: Request, visit: Visit) -> Response:
    """The page's state, from whichever process of the server (``arena.server.matches.relay``)."""
    try:
        plan_id, user_id, _on = own_game(web, request, visit)
        try:
            since = int(request.query_params.get("since", "-1"))
        except ValueError:
            return _json_error(400, "since: give the version number the page has")
        state = await _state_until_stop(web, plan_id, user_id, since)
    except Refused as exc:
        return _json_error(exc.status, exc.message)
    return JSONResponse(state, headers={"Cache-Control": "no-store"})


async def _state_until_stop(web: Web, plan_id: int, user_id: int, since: int) -> dict[str, Any]:
    """The long poll's state, or the state as it stands once the server is asked to stop: the stop waits
    for every request in flight, and the page polls again by itself (to the server when it is back)."""
    stopping = web.server.stopping
    if not stopping.is_set():
        polled = asyncio.ensure_future(web.server.people.state(plan_id, user_id, since, LONG_POLL_S))
        stopped = asyncio.ensure_future(stopping.wait())
        try:
            await asyncio.wait({polled, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            answered = polled.done()
            if not answered:
                polled.cancel()
        if answered:
            return polled.result()
    # the page says so, and waits before it polls again (arena/play/static/play.js)
    return {**await web.server.people.state(plan_id, user_id, since, 0), "stopping": True}


def _page_move(web: Web, request: Request, visit: Visit) -> tuple[int, int] | Response:
    """The person's own game (plan id, user id) for a request its page sent, or the answer refusing it: the
    same two checks for a move and for taking the seat back."""
    try:
        plan_id, user_id, _on = own_game(web, request, visit)
    except Refused as exc:
        return _json_error(exc.status, exc.message)
    if not _same_page(web, request, visit):
        return _json_error(403, "this request was not sent by the game's page (CSRF check): reload it")
    return plan_id, user_id


async def play_move(web: Web, request: Request, visit: Visit) -> Response:
    own = _page_move(web, request, visit)
    if isinstance(own, Response):
        return own
    plan_id, user_id = own
    try:
        body: Any = json.loads(await request.body() or b"{}")
    except ValueError:
        return _json_error(400, 'the body is not JSON: send {"action": "PLAY(JH)"}')
    text = body.get("action") if isinstance(body, dict) else None
    decision = body.get("decision") if isinstance(body, dict) else None
    if not isinstance(text, str) or not (decision is None or isinstance(decision, int)):
        return _json_error(400, 'send {"action": "PLAY(JH)", "decision": N} (decision optional)')
    try:
        action = await web.server.people.move(plan_id, user_id, "move", text, decision)
    except Refused as exc:
        return _json_error(exc.status, exc.message)
    except MoveRefused as refused:
        return _json_error(refused.status, refused.reason)
    return JSONResponse({"action": action})


async def play_back(web: Web, request: Request, visit: Visit) -> Response:
    own = _page_move(web, request, visit)
    if isinstance(own, Response):
        return own
    plan_id, user_id = own
    try:
        await web.server.people.move(plan_id, user_id, "back", "back", None)
    except Refused as exc:
        return _json_error(exc.status, exc.message)
    except MoveRefused as refused:
        return _json_error(refused.status, refused.reason)
    return JSONResponse({"away": False})


def seen_person_game(web: Web, viewer: Viewer, plan_id: int) -> PersonGameView:
    """A kept person's game: for the person, the organiser, and the owners of the versions seated at it.

    :raises Refused: 404 for anybody else (the same answer as for no such game).
    """
    found = web.server.people.view(plan_id)
    access.require_at_table(viewer, found.person_id, found.owners.values(), "game")
    return found


async def person_game_page(web: Web, request: Request, visit: Visit) -> Response:
    found = seen_person_game(web, visit.viewer, int(request.path_params["id"]))
    viewer = visit.viewer
    logs = [
        (found.labels[found.names.index(name)], web.server.people.log(found, name))
        for name, owner in found.owners.items()
        if viewer.organiser or owner == viewer.user_id
    ]
    replay = None
    if found.scores is not None and found.ranks is not None:  # the report's replay, as a ladder game's
        entry = {
            "id": f"P{found.plan_id}", "n": found.plan_id, "round": 1, "table": 1, "seats": found.labels,
            "scores": found.scores, "ranks": found.ranks, "forfeited": [], "termination": "",
            "rated": False, "hands": [encode_hand(h) for h in found.hands], "faults": [],
        }  # fmt: skip
        replay = pack({"cards": CARD_LIST, "num_players": len(found.labels), "games": [entry]})
    return web.page(
        request, visit, "person_game.html", game=found, logs=logs, seats=found.labels, replay=replay
    )


def routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/play", web.route(play_start_page), methods=["GET"]),
        Route("/play", web.route(start_person_game), methods=["POST"]),
        Route("/play/{id:int}", web.route(play_page), methods=["GET"]),
        Route("/play/{id:int}/state", web.route(play_state), methods=["GET"]),
        Route("/play/{id:int}/move", web.route(play_move), methods=["POST"]),
        Route("/play/{id:int}/back", web.route(play_back), methods=["POST"]),
        Route("/play/{id:int}/game", web.route(person_game_page), methods=["GET"]),
        Route("/versions/{id:int}/match", web.route(start_match), methods=["POST"]),
        Route("/matches/{id:int}", web.route(match_page), methods=["GET"]),
        Route("/challenges", web.route(challenges_page), methods=["GET"]),
        Route("/challenges", web.route(start_challenge), methods=["POST"]),
    ]
