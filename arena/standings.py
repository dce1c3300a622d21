"""The leaderboard of an event, computed from its store alone (so it is the same live, resumed, or later).

``compute_standings`` applies the stored games to TrueSkill in schedule order and joins the per-entrant
totals; the ``render_*`` functions give the three output forms of ``arena leaderboard``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

from arena.rating import HistoryRow, Standing, apply_in_order, order
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
)


def compute_standings(store: Store, record: Callable[[HistoryRow], None] | None = None) -> list[Standing]:
    """The leaderboard of what ``store`` holds; ``record`` gets every rating step on the way."""
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
    return order(standings)


def render_json(standings: list[Standing]) -> str:
    return json.dumps([s.to_dict() for s in standings], indent=2)


def render_csv(standings: list[Standing]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for s in standings:
        writer.writerow(_csv_values(s.to_dict()))
    return out.getvalue()


def _csv_values(row: dict[str, object]) -> dict[str, object]:
    """Booleans as ``true``/``false`` (what spreadsheets and other languages read), empty for none."""
    def text(v: object) -> object:
        return ("true" if v else "false") if isinstance(v, bool) else "" if v is None else v

    return {k: text(v) for k, v in row.items()}


# What each column of the terminal table means (``arena leaderboard --help`` and docs/config.md show this).
TABLE_HELP = """\b
Columns of the table:
  #        place, ordered by mu-3σ
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


def render_table(standings: list[Standing], title: str = "Leaderboard") -> str:
    """A plain-text table (rich renders it in the terminal; this form also suits logs and tests)."""
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
    return console.file.getvalue()  # type: ignore[attr-defined]
