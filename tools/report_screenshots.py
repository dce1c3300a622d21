"""Retake the README's screenshots of the report, and its phone-width views, from a small real event.

    .venv/bin/python tools/report_screenshots.py              # docs/img/report-*.png (desktop and 390 px)
    .venv/bin/python tools/report_screenshots.py --tag before # docs/img/phone-*-before.png only

Plays the five-handed event of tests/report (a launched bot that plays illegally, two rules bots and two
random bots; fixed seed and deal key, so the same hands every time), builds its report, and photographs it
in Debian's chromium through Playwright: the top of the page at 1,280 px, a replay in the middle of a trick,
and the same two at 390 px (a phone). Needs the test extra (playwright) and ``apt-get install chromium``.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.conductor.tournament import run_event  # noqa: E402
from arena.event.config import parse_config  # noqa: E402
from arena.report import build_report  # noqa: E402

CHAOS = ROOT / "tests" / "bots" / "chaos.py"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def event(out: Path) -> Path:
    config = parse_config(
        {
            "name": "class-demo",
            "seed": 3,
            "rounds": 5,
            "concurrency": 2,
            "output": str(out),
            "deal_key": "5eed" * 16,
            "sandbox": "none",
            "game": {"variant": "five-handed"},
            "faults": {"max_faults_per_game": 1, "decision_ms": 5000},
            "entrant": [
                {"name": "chaos", "command": f"{sys.executable} {CHAOS} --mode illegal --port {{port}}"},
                {"name": "rules", "class": "sample_bots.rules:RulesBot"},
                {"name": "random", "class": "sample_bots.random:RandomBot"},
                {"name": "random-b", "class": "sample_bots.random:RandomBot"},
                {"name": "rules-b", "class": "sample_bots.rules:RulesBot"},
            ],
        }
    )
    asyncio.run(run_event(config))
    return out


def mid_trick(page: Any) -> None:
    """A replay of the first game, hand 4, twelve actions in (a trick on the table)."""
    page.evaluate("window.arenaReplay.open(0)")
    page.evaluate("window.arenaReplay.go('game-start')")
    for _ in range(3):
        page.evaluate("window.arenaReplay.go('hand-next')")
    for _ in range(12):
        page.evaluate("window.arenaReplay.go('next')")
    page.evaluate("window.arenaReplay.pause && window.arenaReplay.pause()")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", default="after", help="suffix of the phone shots (before / after)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("error: needs Debian's chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        report = build_report(event(Path(tmp) / "out"), Path(tmp) / "report.html").path
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=ARGS)
            for name, width, height in (("phone", 390, 844), ("report", 1280, 1000)):
                if name == "report" and args.tag != "after":
                    continue
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(report.as_uri())
                page.evaluate("Promise.all([window.reportReady, window.gamesReady]).then(() => true)")
                page.wait_for_timeout(300)
                suffix = f"-{args.tag}" if name == "phone" else ""
                page.screenshot(path=str(args.out / f"{name}-leaderboard{suffix}.png"))
                mid_trick(page)
                page.wait_for_timeout(200)
                page.screenshot(path=str(args.out / f"{name}-replay{suffix}.png"))
                page.close()
            browser.close()
    print(f"screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
