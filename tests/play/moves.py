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
