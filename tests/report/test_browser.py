"""The report in a real browser: Debian's chromium, driven by Playwright, one launch for the module.

Opens the reports of the two small events in tests/report/conftest.py (launched and in-process bots,
faults, forfeits, a thrown-in hand, lone hands, five-handed twos and the Call-Ace Joker) and checks what a
person would: no console error, the leaderboard of ``arena leaderboard --json``, one rating line per
entrant, a replay stepped through a whole game to its final score, and that "view as seat S" never shows a
card S could not know. The README's screenshots are taken by tools/report_screenshots.py.
"""

from __future__ import annotations

import json
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
    # every figure of the CLI's rows, less each entrant's collusion pairs (the report shows those in its
    # own section, and in the organiser's copy only)
    assert rows == [{k: v for k, v in row.items() if k != "pairs"} for row in json.loads(cli.stdout)]
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


def store_index(directory: Path, game_id: str) -> int:
    with Store.open(directory, create=False) as store:
        return store.game_ids().index(game_id)


# ------------------------------------------------------------------ issue 25: a phone, a projector, a dialog


CONTROLS = ["#replay-play", "#replay-speed", "#replay-scrub", "#replay-close", "#replay-pos"] + [
    f"[data-go={go}]" for go in ("next", "back", "hand-next", "hand-back", "next-game", "game-end")
]
RAW = re.compile(r"True|False|None|NaN|nan|[{}\[\]]|\d\.\d{4,}")


def _fits(page: Any, selector: str) -> bool:
    """The element is on the screen, whole (not cut off by the viewport)."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and (
            box["x"] + box["width"] <= size["width"] + 0.5
            and box["y"] + box["height"] <= size["height"] + 0.5
        )
    )


@pytest.mark.parametrize("width,height", [(390, 844), (1920, 1080)])
def test_phone_and_projector_fit_and_the_replay_controls_show(
    browser: Any, five: Path, tmp_path: Path, width: int, height: int
) -> None:
    page, errors = open_report(browser, five, tmp_path)
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_timeout(100)
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways page scroll
    page.evaluate("window.arenaReplay.open(0)")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for control in CONTROLS:
        assert _fits(page, control), (width, control)
    felt = page.locator("#replay-table").bounding_box()
    assert felt is not None and felt["width"] >= min(300, width * 0.75) and felt["height"] >= 300
    seats = page.locator("#replay-table .pseat")
    for i in range(seats.count()):  # every seat's box inside the felt
        box = seats.nth(i).bounding_box()
        assert (
            box is not None
            and box["x"] >= felt["x"] - 1
            and box["x"] + box["width"] <= felt["x"] + felt["width"] + 1
        )
    assert errors == []


def test_dialog_takes_focus_keeps_it_and_gives_it_back(browser: Any, five: Path, tmp_path: Path) -> None:
    page, _ = open_report(browser, five, tmp_path)
    link = page.locator("#game-table tbody tr >> nth=2").locator("a")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#replay:not([hidden])")
    inside = "() => document.querySelector('.replay-box').contains(document.activeElement)"
    assert page.evaluate(inside)
    for key in ["Tab"] * 25 + ["Shift+Tab"] * 25:
        page.keyboard.press(key)
        assert page.evaluate(inside), key
    page.keyboard.press("Escape")
    assert page.locator("#replay").is_hidden()
    assert page.evaluate("document.activeElement.closest('tr').dataset.n") == link.evaluate(
        "a => a.closest('tr').dataset.n"
    )
    page.keyboard.press("Shift+Tab")  # the page is live again, and Tab walks on from the row
    assert not page.evaluate("document.activeElement === document.body")


def test_autoplay_advances_and_pauses(browser: Any, five: Path, tmp_path: Path) -> None:
    page, _ = open_report(browser, five, tmp_path)
    page.evaluate("window.arenaReplay.open(0)")
    page.select_option("#replay-speed", "10")
    page.click("#replay-play")
    page.wait_for_function("() => window.arenaReplay.state().global >= 3", timeout=20_000)
    page.click("#replay-play")  # pause
    assert not page.evaluate("window.arenaReplay.playing()")
    held = page.evaluate("window.arenaReplay.state().global")
    assert page.input_value("#replay-scrub") == str(held)
    page.fill("#replay-scrub", "7")  # the scrubber moves the replay
    page.dispatch_event("#replay-scrub", "input")
    assert page.evaluate("window.arenaReplay.state().global") == 7


def test_a_step_link_opens_that_step(browser: Any, five: Path, tmp_path: Path) -> None:
    with Store.open(five, create=False) as store:
        seq = store.games_overview()[1].seq
        game_id = store.game_ids()[1]
        game = store.game(game_id)
    assert game is not None
    step, hand, k = 40, 0, 40  # step 40 of the game, counted over hands of (actions + 1) steps each
    while k > len(game.hands[hand]["actions"]):
        k -= len(game.hands[hand]["actions"]) + 1
        hand += 1
    built = build_report(five, tmp_path / "linked.html")
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(built.path.as_uri() + f"#game-{game_id}/step-{step}")  # a game is named by its id
    page.wait_for_function("() => window.arenaReplay.state().global === 40", timeout=20_000)
    assert page.evaluate("window.arenaReplay.state()")["game"] == game_id
    assert (
        int(page.get_attribute("#replay-pos", "data-hand") or -1),
        int(page.get_attribute("#replay-pos", "data-step") or -1),
    ) == (hand, k)
    assert page.get_attribute("#replay-link", "href") == f"#game-{game_id}/step-{step}"
    assert game_id in page.inner_text("#replay-title") and "#" not in page.inner_text("#replay-title")
    page.close()
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(built.path.as_uri() + f"#game-{seq}/step-7")  # an older link, by number, still opens it
    page.wait_for_function("() => window.arenaReplay.state().global === 7", timeout=20_000)
    assert page.evaluate("window.arenaReplay.state()")["game"] == game_id
    page.close()


def test_leaderboard_says_tied_orders_by_its_column_and_shows_no_raw_value(
    browser: Any, five: Path, twins: Path, tmp_path: Path
) -> None:
    page, _ = open_report(browser, twins, tmp_path)
    # the wording may come from the terminal's shared sentence (arena/stats/wording.py) once both land
    assert "Tied (shown within" in page.inner_text("#board-verdict")
    places = page.eval_on_selector_all("#board-table td[data-key=place]", "cs => cs.map(c => c.textContent)")
    assert places == ["1–5"] * 5  # the rank ranges, as `arena leaderboard --json` states them
    assert set(
        page.eval_on_selector_all("#board-table td[data-key=verdict]", "cs => cs.map(c => c.textContent)")
    ) <= {"tied", "–"}
    for directory in (five, twins):
        page, _ = open_report(browser, directory, tmp_path)
        scores = page.eval_on_selector_all(
            "#board-table tbody tr:not(.dq)", "rs => rs.map(r => parseFloat(r.dataset.score))"
        )
        assert scores == sorted(scores, reverse=True)  # the order never contradicts its own column
        shown = page.eval_on_selector_all(
            "#board-table tbody td, #board-table tbody th, .h2h td, #stats-table td",
            "cs => cs.map(c => c.textContent.trim())",
        )
        raw = [text for text in shown if RAW.search(text)]
        assert raw == [], raw[:5]
        headers = page.eval_on_selector_all("#board-table thead th[data-key]", "hs => hs.map(h => h.title)")
        assert all(len(h) > 10 for h in headers)  # every column explained
        assert "Σ" not in page.inner_text("#board-table thead")  # no upper-casing of σ


def test_replay_shows_each_decisions_time_and_the_games_log(
    browser: Any, chatty: Path, tmp_path: Path
) -> None:
    page, errors = open_report(browser, chatty, tmp_path)
    page.evaluate("window.arenaReplay.open(0)")
    page.evaluate("window.arenaReplay.seek(8)")
    assert page.locator("#replay-log li .ms").count() >= 1  # a time beside each answered move
    assert re.fullmatch(r"(<0\.1|\d+(\.\d)?) ms", page.locator("#replay-log li .ms").first.inner_text())
    assert "chatty: thinking:" in page.inner_text("#replay-botlog")
    assert errors == []
    public = build_report(chatty, tmp_path / "public.html", public=True)
    page.goto(public.path.as_uri() + "#game-0/step-8")
    page.wait_for_function("() => window.arenaReplay.state().global === 8", timeout=20_000)
    assert page.locator("#replay-botlog").count() == 0 and "thinking" not in page.content()
