"""The pages of people: log in and out, an invitation link, sign-up, and an entrant's own page (``/me``:
its versions, its API token, its description).

Sessions, cookies and CSRF are the web's (``arena.server.web.site``); passwords, links and tokens are the
accounts service's (``arena.server.accounts.service``).
"""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena.server import access
from arena.server.accounts.service import DEVICE_DAYS, Devices
from arena.server.db.models import DESCRIPTION_MAX, ORGANISER
from arena.server.errors import Refused
from arena.server.settings import Signup
from arena.server.web.forms import text
from arena.server.web.site import Visit, Web


def _landing(role: str) -> str:
    return "/admin" if role == ORGANISER else "/me"


def _known_device(web: Web, response: Response, name: str) -> Response:
    """Mark this browser as one that logged in to ``name`` (a fresh device cookie, as OWASP describes):
    its later logins are throttled on its own failures only (``arena.server.accounts.service``)."""
    response.set_cookie(
        Devices.cookie_name(name),
        web.server.accounts.devices.issue(name),
        max_age=DEVICE_DAYS * 86400,
        httponly=True,
        samesite="strict",
        secure=web.secure,
        path="/login",
    )
    return response


async def login_page(web: Web, request: Request, visit: Visit) -> Response:
    return web.page(request, visit, "login.html")


async def login(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit)
    address = request.client.host if request.client else "?"
    name = text(form, "name", 64)
    device = request.cookies.get(Devices.cookie_name(name))
    try:
        user = await web.server.accounts.login(name, text(form, "password"), address, device)
    except Refused as exc:
        if exc.status in (401, 429):
            response = web.page(request, visit, "login.html", exc.status, error=exc.message)
            if exc.retry_after_s:
                response.headers["Retry-After"] = str(exc.retry_after_s)
            return response
        raise
    return _known_device(web, web.login_as(visit, user.id, _landing(user.role)), user.name)


async def logout(web: Web, request: Request, visit: Visit) -> Response:
    await web.form(request, visit)
    web.server.accounts.end_session(visit.token)
    response = web.redirect("/")
    web.set_cookie(response, secrets.token_urlsafe(32))
    return response


async def link_page(web: Web, request: Request, visit: Visit) -> Response:
    link = web.server.accounts.open_link(request.path_params["token"])
    return web.page(request, visit, "link.html", link=link)


async def follow_link(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit)
    token = request.path_params["token"]
    link = web.server.accounts.open_link(token)
    if text(form, "password") != text(form, "again"):
        return web.page(request, visit, "link.html", 400, link=link, error="the two passwords differ")
    try:
        user = await web.server.accounts.follow_link(token, text(form, "password"))
    except Refused as exc:
        if exc.status != 400:
            raise
        return web.page(request, visit, "link.html", 400, link=link, error=exc.message)
    return _known_device(web, web.login_as(visit, user.id, _landing(user.role)), user.name)


async def signup_page(web: Web, request: Request, visit: Visit) -> Response:
    if web.config.people.signup is not Signup.OPEN:
        raise Refused(403, "this competition is by invitation only: ask the organiser for a link")
    return web.page(request, visit, "signup.html")


async def signup(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit)
    try:
        user = await web.server.accounts.sign_up(text(form, "name", 200), text(form, "password"))
    except Refused as exc:
        if exc.status != 400:
            raise
        return web.page(request, visit, "signup.html", 400, error=exc.message)
    return _known_device(web, web.login_as(visit, user.id, "/me"), user.name)


def _home(web: Web, request: Request, visit: Visit, user_id: int, token: str | None) -> Response:
    server = web.server
    versions = server.submissions.of_user(user_id)
    places = {v.id: server.checks.place(v.id) for v in versions}
    user = server.accounts.user(user_id)
    description = user.description if user is not None else ""
    return web.page(request, visit, "me.html", versions=versions, places=places, token=token,
                    description=description, row=server.board.row_of(user_id))  # fmt: skip


async def home(web: Web, request: Request, visit: Visit) -> Response:
    return _home(web, request, visit, access.require_login(visit.viewer), None)


async def new_token(web: Web, request: Request, visit: Visit) -> Response:
    await web.form(request, visit)
    user_id = access.require_login(visit.viewer)
    return _home(web, request, visit, user_id, web.server.accounts.new_api_token(user_id))


async def describe(web: Web, request: Request, visit: Visit) -> Response:
    form = await web.form(request, visit)
    user_id = access.require_login(visit.viewer)
    web.server.describe(user_id, text(form, "description", 10 * DESCRIPTION_MAX))
    return web.redirect("/me")


def people_routes(web: Web) -> list[BaseRoute]:
    return [
        Route("/login", web.route(login_page), methods=["GET"]),
        Route("/login", web.route(login), methods=["POST"]),
        Route("/logout", web.route(logout), methods=["POST"]),
        Route("/link/{token}", web.route(link_page), methods=["GET"]),
        Route("/link/{token}", web.route(follow_link), methods=["POST"]),
        Route("/signup", web.route(signup_page), methods=["GET"]),
        Route("/signup", web.route(signup), methods=["POST"]),
    ]


def routes(web: Web) -> list[BaseRoute]:
    """An entrant's own page (listed after the leaderboard's, as before)."""
    return [
        Route("/me", web.route(home), methods=["GET"]),
        Route("/me/token", web.route(new_token), methods=["POST"]),
        Route("/me/description", web.route(describe), methods=["POST"]),
    ]
