"""The spectators' page cache (``arena.server.web.cache``) on its own; its use by the pages is tested against
a real server in tests/server/ladder/test_pages.py."""

from __future__ import annotations

from arena.server.web.cache import Page, PageCache


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_page_with_a_lifetime_goes_stale_and_one_without_never_does() -> None:
    clock = Clock()
    cache = PageCache(clock=clock)
    cache.put(("leaderboard",), "board")
    cache.put(("game", "g000001"), "game")
    clock.now += 0.99
    assert cache.get(("leaderboard",), 1.0) == Page.of("board")
    clock.now += 0.01
    assert cache.get(("leaderboard",), 1.0) is None
    assert cache.get(("leaderboard",), None) is None  # a stale page is dropped, not kept for others
    clock.now += 10_000
    assert cache.get(("game", "g000001"), None) == Page.of("game")


def test_the_least_recently_used_page_is_evicted_and_clear_drops_all() -> None:
    cache = PageCache(size=2)
    cache.put(("game", "a"), "a")
    cache.put(("game", "b"), "b")
    assert cache.get(("game", "a"), None) == Page.of("a")  # a is now the most recent
    cache.put(("game", "c"), "c")
    assert cache.get(("game", "b"), None) is None
    assert cache.get(("game", "a"), None) == Page.of("a")
    assert cache.get(("game", "c"), None) == Page.of("c")
    cache.clear()
    assert cache.get(("game", "a"), None) is None
    assert cache.get(("game", "c"), None) is None
