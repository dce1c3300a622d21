"""The commands that read a stored event: ``leaderboard``, ``replay``, ``report``, ``games``, ``faults`` and
``export``. Each opens the store read-only (it works on a finished, an interrupted or a running event)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from arena.cli.app import app, fail, one_line_errors
from arena.errors import ConfigError

if TYPE_CHECKING:
    from arena.results.queries import Queries
    from arena.stats.collusion import Collusion
    from arena.stats.rating import Standing


def _standings_help() -> str:
    from arena.results.listings import TABLE_HELP

    return TABLE_HELP


@app.command(epilog=_standings_help())
def leaderboard(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
    as_csv: bool = typer.Option(False, "--csv", help="print CSV"),
    explain: bool = typer.Option(
        False, "--explain", help="after the table, say in words what every column and line means"
    ),
) -> None:
    """The standings of an event (finished or not) from its games."""
    from arena.conductor.match import render_stored_match
    from arena.results.leaderboard import render_explained
    from arena.results.listings import render_csv, render_json, render_table
    from arena.results.queries import Queries
    from arena.stats.collusion import flag_lines
    from arena.stats.leaderboard import compute_leaderboard

    with one_line_errors(), Queries.open(directory) as store:
        standings = compute_leaderboard(store)
        budget = store.ranking().max_games
        played = len(store.finished())
        total = len(store.schedule())
        sprt = render_stored_match(store)
        pairs = _collusion(store, standings.standings)
    if as_json:
        typer.echo(render_json(standings))
    elif as_csv:
        typer.echo(render_csv(standings), nl=False)
    else:
        title = f"{directory}: {played} of {total} games played"
        typer.echo(render_table(standings, title, max_games=budget))
        if sprt is not None:
            typer.echo(sprt)
        for line in flag_lines(pairs):  # nothing unless a pair is flagged
            typer.echo(line)
        if explain:
            typer.echo("\n" + render_explained(standings.confidence), nl=False)


def _collusion(store: Queries, standings: list[Standing]) -> Collusion:
    """Every pair's effect at the same table (arena.stats.collusion); each entrant's side of its pairs goes
    into its row as ``pairs``, so ``--json`` carries them."""
    from arena.stats.collusion import collusion, entrant_effects

    pairs = collusion(store.rated_games(), [e.name for e in store.entrants()], hands=store.hand_sides)
    for standing in standings:
        standing.extra["pairs"] = entrant_effects(pairs, standing.name)
    return pairs


@app.command()
def replay(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    game: str = typer.Argument(..., help="the game's id, as arena games lists it: r001-t01, say"),
) -> None:
    """A stored game hand by hand: deal, bids, call, tricks, points."""
    from arena.results.queries import Queries
    from arena.results.replay import render_game

    with one_line_errors(), Queries.open(directory) as store:
        game_id = game
        if game.isdigit():
            ids = [g.game_id for g in store.schedule()]
            index = int(game)
            if not 0 <= index < len(ids):
                raise ConfigError(f"game number {index} is out of range 0..{len(ids) - 1}")
            game_id = ids[index]
        data = store.game(game_id)
        if data is None:
            played = store.game_ids()
            raise ConfigError(
                f"no finished game {game_id!r} in {str(directory)!r}; played: "
                f"{', '.join(played[:10])}{' ...' if len(played) > 10 else ''}"
            )
    try:
        text = render_game(data)
    except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
        where = f"game {data.game_id} in {str(directory)!r}"
        raise fail(f"{where} is damaged (cannot render it: {exc!r})") from None
    typer.echo(text, nl=False)


@app.command()
def report(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="the HTML file (default DIR/report.html)"
    ),
    public: bool = typer.Option(
        False,
        "--public",
        help="leave out the bots' logs: the copy to publish (the default is the organiser's)",
    ),
) -> None:
    """One self-contained HTML page of the event, to read or publish.

    It holds the leaderboard, the rating plot, per-entrant figures, a head-to-head table, the faults and
    every game as a visual replay, and works from a USB stick or a web page. The organiser's copy (the
    default) shows each launched bot's log lines beside its games, so it is readable by you only; --public
    writes the copy to share, without them."""
    from arena.report import build_report

    with one_line_errors():
        try:
            built = build_report(directory, output, public=public)
        except OSError as exc:
            raise fail(f"cannot write the report: {exc}") from None
    size = built.size / 1e6
    typer.echo(f"report: {built.path} ({size:.1f} MB, {built.games} games, {built.seconds:.1f} s)")


@app.command()
def games(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    entrant: str | None = typer.Option(None, "--entrant", "-e", help="only games this entrant played"),
    as_csv: bool = typer.Option(False, "--csv", help="print CSV (the columns of games.csv, arena export's)"),
) -> None:
    """The played games in schedule order, by id (for arena replay).

    Each row: the game's id, the seats with their final scores (* won), hands, outcome and faults."""
    from arena.results import listings
    from arena.results.queries import Queries

    with one_line_errors(), Queries.open(directory) as store:
        rows = listings.games(store, entrant)
    if as_csv:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=listings.GAME_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(listings.game_row(g) for g in rows)
        typer.echo(out.getvalue(), nl=False)
    else:
        title = f"{directory}: {len(rows)} games" + (f" with {entrant}" if entrant else "")
        typer.echo(listings.render_games(rows, title), nl=False)


@app.command()
def faults(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    entrant: str | None = typer.Option(None, "--entrant", "-e", help="only this entrant's faults"),
    kind: str | None = typer.Option(None, "--kind", "-k", help="only this kind (timeout, crashed ...)"),
    game: str | None = typer.Option(None, "--game", "-g", help="only this game (its id)"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Every recorded fault: entrant, game, hand, kind and detail.

    Harness faults (the arena itself was late) are listed as not charged: they never count against the
    bot."""
    from arena.results import listings
    from arena.results.queries import Queries

    with one_line_errors(), Queries.open(directory) as store:
        rows = listings.faults(store, entrant, kind, game)
    if as_json:
        typer.echo(listings.faults_json(rows))
    else:
        typer.echo(listings.render_faults(rows, f"{directory}: {len(rows)} faults"), nl=False)


@app.command()
def export(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    output: Path | None = typer.Option(None, "--output", "-o", help="where to write (default DIR/export)"),
) -> None:
    """Hand records (JSON Lines) and the games (CSV), for other tools.

    hands.jsonl holds one v1 hand record per line (docs/hand-record.md); games.csv one game per row, whose
    first_hand_line and hands columns say which lines of hands.jsonl are that game's."""
    from arena.results import listings
    from arena.results.queries import Queries

    with one_line_errors(), Queries.open(directory) as store:
        try:
            records, table, hands, played = listings.export(store, output or directory / "export")
        except OSError as exc:
            raise fail(f"cannot write the export: {exc}") from None
    typer.echo(f"{records} ({hands} hand records)\n{table} ({played} games)")
