"""Size and build time of ``arena report`` for a 200- and a 2,000-game event (issue 12's budget: one file
under 3 MB for 2,000 games).

    python bench/report.py [--games 200 2000] [--keep DIR]

Each event is played first (in-process sample bots, five-handed, six entrants, a fixed seed and deal key:
about 3 s per 200 games on one core), then the report is built three times and the best time printed, with
its size and the share the packed replays take.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from arena.conductor.tournament import run_event
from arena.event.config import parse_config
from arena.report import build_report
from arena.results.store import Store

ENTRANTS = [
    {"name": name, "class": f"sample_bots.{kind}:{cls}"}
    for name, kind, cls in (
        ("rules", "rules", "RulesBot"),
        ("random", "random", "RandomBot"),
        ("rules-b", "rules", "RulesBot"),
        ("random-b", "random", "RandomBot"),
        ("rules-c", "rules", "RulesBot"),
        ("random-c", "random", "RandomBot"),
    )
]


def event(directory: Path, games: int) -> Path:
    if not (directory / "event.sqlite").exists():
        config = {
            "name": f"bench-{games}",
            "seed": 11,
            "rounds": games,  # six entrants, five seats: one table per round
            "concurrency": 2,
            "output": str(directory),
            "deal_key": "5eed" * 16,
            "game": {"variant": "five-handed"},
            "entrant": ENTRANTS,
        }
        started = time.perf_counter()
        asyncio.run(run_event(parse_config(config)))
        print(f"played {games} games in {time.perf_counter() - started:.1f} s")
    return directory


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--keep", type=Path, help="keep the events here (and reuse them on the next run)")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-report-"))
    print(f"{'games':>6} {'hands':>6} {'size MB':>8} {'replays MB':>10} {'build s':>8}")
    for games in args.games:
        directory = event(root / f"event-{games}", games)
        best = min((build_report(directory, root / f"report-{games}.html") for _ in range(3)),
                   key=lambda b: b.seconds)  # fmt: skip
        html = best.path.read_text()
        packed = re.search(r'id="replay-data">([^<]*)<', html)
        replays = len(packed.group(1)) if packed else 0
        with Store.open(directory, create=False) as store:
            hands = sum(g.hands for g in store.games_overview())
        print(f"{games:>6} {hands:>6} {best.size / 1e6:>8.2f} {replays / 1e6:>10.2f} {best.seconds:>8.2f}")


if __name__ == "__main__":
    main()
