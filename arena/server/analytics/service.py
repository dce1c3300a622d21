"""One entrant's analytics: its rating over time, head-to-head with intervals, per-variant and per-seat
figures, a filtered list of its games, and a search of its own stderr across games.

Every figure is computed from what the server stores, with the code that computes it for ``arena run``'s
report: hands, maker success, lone hands and euchres by ``arena.report.figures.count_hand`` into the
report's ``EntrantStats``; the head-to-head by ``arena.stats.headtohead`` (W-L-D, the testers' Elo ± its
95% half-width, LOS) worded as the report words it; latency percentiles from the log-scale histograms of
``arena.stats.latency`` that the ladder keeps in each game's result (games stored before it kept them have
none, and the page says how many decisions were timed). The rating's steps are the board's
(``Board.steps``): the same replay as the leaderboard, so the two always agree.

An entrant's games are read once (one query for its seats, one for the other seats of those games, one
for their hand records) and kept, with their figures; each later request adds only the games stored since
(``Summaries``). The pages run it in a worker thread so that the ladder (on the event loop) does not wait;
docs/server.md gives the cost (bench/server_analytics.py).

The log search is bounded (``SEARCH_GAMES`` newest games, ``SEARCH_BYTES`` read, ``SEARCH_MATCHES`` lines
shown) and literal: the query is a plain string, never a pattern, so no query can make it slow.
"""

from __future__ import annotations

import copy
import json
import math
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Select, select

from arena.errors import FaultKind
from arena.report.board import elo_title
from arena.report.figures import EntrantStats, count_hand
from arena.server.db.database import ServerDatabase
from arena.server.db.models import Game, GameFault, GameSeat, Hand, User, Version
from arena.server.errors import Refused
from arena.server.ladder import gamelogs
from arena.server.ladder.gamelogs import COLUMNS, SHOWN_BYTES
from arena.server.ladder.ratings import Board, rating_key
from arena.server.settings import CompetitionConfig
from arena.stats.headtohead import PairRecord, elo_estimate, head_to_head, record_of
from arena.stats.latency import percentile
from arena.stats.rating import conservative

HOUSE = "house"
PAGE_SIZE = 25
RESULTS = ("won", "lost", "forfeited")
SEARCH_QUERY_MAX = 200  # characters of a log search
SEARCH_GAMES = 200  # the newest games of the entrant a search reads
SEARCH_BYTES = 8_000_000  # bytes of log a search reads at most
SEARCH_MATCHES = 200  # matching lines shown
LINE_SHOWN = 400  # characters of a matching line shown around the match
CHART_POINTS = 200


def day_of(created_at: float) -> str:
    """The UTC date of a stored time, ``2026-12-02``: the same day for every reader, wherever it is."""
    return datetime.fromtimestamp(created_at, UTC).date().isoformat()


@dataclass(frozen=True, slots=True)
class Played:
    """One game of the entrant, from its seat (the first, if two of its versions ever sat together)."""

    game_id: str
    seq: int
    created_at: float
    variant: str
    rated: bool
    seat: int
    version: str  # v3
    score: int
    rank: int
    forfeited: bool
    seats: tuple[str, ...]  # every seat's entrant ("house" for a house bot)
    ranks: tuple[int, ...]
    labels: tuple[str, ...]  # every seat as the pages show it: "alice v3", "house"
    latency: Mapping[int, int]  # this seat's decision-time histogram (empty: not recorded)

    @property
    def day(self) -> str:
        return day_of(self.created_at)

    @property
    def opponents(self) -> tuple[str, ...]:
        return tuple(sorted({n for i, n in enumerate(self.seats) if i != self.seat}))

    @property
    def result(self) -> str:
        """``won`` (first, a shared first included), ``lost``, or ``forfeited``."""
        return "forfeited" if self.forfeited else "won" if self.rank == 1 else "lost"

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game_id, "seq": self.seq, "day": self.day, "variant": self.variant,
                "rated": self.rated, "seat": self.seat, "version": self.version, "score": self.score,
                "rank": self.rank, "result": self.result, "seats": list(self.labels)}  # fmt: skip


def _mine(user_id: int) -> Select[int]:
    return select(Version.id).where(Version.user_id == user_id)


def _game_ids(user_id: int, after: int = 0) -> Select[str]:
    """The ids of the games after seq ``after`` a version of ``user_id`` sat in, as a subquery (no list of
    ids is sent)."""
    return (
        select(GameSeat.game_id)
        .join(Game, Game.id == GameSeat.game_id)
        .where(GameSeat.version_id.in_(_mine(user_id)), Game.seq > after)
    )


def played(db: ServerDatabase, user_id: int, variant: str, after: int = 0) -> list[Played]:
    """Every stored game after seq ``after`` a version of ``user_id`` sat in, newest first; ``variant``:
    the competition's, for a game without hands (its hand records name the variant they were played under)."""
    mine = _mine(user_id)
    with db.session() as s:
        own = s.execute(
            select(GameSeat.game_id, GameSeat.seat, GameSeat.score, GameSeat.rank, GameSeat.forfeited,
                   Version.number, Game.seq, Game.created_at, Game.rated, Game.result)
            .join(Game, Game.id == GameSeat.game_id)
            .join(Version, Version.id == GameSeat.version_id)
            .where(GameSeat.version_id.in_(mine), Game.seq > after)
            .order_by(Game.seq.desc(), GameSeat.seat)
        ).all()  # fmt: skip
        ids = _game_ids(user_id, after)
        seats = s.execute(
            select(GameSeat.game_id, GameSeat.seat, GameSeat.rank, User.name, Version.number)
            .outerjoin(Version, Version.id == GameSeat.version_id)
            .outerjoin(User, User.id == Version.user_id)
            .where(GameSeat.game_id.in_(ids))
            .order_by(GameSeat.game_id, GameSeat.seat)
        ).all()
        query = select(Hand.game_id, Hand.record).where(Hand.game_id.in_(ids), Hand.hand_index == 0)
        first = {game_id: record for game_id, record in s.execute(query)}
    table: dict[str, list[tuple[str, int, str]]] = {}
    for r in seats:
        name = r.name or HOUSE
        table.setdefault(r.game_id, []).append((name, r.rank, f"{name} v{r.number}" if r.name else HOUSE))
    out: list[Played] = []
    seen: set[str] = set()
    for o in own:
        if o.game_id in seen:
            continue
        seen.add(o.game_id)
        rows = table.get(o.game_id, [])
        result = json.loads(o.result)
        hist: dict[int, int] = {}
        for seat, _n, h in result.get("latency", []):
            if seat == o.seat:
                hist = {int(k): int(v) for k, v in h.items()}
        hand = first.get(o.game_id)
        out.append(
            Played(o.game_id, o.seq, o.created_at, json.loads(hand)["config"]["variant"] if hand else variant,
                   o.rated, o.seat, f"v{o.number}", o.score, o.rank, o.forfeited,
                   tuple(n for n, _, _ in rows), tuple(k for _, k, _ in rows), tuple(lb for _, _, lb in rows),
                   hist)
        )  # fmt: skip
    return out


# --- figures ---------------------------------------------------------------------------------------


@dataclass
class Breakdown:
    """The report's per-entrant figures, for the entrant's games as a whole, per variant and per seat."""

    total: EntrantStats
    variants: dict[str, EntrantStats] = field(default_factory=dict)
    seats: dict[int, EntrantStats] = field(default_factory=dict)
    hists: dict[str, Counter[int]] = field(default_factory=dict)  # each group's merged decision times

    def groups(self, p: Played) -> list[tuple[str, EntrantStats]]:
        return [
            ("total", self.total),
            (f"variant {p.variant}", self.variants.setdefault(p.variant, EntrantStats(p.variant))),
            (f"seat {p.seat}", self.seats.setdefault(p.seat, EntrantStats(f"seat {p.seat}"))),
        ]

    def add(self, db: ServerDatabase, user_id: int, games: list[Played], after: int) -> None:
        """Count ``games`` (the entrant's games after seq ``after``): their seats, hands and faults.

        Games, wins, hands, points, maker success, lone hands, euchres, faults by kind (the harness's own
        apart: not the bot's), forfeits and decision times, counted as the report counts them.
        """
        by_id = {p.game_id: p for p in games}
        for p in games:
            for label, e in self.groups(p):
                e.games += 1
                e.wins += p.rank == 1
                e.forfeits += p.forfeited
                self.hists.setdefault(label, Counter()).update(p.latency)
        ids = _game_ids(user_id, after)
        with db.session() as s:
            hands = s.execute(select(Hand.game_id, Hand.record).where(Hand.game_id.in_(ids))).all()
            faults = s.execute(
                select(GameFault.game_id, GameFault.seat, GameFault.kind).where(GameFault.game_id.in_(ids))
            ).all()
        for game_id, text in hands:
            at = by_id.get(game_id)
            if at is None:  # stored after the games were read: counted with them next time
                continue
            hand = json.loads(text)
            for _, e in self.groups(at):
                count_hand(e, hand, at.seat)
        for game_id, seat, kind in faults:
            at = by_id.get(game_id)
            if at is None or seat != at.seat:
                continue
            for _, e in self.groups(at):
                if kind == FaultKind.HARNESS.value:
                    e.harness_faults += 1
                else:
                    e.faults[kind] = e.faults.get(kind, 0) + 1

    def finished(self) -> Breakdown:
        """A copy with the latency percentiles read from the histograms (the copy is the caller's: later
        games change this one, never it)."""
        out = copy.deepcopy(self)
        for label, e in out.labelled():
            hist = out.hists.get(label, Counter())
            e.decisions_timed = sum(hist.values())
            e.latency_p50_ms, e.latency_p99_ms = percentile(hist, 0.5), percentile(hist, 0.99)
        return out

    def labelled(self) -> list[tuple[str, EntrantStats]]:
        return [("total", self.total), *((f"variant {k}", v) for k, v in self.variants.items()),
                *((f"seat {k}", v) for k, v in self.seats.items())]  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total.to_dict(),
            "variants": {k: v.to_dict() for k, v in sorted(self.variants.items())},
            "seats": {str(k): v.to_dict() for k, v in sorted(self.seats.items())},
        }


def breakdown(db: ServerDatabase, user_id: int, name: str, games: list[Played]) -> Breakdown:
    """The figures of ``games``, all of the entrant's (``Summaries`` keeps them and adds the new ones)."""
    out = Breakdown(EntrantStats(name))
    out.add(db, user_id, games, 0)
    return out.finished()


@dataclass(frozen=True, slots=True)
class Summary:
    """One entrant's games (newest first) and figures, as of the game ``last_seq``."""

    games: list[Played]
    breakdown: Breakdown
    last_seq: int


class Summaries:
    """Each entrant's games and figures, extended by the games stored since the last request.

    A stored game never changes and ``seq`` only grows (as the board relies on,
    ``arena.server.ladder.ratings``), so a request reads only the games after the last one it saw, and counts
    only their hands: the first request after a start reads everything (bench/server_analytics.py: seconds for
    ten thousand games), the next ones only what is new. One lock: two requests never count the same games
    twice.
    """

    def __init__(self, db: ServerDatabase, variant: str) -> None:
        self.db = db
        self.variant = variant
        self._kept: dict[int, tuple[Summary, Breakdown]] = {}
        self._lock = threading.Lock()

    def of(self, user_id: int, name: str) -> Summary:
        with self._lock:
            kept, counts = self._kept.get(user_id, (Summary([], Breakdown(EntrantStats(name)), 0), None))
            counts = counts or Breakdown(EntrantStats(name))
            new = played(self.db, user_id, self.variant, kept.last_seq)
            if not new and user_id in self._kept:
                return kept
            counts.add(self.db, user_id, new, kept.last_seq)
            last = max([kept.last_seq, *(p.seq for p in new)])
            summary = Summary(new + kept.games, counts.finished(), last)
            self._kept[user_id] = (summary, counts)
            return summary

    def games_of(self, user: User) -> list[Played]:
        return self.of(user.id, user.name).games

    def figures(self, user: User, board: Board, config: CompetitionConfig) -> dict[str, Any]:
        """Everything the analytics page and its JSON show (read in a worker thread: see the module)."""
        summary = self.of(user.id, user.name)
        games = summary.games
        steps = rating_steps(self.db, board, config, user)
        return {
            "games": games,
            "breakdown": summary.breakdown,
            "opponents": opponents(user.name, games),
            "steps": steps,
            "days": by_day(steps),
        }


@dataclass(frozen=True, slots=True)
class Opponent:
    """The entrant against one opponent over the games they shared: the report's head-to-head figures."""

    record: PairRecord

    @property
    def elo_text(self) -> str:
        """The report's wording: "Elo +35 ± 60, LOS 87%" ("" when they never met)."""
        return elo_title(self.record).removeprefix("; ")

    def to_dict(self) -> dict[str, Any]:
        est = elo_estimate(self.record)
        finite = {k: None if v is None or not math.isfinite(v) else v for k, v in
                  {"elo": est.elo, "elo_error_95": est.error, "los": est.los}.items()}  # fmt: skip
        return {"opponent": self.record.b, "games": self.record.games, "wins": self.record.wins,
                "losses": self.record.losses, "draws": self.record.draws, **finite}  # fmt: skip


def opponents(name: str, games: list[Played]) -> list[Opponent]:
    """One row per opponent entrant, most games together first. The house bots are left out, as on the
    entrant's page: several of them sit at one table, so a "game together" would count seats, not games
    (the list of games still filters by ``house``)."""
    pairs = head_to_head(((p.seats, p.ranks) for p in games), [name])
    others = {n for p in games for n in p.seats if n not in (name, HOUSE)}
    rows = [Opponent(record_of(pairs, name, other)) for other in others]
    return sorted(rows, key=lambda o: (-o.record.games, o.record.b))


# --- rating over time ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    seq: int
    day: str
    series: str  # whose rating: "v3", or the entrant's name when a new version inherits the rating
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "day": self.day, "series": self.series, "mu": round(self.mu, 4),
                "sigma": round(self.sigma, 4)}  # fmt: skip


@dataclass(frozen=True, slots=True)
class DayRow:
    """Where a rating stood at the end of one UTC day, and how many of its games that day moved it."""

    day: str
    series: str
    games: int
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)

    def to_dict(self) -> dict[str, Any]:
        return {"day": self.day, "series": self.series, "games": self.games, "mu": round(self.mu, 4),
                "sigma": round(self.sigma, 4)}  # fmt: skip


def rating_steps(db: ServerDatabase, board: Board, config: CompetitionConfig, user: User) -> list[Step]:
    """Every step of the entrant's rating(s), in game order: one series per version when a new version
    starts fresh, one for the entrant when it inherits (``[ladder] new_version``)."""
    with db.session() as s:
        versions = s.execute(select(Version.id, Version.number).where(Version.user_id == user.id)).all()
    series: dict[str, str] = {}
    for vid, number in versions:
        key = rating_key(config, vid, user.id)
        series.setdefault(key, user.name if key.startswith("u") else f"v{number}")
    raw = [(seq, label, mu, sigma) for key, label in series.items() for seq, mu, sigma in board.steps(key)]
    with db.session() as s:
        query = select(Game.seq, Game.created_at).where(Game.id.in_(_game_ids(user.id)))
        when = {seq: at for seq, at in s.execute(query)}
    steps = [Step(seq, day_of(when.get(seq, 0.0)), label, mu, sigma) for seq, label, mu, sigma in raw]
    return sorted(steps, key=lambda st: (st.seq, st.series))


def by_day(steps: list[Step]) -> list[DayRow]:
    """The last step of each series on each day, days in order."""
    rows: dict[tuple[str, str], DayRow] = {}
    for st in steps:
        before = rows.get((st.day, st.series))
        games = (before.games if before else 0) + 1
        rows[st.day, st.series] = DayRow(st.day, st.series, games, st.mu, st.sigma)
    return sorted(rows.values(), key=lambda r: (r.day, r.series))


Point = tuple[int, float, float]


def thinned(points: list[Point], most: int = CHART_POINTS) -> list[Point]:
    """At most ``most`` evenly spread points, the last kept: a chart of a long ladder stays small."""
    if len(points) <= most:
        return points
    step = len(points) / most
    return [points[int(i * step)] for i in range(most - 1)] + [points[-1]]


# --- the list of games -----------------------------------------------------------------------------


def _date(value: str, what: str) -> str:
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise Refused(400, f"{what} must be a date as YYYY-MM-DD, not {value[:40]!r}") from None


@dataclass(frozen=True, slots=True)
class GameFilter:
    """What the list of games is filtered by (GET parameters; empty: any)."""

    opponent: str = ""
    variant: str = ""
    result: str = ""
    since: str = ""  # a UTC day, inclusive
    until: str = ""
    page: int = 1

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> GameFilter:
        """:raises Refused: 400 for a result not offered, a bad date or page, or a value too long."""
        for key in ("opponent", "variant", "result", "since", "until", "page"):
            if len(params.get(key, "")) > 64:
                raise Refused(400, f"the filter {key} is at most 64 characters")
        result = params.get("result", "")
        if result and result not in RESULTS:
            raise Refused(400, f"result is one of {', '.join(RESULTS)} (or empty for any)")
        page = params.get("page", "1") or "1"
        if not page.isdigit() or int(page) < 1:
            raise Refused(400, "page is a whole number from 1")
        since, until = params.get("since", ""), params.get("until", "")
        return cls(params.get("opponent", "").strip(), params.get("variant", "").strip(), result,
                   _date(since, "since") if since else "", _date(until, "until") if until else "",
                   int(page))  # fmt: skip

    def keeps(self, p: Played) -> bool:
        return (
            (not self.opponent or self.opponent in p.opponents)
            and (not self.variant or self.variant == p.variant)
            and (not self.result or self.result == p.result)
            and (not self.since or p.day >= self.since)
            and (not self.until or p.day <= self.until)
        )

    def query(self, page: int) -> str:
        """This filter's GET parameters on page ``page`` (for the pager's links)."""
        from urllib.parse import urlencode

        fields = {"opponent": self.opponent, "variant": self.variant, "result": self.result,
                  "since": self.since, "until": self.until}  # fmt: skip
        return urlencode({k: v for k, v in fields.items() if v} | ({"page": str(page)} if page > 1 else {}))


@dataclass(frozen=True, slots=True)
class GamePage:
    games: list[Played]
    matched: int
    page: int
    pages: int


def filtered(games: list[Played], f: GameFilter, size: int = PAGE_SIZE) -> GamePage:
    kept = [p for p in games if f.keeps(p)]
    pages = max(1, math.ceil(len(kept) / size))
    page = min(f.page, pages)
    return GamePage(kept[(page - 1) * size : page * size], len(kept), page, pages)


# --- the log search --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Match:
    game_id: str
    version_id: int
    version: str
    line: int  # 1-based, within this game's span of the log
    before: str
    found: str
    after: str


@dataclass
class Search:
    query: str
    matches: list[Match] = field(default_factory=list)
    games: int = 0  # games whose log was read
    bytes: int = 0
    stopped: str = ""  # which bound stopped the search, if one did

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "games_searched": self.games, "bytes_read": self.bytes,
                "stopped": self.stopped, "matches": [
                    {"game": m.game_id, "version": m.version, "line": m.line,
                     "text": m.before + m.found + m.after} for m in self.matches]}  # fmt: skip


def check_query(query: str) -> str:
    """:raises Refused: 400 for a query longer than ``SEARCH_QUERY_MAX`` or with control characters."""
    if len(query) > SEARCH_QUERY_MAX:
        raise Refused(
            400, f"a log search is at most {SEARCH_QUERY_MAX} characters; this one has {len(query):,}"
        )
    if any(ord(c) < 32 for c in query):
        raise Refused(400, "a log search is one line of text, without control characters")
    return query


def search_logs(
    db: ServerDatabase, log_path: Callable[[int, int | None], Path], user_id: int, query: str
) -> Search:
    """The lines holding ``query`` (a literal string, case-sensitive) in the entrant's own versions'
    stderr during its newest ``SEARCH_GAMES`` games, newest game first, within the bounds: a game's span
    of the local ladder log, or, for a game played on a Dask worker, the span it sent
    (``gamelogs.game_log``)."""
    out = Search(check_query(query))
    if not query:
        return out
    with db.session() as s:
        rows = s.execute(
            select(
                GameSeat.game_id,
                GameSeat.version_id,
                Version.number,
                *(getattr(GameSeat, c) for c in COLUMNS),
            )
            .join(Version, Version.id == GameSeat.version_id)
            .join(Game, Game.id == GameSeat.game_id)
            .where(Version.user_id == user_id)
            .order_by(Game.seq.desc())
            .limit(SEARCH_GAMES + 1)
        ).all()
    for i, row in enumerate(rows):
        if i == SEARCH_GAMES:
            out.stopped = f"only the newest {SEARCH_GAMES} games are searched"
            break
        if out.bytes >= SEARCH_BYTES:
            out.stopped = f"a search reads at most {SEARCH_BYTES:,} bytes of log"
            break
        values = {c: getattr(row, c) for c in COLUMNS}
        budget = min(SHOWN_BYTES, SEARCH_BYTES - out.bytes)
        path = log_path(row.version_id, row.log_inode)  # whichever process's file holds the span
        shown = gamelogs.game_log(db, path, row.game_id, row.version_id, values, budget)
        out.games += 1
        out.bytes += len(shown.text.encode("utf-8", "replace"))
        for n, text in enumerate(shown.text.split("\n"), 1):  # a bot's lines end at "\n" only
            at = text.find(query)
            if at < 0:
                continue
            if len(out.matches) == SEARCH_MATCHES:
                out.stopped = f"only the first {SEARCH_MATCHES} matching lines are shown"
                return out
            room = max(0, (LINE_SHOWN - len(query)) // 2)
            out.matches.append(
                Match(row.game_id, row.version_id, f"v{row.number}", n, text[max(0, at - room) : at], query,
                      text[at + len(query) : at + len(query) + room])
            )  # fmt: skip
    return out
