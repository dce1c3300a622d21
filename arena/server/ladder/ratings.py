"""The ladder's stored games as the statistics read them, and the leaderboard computed from them.

The server's games live in its own database, read here into the statistics' own records
(``arena.stats.rating.RatedGame``). The TrueSkill ratings come from ``arena.stats.rating.apply_in_order``
with drift on (``[ladder] tau``, default 25/300, TrueSkill's usual value). Drift is off for a fixed event
(``docs/ranking.md``), but a ladder's field keeps changing: new bots arrive, entrants upload better
versions. With τ = 0 every rating's σ only shrinks, so after a few hundred games a rating can hardly move
any more and a newcomer that beats everybody climbs far too slowly: exactly the "frozen ratings" Halite
II's players reported (HaliteChallenge/Halite-II#181, #221), fixed there by putting drift back. τ > 0
keeps σ from collapsing, so the ladder follows the current field.

The board is ordered by the ratings' mu − 3σ, and its places (rank ranges), tiers and P are of the same
TrueSkill skill (``arena.stats.skill``), worded by ``arena.stats.wording`` as an event's are: an event
orders its fixed field by points per hand, but a ladder's versions come and go and meet different fields,
so points per hand are shown beside its order (from the running sums ``arena.stats.tally.Tally``), never
as it.

Everything is computed from the stored games, in ``seq`` order: a look applies the games stored since the
last one after those before (both computations are sequential, so this is exactly one replay of them all).
TrueSkill is the costly part (about 5 ms a game, so minutes for a ladder of 10,000 games), so the ratings
reached and the points order's running sums are kept in the competition's directory (``board.json``, at
most every ``SNAPSHOT_S`` and when the server stops) with the last game they include: a restart resumes
from there and reads and applies only the games stored after it, which again gives exactly the figures of
one uninterrupted replay (the snapshot keeps every float as it was); the games before it are read only if
the field changes (its sums are then made again over all of them). A snapshot that does not match the
database (another game at its ``seq``, other rating settings) is ignored and everything is replayed. A look
is done at most every few seconds.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trueskill
from sqlalchemy import func, select

from arena.errors import ConfigError
from arena.server.db.database import ServerDatabase
from arena.server.db.models import Game, GameSeat, Hand, User, Version
from arena.server.settings import CompetitionConfig, NewVersion
from arena.stats import wording
from arena.stats.collusion import Collusion, HandSides, collusion
from arena.stats.collusion_sides import hand_sides
from arena.stats.confidence import Confidence
from arena.stats.leaderboard import RankingConfig
from arena.stats.rating import HistoryRow, RatedGame, Standing, apply_in_order, conservative
from arena.stats.skill import Rated, skill_confidence
from arena.stats.tally import Tally
from arena.userfiles import STATE_LIMIT, read_user_text

REFRESH_S = 3.0  # at most one look (the games stored since the last) per this many seconds
LONGEST_WAIT_S = 5.0  # and at least one per this many, whatever the last cost (new games show within it)
STARTED_WAIT_S = 0.25  # between looks after the start-up look, until one finds a new game
SNAPSHOT = "board.json"  # in the competition's directory: the replay's state (see the module's docstring)
SNAPSHOT_S = 60.0  # a snapshot at most this often (and when the server stops)


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
    last_id: str = ""  # the last game applied (a snapshot names it: another database's is not used)
    games: list[RatedGame] | None = field(default_factory=list)  # None: resumed, not read (``extend``)
    ratings: dict[str, trueskill.Rating] = field(default_factory=dict)
    steps: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)  # key -> (seq, mu, σ)
    played: dict[str, int] = field(default_factory=dict)  # rating key -> games
    rated: int = 0  # the rated games applied (``games`` is not kept after a resume)
    tally: Tally | None = None  # the points order's running sums over the keys it was made for

    def read(self, db: ServerDatabase, up_to: int | None = None) -> list[RatedGame]:
        """The games stored after ``last_seq`` (or, with ``up_to``, those up to that ``seq``), each seat
        named by its rating key."""
        where = Game.seq > self.last_seq if up_to is None else Game.seq <= up_to
        with db.session() as s:
            owner: dict[int, int] = {v: u for v, u in s.execute(select(Version.id, Version.user_id))}
            games = s.execute(
                select(Game.id, Game.seq, Game.result, Game.rated, Game.hands).where(where).order_by(Game.seq)
            ).all()
            seats = s.execute(
                select(GameSeat.game_id, GameSeat.version_id, GameSeat.name, GameSeat.rank, GameSeat.score,
                       GameSeat.forfeited)
                .join(Game, Game.id == GameSeat.game_id)
                .where(where)
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
            "format": 2,
        }

    def save(self, path: Path) -> None:
        """Write the ratings and the points order's sums reached (atomically: a kill -9 leaves the old
        snapshot or the new one)."""
        state = {
            "fingerprint": self.fingerprint(),
            "last_seq": self.last_seq,
            "last_id": self.last_id,
            "ratings": {k: [r.mu, r.sigma] for k, r in self.ratings.items()},
            "steps": self.steps,
            "played": self.played,
            "rated": self.rated,
            "tally": None if self.tally is None else self.tally.state(),
        }
        partial = path.with_name(path.name + ".partial")
        with contextlib.suppress(OSError):
            partial.write_text(json.dumps(state, separators=(",", ":")))
            os.replace(partial, path)

    def resume(self, db: ServerDatabase, path: Path) -> list[RatedGame]:
        """The games left to apply: when ``path`` holds a snapshot that matches the database (its last game
        is stored at its ``seq``), the ratings and sums from it and only the games stored after it; else
        every stored game.

        The games before the snapshot are not read (at 10,000 games reading and summing them was most of
        a restart): they are needed again only when the field changes, and ``extend`` reads them then.
        """
        try:
            state = json.loads(read_user_text(path, "ratings snapshot", STATE_LIMIT))
            last_seq, last_id = int(state["last_seq"]), str(state["last_id"])
            if state["fingerprint"] != self.fingerprint():
                raise ValueError("a snapshot made under other settings")
            with db.session() as s:
                if s.scalar(select(Game.id).where(Game.seq == last_seq)) != last_id:
                    raise ValueError("a snapshot of other games")
            ratings = {k: trueskill.Rating(mu, sigma) for k, (mu, sigma) in state["ratings"].items()}
            steps = {k: list(map(tuple, rows)) for k, rows in state["steps"].items()}  # (seq, mu, σ)
            played = {k: int(n) for k, n in state["played"].items()}
            rated = int(state["rated"])
            tally = None if state["tally"] is None else Tally.restore(state["tally"])
        except (OSError, ConfigError, ValueError, KeyError, TypeError):
            self.games = []
            return self.read(db)  # no snapshot, or not one of these games and settings: replay them all
        self.ratings, self.steps, self.played, self.tally, self.rated = ratings, steps, played, tally, rated
        self.last_seq, self.last_id, self.games = last_seq, last_id, None
        return self.read(db)

    def everything(self, db: ServerDatabase) -> list[RatedGame]:
        """Every game applied so far, reading the games before a resumed snapshot the first time."""
        if self.games is None:
            self.games = self.read(db, up_to=self.last_seq)
        return list(self.games)

    def extend(self, db: ServerDatabase, new: list[RatedGame], keys: Sequence[str]) -> None:
        """Apply ``new`` (the games after the last look) for the field ``keys``."""
        tau = self.config.ladder.tau

        def step(row: HistoryRow) -> None:
            self.steps.setdefault(row.entrant, []).append((row.seq, row.mu, row.sigma))

        self.ratings = apply_in_order(new, keys, step, tau, start=self.ratings)
        for game in new:
            self.rated += game.rated
            for name in game.seats:
                self.played[name] = self.played.get(name, 0) + 1
        if self.tally is None or self.tally.names != tuple(keys):  # the field changed: sum them again
            if self.games is None:  # resumed from a snapshot: the games before it, read now
                self.games = self.read(db, up_to=self.last_seq)
            self.tally = Tally(keys).add([*self.games, *new]).close()
        else:
            self.tally.add(new).close()
        if self.games is not None:
            self.games += new
        if new:
            self.last_seq, self.last_id = new[-1].seq, new[-1].game_id


LEVEL = RankingConfig().confidence
"""The level of the ladder's rank ranges and tiers: an event's default ``[ranking] confidence``."""
SHOWN = ("place", "tier", "name", "version", "score", "rating", "p_next", "games", "points_per_hand")
"""The columns of arena.stats.wording the ladder's leaderboard shows, in the list's order."""


def ladder_columns() -> list[wording.Column]:
    """The ladder's columns: the one list of arena.stats.wording, its TrueSkill order's labels."""
    return [c for c in wording.columns("trueskill", LEVEL, ladder=True) if c.key in SHOWN]


HISTORY_POINTS = 200


def _thin(points: list[tuple[int, float, float]]) -> list[tuple[int, float, float]]:
    """At most ``HISTORY_POINTS`` evenly spread points of a rating's history, the last one kept."""
    if len(points) <= HISTORY_POINTS:
        return list(points)  # a copy: the replay's own list grows under the next look
    step = len(points) / HISTORY_POINTS
    return [points[int(i * step)] for i in range(HISTORY_POINTS - 1)] + [points[-1]]


def _finite(value: float | None) -> float | None:
    """JSON has no NaN: a figure without data (no hands yet) is null."""
    return None if value is None or not math.isfinite(value) else value


def _round4(value: float | None) -> float | None:
    """Exact to four places in JSON, as ``arena leaderboard --json`` (null without data)."""
    value = _finite(value)
    return None if value is None else round(value, 4)


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the ladder's leaderboard: its figures, and ``cells``, the text each column shows
    (arena.stats.wording.cells, the terminal's and the report's cells)."""

    rank: int
    user_id: int
    entrant: str
    version_id: int
    version: str
    mu: float
    sigma: float
    games: int
    points_per_hand: float | None
    place: str  # the rank range as printed: "1", "2–4"
    rank_range: tuple[int, int]
    tier: int
    p_above_next: float | None  # P(its skill is above the next one's), of TrueSkill (arena.stats.skill)
    verdict_next: str | None  # "above" (shown better) or "open"; never "tied" (no margin in TrueSkill)
    p_above: dict[str, float] = field(default_factory=dict)  # every other entrant's name -> P(above it)
    cells: dict[str, str] = field(default_factory=dict)
    description: str = ""  # the entrant's words about its bot

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)

    def to_dict(self) -> dict[str, Any]:
        """The row as ``GET /api/leaderboard`` gives it: the keys of ``arena leaderboard --json`` where
        they mean the same (``score`` is the order's number, here mu − 3σ), exact to four places."""
        return {
            "rank": self.rank,
            "place": self.place,
            "entrant": self.entrant,
            "version": self.version,
            "score": round(self.conservative, 4),
            "rank_range": list(self.rank_range),
            "tier": self.tier,
            "p_above_next": _round4(self.p_above_next),
            "verdict_next": self.verdict_next,
            "settled_above_next": None if self.verdict_next is None else self.verdict_next == "above",
            "p_above": self.p_above,
            "conservative": round(self.conservative, 3),
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "games": self.games,
            "points_per_hand": _finite(
                None if self.points_per_hand is None else round(self.points_per_hand, 4)
            ),
            "description": self.description,
        }


@dataclass(frozen=True)
class _Figures:
    """What one look computed, shown together (``Board.publish``)."""

    rows: list[Row]
    ratings: dict[str, tuple[float, float]]
    confidence: Confidence
    history: dict[str, list[tuple[int, float, float]]]
    games: int


@dataclass(frozen=True)
class _Look:
    """One look at the stored games: its number (looks are shown in turn), its time, its cost (None for
    the start-up look: it is not what the next costs) and its figures (None: no game was new)."""

    number: int
    at: float
    cost_s: float | None = None
    figures: _Figures | None = None


@dataclass
class Board:
    """The leaderboard of the active versions, recomputed from the stored games when they change."""

    db: ServerDatabase
    config: CompetitionConfig
    rows: list[Row] = field(default_factory=list)
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)  # rating key -> (mu, sigma)
    confidence: Confidence | None = None  # the order's figures: TrueSkill's (arena.stats.skill)
    games: int = -1
    computed_at: float = 0.0
    cost_s: float = 0.0  # how long the last recomputation took
    history: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)  # key -> (seq, mu, σ)
    looks: int = 0  # the times the statistics were computed (no page adds to it: docs/server.md)
    generation: int = 0  # the looks published that changed the figures: a page rendered before is stale
    _replay: _Replay = field(init=False)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)  # the replay's (``look``)
    _taken: int = field(init=False, default=0)  # looks begun, numbered in turn
    _published: int = field(init=False, default=0)  # the number of the look shown
    _described: dict[int, tuple[str, int]] = field(init=False, default_factory=dict)  # ``describe``

    _saved_at: float = field(init=False, default=-math.inf)
    _resumed: bool = field(init=False, default=False)
    _started: bool = field(init=False, default=False)  # the start-up look done, no game found since
    _collusion: tuple[tuple[int, int], Collusion] | None = field(init=False, default=None)
    _hands: dict[str, list[HandSides]] = field(init=False, default_factory=dict)  # ``_hands_of``

    def __post_init__(self) -> None:
        self._replay = _Replay(self.config)

    @property
    def snapshot_path(self) -> Path:
        return self.config.data_dir / SNAPSHOT

    def save(self) -> None:
        """Keep the ratings reached for the next start (``SNAPSHOT``); also when the server stops."""
        with self._lock:
            self._save()

    def _save(self) -> None:
        replay = self._replay
        if replay.last_id:
            replay.save(self.snapshot_path)
        self._saved_at = time.monotonic()

    def refresh(self, force: bool = False) -> None:
        """A look (``look``) and its publication (``publish``) at once, on the caller's thread: the start's
        look and a verdict's (``force``), which must show before the caller goes on. The server's other
        looks are its keeper's (``arena.server.wiring``), in a worker thread; no page makes one."""
        self.publish(self.look(force))

    def due_in(self) -> float:
        """Seconds until the next look is due (0: now).

        A look reads the games stored since the last one (the points order's running sums are summed again
        from memory when the field changes); it waits twenty times as long as the last such look took, so
        that keeping the board fresh costs about a twentieth of the server, but never more than
        ``LONGEST_WAIT_S``. The first look, which replays every stored game (at start, or after a restart),
        sets no wait: it is not what the next look costs, and charging it froze the board for minutes after
        a restart over a large ladder (20 times a replay of every game). Until a look has found a new game
        after it, a look waits only ``STARTED_WAIT_S`` (it is a count of the games while none is new), so the
        first games played after a restart show at once rather than up to ``REFRESH_S`` later.
        """
        wait = STARTED_WAIT_S if self._started else min(max(REFRESH_S, 20 * self.cost_s), LONGEST_WAIT_S)
        return max(0.0, self.computed_at + wait - time.monotonic())

    def look(self, force: bool = False) -> _Look | None:
        """Read the games stored since the last look and compute the board from them, unless ``force`` is
        false and a look is not due (``due_in``) or no game is new (then only the time of the look is
        published, so that the next waits again). None when nothing was looked at.

        Safe in a worker thread while the event loop serves pages from the board published before: the
        replay is touched only under the board's lock, and the board's published figures only by
        ``publish``, all at once, so that no page shows the rows of one look with the sentence of another.
        The statistics computed are counted (``looks``).
        """
        if not force and self.due_in() > 0:
            return None
        with self._lock:
            self._taken += 1
            number = self._taken
            with self.db.session() as s:
                count = s.scalar(select(func.count()).select_from(Game)) or 0
                active = s.execute(
                    select(Version, User)
                    .join(User, User.id == Version.user_id)
                    .where(Version.active, ~User.disabled)
                ).all()
            if not force and count == self.games:
                return _Look(number, time.monotonic())
            return self._compute(number, count, active)

    def _compute(self, number: int, count: int, active: Sequence[Any]) -> _Look:
        """The figures over every stored game: the replay extended by the new ones (under the lock)."""
        began = time.monotonic()
        self.looks += 1
        keys = {rating_key(self.config, v.id, u.id): (v, u) for v, u in active}
        replay = self._replay
        replaying_all = not self._resumed  # the first look since start: every stored game
        if replaying_all:
            self._resumed = self._started = True
            new = replay.resume(self.db, self.snapshot_path)
        else:
            new = replay.read(self.db)
            self._started = self._started and not new
        replay.extend(self.db, new, list(keys))
        history = {k: _thin(replay.steps.get(k, [])) for k in keys if k in replay.steps}
        ratings = {k: (r.mu, r.sigma) for k, r in replay.ratings.items()}
        per_hand: dict[str, float] = {}  # beside the order, never as it (the module's docstring)
        if replay.tally is not None:
            scores = replay.tally.totals["points"].scores()
            per_hand = dict(zip(replay.tally.names, (float(v) for v in scores), strict=True))
        by_name = {u.name: (key, v, u) for key, (v, u) in keys.items()}
        rated = [
            Rated(u.name, *ratings.get(key, (25.0, 25.0 / 3)), replay.played.get(key, 0),
                  float(per_hand.get(key, math.nan)))
            for key, (v, u) in keys.items()
        ]  # fmt: skip
        conf = skill_confidence(rated, LEVEL, self.config.ladder.seed, replay.rated)
        ranges, tiers = conf.rank_ranges(), conf.tiers()
        rows = []
        for i, (name, figures) in enumerate(zip(conf.order, conf.entrants, strict=True)):
            key, version, user = by_name[name]
            mu, sigma = ratings.get(key, (25.0, 25.0 / 3))
            label = f"v{version.number}"
            standing = Standing(name, mu, sigma, figures.games, rank=i + 1, extra={"version": label})
            nxt = conf.adjacent[i] if i < len(conf.adjacent) else None
            rows.append(
                Row(i + 1, user.id, name, version.id, label, mu, sigma, figures.games,
                    _finite(figures.points_per_hand), conf.places()[i], ranges[i], tiers[i],
                    None if nxt is None else nxt.probability, None if nxt is None else nxt.verdict.value,
                    {other: round(p, 4) for other, p in zip(conf.order, conf.pairwise[i], strict=True)
                     if other != name},
                    wording.cells(standing, conf, i), user.description or "")
            )  # fmt: skip
        done = time.monotonic()
        if replaying_all and replay.games is None:
            self._saved_at = done  # resumed from the snapshot: nothing new to keep yet
        if done - self._saved_at >= SNAPSHOT_S:
            self._save()
        cost = None if replaying_all else done - began
        return _Look(number, done, cost, _Figures(rows, ratings, conf, history, count))

    def publish(self, look: _Look | None) -> bool:
        """Show ``look``'s figures (on the event loop, or the caller's thread: see ``look``), unless a later
        look's are shown already; whether the board changed (``generation`` moved: a page rendered before
        is stale)."""
        if look is None or look.number <= self._published:
            return False
        self._published = look.number
        self.computed_at = look.at
        if look.cost_s is not None:
            self.cost_s = look.cost_s
        figures = look.figures
        if figures is None:
            return False
        # a description set after the look began is newer than the one it read (``describe``)
        self._described = {u: (t, n) for u, (t, n) in self._described.items() if n >= look.number}
        shown = {u: t for u, (t, _) in self._described.items()}
        self.rows = [
            replace(r, description=shown[r.user_id]) if r.user_id in shown else r for r in figures.rows
        ]
        self.ratings, self.confidence, self.history = figures.ratings, figures.confidence, figures.history
        self.games = figures.games
        self.generation += 1
        return True

    def order_line(self) -> str:
        """The one line that says how the ladder is ordered, and of what its places and P are, because it
        is not ordered as ``arena leaderboard`` orders an event."""
        tau = self.config.ladder.tau
        return (
            f"Ordered by TrueSkill's conservative skill, mu − 3σ, with drift (τ = {tau:.3f}), not by "
            "points per hand as an event is: versions come and go and meet different fields. Places "
            f"(rank ranges, {LEVEL:.0%} sure for every entrant at once), tiers (a line between rows) and P "
            "are of that TrueSkill skill, from its ratings' σ; no pair is called tied (TrueSkill has no "
            "margin)."
        )

    def row_of(self, user_id: int) -> Row | None:
        """The entrant's row (its active version's), None when it is not on the ladder."""
        return next((r for r in self.rows if r.user_id == user_id), None)

    def sentence(self) -> str:
        """Who is first and the tiers, in the terminal's words (nothing while the ladder has no bot)."""
        conf = self.confidence
        return wording.verdict_sentence(conf) if conf is not None and self.rows else ""

    def every_game(self) -> list[RatedGame]:
        """Every stored game the board has applied (after a resume from a snapshot, the games before it are
        read now, once; under the board's lock, as a look)."""
        with self._lock:
            return self._replay.everything(self.db)

    def collusion(self, games: list[RatedGame]) -> Collusion:
        """The collusion check (``arena.stats.collusion``) over ``games`` (``every_game``) and their hands,
        among every rating key seated in them (older versions and house bots too: a pair is a pair whether
        or not it is still on the board); computed again only when games were added. For the organiser's
        page; safe in a worker thread (it reads ``games`` and, in a session of its own and only when a pair
        asks for the test on sides, the hands of games it has not read before)."""
        key = (len(games), games[-1].seq if games else 0)
        if self._collusion is None or self._collusion[0] != key:
            names = sorted({name for game in games for name in game.seats})
            self._collusion = (key, collusion(games, names, hands=lambda: self._hands_of(games)))
        return self._collusion[1]

    def _hands_of(self, games: list[RatedGame]) -> dict[str, list[HandSides]]:
        """Each game's hands (``hand_sides``), read once per game: a stored game's hands never change."""
        missing = [g.game_id for g in games if g.game_id not in self._hands]
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            with self.db.session() as s:
                rows = s.execute(
                    select(Hand.game_id, Hand.record)
                    .where(Hand.game_id.in_(chunk))
                    .order_by(Hand.game_id, Hand.hand_index)
                ).all()
            for game_id in chunk:
                self._hands[game_id] = []
            for game_id, text in rows:
                with contextlib.suppress(
                    TypeError, KeyError, ValueError
                ):  # a damaged record: no sides for it
                    self._hands[game_id].append(hand_sides(json.loads(text)))
        return {g.game_id: self._hands[g.game_id] for g in games}

    def steps(self, key: str) -> list[tuple[int, float, float]]:
        """Every (seq, mu, σ) of ``key``'s rating, not thinned, also for versions no longer in the field:
        an entrant's analytics (``arena.server.analytics.service``) draw all of them."""
        with self._lock:
            return list(self._replay.steps.get(key, []))

    def rating_of(self, key: str) -> tuple[float, float]:
        return self.ratings.get(key, (25.0, 25.0 / 3))

    def describe(self, user_id: int, text: str) -> None:
        """A new description shows at once, without recomputing the board (an entrant may edit often), and
        stays shown over a look that read the description before it was set (numbered before it)."""
        self._described[user_id] = (text, self._taken)
        self.rows = [replace(r, description=text) if r.user_id == user_id else r for r in self.rows]
