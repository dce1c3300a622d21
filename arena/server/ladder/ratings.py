"""The ladder's stored games as the statistics read them, and the leaderboard computed from them.

The server's games live in its own database, read here into the statistics' own records
(``arena.stats.rating.RatedGame``): the leaderboard's points-per-hand order and its confidence come from
the running sums ``--until-settled`` looks at (``arena.stats.tally.Tally``, read by ``confidence.look``: the
figures of ``arena leaderboard`` without its bootstrap intervals, which the board does not show); the
TrueSkill ratings from ``arena.stats.rating.apply_in_order`` with drift on (``[ladder] tau``, default
25/300, TrueSkill's usual value). Drift is off for a fixed event (``docs/ranking.md``), but a ladder's
field keeps changing: new bots arrive, entrants upload better versions. With τ = 0 every rating's σ only
shrinks, so after a few hundred games a rating can hardly move any more and a newcomer that beats
everybody climbs far too slowly: exactly the "frozen ratings" Halite II's players reported
(HaliteChallenge/Halite-II#181, #221), fixed there by putting drift back. τ > 0 keeps σ from collapsing,
so the ladder follows the current field.

Everything is computed from the stored games, in ``seq`` order: a look applies the games stored since the
last one after those before (both computations are sequential, so this is exactly one replay of them all).
TrueSkill is the costly part (about 5 ms a game, so minutes for a ladder of 10,000 games), so the ratings
reached are kept in the competition's directory (``board.json``, at most every ``SNAPSHOT_S`` and when the
server stops) with the last game they include: a restart resumes from there and applies only the games
stored after it, which again gives exactly the figures of one uninterrupted replay (the snapshot keeps
every float as it was). A snapshot that does not match the database (another game at its ``seq``, other
rating settings) is ignored and everything is replayed. A look is done at most every few seconds.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trueskill
from sqlalchemy import func, select

from arena.errors import ConfigError
from arena.server.db.database import ServerDatabase
from arena.server.db.models import Game, GameSeat, User, Version
from arena.server.settings import CompetitionConfig, NewVersion
from arena.stats.collusion import Collusion, collusion
from arena.stats.confidence import Confidence, look
from arena.stats.leaderboard import RankingConfig
from arena.stats.rating import HistoryRow, RatedGame, apply_in_order
from arena.stats.tally import Tally
from arena.userfiles import STATE_LIMIT, read_user_text

REFRESH_S = 3.0  # at most one look (the games stored since the last) per this many seconds
LONGEST_WAIT_S = 5.0  # and at least one per this many, whatever the last cost (new games show within it)
SNAPSHOT = "board.json"  # in the competition's directory: the replay's state (see the module's docstring)
SNAPSHOT_S = 60.0  # a snapshot at most this often (and when the server stops)


def conservative(mu: float, sigma: float) -> float:
    """mu - 3 sigma, TrueSkill's conservative rating: a skill the entrant has very probably reached. The
    server's one writing of it (the board's rows, the analytics' steps and days, every chart's low line);
    ``arena.stats.rating.Standing.conservative`` is the same rule for an event's standings."""
    return mu - 3 * sigma


def rating_key(config: CompetitionConfig, version_id: int, user_id: int) -> str:
    """Whose rating a seat counts for: the version (``fresh``) or the entrant across its versions
    (``inherit``: a new version starts from its predecessor's rating, and drift lets it move on)."""
    return f"u{user_id}" if config.ladder.new_version is NewVersion.INHERIT else f"v{version_id}"


@dataclass
class _Replay:
    """The stored games as the statistics read them, kept in memory and extended by the games stored
    since the last look (``seq`` only grows, and a stored game never changes): each look reads only the
    new rows and applies them, in ``seq`` order, after the others, which gives exactly the figures of one
    replay of all of them (TrueSkill and the running sums of the points order are sequential)."""

    config: CompetitionConfig
    last_seq: int = 0
    games: list[RatedGame] = field(default_factory=list)
    ratings: dict[str, trueskill.Rating] = field(default_factory=dict)
    steps: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)  # key -> (seq, mu, σ)
    played: dict[str, int] = field(default_factory=dict)  # rating key -> games
    tally: Tally | None = None  # the points order's running sums over the keys it was made for

    def read(self, db: ServerDatabase) -> list[RatedGame]:
        """The games stored after ``last_seq``, each seat named by its rating key."""
        with db.session() as s:
            owner: dict[int, int] = {v: u for v, u in s.execute(select(Version.id, Version.user_id))}
            games = s.execute(
                select(Game.id, Game.seq, Game.result, Game.rated, Game.hands)
                .where(Game.seq > self.last_seq)
                .order_by(Game.seq)
            ).all()
            seats = s.execute(
                select(GameSeat.game_id, GameSeat.version_id, GameSeat.name, GameSeat.rank, GameSeat.score,
                       GameSeat.forfeited)
                .join(Game, Game.id == GameSeat.game_id)
                .where(Game.seq > self.last_seq)
                .order_by(GameSeat.game_id, GameSeat.seat)
            ).all()  # fmt: skip
        by_game: dict[str, list[Any]] = {}
        for seat in seats:
            by_game.setdefault(seat.game_id, []).append(seat)
        new = []
        for game in games:
            rows = by_game.get(game.id, [])
            names = tuple(
                r.name if r.version_id is None else rating_key(self.config, r.version_id, owner[r.version_id])
                for r in rows
            )
            excluded = json.loads(game.result).get("excluded", [])
            new.append(
                RatedGame(game.seq, game.id, names, tuple(r.rank for r in rows), tuple(r.score for r in rows),
                          tuple(n for n, r in zip(names, rows, strict=True) if r.forfeited), game.rated,
                          tuple(n for n, r in zip(names, rows, strict=True) if r.name in excluded), game.id,
                          game.hands)
            )  # fmt: skip
        return new

    def fingerprint(self) -> dict[str, Any]:
        """What the ratings depend on besides the games: a snapshot made under other settings is not used."""
        return {
            "tau": self.config.ladder.tau,
            "new_version": str(self.config.ladder.new_version),
            "format": 1,
        }

    def save(self, path: Path, last_id: str) -> None:
        """Write the ratings reached (atomically: a kill -9 leaves the old snapshot or the new one)."""
        state = {
            "fingerprint": self.fingerprint(),
            "last_seq": self.last_seq,
            "last_id": last_id,
            "ratings": {k: [r.mu, r.sigma] for k, r in self.ratings.items()},
            "steps": self.steps,
            "played": self.played,
        }
        partial = path.with_name(path.name + ".partial")
        with contextlib.suppress(OSError):
            partial.write_text(json.dumps(state, separators=(",", ":")))
            os.replace(partial, path)

    def resume(self, db: ServerDatabase, path: Path) -> list[RatedGame]:
        """Every stored game; when ``path`` holds a snapshot that matches the database, the ratings from it
        and only the games after it left to apply (returned), else all of them."""
        everything = self.read(db)
        try:
            state = json.loads(read_user_text(path, "ratings snapshot", STATE_LIMIT))
            last_seq, last_id = int(state["last_seq"]), str(state["last_id"])
            matches = state["fingerprint"] == self.fingerprint() and any(
                g.seq == last_seq and g.game_id == last_id for g in everything
            )
            if not matches:
                return everything
            ratings = {k: trueskill.Rating(mu, sigma) for k, (mu, sigma) in state["ratings"].items()}
            steps = {
                k: [(int(q), float(m), float(v)) for q, m, v in rows] for k, rows in state["steps"].items()
            }
            played = {k: int(n) for k, n in state["played"].items()}
        except (ConfigError, ValueError, KeyError, TypeError):
            return everything  # no snapshot, or not one this code wrote: replay them all
        self.ratings, self.steps, self.played, self.last_seq = ratings, steps, played, last_seq
        self.games = [g for g in everything if g.seq <= last_seq]
        return [g for g in everything if g.seq > last_seq]

    def extend(self, new: list[RatedGame], keys: Sequence[str]) -> None:
        """Apply ``new`` (the games after the last look) for the field ``keys``."""
        tau = self.config.ladder.tau

        def step(row: HistoryRow) -> None:
            self.steps.setdefault(row.entrant, []).append((row.seq, row.mu, row.sigma))

        self.ratings = apply_in_order(new, keys, step, tau, start=self.ratings)
        for game in new:
            for name in game.seats:
                self.played[name] = self.played.get(name, 0) + 1
        self.games += new
        if new:
            self.last_seq = new[-1].seq
        if self.tally is None or self.tally.names != tuple(keys):  # the field changed: sum them again
            self.tally = Tally(keys).add(self.games).close()
        else:
            self.tally.add(new).close()


LADDER_RANKING = RankingConfig(look_growth=1.0)
"""A ladder's order is looked at whenever anybody opens the page, not at looks planned in advance: its
verdicts are judged by the confidence sequence, which holds at every look (docs/ranking.md), never by the
planned looks' boundary that ``arena run --until-settled`` uses by default."""

HISTORY_POINTS = 200


def _thin(points: list[tuple[int, float, float]]) -> list[tuple[int, float, float]]:
    """At most ``HISTORY_POINTS`` evenly spread points of a rating's history, the last one kept."""
    if len(points) <= HISTORY_POINTS:
        return points
    step = len(points) / HISTORY_POINTS
    return [points[int(i * step)] for i in range(HISTORY_POINTS - 1)] + [points[-1]]


def _finite(value: float | None) -> float | None:
    """JSON has no NaN: a figure without data (no hands yet) is null."""
    return None if value is None or not math.isfinite(value) else value


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the ladder's leaderboard."""

    rank: int
    user_id: int
    entrant: str
    version_id: int
    version: str
    mu: float
    sigma: float
    games: int
    points_per_hand: float | None
    p_above_next: float | None
    settled: bool | None
    description: str = ""  # the entrant's words about its bot

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "entrant": self.entrant,
            "version": self.version,
            "conservative": round(self.conservative, 3),
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "games": self.games,
            "points_per_hand": _finite(self.points_per_hand),
            "p_above_next": _finite(self.p_above_next),
            "settled_above_next": self.settled,
            "description": self.description,
        }


@dataclass
class Board:
    """The leaderboard of the active versions, recomputed from the stored games when they change."""

    db: ServerDatabase
    config: CompetitionConfig
    rows: list[Row] = field(default_factory=list)
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)  # rating key -> (mu, sigma)
    order_note: str = ""
    confidence: Confidence | None = None  # the last look's figures (None below two entrants)
    games: int = -1
    computed_at: float = 0.0
    cost_s: float = 0.0  # how long the last recomputation took
    history: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)  # key -> (seq, mu, σ)
    _replay: _Replay = field(init=False)

    _saved_at: float = field(init=False, default=-math.inf)
    _resumed: bool = field(init=False, default=False)
    _collusion: tuple[tuple[int, int], Collusion] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self._replay = _Replay(self.config)

    @property
    def snapshot_path(self) -> Path:
        return self.config.data_dir / SNAPSHOT

    def save(self) -> None:
        """Keep the ratings reached for the next start (``SNAPSHOT``); also when the server stops."""
        replay = self._replay
        if replay.games:
            replay.save(self.snapshot_path, replay.games[-1].game_id)
        self._saved_at = time.monotonic()

    def refresh(self, force: bool = False) -> None:
        """Recompute, unless ``force`` is false and the last computation is recent or nothing changed.

        A look reads the games stored since the last one (the points order's running sums are summed again
        from memory when the field changes); it waits twenty times as long as the last such look took, so
        that keeping the board fresh costs about a twentieth of the server, but never more than
        ``LONGEST_WAIT_S``. The first look, which replays every stored game (at start, or after a restart),
        sets no wait: it is not what the next look costs, and charging it froze the board for minutes after
        a restart over a large ladder (20 times a replay of every game).
        """
        wait = min(max(REFRESH_S, 20 * self.cost_s), LONGEST_WAIT_S)
        if not force and time.monotonic() - self.computed_at < wait:
            return
        with self.db.session() as s:
            count = s.scalar(select(func.count()).select_from(Game)) or 0
            active = s.execute(
                select(Version, User)
                .join(User, User.id == Version.user_id)
                .where(Version.active, ~User.disabled)
            ).all()
        if not force and count == self.games:
            self.computed_at = time.monotonic()
            return
        began = time.monotonic()
        keys = {rating_key(self.config, v.id, u.id): (v, u) for v, u in active}
        replay = self._replay
        replaying_all = not self._resumed  # the first look since start: every stored game
        if replaying_all:
            self._resumed = True
            new = replay.resume(self.db, self.snapshot_path)
        else:
            new = replay.read(self.db)
        replay.extend(new, list(keys))
        self.history = {k: _thin(replay.steps.get(k, [])) for k in keys if k in replay.steps}
        self.ratings = {k: (r.mu, r.sigma) for k, r in replay.ratings.items()}
        figures = {}
        if len(keys) >= 2 and replay.tally is not None:
            ranking = LADDER_RANKING
            conf = look(replay.tally, ranking.method, ranking.confidence, self.config.ladder.seed,
                        margin=ranking.tie_margin, plan=ranking.plan())  # fmt: skip
            self.confidence = conf
            for i, name in enumerate(conf.order):
                nxt = conf.adjacent[i] if i < len(conf.adjacent) else None
                figures[name] = (conf.entrants[i].points_per_hand, nxt)
            self.order_note = (
                f"{conf.method} order over the {conf.units} {conf.unit}s of the versions shown (games of "
                f"older versions count in the total above, not here): the whole order holds with probability "
                f"{conf.whole:.0%}"
            )
        rows = []
        for key, (version, user) in keys.items():
            mu, sigma = self.ratings.get(key, (25.0, 25.0 / 3))
            pph, nxt = figures.get(key, (None, None))
            rows.append(
                Row(0, user.id, user.name, version.id, f"v{version.number}", mu, sigma,
                    replay.played.get(key, 0), _finite(None if pph is None else round(pph, 3)),
                    None if nxt is None else round(nxt.probability, 3), None if nxt is None else nxt.settled,
                    user.description or "")
            )  # fmt: skip
        rows.sort(key=lambda r: (-r.conservative, r.entrant))
        self.rows = [
            Row(i + 1, *(getattr(r, f) for f in Row.__dataclass_fields__ if f != "rank"))
            for i, r in enumerate(rows)
        ]
        self.games = count
        self.computed_at = time.monotonic()
        if not replaying_all:
            self.cost_s = self.computed_at - began
        if self.computed_at - self._saved_at >= SNAPSHOT_S:
            self.save()

    def collusion(self) -> Collusion:
        """The collusion check (``arena.stats.collusion``) over every stored game the board has read, among
        every rating key seated in them (older versions and house bots too: a pair is a pair whether or not
        it is still on the board); computed again only when games were added. For the organiser's page."""
        games = list(self._replay.games)
        key = (len(games), games[-1].seq if games else 0)
        if self._collusion is None or self._collusion[0] != key:
            names = sorted({name for game in games for name in game.seats})
            self._collusion = (key, collusion(games, names))
        return self._collusion[1]

    def steps(self, key: str) -> list[tuple[int, float, float]]:
        """Every (seq, mu, σ) of ``key``'s rating, not thinned, also for versions no longer in the field:
        an entrant's analytics (``arena.server.analytics.service``) draw all of them."""
        return list(self._replay.steps.get(key, []))

    def rating_of(self, key: str) -> tuple[float, float]:
        return self.ratings.get(key, (25.0, 25.0 / 3))

    def describe(self, user_id: int, text: str) -> None:
        """A new description shows at once, without recomputing the board (an entrant may edit often)."""
        self.rows = [replace(r, description=text) if r.user_id == user_id else r for r in self.rows]
