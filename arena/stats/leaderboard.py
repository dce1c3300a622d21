"""The leaderboard of an event, computed from its store alone (so it is the same live, resumed, or later).

``compute_leaderboard`` applies the stored games to TrueSkill in schedule order, joins the per-entrant totals,
orders the entrants by the event's ranking (arena.stats.confidence: points per hand, paired in duplicate mode)
and says how sure that order is, in each standing's ``extra`` (so the JSON, the CSV and the report carry it);
the ``render_*`` functions give the three output forms of ``arena leaderboard``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena import options
from arena.errors import ConfigError
from arena.options import OneOf, Range, option
from arena.stats.confidence import TIE_MARGIN, Confidence, confidence
from arena.stats.rating import HistoryRow, RatedGame, Standing, apply_in_order
from arena.stats.sequential import LookPlan, Verdict
from arena.stats.tally import Tally

RANKING_METHODS = ("auto", "points", "paired", "trueskill")
LOOK_GROWTH = 1.5
FIRST_LOOK = 100
PLANNED_RHO = 200.0
"""``[ranking] look_growth``, ``first_look`` and the shape of the planned boundary (ρ of the mixture, in
games): the design at which ``--until-settled`` on bench/ranking.py's ladder stopped soonest with the
exact order (docs/ranking.md)."""
SETTLES = ("order", "winner", "top", "tiers")
SETTLE = "order"
"""``[ranking] settle``: the default question of ``--until-settled`` (docs/ranking.md has the games each
question needed on the benchmark's fields)."""
RETIRED = {
    "sharpen": "the pair probabilities are now fitted to the field (docs/ranking.md); remove the key",
}
"""Keys earlier arenas accepted: read back from a stored event they are ignored, in a config they are
refused with the reason."""


@dataclass(frozen=True, slots=True)
class RankingConfig:
    """``[ranking]``: how the leaderboard orders entrants and when ``--until-settled`` stops.

    Each option is declared once on its field (``arena/options.py``); docs/config.md and docs/ranking.md
    explain them.
    """

    method: str = option("auto", OneOf(RANKING_METHODS, "plain"), "the score the order is by")
    confidence: float = option(
        0.95,
        Range(0.5, 1, "a probability", integer=False, open_lo=True, open_hi=True, to_float=True),
        "the level of each adjacent pair's verdict (above or tied), however often the order is looked at",
    )
    max_games: int = option(1000, Range(1, 10_000_000), "the budget of --until-settled, in games")
    check_every: int = option(25, Range(1, 1_000_000), "games between two looks while extending")
    tie_margin: float = option(
        TIE_MARGIN,
        Range(0, 10, "points per hand", integer=False, to_float=True),
        "two entrants shown to be closer than this (points per hand) are tied",
    )
    look_growth: float = option(
        LOOK_GROWTH,
        Range(1, 100, "a factor", integer=False, to_float=True),
        "planned looks: each after this many times the games of the one before (1: every check_every)",
    )
    first_look: int = option(FIRST_LOOK, Range(1, 10_000_000), "the first planned look, in games")
    settle: str = option(
        SETTLE,
        OneOf(SETTLES, "plain"),
        "the question --until-settled plays until it is answered: order (every neighbour pair above or "
        "tied), winner (one entrant alone may be first, or the first two are tied), top (the first `top` "
        "places are a tier of their own) or tiers (every neighbour pair is in different tiers or tied)",
    )
    top: int = option(3, Range(1, 10_000), 'with settle = "top": how many places must be settled')

    def __post_init__(self) -> None:
        options.settle(self, "ranking")

    def to_dict(self) -> dict[str, Any]:
        """The stored form; ``settle`` and ``top`` only when not the default, so an event stored before
        they existed keeps its stored config (and resumes as the same event)."""
        data = options.to_dict(self)
        if self.settle == SETTLE:
            data.pop("settle")
        if self.settle != "top":
            data.pop("top")
        return data

    def answered(self, conf: Confidence) -> bool:
        """Whether the look ``conf`` answers ``settle``, the organiser's question."""
        return answered(conf, self.settle, self.top)

    def question(self) -> str:
        """The question in words, for the line that says why ``--until-settled`` stopped."""
        return {
            "order": "every neighbour pair is settled above or tied",
            "winner": "the winner is known (or the first two are tied)",
            "top": f"the first {self.top} places are settled",
            "tiers": "every neighbour pair is in different tiers or tied",
        }[self.settle]

    def plan(self) -> LookPlan | None:
        """The planned looks the verdicts are judged by (None: the confidence sequence, any look)."""
        if self.look_growth <= 1:
            return None
        return LookPlan(self.first_look, self.look_growth, self.max_games, PLANNED_RHO)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> RankingConfig:
        """The ``[ranking]`` table, or the one stored with an event.

        :raises ConfigError: an unknown or retired key, or a bad value.
        """
        for key, why in RETIRED.items():
            if key in raw:
                raise ConfigError(f"ranking.{key} is no longer an option: {why}")
        options.reject_unknown(raw, options.keys(cls), "ranking")
        return cls(**raw)

    @classmethod
    def from_stored(cls, raw: Mapping[str, Any]) -> RankingConfig:
        """The ``[ranking]`` stored with an event, by this arena or an earlier one (retired keys dropped).

        An event stored before planned looks existed was looked at, and stopped, under the confidence
        sequence, so it is read back with ``look_growth = 1``: its verdicts stay those it stopped on."""
        kept = {k: v for k, v in raw.items() if k not in RETIRED}
        return cls.from_dict({"look_growth": 1.0} | kept)


@dataclass(frozen=True, slots=True)
class SeatTotals:
    """One entrant's sums over its stored seats (``faults``: those charged to the bot); the store makes
    them (``arena.results.queries``), as it makes the ``RatedGame`` values the ratings take."""

    games: int = 0
    wins: int = 0
    points: int = 0
    maker_hands: int = 0
    maker_made: int = 0
    forfeits: int = 0
    faults: int = 0


NO_GAMES = SeatTotals()


class Entrant(Protocol):
    """What the leaderboard needs of a stored entrant (``arena.results.queries.EntrantRow`` has more)."""

    @property
    def name(self) -> str: ...

    @property
    def house(self) -> bool: ...


class LeaderboardSource(Protocol):
    """What the leaderboard reads of a stored event (``arena.results.queries.Queries`` provides it)."""

    def entrants(self) -> Sequence[Entrant]: ...

    def rated_games(self) -> Iterator[RatedGame]: ...

    def seat_totals(self) -> Mapping[str, SeatTotals]: ...

    def charged_fault_counts(self) -> dict[str, int]: ...

    def disqualified(self) -> dict[str, str]: ...

    def ranking(self) -> RankingConfig: ...

    def event_seed(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """A leaderboard: the standings in ranking order, and the confidence in that order."""

    standings: list[Standing]
    confidence: Confidence


def answered(conf: Confidence, settle: str, top: int = 3) -> bool:
    """Whether the look ``conf`` answers the question ``settle`` (``[ranking] settle``):

    * ``order``: every neighbour pair is decided, above or tied (each pair at the level on its own);
    * ``winner``: one entrant alone may be first, or the only two that may be are shown tied;
    * ``top``: the first ``top`` entrants are shown better than every entrant below them (a tier cut), or
      the entrants at places ``top`` and ``top`` + 1 are shown tied and the first ``top`` + 1 are cut;
    * ``tiers``: every neighbour pair is either in different tiers or shown tied: the whole tier structure
      holds jointly at the level.
    """
    ranks = conf.ranks
    k = len(conf.order)
    if k < 2:
        return True
    if ranks is None or conf.units < 1:
        return False
    tied = [p.verdict is Verdict.TIED for p in conf.adjacent]
    if settle == "order":
        return conf.settled
    if settle == "winner":
        first = conf.may_be_first()
        return len(first) == 1 or (len(first) == 2 and first == list(conf.order[:2]) and tied[0])
    rated = ranks.rated

    def split(i: int) -> bool:  # between places i + 1 and i + 2
        return i + 1 >= rated or ranks.cut_after(i + 1) or tied[i]

    if settle == "top" and top < min(rated, k):
        return ranks.cut_after(top) or (top < rated - 1 and tied[top - 1] and ranks.cut_after(top + 1))
    return all(split(i) for i in range(k - 1))


def compute_standings(
    store: LeaderboardSource, record: Callable[[HistoryRow], None] | None = None
) -> list[Standing]:
    """The standings of what ``store`` holds, best first; ``record`` gets every rating step on the way."""
    return compute_leaderboard(store, record).standings


def compute_leaderboard(
    store: LeaderboardSource,
    record: Callable[[HistoryRow], None] | None = None,
    ranking: RankingConfig | None = None,
) -> Leaderboard:
    """The leaderboard of what ``store`` holds; ``record`` gets every rating step on the way.

    The stored games are read twice, each time streamed (TrueSkill, then the ranking units), rather than
    held in memory whole. The pairs' figures and verdicts are those ``--until-settled`` saw at its last look
    (arena.stats.confidence.look on the same running sums), plus each entrant's bootstrap intervals.
    """
    ranking = ranking or store.ranking()
    seed = store.event_seed()
    entrants = store.entrants()
    names = [e.name for e in entrants]
    ratings = apply_in_order(store.rated_games(), names, record)
    totals = store.seat_totals()
    faults = store.charged_fault_counts()  # the leaderboard charges a bot only with its own faults
    disqualified = store.disqualified()
    standings = []
    for entrant in entrants:
        name = entrant.name
        t = totals.get(name, NO_GAMES)
        r = ratings[name]
        standings.append(
            Standing(
                name=name,
                mu=r.mu,
                sigma=r.sigma,
                games=t.games,
                wins=t.wins,
                points=t.points,
                maker_hands=t.maker_hands,
                maker_made=t.maker_made,
                faults=faults.get(name, 0),
                forfeits=t.forfeits,
                disqualified=name in disqualified,
                house=entrant.house,
            )
        )
    tally = Tally(names, keep_rows=True).add(store.rated_games()).close()
    schedule = getattr(store, "schedule", None)
    played = schedule() if schedule is not None else []
    round_games = len(played) // played[-1].round if played and played[-1].round else None
    conf = confidence(
        tally.units(),
        ranking.method,
        ranking.confidence,
        seed,
        margin=ranking.tie_margin,
        demoted=disqualified,
        tally=tally,
        plan=ranking.plan(),
        round_games=round_games,
    )
    by_name = {s.name: s for s in standings}
    ordered = [by_name[name] for name in conf.order]
    for i, standing in enumerate(ordered):
        standing.rank = i + 1
        standing.extra.update(_confidence_fields(conf, i))
    return Leaderboard(ordered, conf)


def _round4(value: float) -> float | None:
    return None if value != value else round(value, 4)


def _confidence_fields(conf: Confidence, i: int) -> dict[str, object]:
    """The figures of the ``i``-th entrant of the order: its score (the order's number) and the bootstrap
    intervals of it, of its points per hand and of its mean rank; its place (its rank range as printed,
    "2–4"), ``rank_range`` and ``tier``; P(above) every other entrant; the pair with the next one (P,
    verdict, the gap's interval); and the whole order's figure (the same on every row)."""
    figures = conf.entrants[i].to_dict()
    nxt = conf.adjacent[i] if i < len(conf.adjacent) else None
    lo, hi = conf.rank_ranges()[i]
    return {
        "rank_range": [lo, hi],
        "tier": conf.tiers()[i],
        "score": figures["score"],
        "score_ci": figures["score_ci"],
        "points_per_hand_ci": figures["points_per_hand_ci"],
        "mean_rank": figures["mean_rank"],
        "mean_rank_ci": figures["mean_rank_ci"],
        "p_above": {
            other: round(p, 4)
            for other, p in zip(conf.order, conf.pairwise[i], strict=True)
            if other != conf.order[i]
        },
        "place": conf.places()[i],
        "p_above_next": None if nxt is None else round(nxt.probability, 4),
        "verdict_next": None if nxt is None else nxt.verdict.value,
        "gap_next_ci": None if nxt is None else [_round4(v) for v in nxt.interval],
        "settled_above_next": None if nxt is None else nxt.verdict is Verdict.ABOVE,
        "whole_order": round(conf.whole, 4),
    }
