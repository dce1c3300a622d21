"""What every page shares: the visitor and its session, CSRF, forms, templates and error pages.

Each domain's ``views`` (pages) and ``api`` (JSON) hold its routes' handlers, at module level: they only
validate, authorise (``arena.server.access``) and call services, given this ``Web`` (and through it the
server) by ``Web.route``; ``arena.server.app`` lists them all. Pages are rendered on the server by
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
from typing import TYPE_CHECKING, Any

from jinja2 import ChoiceLoader, Environment, PackageLoader, Undefined, select_autoescape
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from arena.server.access import Viewer
from arena.server.errors import Refused
from arena.server.settings import Signup
from arena.server.web.cache import Page, PageCache

if TYPE_CHECKING:  # handed in by arena.server.app: the web never imports the wiring (docs/architecture.md)
    from arena.server.wiring import Server

COOKIE = "arena"
FORM_OVERHEAD = 64 * 1024  # multipart headers and the other fields, besides the file itself
Endpoint = Callable[[Request], Awaitable[Response]]


@dataclass
class Visit:
    """The visitor of one request: its cookie id (new or not) and who it is."""

    token: str
    new: bool
    viewer: Viewer


def _absent(value: object) -> bool:
    """A figure a report does not have (a check that never started has no latency)."""
    return value is None or isinstance(value, Undefined)


def unchanged(request: Request, etag: str) -> bool:
    """Whether the request's ``If-None-Match`` names ``etag`` (or is ``*``): the client holds this very
    page, and a 304 tells it to show its own copy. Compared as RFC 9110 13.1.2 says (weakly: a ``W/``
    prefix is ignored)."""
    sent = request.headers.get("if-none-match")
    if not sent:
        return False
    tags = [t.strip().removeprefix("W/") for t in sent.split(",")]
    return "*" in tags or etag in tags


# Every answer with an entity tag: a browser asks again each time (no-cache) with If-None-Match, and keeps
# it for the visitor alone (private): a shared cache never hands one visitor's page to another.
REVALIDATE = {"Cache-Control": "private, no-cache", "Vary": "Cookie"}

Handler = Callable[["Web", Request, Visit], Awaitable[Response]]
"""A route's handler: module-level, given the web (and through it the server), the request, the visitor."""


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
                [PackageLoader("arena.server.web", "templates"), PackageLoader("arena.report", "templates")]
            ),
            autoescape=select_autoescape(),
        )
        self.env.filters["ms"] = lambda v: "–" if _absent(v) else f"{v:.1f} ms"
        self.env.filters["pct"] = lambda v: "–" if _absent(v) else f"{v:.0%}"
        self.env.filters["num"] = lambda v, d=2: "–" if _absent(v) else f"{v:.{d}f}"
        self.secure = self.config.base_url().startswith("https://")
        self.page_cache = PageCache()  # spectators' pages, emptied whenever the server says they changed
        server.on_change(self.page_cache.clear)
        # the API's description, made from its routes' docstrings when first asked (``web.api``: parsing
        # their YAML took a tenth of a second of every start)
        self.openapi: Callable[[], dict[str, Any]] = dict

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

    def render(self, request: Request, visit: Visit, template: str, **context: Any) -> str:
        return self.env.get_template(template).render(
            viewer=visit.viewer,
            csrf=self.csrf(visit),
            config=self.config,
            open_signup=self.config.people.signup is Signup.OPEN,
            request_path=request.url.path,
            **context,
        )

    def page(
        self, request: Request, visit: Visit, template: str, status: int = 200, **context: Any
    ) -> HTMLResponse:
        return HTMLResponse(self.render(request, visit, template, **context), status)

    @staticmethod
    def answer(request: Request, page: Page, media_type: str = "text/html") -> Response:
        """``page`` with its entity tag, or a 304 with no body when the client holds it already
        (``unchanged``): what a client polling an unchanged page costs is this comparison."""
        headers = {"ETag": page.etag, **REVALIDATE}
        if unchanged(request, page.etag):
            return Response(status_code=304, headers=headers)
        return Response(page.text, media_type=media_type, headers=headers)

    def cached(
        self, request: Request, key: tuple[str, ...], ttl_s: float | None, version: int,
        make: Callable[[], str], media_type: str = "text/html",
    ) -> Response:  # fmt: skip
        """What every visitor gets alike (it names none of them), made by ``make`` at most once per
        ``version`` and ``ttl_s`` (``arena.server.web.cache``), with its entity tag (``answer``)."""
        page = self.page_cache.get(key, ttl_s, version)
        if page is None:
            page = self.page_cache.put(key, make(), version)
        return self.answer(request, page, media_type)

    def public_page(
        self,
        request: Request,
        visit: Visit,
        key: tuple[str, ...],
        ttl_s: float | None,
        template: str,
        context: Callable[[], dict[str, Any]],
        version: int = 0,
    ) -> Response:
        """A page every spectator sees alike, rendered once for all of them (``arena.server.web.cache``)
        while ``version`` (of what it shows) stays; ``context`` is called only when it is rendered. A
        logged-in visitor's page is their own, rendered for each request; both carry the entity tag of
        their text (``answer``): one for all spectators; a logged-in visitor's page that names them (the
        menu, their CSRF token) has a tag of its own, and a part that names nobody (the leaderboard's
        rows) is the spectators' bytes, and has their tag."""
        if visit.viewer.logged_in:
            return self.answer(request, Page.of(self.render(request, visit, template, **context())))
        return self.cached(
            request, key, ttl_s, version,
            lambda: self.env.get_template(template).render(
                viewer=Viewer(),
                csrf="",  # a spectator's page has no form: no visitor's token may be kept in it
                config=self.config,
                open_signup=self.config.people.signup is Signup.OPEN,
                request_path=request.url.path,
                **context(),
            ),
        )  # fmt: skip

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

    def route(self, handler: Handler) -> Endpoint:
        """Starlette's endpoint for a module-level ``handler``: called with this web, the request and its
        visitor; its refusals become pages (or the API's JSON), and a new visitor's cookie is set."""

        async def endpoint(request: Request) -> Response:
            visit = self.visit(request)
            try:
                response = await handler(self, request, visit)
            except Refused as exc:
                response = self.refused(request, visit, exc)
            if visit.new and COOKIE not in response.headers.get("set-cookie", ""):
                self.set_cookie(response, visit.token)
            return response

        endpoint.__doc__ = handler.__doc__  # the API's OpenAPI descriptions (arena.server.web.openapi)
        return endpoint

    def api_viewer(self, request: Request) -> Viewer:
        """The API's caller, by its bearer token (never the session cookie: see ``arena.server.ladder.api``).

        :raises Refused: 401 without a valid token.
        """
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        user = self.server.accounts.api_user(token.strip()) if scheme.lower() == "bearer" and token else None
        if user is None:
            raise Refused(401, "a valid API token is needed: make one on your page (/me)")
        return Viewer(user.id, user.name, user.role)

    def login_as(self, visit: Visit, user_id: int, to: str) -> Response:
        """A new session for ``user_id`` (the visitor's old id is dropped: no fixation), then ``to``."""
        if not visit.new:
            self.server.accounts.end_session(visit.token)
        token = self.server.accounts.new_session(user_id)
        response = self.redirect(to)
        self.set_cookie(response, token)
        return response
