"""Does a deal-luck control variate pay? The "baseline" of Davidson, Archibald and Bowling (AAMAS 2013).

Usage::

    python bench/ranking.py --events E --games G --save runs.pkl      # play the events once
    python bench/control_variate.py --load runs.pkl [--games G]        # the reference games, the variances

For every game of the saved events, the same deals (same game seed, so the same cards hand by hand:
arena/engine/dealing.py) are played again by the reference bot (sample_bots' rules bot) in all five seats,
for exactly as many hands as the game had (``max_hands`` = its hands, the target out of reach, so no
reference game stops early). The reference seat's points are what the cards were worth to that seat when
everyone plays alike: the deal's luck. Each entrant's score on that game minus ``c`` times its seat's
reference points (``c`` fixed in advance: 1 is the baseline method) keeps the expectation of every gap
(the same reference plays every seat of every deal; an entrant's seats are balanced by the schedule) and,
if the luck is a large part of the score, removes much of its variance.

Why the corrected rows stay valid for the confidence sequence and the planned looks: each game's correction
is a fixed function of that game alone (its seed, its length, the reference bot, ``c``), seeded and played
in-process, and nothing is fitted on the events it corrects, so the units stay independent.

Printed per field and mode: the variance of the true order's adjacent gaps x games (the figure
bench/ranking.py prints) for the plain score, the corrected score at several ``c``, the paired score
(duplicate), and the gain as effective games; and the CPU seconds of reference play per game.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))

from ranking_fields import CONFIG, FIELDS, SEATS, PlayedEvent, names, saved_events

from arena.engine import GameConfig
from arena.event.schedule import make_schedule
from arena.event.table import TableSpec, play_table
from arena.players.inprocess import InProcessPlayer
from arena.stats.rating import RatedGame
from arena.stats.tally import Tally
from sample_bots.rules import RulesBot

CS = (0.5, 1.0, 1.5)
"""Coefficients of the correction measured (1: the baseline method)."""


async def reference(game_id: str, seed: int, hands: int) -> tuple[int, ...]:
    """Each seat's points when the reference bot plays the same deals in every seat for ``hands`` hands."""
    config = GameConfig.from_dict({**CONFIG.to_dict(), "target": 10_000, "max_hands": max(hands, 1)})
    players = [InProcessPlayer(RulesBot, f"ref-{s}") for s in range(SEATS)]
    seats = tuple(f"ref-{s}" for s in range(SEATS))
    result = await play_table(TableSpec(game_id, config, seed, seats), players)
    return tuple(result.scores)


def references(event: PlayedEvent) -> tuple[list[tuple[int, ...]], float]:
    """The reference points of every game of ``event`` and the CPU seconds they took."""
    one = make_schedule(list(names(event.field)), SEATS, 1, event.seed, duplicate=event.mode == "duplicate")
    rounds = math.ceil(len(event.games) / len(one))
    schedule = make_schedule(
        list(names(event.field)), SEATS, rounds, event.seed, duplicate=event.mode == "duplicate"
    )
    started = time.process_time()
    out = []
    for scheduled, game in zip(schedule, event.games, strict=False):
        assert scheduled.game_id == game.game_id
        out.append(asyncio.run(reference(game.game_id, scheduled.seed, game.hands)))
    return out, time.process_time() - started


def corrected(games: list[RatedGame], refs: list[tuple[int, ...]], c: float) -> list[RatedGame]:
    return [
        replace(g, scores=tuple(s - c * r for s, r in zip(g.scores, ref, strict=True)))  # type: ignore[misc]
        for g, ref in zip(games, refs, strict=True)
    ]


def gap_variances(field: str, games: list[RatedGame], method: str) -> list[float]:
    """Variance x games of each adjacent gap of the true order, by the delta method of the running sums."""
    entrants = names(field)
    tally = Tally(entrants).add(games).close()
    cov = tally.totals[method].covariance()
    k = len(entrants)
    return [float(cov[i, i] + cov[i + 1, i + 1] - 2 * cov[i, i + 1]) * tally.n_games for i in range(k - 1)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=Path, required=True, help="a bench/ranking.py --save file")
    parser.add_argument("--games", type=int, default=300, help="games per event to use (default 300)")
    parser.add_argument("--events", type=int, default=10, help="events per field and mode (default 10)")
    args = parser.parse_args(argv)
    groups = saved_events(args.load, args.games, args.events)
    for fld in FIELDS:
        for mode in ("plain", "duplicate"):
            events = groups.get((fld, mode))
            if not events:
                continue
            pairs = len(FIELDS[fld]) - 1
            sums: dict[str, list[float]] = defaultdict(lambda: [0.0] * pairs)  # noqa: B023
            cpu = 0.0
            n_games = 0
            for event in events:
                refs, spent = references(event)
                cpu += spent
                n_games += len(event.games)
                rows = {"points": gap_variances(fld, event.games, "points")}
                if mode == "duplicate":
                    rows["paired"] = gap_variances(fld, event.games, "paired")
                for c in CS:
                    fixed = corrected(event.games, refs, c)
                    rows[f"points - {c:g} ref"] = gap_variances(fld, fixed, "points")
                    if mode == "duplicate":
                        rows[f"paired - {c:g} ref"] = gap_variances(fld, fixed, "paired")
                for key, values in rows.items():
                    sums[key] = [a + b / len(events) for a, b in zip(sums[key], values, strict=True)]
            base = sum(sums["points"])
            print(f"\n=== {fld}, {mode}: {len(events)} events x {len(events[0].games)} games ===")
            for key, values in sums.items():
                print(
                    f"    {key:<18} {', '.join(f'{v:.3f}' for v in values)}; "
                    f"effective games x{base / sum(values):.3f} against points"
                )
            print(f"    reference play: {cpu / n_games * 1000:.1f} ms CPU per game")


if __name__ == "__main__":
    main()
