"""The web app: sessions, CSRF, error pages, and the routes of people (log in, links, sign-up).

Routes only validate, authorise (``arena.server.access``) and call services; the content pages are in
``arena.server.pages`` and the JSON API in ``arena.server.api``. Pages are rendered on the server by
Jinja2 with autoescaping on, so every name, note and log line is text, never markup; they work without
JavaScript (the leaderboard's live update is a small script over a page that also reloads itself).

**Cookies.** One cookie, ``arena``: a random id and its HMAC under the server's session key, ``HttpOnly``,
``SameSite=Lax``, ``Secure`` when the competition's URL is https. A visitor who is not logged in has an id
too (no row): it keys that visitor's CSRF token. Logging in issues a new id (stored hashed in
``sessions``) and drops the old one, so an id planted before login is worth nothing after it.

**CSRF.** Every form carries ``csrf``, the HMAC of the visitor's id; a POST without the right one is
refused with 403 before anything is done. The JSON API takes a bearer token instead of the cookie, so it
cannot be driven by another site's form.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from jinja2 import ChoiceLoader, Environment, PackageLoader, Undefined, select_autoescape
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server.access import Viewer
from arena.server.config import Signup
from arena.server.errors import Refused
from arena.server.service import Server

COOKIE = "arena"
FORM_OVERHEAD = 64 * 1024  # multipart headers and the other fields, besides the file itself
Handler = Callable[[Request], Awaitable[Response]]


@dataclass
class Visit:
    """The visitor of one request: its cookie id (new or not) and who it is."""

    token: str
    new: bool
    viewer: Viewer


def _absent(value: object) -> bool:
    """A figure a report does not have (a check that never started has no latency)."""
    return value is None or isinstance(value, Undefined)


def _sign(key: bytes, token: str) -> str:
    return hmac.new(key, token.encode(), hashlib.sha256).hexdigest()[:40]


class Web:
    """Shared by the route modules: templates, the visitor, forms, CSRF and error pages."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.config = server.config
        self.env = Environment(
            # The server's pages, and the report's replay dialog that the game page shares with it.
            loader=ChoiceLoader(
                [PackageLoader("arena.server", "templates"), PackageLoader("arena.report", "templates")]
            ),
            autoescape=select_autoescape(),
        )
        self.env.filters["ms"] = lambda v: "–" if _absent(v) else f"{v:.1f} ms"
        self.env.filters["pct"] = lambda v: "–" if _absent(v) else f"{v:.0%}"
        self.env.filters["num"] = lambda v, d=2: "–" if _absent(v) else f"{v:.{d}f}"
        self.secure = self.config.base_url().startswith("https://")

    # --- visitors ----------------------------------------------------------------------------------

    def visit(self, request: Request) -> Visit:
        raw = request.cookies.get(COOKIE, "")
        token, _, signature = raw.partition(".")
        if token and hmac.compare_digest(signature, _sign(self.server.session_key, token)):
            user = self.server.accounts.session_user(token)
            viewer = Viewer(user.id, user.name, user.role) if user is not None else Viewer()
            return Visit(token, False, viewer)
        return Visit(secrets.token_urlsafe(32), True, Viewer())

    def set_cookie(self, response: Response, token: str) -> None:
        value = f"{token}.{_sign(self.server.session_key, token)}"
        response.set_cookie(COOKIE, value, httponly=True, samesite="lax", secure=self.secure, path="/")

    def csrf(self, visit: Visit) -> str:
        return _sign(self.server.session_key, "csrf:" + visit.token)

    async def form(self, request: Request, visit: Visit | None, max_bytes: int = FORM_OVERHEAD) -> FormData:
        """The posted form, after its size and (unless ``visit`` is None: the token-authenticated API) its
        CSRF token are checked. The length is checked before a byte of the body is read.

        :raises Refused: 411 without a length, 413 too large, 403 without the right CSRF token.
        """
        length = request.headers.get("content-length")
        if length is None or not length.isdigit():
            raise Refused(411, "a form must be sent with its length (Content-Length)")
        if int(length) > max_bytes + FORM_OVERHEAD:
            raise Refused(
                413, f"this request has {length} bytes; at most {max_bytes + FORM_OVERHEAD} are accepted"
            )
        form = await request.form(max_files=1, max_fields=20, max_part_size=max_bytes + 1024)
        if visit is None:
            return form
        sent = form.get("csrf")
        if not isinstance(sent, str) or not hmac.compare_digest(sent, self.csrf(visit)):
            raise Refused(
                403, "this form has expired or was not sent by this site (CSRF check): reload the page"
            )
        return form

    def page(
        self, request: Request, visit: Visit, template: str, status: int = 200, **context: Any
    ) -> HTMLResponse:
        html = self.env.get_template(template).render(
            viewer=visit.viewer,
            csrf=self.csrf(visit),
            config=self.config,
            open_signup=self.config.people.signup is Signup.OPEN,
            request_path=request.url.path,
            **context,
        )
        return HTMLResponse(html, status)

    def public_page(
        self,
        request: Request,
        visit: Visit,
        key: tuple[str, ...],
        ttl_s: float | None,
        template: str,
        context: Callable[[], dict[str, Any]],
    ) -> HTMLResponse:
        """A page every spectator sees alike, rendered once for all of them (``arena.server.cache``);
        ``context`` is called only when it is rendered. A logged-in visitor's page is their own."""
        if visit.viewer.logged_in:
            return self.page(request, visit, template, **context())
        html = self.server.pages.get(key, ttl_s)
        if html is None:
            html = self.env.get_template(template).render(
                viewer=Viewer(),
                csrf="",  # a spectator's page has no form: no visitor's token may be kept in it
                config=self.config,
                open_signup=self.config.people.signup is Signup.OPEN,
                request_path=request.url.path,
                **context(),
            )
            self.server.pages.put(key, html)
        return HTMLResponse(html)

    def redirect(self, url: str) -> RedirectResponse:
        return RedirectResponse(url, 303)

    def refused(self, request: Request, visit: Visit, exc: Refused) -> Response:
        headers = {"Retry-After": str(exc.retry_after_s)} if exc.retry_after_s else {}
        if request.url.path.startswith("/api/"):
            response: Response = JSONResponse({"error": exc.message}, exc.status, headers=headers)
        else:
            response = self.page(
                request, visit, "error.html", exc.status, message=exc.message, code=exc.status
            )
            response.headers.update(headers)
        return response

    def route(self, handler: Callable[[Request, Visit], Awaitable[Response]]) -> Handler:
        """A handler with its visitor, its refusals as pages, and the visitor's cookie set when new."""

        async def endpoint(request: Request) -> Response:
            visit = self.visit(request)
            try:
                response = await handler(request, visit)
            except Refused as exc:
                response = self.refused(request, visit, exc)
            if visit.new and COOKIE not in response.headers.get("set-cookie", ""):
                self.set_cookie(response, visit.token)
            return response

        endpoint.__doc__ = handler.__doc__  # the API's OpenAPI descriptions (arena.server.openapi)
        return endpoint

    def login_as(self, visit: Visit, user_id: int, to: str) -> Response:
        """A new session for ``user_id`` (the visitor's old id is dropped: no fixation), then ``to``."""
        if not visit.new:
            self.server.accounts.end_session(visit.token)
        token = self.server.accounts.new_session(user_id)
        response = self.redirect(to)
        self.set_cookie(response, token)
        return response


def _text(form: FormData, key: str, limit: int = 1000) -> str:
    value = form.get(key, "")
    return value[:limit] if isinstance(value, str) else ""


def people_routes(web: Web) -> list[BaseRoute]:
    accounts = web.server.accounts

    async def login_page(request: Request, visit: Visit) -> Response:
        return web.page(request, visit, "login.html")

    async def login(request: Request, visit: Visit) -> Response:
        form = await web.form(request, visit)
        address = request.client.host if request.client else "?"
        try:
            user = await accounts.login(_text(form, "name", 64), _text(form, "password"), address)
        except Refused as exc:
            if exc.status in (401, 429):
                response = web.page(request, visit, "login.html", exc.status, error=exc.message)
                if exc.retry_after_s:
                    response.headers["Retry-After"] = str(exc.retry_after_s)
                return response
            raise
        return web.login_as(visit, user.id, "/admin" if user.role == "organiser" else "/me")

    async def logout(request: Request, visit: Visit) -> Response:
        await web.form(request, visit)
        accounts.end_session(visit.token)
        response = web.redirect("/")
        web.set_cookie(response, secrets.token_urlsafe(32))
        return response

    async def link_page(request: Request, visit: Visit) -> Response:
        link = accounts.open_link(request.path_params["token"])
        return web.page(request, visit, "link.html", link=link)

    async def follow_link(request: Request, visit: Visit) -> Response:
        form = await web.form(request, visit)
        token = request.path_params["token"]
        link = accounts.open_link(token)
        if _text(form, "password") != _text(form, "again"):
            return web.page(request, visit, "link.html", 400, link=link, error="the two passwords differ")
        try:
            user = await accounts.follow_link(token, _text(form, "password"))
        except Refused as exc:
            if exc.status != 400:
                raise
            return web.page(request, visit, "link.html", 400, link=link, error=exc.message)
        return web.login_as(visit, user.id, "/admin" if user.role == "organiser" else "/me")

    async def signup_page(request: Request, visit: Visit) -> Response:
        if web.config.people.signup is not Signup.OPEN:
            raise Refused(403, "this competition is by invitation only: ask the organiser for a link")
        return web.page(request, visit, "signup.html")

    async def signup(request: Request, visit: Visit) -> Response:
        form = await web.form(request, visit)
        try:
            user = await accounts.sign_up(_text(form, "name", 200), _text(form, "password"))
        except Refused as exc:
            if exc.status != 400:
                raise
            return web.page(request, visit, "signup.html", 400, error=exc.message)
        return web.login_as(visit, user.id, "/me")

    return [
        Route("/login", web.route(login_page), methods=["GET"]),
        Route("/login", web.route(login), methods=["POST"]),
        Route("/logout", web.route(logout), methods=["POST"]),
        Route("/link/{token}", web.route(link_page), methods=["GET"]),
        Route("/link/{token}", web.route(follow_link), methods=["POST"]),
        Route("/signup", web.route(signup_page), methods=["GET"]),
        Route("/signup", web.route(signup), methods=["POST"]),
    ]
