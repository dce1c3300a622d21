"""The report's numbers, from the read model alone (``arena.results.queries``): leaderboard, rating
history, head-to-head, per-entrant figures.

Kept apart from the HTML so the figures can be tested against hand-computed ones (tests/report) and so the
same numbers can serve other views. One pass over the hand records gives every per-hand figure; an event
of a few thousand games takes a second or two.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.errors import FaultKind
from arena.results.queries import EventInfo, Fault, GameSummary, Queries
from arena.stats.confidence import Confidence
from arena.stats.headtohead import PairRecord, head_to_head, record_of
from arena.stats.latency import percentile
from arena.stats.leaderboard import compute_leaderboard
from arena.stats.rating import HistoryRow, Standing

MADE = ("made", "march")


@dataclass
class EntrantStats:
    """What one entrant did over the event. Rates are None where their denominator is 0."""

    name: str
    games: int = 0
    wins: int = 0
    hands: int = 0  # hands dealt at the tables it sat at, thrown-in hands included
    points: int = 0
    maker: int = 0  # hands it made trump in
    maker_made: int = 0  # ... and its side took 3 or more tricks
    partner: int = 0  # hands it was the maker's partner in
    alone: int = 0  # announced lone hands
    alone_made: int = 0
    alone_march: int = 0
    euchred: int = 0  # hands its making side (as maker or partner) was euchred
    faults: dict[str, int] = field(default_factory=dict)  # charged to the bot, by kind
    harness_faults: int = 0  # the arena's own lateness at its decisions: not the bot's
    forfeits: int = 0
    decisions_timed: int = 0  # answered decisions whose time the event recorded
    latency_p50_ms: float | None = None  # from log-scale histograms: within 9% (arena/stats/latency.py)
    latency_p99_ms: float | None = None

    @property
    def points_per_hand(self) -> float | None:
        return self.points / self.hands if self.hands else None

    @property
    def maker_share(self) -> float | None:
        return self.maker / self.hands if self.hands else None

    @property
    def made_share(self) -> float | None:
        return self.maker_made / self.maker if self.maker else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "hands": self.hands,
            "points": self.points,
            "points_per_hand": self.points_per_hand,
            "maker": self.maker,
            "maker_share": self.maker_share,
            "maker_made": self.maker_made,
            "made_share": self.made_share,
            "partner": self.partner,
            "alone": self.alone,
            "alone_made": self.alone_made,
            "alone_march": self.alone_march,
            "alone_euchred": self.alone - self.alone_made - self.alone_march,
            "euchred": self.euchred,
            "faults": dict(sorted(self.faults.items())),
            "faults_charged": sum(self.faults.values()),
            "harness_faults": self.harness_faults,
            "forfeits": self.forfeits,
            "decisions_timed": self.decisions_timed,
            "latency_p50_ms": self.latency_p50_ms,
            "latency_p99_ms": self.latency_p99_ms,
        }


@dataclass
class EventFigures:
    standings: list[Standing]
    confidence: Confidence
    history: list[HistoryRow]
    entrants: dict[str, EntrantStats]
    pairs: dict[tuple[str, str], PairRecord]
    games: list[GameSummary]
    faults: list[Fault]
    meta: EventInfo

    def head_to_head(self, a: str, b: str) -> PairRecord:
        """A's wins, losses and draws against B (finished above, below, level) over their shared games."""
        return record_of(self.pairs, a, b)


def count_hand(e: EntrantStats, hand: Mapping[str, Any], seat: int) -> None:
    """Add one hand record to ``e`` from seat ``seat``'s side: the one place the report and the server's
    analytics (``arena.server.analytics``) count hands, maker success, lone hands and euchres."""
    e.hands += 1
    e.points += hand["points"][seat]
    maker, partner, outcome = hand["maker"], hand["partner"], hand["outcome"]
    if maker is None:
        return
    if maker == seat:
        e.maker += 1
        e.maker_made += outcome in MADE
        if hand["alone"]:
            e.alone += 1
            e.alone_made += outcome == "made"
            e.alone_march += outcome == "march"
    if partner == seat:
        e.partner += 1
    if outcome == "euchred" and seat in (maker, partner):
        e.euchred += 1


def event_figures(store: Queries) -> EventFigures:
    """Every number of the report, computed from what ``store`` holds."""
    history: list[HistoryRow] = []
    board = compute_leaderboard(store, history.append)
    standings = board.standings
    names = [s.name for s in standings]
    per = {n: EntrantStats(n) for n in names}
    games = store.games_overview()
    pairs = head_to_head(((g.seats, g.ranks) for g in games), names)
    seats_of: dict[str, tuple[str, ...]] = {}
    for game in games:
        seats, ranks = game.seats, game.ranks
        seats_of[game.game_id] = seats
        for s, name in enumerate(seats):
            e = per.setdefault(name, EntrantStats(name))
            e.games += 1
            e.wins += ranks[s] == 1
            e.forfeits += s in game.forfeited
    for stored in store.hand_records():
        hand = stored.record
        for s, name in enumerate(seats_of[stored.game_id]):
            count_hand(per[name], hand, s)
    faults = store.all_faults()
    for f in faults:
        e = per.setdefault(f.entrant, EntrantStats(f.entrant))
        if f.kind is FaultKind.HARNESS:
            e.harness_faults += 1
        else:
            e.faults[f.kind.value] = e.faults.get(f.kind.value, 0) + 1
    for name, hist in store.latency_histograms().items():
        e = per.setdefault(name, EntrantStats(name))
        e.decisions_timed = sum(hist.values())
        e.latency_p50_ms, e.latency_p99_ms = percentile(hist, 0.5), percentile(hist, 0.99)
    return EventFigures(standings, board.confidence, history, per, pairs, games, faults, store.event_info())


def fault_kinds(figures: EventFigures) -> list[str]:
    """The fault kinds that occur in the event, most frequent first."""
    return [k for k, _ in Counter(f.kind.value for f in figures.faults).most_common()]
