"""The leaderboard's three forms: the terminal table (``arena leaderboard``, the end of ``arena run``), JSON
and CSV. One order, said plainly: the order's own number comes first with its interval, each place is a
rank range holding for every entrant at once ("2–4"), a rule separates tiers, the sentences say who is
first and which places are settled, and TrueSkill
stands beside the order as the rating, labelled so. The words come from arena.stats.wording, which the
HTML report uses too; the figures from arena.stats.leaderboard, unchanged. Every line fits 80 columns.
"""

from __future__ import annotations

import csv
import io
import json
import textwrap

from arena.stats import wording
from arena.stats.confidence import Confidence
from arena.stats.leaderboard import Leaderboard
from arena.stats.rating import Standing

WIDTH = 80

COLUMNS = (
    "rank",
    "place",
    "name",
    "score",
    "score_lo",
    "score_hi",
    "rank_lo",
    "rank_hi",
    "tier",
    "points_per_hand_lo",
    "points_per_hand_hi",
    "verdict_next",
    "p_above_next",
    "settled_above_next",
    "whole_order",
    "mean_rank",
    "mean_rank_lo",
    "mean_rank_hi",
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
"""The CSV's columns: the order first (its place, its number and that number's interval, the verdict on
the next pair), then how the rank spreads, then the TrueSkill rating, then the tallies."""

_FIRST = (
    "rank",
    "place",
    "name",
    "score",
    "score_ci",
    "rank_range",
    "tier",
    "points_per_hand_ci",
    "verdict_next",
    "p_above_next",
)


def _standings(board: Leaderboard | list[Standing]) -> list[Standing]:
    return board.standings if isinstance(board, Leaderboard) else board


def render_json(board: Leaderboard | list[Standing]) -> str:
    """One object per entrant, best first, the order's figures first; exact to four places (the terminal
    rounds for people, JSON does not)."""
    out = []
    for s in _standings(board):
        row = s.to_dict()
        out.append({k: row[k] for k in _FIRST if k in row} | row)
    return json.dumps(out, indent=2)


def render_csv(board: Leaderboard | list[Standing]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for s in _standings(board):
        row = s.to_dict()
        for key, lo, hi in (
            ("score_ci", "score_lo", "score_hi"),
            ("points_per_hand_ci", "points_per_hand_lo", "points_per_hand_hi"),
            ("mean_rank_ci", "mean_rank_lo", "mean_rank_hi"),
            ("rank_range", "rank_lo", "rank_hi"),
        ):
            pair = row.get(key) or [None, None]
            row |= {lo: pair[0], hi: pair[1]}
        writer.writerow(_csv_values(row))
    return out.getvalue()


def _csv_values(row: dict[str, object]) -> dict[str, object]:
    """Booleans as ``true``/``false`` (what spreadsheets and other languages read), empty for none."""

    def text(v: object) -> object:
        return ("true" if v else "false") if isinstance(v, bool) else "" if v is None else v

    return {k: text(v) for k, v in row.items()}


def _help() -> str:
    cols = [c for c in wording.columns("points") if not c.report_only]
    width = max(len(c.label) for c in cols)
    lines = ["\b", "Columns of the table (--explain prints this with the lines under it):"]
    for c in cols:
        wrapped = textwrap.wrap(c.meaning, WIDTH - width - 6)
        lines.append(f"  {c.label:<{width}}  {wrapped[0]}")
        lines += [f"  {'':<{width}}  {more}" for more in wrapped[1:]]
    return "\n".join(lines)


TABLE_HELP = _help()
"""What each column of the terminal table means (``arena leaderboard --help`` shows it)."""


def _wrap(text: str, indent: str = "", first: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=indent, break_on_hyphens=False)


def legend(conf: Confidence | None) -> str:
    """The short key under the table: the columns a teacher may not know, in a few words."""
    method = conf.method if conf is not None else "points"
    label = wording.SCORE_LABELS.get(method, "pts/hand")
    level = f"{conf.level:.0%}" if conf is not None else "95%"
    text = (
        f"place: the rank range, where its true place lies; a rule between rows separates tiers (each "
        f"entrant above it is shown better than every one below); {label}: {wording.score_name(method)}, "
        "the number the order "
        f"is by; {level} interval: where its true value very probably lies; TrueSkill: the rating from "
        f"finishing places alone, {wording.RATING_FORM}, beside the order but not setting it; maker: hands "
        "it named trump, and the share its side made. arena leaderboard --explain says what every column "
        "means."
    )
    return "\n".join(_wrap(text))


def render_table(
    board: Leaderboard | list[Standing],
    title: str = "Leaderboard",
    details: bool = True,
    max_games: int | None = None,
    config: str | None = None,
) -> str:
    """The table of the order, the sentences saying who is first and which places are settled, a short
    legend, then (with ``details``) how sure each neighbour pair is; 80 columns. ``max_games`` and
    ``config`` (the event's budget and config file, when known) make the advice one that can be followed."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    standings = _standings(board)
    conf = board.confidence if isinstance(board, Leaderboard) else None
    method = conf.method if conf is not None else "points"
    rows = [wording.cells(s, conf, i) for i, s in enumerate(standings)]
    wanted = [c for c in wording.columns(method, conf.level if conf else 0.95) if not c.report_only]
    wanted = [c for c in wanted if c.key != "tier"]  # a rule between tiers says it in fewer columns
    if not any(r["forfeits"] != "0" for r in rows):
        wanted = [c for c in wanted if c.key != "forfeits"]
    for r in rows:  # DQ, house: beside the name, not in a column of their own (80 columns are few)
        r["name"] += f" ({r['note']})" if r["note"] else ""
    wanted = [c for c in wanted if c.key != "note"]
    head = _wrap(title)
    if conf is not None:
        head += _wrap(wording.heading(conf))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=0, show_edge=False)
    longest = max([len(r["name"]) + len(r["note"]) + 3 * bool(r["note"]) for r in rows] + [7])
    for c in wanted:
        left = c.key in ("name", "note")
        table.add_column(
            c.label,
            justify="left" if left else "right",
            overflow="fold",
            no_wrap=not left,
            min_width=min(longest, 14) if c.key == "name" else None,
        )
    tiers = conf.tiers() if conf is not None else [1] * len(rows)
    for i, r in enumerate(rows):
        table.add_row(*(r[c.key] for c in wanted), end_section=i + 1 < len(rows) and tiers[i + 1] != tiers[i])
    console = Console(file=io.StringIO(), width=WIDTH, color_system=None, force_terminal=False)
    console.print(table)
    body: str = console.file.getvalue()  # type: ignore[attr-defined]
    text = "\n".join(head) + "\n" + "\n".join(line.rstrip() for line in body.splitlines()) + "\n"
    if conf is None:
        return text
    after = _wrap(wording.verdict_sentence(conf))
    note = wording.rating_note(standings, conf)
    if note:
        after += _wrap(note)
    if details:
        after += legend(conf).splitlines()
    text += "\n".join(after) + "\n"
    return text + (render_confidence(conf, max_games, config) if details else "")


def render_confidence(conf: Confidence, max_games: int | None = None, config: str | None = None) -> str:
    """How sure the order is, in words an organiser can act on: each neighbour pair, the whole order, what
    to do about open pairs, and the matrix of P(row above column) while it fits (the JSON always has it)."""
    lines = [""]
    lines += _wrap(wording.how_sure(conf))
    for i, pair in enumerate(conf.adjacent):
        lines += _wrap(wording.pair_line(pair, i + 1, conf), first="  ", indent="      ")
    if conf.adjacent:
        lines.append(f"Chance the whole order is right: {wording.p_text(conf.whole)}.")
    advice = wording.advice(conf, max_games=max_games, config=config)
    if advice:
        lines += _wrap(advice)
    lines += _wrap(conf.summary(), indent="  ")
    lines += _matrix(conf)
    return "\n".join(lines) + "\n"


def _matrix(conf: Confidence) -> list[str]:
    """P(row finishes above column), columns numbered by place (names would collide when cut short)."""
    k = len(conf.order)
    if k < 2:
        return []
    numbers = [str(i + 1) for i in range(k)]
    label = max(len(f"{n} {name}") for n, name in zip(numbers, conf.order, strict=True))
    cell = max(5, len(numbers[-1]) + 1)
    if 2 + label + cell * k > WIDTH:
        return ["(the matrix of chances is in --json: it does not fit 80 columns)"]
    lines = ["Chance the row's entrant is truly better than the column's:"]
    lines.append(" " * (2 + label) + "".join(f"{n:>{cell}}" for n in numbers))
    for i, (name, row) in enumerate(zip(conf.order, conf.pairwise, strict=True)):
        cells = "".join(f"{'-' if j == i else _p_cell(p):>{cell}}" for j, p in enumerate(row))
        lines.append(f"  {f'{i + 1} {name}':<{label}}{cells}")
    return lines


def _p_cell(p: float) -> str:
    """A chance in four characters, never rounded to a certainty it is not (">.99", "<.01")."""
    if p != p:
        return "-"
    if p > 0.995:
        return ">.99"
    if p < 0.005:
        return "<.01"
    return f"{p:.2f}"


def render_explained(conf: Confidence | None) -> str:
    """``arena leaderboard --explain``: every column and every line under the table, in words."""
    method = conf.method if conf is not None else "points"
    out: list[str] = []
    for line in wording.explain(method, conf.level if conf is not None else 0.95, conf).splitlines():
        if len(line) <= WIDTH:
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip())
        label_end = line.find("  ", lead)
        hang = label_end + 2 if label_end > 0 else lead
        while label_end > 0 and line[hang] == " ":
            hang += 1
        out += textwrap.wrap(line, WIDTH, subsequent_indent=" " * hang, break_on_hyphens=False)
    return "\n".join(out) + "\n"
