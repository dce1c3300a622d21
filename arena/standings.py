"""The leaderboard of an event, computed from its store alone (so it is the same live, resumed, or later).

``compute_board`` applies the stored games to TrueSkill in schedule order, joins the per-entrant totals,
orders the entrants by the event's ranking (arena.ranking: points per hand, paired in duplicate mode) and
says how sure that order is; the ``render_*`` functions give the three output forms of ``arena leaderboard``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
    faults = store.fault_counts()
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
    return Board(ordered, conf)


def _confidence_fields(board: Board) -> dict[str, dict[str, Any]]:
    """Per entrant: its bootstrap figures, P(above) every other entrant, and the pair with the next one."""
    conf = board.confidence
    out: dict[str, dict[str, Any]] = {}
    for i, figures in enumerate(conf.entrants):
        row = figures.to_dict()
        del row["name"], row["games"]
        row["p_above"] = {
            other: round(p, 4)
            for other, p in zip(conf.order, conf.pairwise[i], strict=True)
            if other != figures.name
        }
        row["above_next"] = conf.adjacent[i].to_dict() if i < len(conf.adjacent) else None
        out[figures.name] = row
    return out


def render_json(board: Board) -> str:
    """The standings as a JSON list (one object per entrant, best first), each with a ``confidence``
    object; the order's overall figures (method, level, whole order) ride on every entry's ``order``."""
    conf = board.confidence
    fields = _confidence_fields(board)
    summary = {
        "method": conf.method,
        "level": conf.level,
        "unit": conf.unit,
        "replicates": conf.replicates,
        "whole_order": round(conf.whole, 4),
        "settled": conf.settled,
    }
    return json.dumps(
        [s.to_dict() | {"confidence": fields[s.name], "order": summary} for s in board.standings], indent=2
    )


def render_csv(board: Board) -> str:
    fields = _confidence_fields(board)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for s in board.standings:
        f = fields[s.name]
        nxt = f["above_next"]
        writer.writerow(
            s.to_dict()
            | {
                "score": f["score"],
                "points_per_hand_lo": f["points_per_hand_ci"][0],
                "points_per_hand_hi": f["points_per_hand_ci"][1],
                "mean_rank": f["mean_rank"],
                "mean_rank_lo": f["mean_rank_ci"][0],
                "mean_rank_hi": f["mean_rank_ci"][1],
                "p_above_next": "" if nxt is None else nxt["probability"],
                "settled_above_next": "" if nxt is None else nxt["settled"],
            }
        )
    return out.getvalue()


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
    """How sure the order is, in words an organiser can act on."""
    what = {"paired": "paired points per hand", "centred": "centred points per hand"}.get(
        conf.method, "points per hand"
    )
    lines = [
        f"order by {what}; confidence by bootstrap over {conf.units} {conf.unit}s ({conf.replicates} "
        f"resamples, seeded by the event); a pair is settled at P >= {conf.level:g}",
    ]
    for pair in conf.adjacent:
        state = "settled" if pair.settled else "open"
        if not pair.settled:
            state += (
                f", roughly {pair.more_games} more games"
                if pair.more_games is not None
                else ", no gap visible yet"
            )
        lines.append(f"  {pair.upper} above {pair.lower}: P {_p_text(pair.probability)}  {state}")
    lines.append(f"whole order right: P {_p_text(conf.whole)}" + ("  (settled)" if conf.settled else ""))
    if len(conf.order) > 1:
        width = max(len(n) for n in conf.order)
        short = [n[:7] for n in conf.order]
        lines.append("P(row finishes above column):")
        lines.append(" " * (width + 2) + " ".join(f"{n:>7}" for n in short))
        for name, row in zip(conf.order, conf.pairwise, strict=True):
            cells = " ".join(
                "      -" if other == name else f"{p:7.2f}" for other, p in zip(conf.order, row, strict=True)
            )
            lines.append(f"  {name:<{width}} {cells}")
    return "\n".join(lines) + "\n"


def render_table(board: Board | list[Standing], title: str = "Leaderboard") -> str:
    """A plain-text table (rich renders it in the terminal; this form also suits logs and tests), then the
    confidence in its order."""
    standings = board.standings if isinstance(board, Board) else board
    conf = board.confidence if isinstance(board, Board) else None
    figures = {f.name: f for f in conf.entrants} if conf else {}
    paired = conf is not None and conf.method != "points"
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column, justify in (
        ("#", "right"),
        ("entrant", "left"),
        ("mu-3σ", "right"),
        ("mu", "right"),
        ("σ", "right"),
        ("games", "right"),
        ("wins", "right"),
        ("avg pts", "right"),
        *([(f"{conf.method} pts/hand [95%]", "right")] if conf is not None and paired else []),
        ("pts/hand [95%]", "right"),
        ("mean rank [95%]", "right"),
        ("maker ok", "right"),
        ("faults", "right"),
        ("forfeits", "right"),
        ("", "left"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for s in standings:
        notes = ", ".join(n for n, on in (("DISQUALIFIED", s.disqualified), ("house bot", s.house)) if on)
        maker = "-" if s.maker_rate is None else f"{s.maker_rate:.0%} of {s.maker_hands}"
        f = figures.get(s.name)
        pph = "-" if f is None else _interval_text(f.points_per_hand, f.points_ci)
        rank = "-" if f is None else _interval_text(f.mean_rank, f.rank_ci)
        table.add_row(
            str(s.rank),
            s.name,
            f"{s.conservative:.2f}",
            f"{s.mu:.2f}",
            f"{s.sigma:.2f}",
            str(s.games),
            str(s.wins),
            f"{s.avg_points:.2f}",
            *([_interval_text(f.score, f.score_ci) if f else "-"] if paired else []),
            pph,
            rank,
            maker,
            str(s.faults),
            str(s.forfeits),
            notes,
        )
    console = Console(file=io.StringIO(), width=170, color_system=None, force_terminal=False)
    console.print(table)
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    return text + (render_confidence(conf) if conf is not None else "")
