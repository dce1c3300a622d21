"""Rendered public pages, kept for the visitors who are not logged in.

The web app and the ladder share one event loop (``arena.server.app``), so every millisecond a page takes
is a millisecond no game in flight moves. A spectator's leaderboard and game pages carry nothing of the
visitor (no name, no CSRF token: ``base.html`` shows a form only to a logged-in user), so one rendering can
serve every spectator: a stored game's page never changes (kept until evicted), and the leaderboard is
rendered again at most once a ``ttl_s`` (a second), or at once when the field changes (``clear``) or the
board has shown a new look (its ``version``, the board's generation: no page shows an older board than the
board's own for longer than the next request).
Logged-in visitors' pages are rendered for each request: they name the visitor.

Each page kept has its **entity tag** (``Page.etag``), the digest of its text: a client that polls with
``If-None-Match`` gets a 304 without a byte of the page while it is unchanged (``Web.answer``). A digest
of the text, not a key made of what the page shows: whatever a page depends on (the board's generation,
the ladder's state line, the games in flight, the visitor's name and CSRF token on a logged-in page), two
pages share a tag only when their bytes are the same, so no visitor is ever told to keep another's page.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

PAGES = 256  # stored games' pages kept; a page is a few kilobytes
BOARD_TTL_S = 1.0  # a spectator's leaderboard (its page, its parts, its JSON) is at most this old


def etag_of(text: str) -> str:
    """A strong entity tag of ``text``: its SHA-256, quoted (RFC 9110 8.8.3); 128 bits of it, so two texts
    that differ never share one."""
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'


class Page(NamedTuple):
    """A rendered page and its entity tag (``etag_of`` its text), computed once when it is kept."""

    text: str
    etag: str

    @classmethod
    def of(cls, text: str) -> Page:
        return cls(text, etag_of(text))


@dataclass
class PageCache:
    """Rendered pages by key, each with the time it was rendered (see the module's docstring)."""

    size: int = PAGES
    clock: Callable[[], float] = time.monotonic
    _pages: OrderedDict[tuple[str, ...], tuple[float, int, Page]] = field(default_factory=OrderedDict)

    def get(self, key: tuple[str, ...], ttl_s: float | None, version: int = 0) -> Page | None:
        """The page under ``key`` if rendered less than ``ttl_s`` ago (None: it never goes stale) from the
        same ``version`` of what it shows."""
        found = self._pages.get(key)
        if found is None:
            return None
        rendered_at, of, page = found
        if of != version or (ttl_s is not None and self.clock() - rendered_at >= ttl_s):
            del self._pages[key]
            return None
        self._pages.move_to_end(key)
        return page

    def put(self, key: tuple[str, ...], html: str, version: int = 0) -> Page:
        """Keep ``html`` under ``key``, with its entity tag; the page kept."""
        page = Page.of(html)
        self._pages[key] = (self.clock(), version, page)
        self._pages.move_to_end(key)
        while len(self._pages) > self.size:
            self._pages.popitem(last=False)
        return page

    def clear(self) -> None:
        """The field changed (a verdict, a version chosen, an entrant disabled, a description)."""
        self._pages.clear()
