"""The ASGI middleware around every request: its share of the event loop (``WebShare``, with
``arena.server.web.budget``) and the security headers on every response (``SecurityHeaders``)."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.server.web.budget import LoopBudget


class WebShare:
    """Each request waits its turn of the loop (``arena.server.web.budget``), and its time is counted.

    Not counted or held: the health check (a monitor must see a busy server answer), the static files
    (sent from memory), and live tables' event streams (open for a whole game; each event is sent by the
    table's producer, not by a request).
    """

    def __init__(self, app: ASGIApp, budget: LoopBudget) -> None:
        self.app = app
        self.budget = budget

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or path == "/healthz"
            or path.startswith("/static/")
            or (path.startswith("/live/") and path.endswith("/events"))
        ):
            await self.app(scope, receive, send)
            return
        await self.budget.turn()
        began = time.thread_time()  # the loop thread's CPU: a wait for a core is not the request's cost
        try:
            await self.app(scope, receive, send)
        finally:
            self.budget.spend(time.thread_time() - began)


class SecurityHeaders:
    """``nosniff``, no framing, same-origin referrers on every response.

    A plain ASGI middleware that adds three headers to the response's start message: Starlette's
    ``BaseHTTPMiddleware`` would run every request through an extra task and memory streams, a cost paid
    on the event loop the ladder's games share.
    """

    HEADERS = (
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"same-origin"),
    )

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in self.HEADERS if n not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
