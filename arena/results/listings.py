"""The organiser's terminal views of a stored event: ``arena games``, ``arena faults`` and ``arena export``.

Everything here reads the event through its read model (``arena.results.queries``) alone, so the views work
on a finished, an interrupted or a running event alike, and print the same thing the HTML report shows.
A game is named by its id (``r001-t01``: its round and table in the schedule, ``-dN`` for a duplicate's
rotation) wherever the arena shows one: here, in ``arena replay DIR GAME``, the faults and the report. Its
place in the schedule (``seq``, from 0) stays a column of games.csv, as data, not as a second name.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from arena.errors import ConfigError, FaultKind
from arena.results.leaderboard import (  # the leaderboard's forms, importable from here as before
    COLUMNS,
    TABLE_HELP,
    render_confidence,
    render_csv,
    render_json,
    render_table,
)
from arena.results.queries import Fault, GameSummary, Queries
from arena.text import printable

HAND_RECORDS = "hands.jsonl"
GAMES_CSV = "games.csv"

__all__ = ["COLUMNS", "TABLE_HELP", "render_confidence", "render_csv", "render_json", "render_table"]

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
) -> list[Fault]:
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
    for column, justify in (("game", "left"), ("seats: score (* won)", "left"), ("", "left")):
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
        if not game.rated:  # a forfeit under forfeit_result = "void" (its seat is marked F), or check-bot's
            notes.append("not rated")
        table.add_row(game.game_id, seats, ", ".join(notes))
    return _render(table) + "F: forfeited. arena replay DIR GAME shows a game hand by hand.\n"


def render_faults(rows: list[Fault], title: str) -> str:
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


def faults_json(rows: list[Fault]) -> str:
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
    export (``arena.server.ladder.export``) writes its ladder's hands with this too, so the two cannot
    differ."""
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
