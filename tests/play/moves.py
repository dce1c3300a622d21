"""How the browser tests of a person's seat make a move (locally, ``tests/play/test_browser.py``, and on the
server, ``tests/server/matches/test_people.py``): one page script, so both exercise every way in."""

from __future__ import annotations

from typing import Any


def answer(page: Any, turn: int) -> str:
    """One move, a different way each turn: a number key, a click (a card when one is playable), Enter."""
    way = turn % 3
    if way == 0:
        page.keyboard.press("1")
        return "key"
    if way == 1:
        card = page.query_selector("#hand button.cardbtn")
        (card or page.query_selector("#actions button.act")).click()
        return "card" if card else "click"
    page.wait_for_function("document.activeElement && document.activeElement.matches('#actions button')")
    page.keyboard.press("Enter")
    return "enter"


def check_turn(page: Any, legal: list[str], prev: str, turn: int, width: int | None) -> None:
    """What every decision of a person's page must show: every legal action and only those; on the first, a
    move the engine refuses is answered with why and leaves the decision open; on a phone (``width``), the
    first decisions fit the screen."""
    shown = page.eval_on_selector_all("#actions button", "bs => bs.map(b => b.dataset.action)")
    assert shown == legal  # every legal action, and only those, is offered
    if turn == 0:  # a move the engine refuses: the page says why, and the decision stays open
        wrong = next(a for a in ("PLAY(9C)", "ORDER_UP", "PASS", "NAME(S)") if a not in legal)
        page.evaluate("(a) => window.arenaPlay.move(a)", wrong)
        page.wait_for_selector("#notice:has-text('legal now:')")
        assert page.evaluate("document.body.dataset.decision") == prev
    if width is not None and turn < 3:
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        box = page.query_selector("#actions button").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
