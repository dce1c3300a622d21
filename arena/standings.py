"""The leaderboard of an event, computed from its store alone (so it is the same live, resumed, or later).

``compute_board`` applies the stored games to TrueSkill in schedule order, joins the per-entrant totals,
orders the entrants by the event's ranking (arena.ranking: points per hand, paired in duplicate mode) and
says how sure that order is, in each standing's ``extra`` (so the JSON, the CSV and the report carry it);
the ``render_*`` functions give the three output forms of ``arena leaderboard``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass

from arena.config import RankingConfig
from arena.ranking import Confidence, collect, confidence
from arena.rating import HistoryRow, Standing, apply_in_order
from arena.store import Store

COLUMNS = (
    "rank",
    "name",
    "conservative",
    "mu",
    "sigma",
    "games",
    "wins",
    "avg_points",
    "maker_hands",
    "maker_success",
    "faults",
    "forfeits",
    "disqualified",
    "house",
    "score",
    "points_per_hand_lo",
    "points_per_hand_hi",
    "mean_rank",
    "mean_rank_lo",
    "mean_rank_hi",
    "p_above_next",
    "settled_above_next",
    "whole_order",
)


@dataclass(frozen=True, slots=True)
class Board:
    """A leaderboard: the standings in ranking order, and the confidence in that order."""

    standings: list[Standing]
    confidence: Confidence


def event_ranking(store: Store) -> tuple[RankingConfig, int]:
    """The stored event's ``[ranking]`` settings and seed (defaults for events stored before them)."""
    config = store.meta("config") or {}
    raw = config.get("ranking") or {}
    ranking = RankingConfig.from_dict(raw) if isinstance(raw, dict) else RankingConfig()
    return ranking, int((store.meta("fingerprint") or {}).get("seed", 0))


def compute_standings(store: Store, record: Callable[[HistoryRow], None] | None = None) -> list[Standing]:
    """The standings of what ``store`` holds, best first; ``record`` gets every rating step on the way."""
    return compute_board(store, record).standings


def compute_board(
    store: Store,
    record: Callable[[HistoryRow], None] | None = None,
    ranking: RankingConfig | None = None,
) -> Board:
    """The leaderboard of what ``store`` holds; ``record`` gets every rating step on the way.

    The stored games are read twice, each time streamed (TrueSkill, then the ranking units), rather than
    held in memory whole.
    """
    stored_ranking, seed = event_ranking(store)
    ranking = ranking or stored_ranking
    entrants = store.entrants()
    ratings = apply_in_order(store.rated_games(), [name for name, *_ in entrants], record)
    totals = store.seat_totals()
    faults = store.charged_fault_counts()  # the leaderboard charges a bot only with its own faults
    disqualified = store.disqualified()
    standings = []
    for name, _kind, _target, house in entrants:
        t = totals.get(name, {})
        r = ratings[name]
        standings.append(
            Standing(
                name=name,
                mu=r.mu,
                sigma=r.sigma,
                games=t.get("games", 0),
                wins=t.get("wins", 0),
                points=t.get("points", 0),
                maker_hands=t.get("maker_hands", 0),
                maker_made=t.get("maker_made", 0),
                faults=faults.get(name, 0),
                forfeits=t.get("forfeits", 0),
                disqualified=name in disqualified,
                house=house,
            )
        )
    units = collect(store.rated_games(), [name for name, *_ in entrants])
    conf = confidence(
        units, ranking.method, ranking.confidence, seed, sharpen=ranking.sharpen, demoted=disqualified
    )
    by_name = {s.name: s for s in standings}
    ordered = [by_name[name] for name in conf.order]
    for i, standing in enumerate(ordered):
        standing.rank = i + 1
        standing.extra.update(_confidence_fields(conf, i))
    return Board(ordered, conf)


def _confidence_fields(conf: Confidence, i: int) -> dict[str, object]:
    """The figures of the ``i``-th entrant of the order: its bootstrap intervals, P(above) every other
    entrant, the pair with the next one, and the whole order's figure (the same on every row)."""
    figures = conf.entrants[i].to_dict()
    nxt = conf.adjacent[i] if i < len(conf.adjacent) else None
    return {
        "score": figures["score"],
        "points_per_hand_ci": figures["points_per_hand_ci"],
        "mean_rank": figures["mean_rank"],
        "mean_rank_ci": figures["mean_rank_ci"],
        "p_above": {
            other: round(p, 4)
            for other, p in zip(conf.order, conf.pairwise[i], strict=True)
            if other != conf.order[i]
        },
        "p_above_next": None if nxt is None else round(nxt.probability, 4),
        "settled_above_next": None if nxt is None else nxt.settled,
        "whole_order": round(conf.whole, 4),
    }


def render_json(board: Board | list[Standing]) -> str:
    """One object per entrant, best first; the ranking's figures are part of each (``Standing.extra``)."""
    standings = board.standings if isinstance(board, Board) else board
    return json.dumps([s.to_dict() for s in standings], indent=2)


def render_csv(board: Board | list[Standing]) -> str:
    standings = board.standings if isinstance(board, Board) else board
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for s in standings:
        row = s.to_dict()
        pph, rank = row.get("points_per_hand_ci") or [None, None], row.get("mean_rank_ci") or [None, None]
        row |= {
            "points_per_hand_lo": pph[0],
            "points_per_hand_hi": pph[1],
            "mean_rank_lo": rank[0],
            "mean_rank_hi": rank[1],
        }
        writer.writerow(_csv_values(row))
    return out.getvalue()


def _csv_values(row: dict[str, object]) -> dict[str, object]:
    """Booleans as ``true``/``false`` (what spreadsheets and other languages read), empty for none."""

    def text(v: object) -> object:
        return ("true" if v else "false") if isinstance(v, bool) else "" if v is None else v

    return {k: text(v) for k, v in row.items()}


# What each column of the terminal table means (``arena leaderboard --help`` and docs/config.md show this).
TABLE_HELP = """\b
Columns of the table:
  #        place, by points per hand (paired in duplicate; docs/ranking.md)
  entrant  the entrant's name in the config
  mu-3σ    conservative skill: TrueSkill mu minus 3 sigma
  mu       TrueSkill mean skill estimate (starts at 25)
  σ        TrueSkill uncertainty of mu (starts at 8.33)
  games    games played
  wins     games finished first (shared first places count)
  pts/g    mean points scored per game
  maker    hands it fixed trump in; the share its side made (3+ tricks)
  faults   faults charged to the bot (not harness: the arena's own lateness)
  forf     games forfeited after too many faults in one game
  note     DQ: disqualified (forfeited too often); house: a house bot"""


def render_table(board: Board | list[Standing], title: str = "Leaderboard") -> str:
    """A plain-text table (rich renders it in the terminal; this form also suits logs and tests), then
    how sure its order is; 80 columns."""
    standings = board.standings if isinstance(board, Board) else board
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=0)
    for column, justify in (
        ("#", "right"),
        ("entrant", "left"),
        ("mu-3σ", "right"),
        ("mu", "right"),
        ("σ", "right"),
        ("games", "right"),
        ("wins", "right"),
        ("pts/g", "right"),
        ("maker", "right"),
        ("faults", "right"),
        ("forf", "right"),
        ("note", "left"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for s in standings:
        notes = " ".join(n for n, on in (("DQ", s.disqualified), ("house", s.house)) if on)
        maker = "-" if s.maker_rate is None else f"{s.maker_hands} {s.maker_rate:.0%}"
        table.add_row(
            str(s.rank),
            s.name,
            f"{s.conservative:.2f}",
            f"{s.mu:.2f}",
            f"{s.sigma:.2f}",
            str(s.games),
            str(s.wins),
            f"{s.avg_points:.2f}",
            maker,
            str(s.faults),
            str(s.forfeits),
            notes,
        )
    console = Console(file=io.StringIO(), width=80, color_system=None, force_terminal=False)
    console.print(table)
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    return text + (render_confidence(board.confidence) if isinstance(board, Board) else "")


def _num(value: float, digits: int = 2) -> str:
    return "-" if value != value else f"{value:.{digits}f}"


def _p_text(p: float) -> str:
    """A probability to three places, never rounded to a certainty it is not."""
    if p > 0.9995:
        return "> 0.999"
    if p < 0.0005:
        return "< 0.001"
    return f"= {p:.3f}"


def _interval_text(value: float, interval: tuple[float, float]) -> str:
    return f"{_num(value)} [{_num(interval[0])}, {_num(interval[1])}]"


def render_confidence(conf: Confidence) -> str:
    """How sure the order is, in words an organiser can act on (80 columns; the matrix of P(above) only
    while it fits, the JSON always has it)."""
    what = {"paired": "paired points per hand", "centred": "centred points per hand"}.get(
        conf.method, "points per hand"
    )
    width = max([len(n) for n in conf.order] + [7])
    lines = [
        f"Order by {what}; 95% intervals and P by bootstrap over {conf.units} {conf.unit}s",
        f"({conf.replicates} resamples seeded by the event); a pair is settled at P >= {conf.level:g}.",
        f"  {'entrant':<{width}}  {'pts/hand [95%]':>18}  {'mean rank [95%]':>18}"
        + (f"  {conf.method + ' [95%]':>20}" if conf.method != "points" else ""),
    ]
    for f in conf.entrants:
        score = f"  {_interval_text(f.score, f.score_ci):>20}" if conf.method != "points" else ""
        lines.append(
            f"  {f.name:<{width}}  {_interval_text(f.points_per_hand, f.points_ci):>18}  "
            f"{_interval_text(f.mean_rank, f.rank_ci):>18}{score}"
        )
    for pair in conf.adjacent:
        state = "settled" if pair.settled else "open"
        if not pair.settled:
            more = f"~{pair.more_games} more games" if pair.more_games is not None else "no gap visible"
            state += f", {more}"
        lines.append(f"  {pair.upper} above {pair.lower}: P {_p_text(pair.probability)}  {state}")
    lines.append(f"Whole order right: P {_p_text(conf.whole)}" + ("  (settled)" if conf.settled else ""))
    if len(conf.order) > 1 and width + 3 + 7 * len(conf.order) <= 80:
        lines.append("P(row finishes above column):")
        lines.append(" " * (width + 2) + "".join(f"{n[:6]:>7}" for n in conf.order))
        for name, row in zip(conf.order, conf.pairwise, strict=True):
            cells = "".join(
                "      -" if other == name else f"{p:7.2f}" for other, p in zip(conf.order, row, strict=True)
            )
            lines.append(f"  {name:<{width}}{cells}")
    return "\n".join(lines) + "\n"
