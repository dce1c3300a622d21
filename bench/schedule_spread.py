"""How evenly the schedule shares out games, table companions and seats, for a few typical events.

Usage::

    python bench/schedule_spread.py [--seed K]

For each event below, ``make_schedule`` is run once with the given event seed (default 1) and the fairness
report of ``schedule_spread`` is printed: games per entrant, how often each pair of entrants shared a table,
and games per entrant and seat index (seat 0 = the first dealer), each as min..max over the entrants. House
bots that fill empty seats are left out of the report. The schedule is a pure function of its arguments, so
the output is the same on every machine; only the time column varies.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from arena.event.schedule import make_schedule, schedule_spread

# (label, entrants, seats per table, rounds)
EVENTS: list[tuple[str, int, int, int]] = [
    ("five-handed, 5 entrants at 5 seats, 100 rounds", 5, 5, 100),
    ("12 entrants at 5 seats, 50 rounds", 12, 5, 50),
    ("classic, 7 entrants at 4 seats, 60 rounds", 7, 4, 60),
    ("3 entrants at 5 seats (+2 house), 20 rounds", 3, 5, 20),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="event seed (default 1)")
    args = parser.parse_args()

    print(f"schedule spread, event seed {args.seed} (each as min..max over the entrants)")
    for label, n, seats, rounds in EVENTS:
        entrants = [f"bot{i:02d}" for i in range(1, n + 1)]
        start = time.perf_counter()
        partners = label.startswith("classic")  # fixed partnerships: balance who partners whom too
        schedule = make_schedule(entrants, seats, rounds, args.seed, partners=partners)
        elapsed_ms = (time.perf_counter() - start) * 1000
        spread = schedule_spread(schedule, entrants, partners=partners)
        per_round = len(schedule) // rounds
        print(f"{label}: {len(schedule)} games ({per_round} a round), built in {elapsed_ms:.1f} ms")
        print(f"  {spread.render()}")


if __name__ == "__main__":
    main()
