"""The report in a real browser: Debian's chromium, driven by Playwright, one launch for the module.

Opens the reports of the two small events in tests/report/conftest.py (launched and in-process bots,
faults, forfeits, a thrown-in hand, lone hands, five-handed twos and the Call-Ace Joker) and checks what a
person would: no console error, the leaderboard of ``arena leaderboard --json``, one rating line per
entrant, a replay stepped through a whole game to its final score, and that "view as seat S" never shows a
card S could not know. ``ARENA_SCREENSHOTS=1`` also writes the README's screenshots to docs/img/.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.report import build_report
from arena.results.store import Store
from tests.helpers import ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|JKR)\b")

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright (the test extra) is not installed"
)
pytestmark = pytest.mark.needs_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


def open_report(browser: Any, directory: Path, tmp_path: Path) -> tuple[Any, list[str]]:
    built = build_report(directory, tmp_path / f"{directory.parent.name}.html")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(built.path.as_uri())
    page.evaluate("Promise.all([window.reportReady, window.gamesReady]).then(() => true)")
    return page, errors


def known_to(seat: int, hand: dict[str, Any], k: int) -> set[str]:
    """The cards ``seat`` may have seen after ``k`` actions of ``hand``: its own, the up-card, and what was
    played, called or exposed in public (and its own discard, as dealer)."""
    known = set(hand["dealt"][seat]) | {hand["up_card"]}
    for a in hand["actions"][:k]:
        text = a["action"]
        if text.startswith(("PLAY(", "CALL(")):
            known.add(text[5:-1])
        elif text == "EXPOSE":
            known.add(hand["dealt"][hand["dealer"]][0])
        elif text.startswith("DISCARD(") and seat == hand["dealer"]:
            known.add(text[8:-1])
    return known


def test_report_in_chromium(browser: Any, five: Path, ace: Path, tmp_path: Path) -> None:
    page, errors = open_report(browser, five, tmp_path)
    # the leaderboard is the CLI's
    cli = subprocess.run(
        [sys.executable, "-m", "arena", "leaderboard", str(five), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    rows = page.eval_on_selector_all("#board-table tbody tr", "rs => rs.map(r => JSON.parse(r.dataset.row))")
    assert rows == json.loads(cli.stdout)
    assert page.locator("#board-table tr.dq").count() == 1  # chaos forfeited every game
    # one rating line per entrant
    assert page.locator("#rating-plot svg g.mu_marks").count() == len(rows)
    # the fault table filters
    page.select_option("#fault-kind", "illegal_action")
    assert page.locator("#fault-table tbody tr:visible").count() > 0
    page.select_option("#fault-entrant", "rules")
    assert page.locator("#fault-table tbody tr:visible").count() == 0
    # a whole game, action by action with the keyboard, to its final score
    with Store.open(five, create=False) as store:
        game = store.game(store.game_ids()[0])
    assert game is not None
    page.click("#game-table tbody tr >> nth=0")
    steps = sum(len(h["actions"]) + 1 for h in game.hands) - 1
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    assert page.get_attribute("#replay-pos", "data-last") == "true"
    assert page.get_attribute(".final", "data-scores") == ",".join(map(str, game.scores))
    # the first fault, in the log of its hand
    first = game.faults[0].hand_index
    page.keyboard.press("Home")
    for _ in range(first):
        page.keyboard.press("ArrowDown")
    for _ in range(len(game.hands[first]["actions"])):
        page.keyboard.press("ArrowRight")
    assert "fault: chaos illegal_action" in page.inner_text("#replay-log")
    if os.environ.get("ARENA_SCREENSHOTS"):
        shot(page, ace_page=None)
    # view as each seat: at every step of the first two hands, no card the seat could not know
    for seat in range(len(game.seats)):
        page.evaluate(f"window.arenaReplay.view({seat})")
        page.evaluate("window.arenaReplay.go('game-start')")
        for h, hand in enumerate(game.hands[:2]):
            for k in range(len(hand["actions"]) + 1):
                shown = page.evaluate(
                    "() => [...document.querySelectorAll('#replay-table [data-card]')]"
                    ".map(e => e.dataset.card).concat([document.querySelector('#replay-log').innerText])"
                )
                cards = set(shown[:-1]) | set(CARD.findall(shown[-1]))
                assert cards <= known_to(seat, hand, k), (seat, h, k, cards - known_to(seat, hand, k))
                others = page.locator(f"#replay-table .pseat:not([data-seat='{seat}']) .hand [data-card]")
                assert others.count() == 0
                page.keyboard.press("ArrowRight")
    # the omniscient view shows everything, the kitty included
    page.evaluate("window.arenaReplay.view(-1)")
    page.evaluate("window.arenaReplay.go('game-start')")
    assert page.locator("#replay-table [data-card]").count() == len(game.hands[0]["deck"])
    page.keyboard.press("Escape")
    assert page.locator("#replay").is_hidden()
    assert errors == []

    ace_page, ace_errors = open_report(browser, ace, tmp_path)
    assert ace_page.locator("#rating-plot svg g.mu_marks").count() == 5
    with Store.open(ace, create=False) as store:
        seqs = [g.seq for g in store.games_overview()]
        thrown = next(h.game_id for h in store.hand_records() if h.record["outcome"] == "thrown_in")
        joker = next(
            h.game_id
            for h in store.hand_records()
            if "JKR" in h.record["dealt"][0] or h.record["up_card"] == "JKR"
        )
    for game_id in (thrown, joker):
        ace_page.evaluate(f"window.arenaReplay.open({seqs[store_index(ace, game_id)]})")
        ace_page.keyboard.press("End")
        assert ace_page.get_attribute("#replay-pos", "data-last") == "true"
    assert ace_errors == []
    if os.environ.get("ARENA_SCREENSHOTS"):
        shot(page, ace_page)


def store_index(directory: Path, game_id: str) -> int:
    with Store.open(directory, create=False) as store:
        return store.game_ids().index(game_id)


def shot(page: Any, ace_page: Any | None) -> None:
    """The README's screenshots: the top of the report, and a replay in the middle of a trick."""
    out = ROOT / "docs" / "img"
    out.mkdir(parents=True, exist_ok=True)
    if ace_page is None:
        page.evaluate("window.arenaReplay.go('game-start')")
        for _ in range(3):
            page.keyboard.press("ArrowDown")
        for _ in range(12):
            page.keyboard.press("ArrowRight")
        page.screenshot(path=str(out / "report-replay.png"))
        return
    page.keyboard.press("Escape")
    page.evaluate("window.scrollTo(0, 0)")
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.screenshot(path=str(out / "report-leaderboard.png"))
