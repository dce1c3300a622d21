"""How long the champion bot thinks: CPU and wall time per decision, by kind, in whole games against rules.

    python bench/champion_time.py                      # 2 games per variant, champion in one seat
    python bench/champion_time.py --games 4 --variant five-handed

Each game seats one champion (rotating) among rules players, in process (``play_table`` with the default
1000 ms decision time, so the champion's deadline guard is the real one). Every decision with a choice is
timed twice: this thread's CPU time (``time.thread_time``: what the search costs, whatever else the machine
runs) and the wall clock (what the arena waits, which a busy machine inflates). The machine's load average
is printed beside, since wall figures mean little without it. Also printed: how many guesses the card
decisions solved (median), and the faults (a timeout would be one).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.engine import Action, GameConfig, View
from arena.event.table import TableSpec, play_table
from arena.players.inprocess import InProcessPlayer
from sample_bots.champion import ChampionBot
from sample_bots.rules import RulesBot

VARIANTS = {"five-handed": "five-handed", "call-ace": "call-ace", "classic": "classic"}


class TimedChampion(ChampionBot):
    """The champion, recording (kind, CPU s, wall s) for every decision with a choice."""

    records: ClassVar[list[tuple[str, float, float]]] = []

    def act(self, view: View) -> Action:
        if len(view.legal_actions) < 2:
            return super().act(view)
        cpu, wall = time.thread_time(), time.monotonic()
        action = super().act(view)
        self.records.append((view.phase.name, time.thread_time() - cpu, time.monotonic() - wall))
        return action


def configured(text: str) -> type[ChampionBot]:
    """``TimedChampion`` with the settings of ``--set`` (``key=value+key=value``)."""
    if not text:
        return TimedChampion
    fields: dict[str, float | int | str] = {}
    for item in text.split("+"):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"{item!r} is not key=value")
        try:
            fields[key] = float(value) if "." in value else int(value)
        except ValueError:
            fields[key] = value  # a word: guesses=learned, objective=own
    return TimedChampion.configured(**fields)  # type: ignore[return-value]


def quantile(xs: list[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="games per variant (default 2)")
    parser.add_argument("--variant", default="five-handed,call-ace,classic", help="comma list")
    parser.add_argument("--seed", type=int, default=100, help="first deal seed (default 100)")
    parser.add_argument(
        "--set", default="", help="champion settings, e.g. play_work=50000+guesses=learned (default: none)"
    )
    args = parser.parse_args(argv)
    try:
        timed = configured(args.set)
    except (TypeError, ValueError) as exc:
        parser.exit(2, f"bad --set {args.set!r}: {exc}\n")
    for variant in args.variant.split(","):
        config = GameConfig.from_dict({"variant": VARIANTS[variant]})
        TimedChampion.records = []
        load_before = os.getloadavg()[0]
        faults = 0
        stats: list[int] = []
        stops: Counter[tuple[str, str]] = Counter()
        for game in range(args.games):
            n = config.num_players
            players = [InProcessPlayer(timed if s == game % n else RulesBot, f"p{s}") for s in range(n)]
            names = tuple(p.name for p in players)
            spec = TableSpec(f"time-{variant}-{game}", config, args.seed + game, names)
            result = asyncio.run(play_table(spec, players))
            faults += len(result.faults)
            champion = players[game % n].bot
            stats.extend(getattr(champion, "play_stats", []))
            stops.update(getattr(champion, "stops", []))
        load = (load_before + os.getloadavg()[0]) / 2
        print(f"{variant}: {args.games} games, {faults} faults, load average about {load:.1f}")
        records = TimedChampion.records
        for kind in ("all", "PLAY", "bidding"):
            rows = [r for r in records if kind == "all" or (r[0] == "PLAY") == (kind == "PLAY")]
            if not rows:
                continue
            cpu, wall = [r[1] * 1000 for r in rows], [r[2] * 1000 for r in rows]
            print(
                f"  {kind:<8} {len(rows):>4} decisions  CPU ms median {statistics.median(cpu):6.1f} "
                f"p99 {quantile(cpu, 0.99):6.1f} max {max(cpu):6.1f}   wall ms median "
                f"{statistics.median(wall):6.1f} p99 {quantile(wall, 0.99):6.1f} max {max(wall):6.1f}"
            )
        if stats:
            print(f"  guesses solved per card decision: median {statistics.median(stats):.0f}")
        for kind in ("play", "bid"):
            total = sum(c for (k, _), c in stops.items() if k == kind)
            if total:
                shares = ", ".join(
                    f"{why} {stops[kind, why]} ({stops[kind, why] / total:.1%})"
                    for why in ("samples", "work", "cpu", "wall")
                    if stops[kind, why]
                )
                print(f"  {kind} searches stopped by: {shares}")


if __name__ == "__main__":
    main()
