"""``arena match CANDIDATE BASELINE``: an A/B test of two strategies on the same deals, stopped by an SPRT.

Each deal is played twice over: once with the candidate and once with the baseline at a table of the same
field, each time from every seat (the duplicate rotation), so the two see the same cards in the same seats
against the same opponents, and what differs is their play. The two sides never sit together: at one table
they would change each other's results, and the difference would no longer be the candidate's alone. The
per-deal difference (candidate's points per hand minus the baseline's) feeds arena.stats.sprt, which stops at
the first deal where it decides, or at the budget.

A match is stored like an event (schedule, games, hands, faults in ``event.sqlite``; the SPRT settings in
its meta), so ``arena leaderboard`` and ``arena replay`` read it, and running the same command again
resumes it: deals are added in batches, but the test looks deal by deal in schedule order, so where it
stops depends on neither the batching nor the concurrency nor interruptions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.conductor.observer import EventObserver
from arena.conductor.tournament import play_games, start_entrants
from arena.errors import ConfigError
from arena.event.config import EntrantKind, TournamentConfig, parse_config
from arena.event.deals import resolve_key
from arena.event.schedule import game_seed
from arena.executor import make_executor
from arena.results import outdir
from arena.results.queries import Queries
from arena.results.record import ScheduledGame
from arena.results.store import Store
from arena.sandbox import SandboxMode
from arena.stats.rating import RatedGame
from arena.stats.sprt import SprtResult, SprtSettings, SprtState, run_sprt

CANDIDATE, BASELINE = "candidate", "baseline"
SIDES = (CANDIDATE, BASELINE)
DEFAULT_FIELD = "sample_bots.rules:RulesBot"
_ADDRESS = re.compile(r"^[^\s:]+:\d{1,5}$")
_CLASS = re.compile(r"^[\w.]+:[A-Za-z_]\w*$")


def parse_spec(name: str, text: str) -> dict[str, Any]:
    """An entrant spec from the command line: ``class:MOD:Class``, ``command:CMD``, ``address:HOST:PORT``,
    or the bare forms (``MOD:Class``, ``HOST:PORT``, a command containing ``{port}``).

    :raises ConfigError: naming the spec when none of the forms fits.
    """
    for kind in EntrantKind:
        if text.startswith(kind + ":"):
            return {"name": name, kind: text[len(kind) + 1 :]}
    if "{port}" in text:
        return {"name": name, "command": text}
    if _ADDRESS.match(text):
        return {"name": name, "address": text}
    if _CLASS.match(text):
        return {"name": name, "class": text}
    raise ConfigError(
        f"{name}={text!r}: expected package.module:Class, HOST:PORT, a command containing {{port}}, or "
        "one of them prefixed by class:, address: or command:"
    )


def match_schedule(seed: int, seats: int, field: Sequence[str], deals: int) -> list[ScheduledGame]:
    """Deal ``k`` (block ``dNNNNN``): the candidate's table at every rotation, then the baseline's.

    Deal seeds are the event's block seeds, so a longer match keeps every game of a shorter one.
    """
    games: list[ScheduledGame] = []
    for k in range(1, deals + 1):
        block = f"d{k:05d}"
        seed_k = game_seed(seed, block)
        for table, side in enumerate(SIDES, start=1):
            lineup = [side, *field[: seats - 1]]
            for rotation in range(seats):
                order = [lineup[(s - rotation) % seats] for s in range(seats)]
                games.append(
                    ScheduledGame(
                        len(games),
                        f"{block}-{side[0]}{rotation}",
                        k,
                        table,
                        block,
                        rotation,
                        seed_k,
                        tuple(order),
                    )
                )
    return games


def deal_differences(games: Iterable[RatedGame], seats: int) -> list[float]:
    """Candidate minus baseline points per hand, for every complete deal in schedule order.

    A deal counts once both sides have played it from every seat; a forfeit scores no points (as in the
    ranking). The list stops at the first incomplete deal, so the test never skips ahead.
    """
    deals: dict[str, dict[str, list[float]]] = {}
    for game in games:
        sums = deals.setdefault(game.block, {side: [0.0, 0.0, 0.0] for side in SIDES})
        for seat, name in enumerate(game.seats):
            if name in SIDES:
                points = 0 if name in game.forfeited or not game.rated else game.scores[seat]
                sums[name][0] += points
                sums[name][1] += game.hands
                sums[name][2] += 1
    out = []
    for block in sorted(deals):
        sums = deals[block]
        if any(sums[side][2] < seats or sums[side][1] <= 0 for side in SIDES):
            break
        out.append(sums[CANDIDATE][0] / sums[CANDIDATE][1] - sums[BASELINE][0] / sums[BASELINE][1])
    return out


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """What ``arena match`` was asked: the two sides, the field, the variant, the test and its budget."""

    candidate: str
    baseline: str
    field: tuple[str, ...]
    variant: dict[str, Any]
    seed: int
    output: Path
    sprt: SprtSettings
    max_deals: int = 500
    batch: int = 4
    concurrency: int = 2
    decision_ms: int = 1000
    sandbox: str = SandboxMode.BUBBLEWRAP  # checked by the event's config, like a file's ``sandbox``

    def __post_init__(self) -> None:
        """:raises ConfigError: a budget below the test's first look, where it could never decide (a match
        of six deals was once played to "undecided" without a word)."""
        first = self.sprt.min_deals
        if self.max_deals < first:
            raise ConfigError(
                f"--max-deals {self.max_deals} is below the test's first look, at deal {first}: the SPRT "
                f"could never decide; give at least {first}"
            )

    def seat_field(self, seats: int) -> list[str]:
        """The field's specs in the other ``seats - 1`` seats (``--field`` repeated in turn)."""
        return [self.field[i % len(self.field)] for i in range(seats - 1)]

    def describe(self) -> list[str]:
        """Who plays what, in two lines: the two sides, then the field, the variant, the seed and the
        budget (said before the looks, so a log of several matches says which is which)."""
        seats = self.variant_seats()
        specs = self.seat_field(seats)
        field = specs[0] if len(set(specs)) == 1 else ", ".join(specs)
        options = ", ".join(f"{k} {v}" for k, v in self.variant.items() if k != "variant")
        variant = f"{self.variant['variant']}{f' ({options})' if options else ''}"
        return [
            f"candidate {self.candidate} against baseline {self.baseline}",
            f"field {field} in the other {seats - 1} seats; {variant}; seed {self.seed}; at most "
            f"{self.max_deals} deals",
        ]

    def render(self, state: SprtState) -> str:
        """The test in words, naming both sides."""
        return state.render(self.sprt, candidate=self.candidate, baseline=self.baseline)

    def event_config(self) -> TournamentConfig:
        """The match as an event config (entrants: candidate, baseline, field-1..), for the runtime."""
        field = self.seat_field(self.variant_seats())
        entrants = [parse_spec(CANDIDATE, self.candidate), parse_spec(BASELINE, self.baseline)]
        entrants += [parse_spec(f"field-{i + 1}", spec) for i, spec in enumerate(field)]
        return parse_config(
            {
                "name": "match",
                "seed": self.seed,
                "rounds": 1,
                "concurrency": self.concurrency,
                "output": str(self.output),
                "duplicate": True,
                "game": dict(self.variant),
                "faults": {"decision_ms": self.decision_ms},
                "sandbox": self.sandbox,
                "entrant": entrants,
            }
        )

    def variant_seats(self) -> int:
        from arena.engine.config import GameConfig

        try:
            variant = dict(self.variant)
            return GameConfig.create(variant.pop("variant"), **variant).num_players
        except (ConfigError, KeyError, TypeError) as exc:
            raise ConfigError(f"match variant {self.variant!r}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidate": self.candidate,
            "baseline": self.baseline,
            "field": list(self.field),
            "variant": self.variant,
            "seed": self.seed,
            "sprt": self.sprt.to_dict(),
            "max_deals": self.max_deals,
        }


@dataclass(frozen=True, slots=True)
class MatchResult:
    state: SprtState
    deals_played: int
    games: int
    resumed: bool


def sprt_of_store(store: Queries) -> tuple[SprtSettings, SprtState] | None:
    """The SPRT of a stored match (None when the store holds an ordinary event)."""
    meta = store.meta("match")
    if not meta:
        return None
    settings = SprtSettings(**meta["sprt"])
    seats = len(store.schedule()[0].seats)
    return settings, run_sprt(deal_differences(store.rated_games(), seats), settings)


def render_stored_match(store: Queries) -> str | None:
    """A stored match's test in words, naming both sides as they were given (None for an ordinary event)."""
    found = sprt_of_store(store)
    if found is None:
        return None
    meta = store.meta("match")
    return found[1].render(found[0], candidate=meta.get("candidate"), baseline=meta.get("baseline"))


async def run_match(
    settings: MatchSettings,
    observer: EventObserver | None = None,
    on_look: Callable[[SprtState], None] | None = None,
) -> MatchResult:
    """Play deals in batches until the SPRT decides or ``max_deals`` is reached; resumable.

    :raises ConfigError: a bad spec or variant, an entrant that cannot start, or an output directory that
        holds something else.
    """
    config = settings.event_config()
    seats = config.game.num_players
    field = [e.name for e in config.entrants[2:]]
    rows = [(e.name, e.kind, e.target, False) for e in config.entrants]
    fingerprint = config.fingerprint() | {"match": settings.to_dict() | {"max_deals": None}}
    outdir.prepare(config.output)
    with outdir.EventLock(config.output), Store.open(config.output) as store:
        deals = min(settings.max_deals, max(settings.sprt.min_deals, settings.batch))
        schedule = match_schedule(config.seed, seats, field, deals)
        exists = store.check_same_event(fingerprint, schedule)
        found = resolve_key(
            config.output, config.deal_key, store.meta("deal_key_check"), exists, len(store.finished())
        )
        resumed = store.begin_event(fingerprint, config.to_dict(), schedule, rows, found.check)
        store.set_meta("match", settings.to_dict())
        runtime = make_executor(config, config.output / outdir.LOG_DIR, strict=True)
        try:
            await start_entrants(runtime, store, [e.name for e in config.entrants], observer)
            while True:
                schedule = store.schedule()
                done = store.finished()
                todo = [g for g in schedule if g.game_id not in done]
                await play_games(config, store, runtime, todo, found.key, observer)
                diffs = deal_differences(store.rated_games(), seats)
                state = run_sprt(diffs, settings.sprt)
                if on_look is not None:
                    on_look(state)
                deals = schedule[-1].round
                if state.result is not SprtResult.UNDECIDED or deals >= settings.max_deals:
                    break
                more = min(settings.max_deals, deals + settings.batch)
                grown = replace(config, rounds=more)
                store.begin_event(
                    fingerprint, grown.to_dict(), match_schedule(config.seed, seats, field, more), rows
                )
        finally:
            await runtime.stop()
        return MatchResult(state, len(diffs), len(store.finished()), resumed)
