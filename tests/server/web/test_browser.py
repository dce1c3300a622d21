"""The server in a real browser (Debian's chromium, driven by Playwright, as the report's test does):
the organiser invites a student; the student follows the link, sets a password, uploads a sample bot, sees
the verdict, sees it play on the ladder and opens a replay; a second student's broken bot gets a failing
verdict with its stderr on the page. On a phone-sized viewport, as most students will."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from arena.server.ladder.ratings import ladder_columns
from arena.stats import wording
from tests.report import test_browser as report
from tests.server.conftest import PASSWORD, SAMPLE_BOT, Client, ServerProcess
from tests.server.ladder.test_pages import ladder_paused

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright (the test extra) is not installed"
)
pytestmark = pytest.mark.needs_chromium
browser = report.browser  # the report test's fixture: one chromium per module, launched as it launches it
BROKEN = (
    "import sys\nprint('Traceback: NameError: name strategy is not defined', file=sys.stderr)\nsys.exit(1)\n"
)

SQLITE_ONLY = True  # a browser sees the same pages on both databases (tests/server/conftest.py)


def student(browser: Any, link: str, errors: list[str]) -> Any:
    page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(link)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=again]", PASSWORD)
    page.click("button:has-text('set my password')")
    page.wait_for_url(re.compile(r"/me$"))
    return page


def upload(page: Any, path: Any) -> None:
    page.set_input_files("input[type=file]", str(path))
    page.click("button:has-text('upload a new version')")
    page.wait_for_url(re.compile(r"/versions/\d+$"))
    page.wait_for_selector("#verdict:has-text('VERDICT')", timeout=120_000)  # the page reloads itself


def near(value: float, rounded: float, show: Any) -> set[str]:
    """The texts ``show`` gives of any value that rounds to ``value`` (the JSON's ``rounded`` step)."""
    return {show(value - rounded), show(value), show(value + rounded)}


def the_board_speaks_the_terminals_words(server: ServerProcess, page: Any) -> None:
    """The leaderboard as a student reads it: the one column list's labels (arena.stats.wording), the line
    saying it is ordered by TrueSkill and that its places and P are of that skill, and each row's place,
    tier and P as ``GET /api/leaderboard`` gives them (the ladder paused: both read one board)."""
    organiser = Client(server.url)
    assert server.organiser_link is not None
    organiser.follow(server.organiser_link)
    with ladder_paused(server, organiser):
        board = httpx.get(f"{server.url}/api/leaderboard", timeout=30).json()
        page.goto(f"{server.url}/")
        heads = [h.strip() for h in page.locator("table.board thead th").all_text_contents()]
        assert heads == [c["label"] for c in board["columns"]] == [c.label for c in ladder_columns()]
        assert heads[:2] == ["place", "tier"] and "mu − 3σ" in heads and "TrueSkill" in heads
        titles = page.eval_on_selector_all("table.board thead th", "hs => hs.map(h => h.title)")
        assert titles == [c.meaning for c in ladder_columns()]
        shown = page.eval_on_selector_all(
            "#board-rows tr:not(.state)", "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))"
        )
        keys = [c["key"] for c in board["columns"]]
        rows = board["leaderboard"]
        assert len(shown) == len(rows) >= 2  # ana's and cleo's bots (ben's failed its check)
        for cells, row in zip(shown, rows, strict=True):
            cell = dict(zip(keys, cells, strict=True))
            assert cell["place"] == row["place"] and cell["tier"] == str(row["tier"])
            assert cell["name"].startswith(row["entrant"]) and cell["version"] == row["version"]
            p = row["p_above_next"]  # to four places: the page's text of the exact value is one of these
            assert cell["p_next"] == "-" if p is None else cell["p_next"] in near(p, 5e-5, wording.p_text)
            mu, sigma = near(row["mu"], 5e-4, "{:.1f}".format), near(row["sigma"], 5e-4, "{:.1f}".format)
            assert cell["rating"] in {f"{m} ±{s}" for m in mu for s in sigma}
        line = page.text_content("#board-order")
        assert "Ordered by TrueSkill's conservative skill, mu − 3σ" in line
        assert "not by points per hand" in line
        assert "P are of that TrueSkill skill" in line
        assert page.text_content("#board-verdict") == board["sentence"] != ""


def test_invite_password_upload_verdict_ladder_replay(
    server: ServerProcess, browser: Any, tmp_path: Any
) -> None:
    links = server.invite("ana,ana@example.org\nben,ben@example.org\n")
    errors: list[str] = []
    ana = student(browser, links["ana"], errors)
    upload(ana, SAMPLE_BOT)
    assert ana.text_content("#verdict") == "VERDICT: PASS"
    assert "none" in ana.text_content("#violations")
    assert "p50" in ana.text_content("main")
    ben = student(browser, links["ben"], errors)
    broken = tmp_path / "bot.py"
    broken.write_text(BROKEN)
    upload(ben, broken)
    assert ben.text_content("#verdict") == "VERDICT: FAIL"
    assert "NameError: name strategy is not defined" in ben.text_content("#stderr")
    # a second passing bot, so that the ladder has a field, and the student watches it play
    other = Client(server.url)
    other.sign_up("cleo")
    other.verdict(other.upload("random.py", SAMPLE_BOT.read_bytes()).headers["location"])
    deadline = time.monotonic() + 120
    while True:
        ana.goto(f"{server.url}/")
        if ana.locator("ul.games a").count():
            break
        assert time.monotonic() < deadline, "no ladder game in 120 s"
        time.sleep(0.5)
    assert "ana" in ana.text_content("#board-rows")
    # the open leaderboard updates itself: the games count moves on with no reload of the page
    ana.evaluate("window.stillHere = true")
    shown = ana.text_content("#ladder-state")
    newest = int(ana.locator("ul.games a").first.text_content().lstrip("g"))
    ana.wait_for_function(
        "(before) => parseInt(document.getElementById('ladder-state').textContent) > before",
        arg=int(shown.split()[0]),
        timeout=90_000,
    )
    # and so does its list of recent games: a game played since the page was loaded is listed first
    ana.wait_for_function(
        "(before) => parseInt(document.querySelector('ul.games a').textContent.slice(1)) > before",
        arg=newest,
        timeout=90_000,
    )
    assert ana.evaluate("window.stillHere === true")  # the same page: updated, not reloaded
    the_board_speaks_the_terminals_words(server, ana)
    bar = (
        "(s => [s.backgroundColor, s.paddingTop, s.position])"
        "(getComputedStyle(document.querySelector('body > header')))"
    )
    home_bar = ana.evaluate(bar)
    ana.locator("ul.games a").first.click()
    ana.wait_for_url(re.compile(r"/games/g\d+$"))
    assert ana.evaluate(bar) == home_bar  # the game page loads report.css too: the server's bar stays
    ana.click("#open-replay")
    ana.wait_for_selector("#replay:not([hidden])")
    ana.click("button[data-go=next]")
    assert ana.text_content("#replay-pos")
    assert ana.locator("#replay-table *").count() > 0
    assert errors == []


def test_every_page_a_student_opens_fits_a_phone(server: ServerProcess, browser: Any) -> None:
    """At 390 px (a phone) no page a student opens is wider than the screen (``/me`` was 398 px): wide
    tables scroll inside their own box, long words and codes break."""
    links = server.invite("dana,dana@example.org\n")
    errors: list[str] = []
    dana = student(browser, links["dana"], errors)
    upload(dana, SAMPLE_BOT)
    version = dana.url
    dana.goto(f"{server.url}/me")
    entrant = dana.locator("a[href$='/logs']").first.get_attribute("href").rsplit("/", 1)[0]
    paths = ["/", "/me", version.removeprefix(server.url), entrant, f"{entrant}/logs", f"{entrant}/games",
             f"{entrant}/analytics", "/live", "/final", "/challenges", "/login", "/docs/api"]  # fmt: skip
    wide = {}
    for path in paths:
        response = dana.goto(f"{server.url}{path}")
        if response is None or response.status >= 400:
            continue
        width = dana.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            wide[path] = width
    assert wide == {}, wide
    assert errors == []
