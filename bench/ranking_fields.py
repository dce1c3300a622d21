"""The fields of bench/ranking.py and how their events are played (in-process, seeded).

Each field is a list of (entrant, ε) with ε the noise of the rules bot (sample_bots/noisy.py): a larger ε is
a weaker bot, and two entrants with the same ε are truly tied (equal strength, independent noise). The
fields cover what an event meets: a ladder of distinct strengths, the same ladder with one entrant entered
twice, five identical entrants, a near-tie (ε 0 against 0.05), and two class fields: six graded tiers
each entered twice (12 entrants) and ten graded tiers each entered three times (30 entrants). An event is
played once to its full length; a look after ``b`` games is its prefix of ``b`` games, exactly what an event
of that length would have played (schedules grow as prefixes).
"""

from __future__ import annotations

import asyncio
import math
import pickle
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.engine import GameConfig
from arena.event.schedule import make_schedule
from arena.event.table import TableSpec, play_table
from arena.players.inprocess import InProcessPlayer
from arena.results.record import ScheduledGame
from arena.stats.rating import RatedGame
from sample_bots.noisy import noisy

CONFIG = GameConfig.from_dict({"variant": "call-ace"})
SEATS = 5
FIELDS: dict[str, tuple[tuple[str, float], ...]] = {
    "ladder": tuple((f"eps{round(e * 100):03d}", e) for e in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)),
    "twin": (
        ("eps000", 0.0),
        ("eps020", 0.2),
        ("eps040", 0.4),
        ("eps040b", 0.4),
        ("eps060", 0.6),
        ("eps080", 0.8),
    ),
    "same5": tuple((f"same{i}", 0.2) for i in range(1, 6)),
    "near": (("eps000", 0.0), ("eps005", 0.05), ("eps030", 0.3), ("eps060", 0.6), ("eps100", 1.0)),
    "class12": tuple(
        (f"eps{round(e * 100):03d}{copy}", e) for e in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) for copy in "ab"
    ),
    "class30": tuple(
        (f"eps{round(e * 100):03d}{copy}", e) for e in (i / 9 for i in range(10)) for copy in "abc"
    ),
}
"""Entrants in their true order, best first (equal ε: tied)."""


def names(field: str) -> tuple[str, ...]:
    return tuple(n for n, _ in FIELDS[field])


async def play(
    schedule: Sequence[ScheduledGame], classes: dict[str, type], config: GameConfig = CONFIG
) -> list[RatedGame]:
    out = []
    for g in schedule:
        players = [InProcessPlayer(classes[n], n) for n in g.seats]
        r = await play_table(TableSpec(g.game_id, config, g.seed, g.seats), players)
        out.append(
            RatedGame(g.seq, g.game_id, g.seats, r.ranks, r.scores, (), True, (), g.block, len(r.hands))
        )
    return out


@dataclass(frozen=True)
class EventTask:
    field: str
    mode: str
    seed: int
    games: int


@dataclass
class PlayedEvent:
    field: str
    mode: str
    seed: int
    games: list[RatedGame]
    cpu_s: float = 0.0


def play_event(task: EventTask) -> PlayedEvent:
    """Play one seeded event of ``task.games`` games (whole rounds, cut to the length)."""
    import time

    started = time.process_time()
    entrants = FIELDS[task.field]
    classes: dict[str, type] = {n: noisy(e) for n, e in entrants}
    duplicate = task.mode == "duplicate"
    one = make_schedule([n for n, _ in entrants], SEATS, 1, task.seed, duplicate=duplicate)
    rounds = math.ceil(task.games / len(one))
    schedule = make_schedule([n for n, _ in entrants], SEATS, rounds, task.seed, duplicate=duplicate)
    games = asyncio.run(play(schedule[: task.games], classes))
    return PlayedEvent(task.field, task.mode, task.seed, games, time.process_time() - started)


def saved_events(path: Path, games: int, events: int) -> dict[tuple[str, str], list[PlayedEvent]]:
    """The events a ``bench/ranking.py --save`` file holds, by (field, mode): at most ``events`` of each,
    each cut to its first ``games`` games (the re-analysing benches read a long run's beginning)."""
    saved = pickle.loads(path.read_bytes())
    played = saved["played"] if isinstance(saved, dict) else saved
    groups: dict[tuple[str, str], list[PlayedEvent]] = defaultdict(list)
    for event in played:
        if len(groups[event.field, event.mode]) < events:
            groups[event.field, event.mode].append(replace(event, games=event.games[:games]))
    return groups
