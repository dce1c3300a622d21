"""Matches and challenges as plans of games (``arena.server.matches.service`` asks, stores and plays them):
which game comes at each place of a plan, and what its stored games say (the SPRT of a match, a challenge's
figures). Nothing here writes: a plan's games follow from its stored row alone, so a restart, or another
reader, finds the same games at the same places.
"""

from __future__ import annotations

import functools
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.conductor.match import BASELINE, CANDIDATE, deal_differences, match_schedule
from arena.event.schedule import game_seed
from arena.results.record import GameRecord, ScheduledGame
from arena.server.db.models import UnratedGame, UnratedMatch
from arena.stats.rating import RatedGame
from arena.stats.sprt import SprtResult, SprtSettings, SprtState, run_sprt

SPRT, CHALLENGE, PERSON = "sprt", "challenge", "person"
RUNNING, DONE = "running", "done"
DECISIONS = {SprtResult.H1: "better", SprtResult.H0: "not better", SprtResult.UNDECIDED: "undecided"}


def side_name(version_id: int) -> str:
    """The executor's name of a version in unrated games (``v12`` is its ladder name)."""
    return f"s{version_id}"


def person_name(user_id: int) -> str:
    """The seat name of a person playing a game on the server (``arena.server.matches.people``)."""
    return f"p{user_id}"


@dataclass(frozen=True, slots=True)
class Plan:
    """A stored match or challenge, as the driver plays it."""

    id: int
    kind: str
    user_id: int
    version_id: int
    baseline_id: int | None
    field: tuple[str, ...]
    seed: int
    budget: int
    settings: dict[str, Any]
    status: str

    @property
    def sprt(self) -> SprtSettings:
        return SprtSettings(**self.settings)

    def names(self) -> dict[str, str]:
        """The schedule's roles as the executor's names."""
        out = {CANDIDATE: side_name(self.version_id)}
        if self.baseline_id is not None:
            out[BASELINE] = side_name(self.baseline_id)
        return out


def plan_of(row: UnratedMatch) -> Plan:
    return Plan(
        row.id,
        row.kind,
        row.user_id,
        row.version_id,
        row.baseline_id,
        tuple(json.loads(row.field)),
        row.seed,
        row.budget,
        json.loads(row.settings or "{}"),
        row.status,
    )


@dataclass(frozen=True, slots=True)
class PlannedGame:
    """One game of a plan: its place, id, seats (executor names) and public seed (the deal's, with
    the key)."""

    match_id: int
    idx: int
    game_id: str
    seats: tuple[str, ...]
    seed: int
    block: str = ""


def unrated_row(game: PlannedGame, record: GameRecord, rated: bool) -> UnratedGame:
    """The stored row of one finished unrated game (a match's, a challenge's or a person's): one place that
    says what such a row holds, whoever played it."""
    return UnratedGame(
        match_id=game.match_id,
        idx=game.idx,
        seats=json.dumps(game.seats),
        scores=json.dumps([st.score for st in record.seats]),
        ranks=json.dumps([st.rank for st in record.seats]),
        forfeited=json.dumps([game.seats[i] for i in record.forfeited]),
        hands=len(record.hands),
        rated=rated,
        created_at=time.time(),
    )


@functools.lru_cache(maxsize=64)
def _schedule(seed: int, seats: int, field: tuple[str, ...], deals: int) -> tuple[ScheduledGame, ...]:
    return tuple(match_schedule(seed, seats, field, deals))


def planned(plan: Plan, idx: int, seats: int) -> PlannedGame | None:
    """Game ``idx`` of ``plan``, or None past its budget. An SPRT match's games are ``arena match``'s
    schedule (deal ``k``: the candidate's table at every rotation, then the baseline's); a challenge's
    game seats the challenger, its opponents and house bots, shuffled by the game's seed."""
    if plan.kind == SPRT:
        schedule = _schedule(plan.seed, seats, plan.field, plan.budget)
        if idx >= len(schedule):
            return None
        game = schedule[idx]
        names = plan.names()
        order = tuple(names.get(n, n) for n in game.seats)
        return PlannedGame(plan.id, idx, f"M{plan.id}-{game.game_id}", order, game.seed, game.block)
    if idx >= plan.budget:
        return None
    if plan.kind == PERSON:  # one game: the person in the seat they chose, the others as they were asked
        lineup = list(plan.field)
        lineup.insert(int(plan.settings["seat"]), person_name(plan.user_id))
        return PlannedGame(plan.id, idx, f"P{plan.id}", tuple(lineup), game_seed(plan.seed, "person"))
    seed = game_seed(plan.seed, f"c{idx:05d}")
    lineup = [side_name(plan.version_id), *plan.field]
    lineup += [f"house-{i}" for i in range(1, seats - len(lineup) + 1)]
    random.Random(seed).shuffle(lineup)
    return PlannedGame(plan.id, idx, f"C{plan.id}-{idx:05d}", tuple(lineup), seed)


def sprt_state(plan: Plan, rows: Sequence[UnratedGame], seats: int) -> SprtState:
    """The match's SPRT from its stored games: ``arena match``'s paired differences, deal by deal."""
    roles = {v: k for k, v in plan.names().items()}
    games = []
    for row in sorted(rows, key=lambda r: r.idx):
        game = planned(plan, row.idx, seats)
        if game is None:
            continue
        names = tuple(roles.get(n, n) for n in json.loads(row.seats))
        forfeited = tuple(roles.get(n, n) for n in json.loads(row.forfeited))
        games.append(
            RatedGame(
                row.idx,
                game.game_id,
                names,
                tuple(json.loads(row.ranks)),
                tuple(json.loads(row.scores)),
                forfeited,
                row.rated,
                (),
                game.block,
                row.hands,
            )
        )
    return run_sprt(deal_differences(games, seats), plan.sprt)


@dataclass
class MatchView:
    """A match or challenge as its page and the API show it."""

    plan: Plan
    entrant: str
    labels: dict[str, str]  # executor name -> "alice v3" (house bots as they are)
    games: list[UnratedGame]
    seats: int
    created_at: float
    finished_at: float | None
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> SprtState | None:
        return sprt_state(self.plan, self.games, self.seats) if self.plan.kind == SPRT else None

    @property
    def decision(self) -> str:
        """better | not better | undecided (after the budget) | running; a challenge: running | done."""
        if self.plan.kind == CHALLENGE:
            return self.plan.status
        state = self.state
        if state is not None and state.result is not SprtResult.UNDECIDED:
            return DECISIONS[state.result]
        return self.result.get("decision", "running") if self.plan.status == DONE else "running"

    def label(self, name: str) -> str:
        return self.labels.get(name, name)

    def rows(self) -> list[dict[str, Any]]:
        """Each stored game: its seats by label, scores and ranks."""
        return [
            {
                "idx": g.idx,
                "seats": [self.label(n) for n in json.loads(g.seats)],
                "scores": json.loads(g.scores),
                "ranks": json.loads(g.ranks),
                "hands": g.hands,
                "rated": g.rated,
            }
            for g in sorted(self.games, key=lambda g: g.idx)
        ]

    def summary(self) -> dict[str, Any]:
        """A challenge's figures for the challenger: points per hand, wins, and above/below each opponent."""
        me = side_name(self.plan.version_id)
        points = hands = wins = 0
        against = {n: [0, 0] for n in self.plan.field}
        for g in self.games:
            seats, ranks, scores = json.loads(g.seats), json.loads(g.ranks), json.loads(g.scores)
            mine = seats.index(me)
            points, hands, wins = points + scores[mine], hands + g.hands, wins + (ranks[mine] == 1)
            for seat, name in enumerate(seats):
                if name in against:
                    against[name][0 if ranks[mine] < ranks[seat] else 1] += ranks[mine] != ranks[seat]
        return {
            "points_per_hand": points / hands if hands else None,
            "wins": wins,
            "opponents": [
                {"opponent": self.label(n), "above": a, "below": b} for n, (a, b) in against.items()
            ],
        }

    def to_dict(self) -> dict[str, Any]:
        plan = self.plan
        out: dict[str, Any] = {
            "id": plan.id,
            "kind": plan.kind,
            "entrant": self.entrant,
            "version": self.label(side_name(plan.version_id)),
            "status": plan.status,
            "decision": self.decision,
            "budget": plan.budget,
            "games": len(self.games),
            "field": [self.label(n) for n in plan.field],
            "created_at": self.created_at,
            "finished_at": self.finished_at,
        }
        if plan.kind == SPRT and plan.baseline_id is not None:
            state = self.state
            out["baseline"] = self.label(side_name(plan.baseline_id))
            figures = state.to_dict() if state is not None else {}
            out["sprt"] = plan.sprt.to_dict() | {  # JSON has no infinity (the spread of fewer than 2 deals)
                k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in figures.items()
            }
        else:
            out["summary"] = self.summary()
            out["results"] = self.rows()
        return out
