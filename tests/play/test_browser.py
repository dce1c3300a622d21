"""``arena play`` in a real browser (Debian's chromium, driven by Playwright as the report's test drives it):
a whole game of every variant played by clicking cards and bids, pressing number keys and Enter, against
the in-process house bots of a real ``arena play`` process; five-handed on a 390 px phone. The stored game
replays exactly through a fresh engine, and Finish stops the process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.engine.config import GameConfig
from arena.play.session import replay_game
from arena.results.queries import Queries
from tests.play.moves import answer, check_turn
from tests.play.test_http import PlayProcess
from tests.report import test_browser as report

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright (the test extra) is not installed"
)
pytestmark = pytest.mark.needs_chromium
browser = report.browser  # one chromium per module, launched as the report's test launches it

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
CASES = [
    ("classic", "random,rules,random", DESKTOP),
    ("call-ace", "rules,random,rules,random", DESKTOP),
    ("five-handed", "rules,rules,random,random", PHONE),
]
NEXT = """(prev) => {
  const b = document.body.dataset;
  return b.over === "stored" || (b.decision !== undefined && b.decision !== "0" && b.decision !== prev);
}"""


@pytest.fixture
def errors() -> Iterator[list[str]]:
    found: list[str] = []
    yield found
    assert found == []


@pytest.mark.parametrize(("variant", "bots", "viewport"), CASES, ids=[c[0] for c in CASES])
def test_a_whole_game_by_clicks_and_keys(
    browser: Any, tmp_path: Path, errors: list[str], variant: str, bots: str, viewport: dict[str, int]
) -> None:
    played = PlayProcess(tmp_path, "--variant", variant, "--bots", bots, "--seed", "3", "--seat", "1")
    try:
        page = browser.new_page(viewport=viewport)
        page.on(
            "console", lambda m: errors.append(m.text) if m.type == "error" and "422" not in m.text else None
        )
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(played.url)
        page.wait_for_selector("#rule:has-text('60 s for each decision')")
        ways: set[str] = set()
        prev, turn = "", 0
        while True:
            page.wait_for_function(NEXT, arg=prev, timeout=60_000)
            if page.evaluate("document.body.dataset.over") == "stored":
                break
            prev = page.evaluate("document.body.dataset.decision")
            legal = page.evaluate("window.arenaPlay.state().view.legal_actions")
            check_turn(page, legal, prev, turn, PHONE["width"] if viewport is PHONE else None)
            ways.add(answer(page, turn))
            turn += 1
        assert {"key", "enter"} <= ways and ways & {"card", "click"}
        final = page.text_content(".centre .final") or ""
        assert final.startswith("Final") and "you" in final
        stored = page.text_content("#over-text") or ""
        assert "arena replay results/play/001 play" in stored
        page.click("#finish")
        assert played.proc.wait(30) == 0
        with Queries.open(tmp_path / "results/play/001") as store:
            game = store.game("play")
        assert game is not None and game.seats[1] == "human"
        hands = [dict(h) for h in game.hands]
        assert replay_game(GameConfig.from_dict(hands[0]["config"]), game.seed, hands) == hands
        assert sum(1 for h in hands for a in h["actions"] if a["seat"] == 1) == turn  # each move, stored
        page.close()
    finally:
        played.stop()


def test_the_autopilot_takes_over_on_the_page(browser: Any, tmp_path: Path, errors: list[str]) -> None:
    """A tiny deadline (an option): the page says the autopilot plays the seat and offers it back."""
    # paced, so that the game is still on when the page looks (the last --pace given counts)
    played = PlayProcess(
        tmp_path, "--variant", "classic", "--bots", "rules", "--deadline", "0.05", "--pace", "0.1"
    )
    try:
        page = browser.new_page(viewport=DESKTOP)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(played.url)
        page.wait_for_selector("#away:not([hidden])", timeout=60_000)
        assert "autopilot (the rules bot) is playing your seat" in (page.text_content("#away") or "")
        assert "0.05 s for each decision" in (page.text_content("#rule") or "")
        page.click("#take-back")
        page.wait_for_selector("#log li:has-text('you took your seat back')")
        with httpx.Client(base_url=played.base, headers={"X-Play-Key": played.key}) as client:
            log = client.get("/api/state").json()["log"]
        assert any("no move within 0.05 s: the autopilot (rules) plays your seat" in line for line in log)
    finally:
        played.stop()
