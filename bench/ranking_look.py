"""CPU of one leaderboard look (``arena.stats.confidence.look``: rank ranges, verdicts, P, whole order) for
the 30-entrant class field (goal: under 50 ms, docs/ranking.md "Class fields: measured").

Usage::

    python bench/ranking_look.py [--games 360] [--mode plain|duplicate] [--seed 1] [--repeat 5] [--load F]

Plays one seeded class30 event in-process (bench/ranking_fields.py), or with ``--load`` takes every class30
event of that mode from a file of ``bench/ranking.py --save`` (no playing), then times ``look`` at every 60
games (``time.process_time``, the best of ``--repeat``): the statistics only, not the playing.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))

from ranking import per_round
from ranking_fields import EventTask, PlayedEvent, names, play_event

from arena.stats.confidence import TIE_MARGIN, look
from arena.stats.leaderboard import PLANNED_RHO
from arena.stats.sequential import LookPlan
from arena.stats.tally import Tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=360)
    parser.add_argument("--mode", choices=("plain", "duplicate"), default="plain")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--load", type=Path, help="saved events (bench/ranking.py --save) instead of playing")
    args = parser.parse_args()
    if args.load:
        saved = pickle.loads(args.load.read_bytes())
        played = saved["played"] if isinstance(saved, dict) else saved
        for event in played:
            if event.field == "class30" and event.mode == args.mode:
                time_looks(event, args.mode, min(args.games, len(event.games)), args.repeat)
    else:
        time_looks(
            play_event(EventTask("class30", args.mode, args.seed, args.games)),
            args.mode,
            args.games,
            args.repeat,
        )


def time_looks(event: PlayedEvent, mode: str, games: int, repeat: int) -> None:
    plan = LookPlan(100, 1.5, games, PLANNED_RHO)
    rg = per_round("class30", mode, event.seed)
    tally = Tally(names("class30"))
    last = 0
    print(f"class30, {mode}, seed {event.seed}: CPU of one look (best of {repeat})")
    for b in range(60, games + 1, 60):
        tally.add(event.games[last:b]).close()
        last = b
        best = float("inf")
        for _ in range(repeat):
            started = time.process_time()
            look(tally, "auto", 0.95, event.seed, TIE_MARGIN, plan=plan, round_games=rg)
            best = min(best, time.process_time() - started)
        print(f"  {b:4d} games: {best * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
