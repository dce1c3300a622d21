"""The organiser's terminal views of a stored event: ``arena games``, ``arena faults`` and ``arena export``.

Everything here reads the event through its read model (``arena.results.queries``) alone, so the views work
on a finished, an interrupted or a running event alike, and print the same thing the HTML report shows.
Game numbers are the game's place in the schedule (``seq``, from 0), the number ``arena replay DIR N``
accepts, so a filtered list still counts like the full one.
"""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from arena.errors import ConfigError, FaultKind
from arena.results.queries import GameSummary, Queries, StoredFault
from arena.stats.confidence import Confidence
from arena.stats.leaderboard import Leaderboard
from arena.stats.rating import Standing
from arena.text import printable

HAND_RECORDS = "hands.jsonl"
GAMES_CSV = "games.csv"

GAME_COLUMNS = (
    "number",
    "game_id",
    "round",
    "table",
    "block",
    "rotation",
    "seats",
    "scores",
    "ranks",
    "winners",
    "termination",
    "hands",
    "rated",
    "forfeited",
    "faults",
    "first_hand_line",
)


@dataclass(frozen=True, slots=True)
class ListedGame:
    """A played game as the listings show it: its summary, and where its hands start in ``hands.jsonl``."""

    game: GameSummary
    first_hand_line: int


def games(store: Queries, entrant: str | None = None) -> list[ListedGame]:
    """Played games in schedule order, optionally only those ``entrant`` sat at.

    :raises ConfigError: ``entrant`` is not an entrant of this event (a typo would otherwise list nothing).
    """
    _check_entrant(store, entrant)
    out = []
    line = 1
    for game in store.games_overview():
        first, line = line, line + game.hands
        if entrant is not None and entrant not in game.seats:
            continue
        out.append(ListedGame(game, first))
    return out


def faults(
    store: Queries, entrant: str | None = None, kind: str | None = None, game: str | None = None
) -> list[StoredFault]:
    """Recorded faults, filtered; each says whether it was ``charged`` to the bot (harness faults are not).

    :raises ConfigError: an unknown entrant or fault kind.
    """
    _check_entrant(store, entrant)
    if kind is not None and kind not in {k.value for k in FaultKind}:
        raise ConfigError(
            f"unknown fault kind {kind!r}: expected one of {', '.join(k.value for k in FaultKind)}"
        )
    out = []
    for fault in store.all_faults():
        if entrant is not None and fault.entrant != entrant:
            continue
        if kind is not None and fault.kind != kind:
            continue
        if game is not None and game not in (fault.game_id, str(fault.seq)):
            continue
        out.append(fault)
    return out


def _check_entrant(store: Queries, entrant: str | None) -> None:
    if entrant is None:
        return
    names = [e.name for e in store.entrants()]
    if entrant not in names:
        raise ConfigError(f"no entrant {entrant!r} in this event; entrants: {', '.join(names)}")


def _joined(values: Iterable[Any]) -> str:
    return ";".join(str(v) for v in values)


def game_row(listed: ListedGame) -> dict[str, Any]:
    """One game as a flat CSV row: per-seat lists joined with ``;`` in seat order, booleans true/false."""
    game = listed.game
    seats = game.seats
    return {
        "number": game.seq,
        "game_id": game.game_id,
        "round": game.round,
        "table": game.table,
        "block": game.block,
        "rotation": game.rotation,
        "seats": _joined(seats),
        "scores": _joined(game.scores),
        "ranks": _joined(game.ranks),
        "winners": _joined(seats[s] for s in game.winners),
        "termination": game.termination,
        "hands": game.hands,
        "rated": "true" if game.rated else "false",
        "forfeited": _joined(seats[s] for s in game.forfeited),
        "faults": game.faults,
        "first_hand_line": listed.first_hand_line,
    }


def render_games(rows: list[ListedGame], title: str) -> str:
    """The games as a terminal table that fits 80 columns (seats with their scores, winners starred)."""
    from rich import box
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for column, justify in (("#", "right"), ("game", "left"), ("seats: score (* won)", "left"), ("", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for listed in rows:
        game = listed.game
        seats = ", ".join(
            f"{name} {score}{'*' if s in game.winners else ''}{' F' if s in game.forfeited else ''}"
            for s, (name, score) in enumerate(zip(game.seats, game.scores, strict=True))
        )
        notes = [f"{game.hands} hands"]
        if game.termination != "target_reached":
            notes.append(game.termination.replace("_", " "))
        if game.faults:
            notes.append(f"{game.faults} fault{'s' if game.faults != 1 else ''}")
        if not game.rated:
            notes.append("void")
        table.add_row(str(game.seq), game.game_id, seats, ", ".join(notes))
    return _render(table) + "F: forfeited. # is the number arena replay accepts.\n"


def render_faults(rows: list[StoredFault], title: str) -> str:
    from rich import box
    from rich.table import Table

    if not rows:
        return f"{title}\n"
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for column, justify in (("entrant", "left"), ("game", "left"), ("hand", "right"), ("kind", "left"),
                            ("detail", "left")):  # fmt: skip
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for f in rows:
        kind = f.kind.value if f.charged else f"{f.kind.value} (not charged)"
        table.add_row(f.entrant, f.game_id, str(f.hand_index + 1), kind, printable(f.detail))
    return _render(table)


def faults_json(rows: list[StoredFault]) -> str:
    """The stored fields in order, then whether each was ``charged``."""
    return json.dumps([f.to_dict() | {"charged": f.charged} for f in rows], indent=2)


def _render(table: Any) -> str:
    from rich.console import Console

    console = Console(file=io.StringIO(), width=80, color_system=None, force_terminal=False)
    console.print(table)
    return console.file.getvalue()  # type: ignore[attr-defined]


def export(store: Queries, out_dir: Path) -> tuple[Path, Path, int, int]:
    """Write every hand record (one v1 record per line, schedule order) and the games as CSV.

    A hand record carries no game id (its format is closed), so ``games.csv`` says which lines are whose:
    game ``g``'s hands are lines ``first_hand_line`` .. ``first_hand_line + hands - 1`` of ``hands.jsonl``.
    Returns the two paths, the number of hands and of games.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    records, table = out_dir / HAND_RECORDS, out_dir / GAMES_CSV
    with records.open("w", encoding="utf-8") as out:
        hands = write_hand_records((h.record for h in store.hand_records()), out)
    rows = games(store)
    with table.open("w", encoding="utf-8", newline="") as out:
        write_games_csv(rows, out)
    return records, table, hands, len(rows)


def write_hand_records(records: Iterable[dict[str, Any]], out: TextIO) -> int:
    """``hands.jsonl``: one compact JSON record per line; the number written. The competition server's
    export (``arena.server.export``) writes its ladder's hands with this too, so the two cannot differ."""
    count = 0
    for record in records:
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
        count += 1
    return count


def write_games_csv(rows: Iterable[ListedGame], out: TextIO) -> None:
    """``games.csv``: the header, then one ``game_row`` per game (shared with the server's export)."""
    writer = csv.DictWriter(out, fieldnames=GAME_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for game in rows:
        writer.writerow(game_row(game))


# ------------------------------------------------------------------ the leaderboard

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
    "place",
    "p_above_next",
    "verdict_next",
    "settled_above_next",
    "whole_order",
)


def render_json(board: Leaderboard | list[Standing]) -> str:
    """One object per entrant, best first; the ranking's figures are part of each (``Standing.extra``)."""
    standings = board.standings if isinstance(board, Leaderboard) else board
    return json.dumps([s.to_dict() for s in standings], indent=2)


def render_csv(board: Leaderboard | list[Standing]) -> str:
    standings = board.standings if isinstance(board, Leaderboard) else board
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
  #        place, by points per hand (paired in duplicate; docs/ranking.md);
           "=3": tied with its neighbour within [ranking] tie_margin
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


def render_table(board: Leaderboard | list[Standing], title: str = "Leaderboard") -> str:
    """A plain-text table (rich renders it in the terminal; this form also suits logs and tests), then
    how sure its order is; 80 columns."""
    standings = board.standings if isinstance(board, Leaderboard) else board
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
            str(s.extra.get("place", s.rank)),
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
    return text + (render_confidence(board.confidence) if isinstance(board, Leaderboard) else "")


def _num(value: float, digits: int = 2) -> str:
    return "-" if value != value else f"{value:.{digits}f}"


def _p_text(p: float) -> str:
    """A probability to three places, never rounded to a certainty it is not."""
    if p > 0.9995:
        return "> 0.999"
    if p < 0.0005:
        return "< 0.001"
    return f"= {p:.3f}"


def _signed(value: float) -> str:
    return "-" if value != value else f"{value:+.3f}"


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
        f"Order by {what} over {conf.units} {conf.unit}s; 95% intervals by bootstrap",
        f"({conf.replicates} resamples seeded by the event). A pair's verdict holds at {conf.level:g}",
        f"however often the order is looked at: its gap ± {conf.boundary:.2f} standard errors;",
        f"tied: that interval within ± {conf.margin:g} points per hand. P: the chance the upper",
        "one is truly better, judged against this field's spread of gaps.",
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
        lo, hi = pair.interval
        gap = "gap -" if pair.gap != pair.gap else f"gap {pair.gap:+.3f} [{_signed(lo)}, {_signed(hi)}]"
        state = pair.verdict.value
        if not pair.settled:
            state += f", ~{pair.more_games} more games" if pair.more_games is not None else ""
        lines.append(f"  {pair.upper} / {pair.lower}: {state}; P {_p_text(pair.probability)}; {gap}")
    lines.append(f"Whole order right: P {_p_text(conf.whole)}")
    lines.append(textwrap.fill(conf.summary(), 80, subsequent_indent="  "))
    if len(conf.order) > 1 and width + 3 + 7 * len(conf.order) <= 80:
        lines.append("P(row finishes above column):")
        lines.append(" " * (width + 2) + "".join(f"{n[:6]:>7}" for n in conf.order))
        for name, row in zip(conf.order, conf.pairwise, strict=True):
            cells = "".join(
                "      -" if other == name else f"{p:7.2f}" for other, p in zip(conf.order, row, strict=True)
            )
            lines.append(f"  {name:<{width}}{cells}")
    return "\n".join(lines) + "\n"
