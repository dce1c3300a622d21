"""Rendered public pages, kept for the visitors who are not logged in.

The web app and the ladder share one event loop (``arena.server.app``), so every millisecond a page takes
is a millisecond no game in flight moves. A spectator's leaderboard and game pages carry nothing of the
visitor (no name, no CSRF token: ``base.html`` shows a form only to a logged-in user), so one rendering can
serve every spectator: a stored game's page never changes (kept until evicted), and the leaderboard is
rendered again at most once a ``ttl_s`` (a second), or at once when the field changes (``clear``) or the
board has shown a new look (its ``version``, the board's generation: no page shows an older board than the
board's own for longer than the next request).
Logged-in visitors' pages are rendered for each request: they name the visitor.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

PAGES = 256  # stored games' pages kept; a page is a few kilobytes


@dataclass
class PageCache:
    """Rendered pages by key, each with the time it was rendered (see the module's docstring)."""

    size: int = PAGES
    clock: Callable[[], float] = time.monotonic
    _pages: OrderedDict[tuple[str, ...], tuple[float, int, str]] = field(default_factory=OrderedDict)

    def get(self, key: tuple[str, ...], ttl_s: float | None, version: int = 0) -> str | None:
        """The page under ``key`` if rendered less than ``ttl_s`` ago (None: it never goes stale) from the
        same ``version`` of what it shows."""
        found = self._pages.get(key)
        if found is None:
            return None
        rendered_at, of, html = found
        if of != version or (ttl_s is not None and self.clock() - rendered_at >= ttl_s):
            del self._pages[key]
            return None
        self._pages.move_to_end(key)
        return html

    def put(self, key: tuple[str, ...], html: str, version: int = 0) -> None:
        self._pages[key] = (self.clock(), version, html)
        self._pages.move_to_end(key)
        while len(self._pages) > self.size:
            self._pages.popitem(last=False)

    def clear(self) -> None:
        """The field changed (a verdict, a version chosen, an entrant disabled, a description)."""
        self._pages.clear()
