"""The ``arena`` command. Thin on purpose: each command parses its arguments, calls one function a test could
call directly, and prints. Configuration errors exit with code 2 and a message naming the key."""

from __future__ import annotations

import csv
import io
import shutil
import signal
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from arena import __version__
from arena.errors import ArenaError, ConfigError
from arena.protocol import loops

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="euchre-arena: tournaments of Euchre bots (Call-Ace, Five-handed, classic) over gRPC.",
)


def _standings_help() -> str:
    from arena.results.listings import TABLE_HELP

    return TABLE_HELP


def _fail(message: str, code: int = 2) -> typer.Exit:
    """``error:`` and the message; lines after its first (a bot's log) are indented under it."""
    first, *rest = message.splitlines() or [""]
    lines = [f"error: {first}", *(line if line.startswith("  ") else f"    {line}" for line in rest)]
    typer.echo("\n".join(lines), err=True)
    return typer.Exit(code)


@app.command()
def run(
    config: Path = typer.Argument(..., help="tournament config (TOML); see docs/config.md"),
    seed: int | None = typer.Option(None, help="override the config's seed"),
    rounds: int | None = typer.Option(None, help="override the number of rounds"),
    concurrency: int | None = typer.Option(None, help="override how many games run at once"),
    output: Path | None = typer.Option(None, help="override the output directory"),
    duplicate: bool | None = typer.Option(
        None, "--duplicate/--no-duplicate", help="override duplicate deals"
    ),
    deal_key: str | None = typer.Option(
        None, "--deal-key", help="fix the secret deal key (hex, >= 32 digits), for reproducible experiments"
    ),
    sandbox: str | None = typer.Option(
        None, help="override how launched bots are confined: bubblewrap (default) or none"
    ),
    executor: str | None = typer.Option(
        None, help="where tables are played: local (default) or dask; see docs/scale-out.md"
    ),
    workers: int | None = typer.Option(None, help="dask: start a local cluster of this many workers"),
    scheduler: str | None = typer.Option(
        None, help="dask: join a running cluster (tcp://HOST:PORT, or a scheduler file's path)"
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="refuse the event if a bot cannot start, cannot be reached or speaks another protocol version "
        "(default: the autopilot plays its seats, it is retried during the event, marked if never seated)",
    ),
    until_settled: bool = typer.Option(
        False,
        "--until-settled",
        help="after the scheduled rounds, add rounds until every adjacent pair of the order is settled at "
        "[ranking] confidence, or [ranking] max_games is reached",
    ),
) -> None:
    """Run a tournament, or resume it: games already stored in the output directory are not replayed."""
    from arena.event.config import load_config, parse_executor

    try:
        cfg = load_config(config)
        spec = None
        if executor or workers or scheduler:
            flags: dict[str, Any] = {"kind": executor or "dask", "workers": workers}
            if scheduler:
                flags["scheduler_file" if Path(scheduler).is_file() else "scheduler"] = scheduler
            elif flags["kind"] == "dask":
                flags["pin_cpus"] = cfg.executor.pin_cpus  # the file's choice, for the flags' local cluster
            spec = parse_executor(flags, "--executor/--workers/--scheduler")
        cfg = cfg.with_overrides(
            seed=seed,
            rounds=rounds,
            concurrency=concurrency,
            output=output,
            duplicate=duplicate,
            deal_key=deal_key,
            sandbox=sandbox,
            executor=spec,
        )
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    exposed = cfg.exposed_to_fixed_key()
    if exposed:
        typer.echo(
            f"warning: deal_key is fixed and {', '.join(exposed)} {'is' if len(exposed) == 1 else 'are'} not "
            "trusted code: whoever learns the key can compute every deal; fix it only for experiments",
            err=True,
        )
    _run_event(cfg, quiet, strict=strict, until_settled=until_settled)


def _run_event(
    cfg: Any, quiet: bool, start_over: bool = False, strict: bool = False, until_settled: bool = False
) -> None:
    import time

    try:
        loops.loop_choice()  # ARENA_LOOP, checked before anything starts
    except ConfigError as exc:
        raise _fail(str(exc)) from None

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from arena.conductor.tournament import Stopped, run_event
    from arena.event.schedule import schedule_spread
    from arena.executor import StartFailed
    from arena.results.listings import render_table
    from arena.results.store import Store
    from arena.stats.leaderboard import Board

    faults = harness = 0
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[extra]}"),
        disable=quiet,
        transient=False,
    )
    task = progress.add_task(cfg.name, total=None, extra="faults: 0")
    bots: list[Any] = []  # the "starting bots" task and when it began, while bots start

    def on_bots(tried: int, total: int) -> None:
        if tried == 0:  # a start begins (an event grown by --until-settled may start house bots later)
            bots[:] = [progress.add_task("starting bots", total=total, extra=""), time.monotonic()]
        progress.update(bots[0], completed=tried)
        if tried == total:
            progress.remove_task(bots[0])
            progress.console.print(f"bots: {total} started in {time.monotonic() - bots[1]:.1f} s")

    def on_notice(line: str) -> None:
        # Not markup: a notice may quote a bot's log, which may hold anything (brackets included).
        progress.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def on_start(total: int, done: int) -> None:
        progress.start()  # only now: an event that cannot begin (locked, another event ...) shows no bar
        progress.update(task, total=total, completed=done)
        if done:
            progress.console.print(
                f"resuming {cfg.name}: {done} of {total} games already stored in {cfg.output}"
            )

    def on_extend(total: int, board: Any) -> None:
        progress.update(task, total=total)
        conf = board.confidence
        progress.console.print(
            f"after {conf.games} games {len(conf.open_pairs())} of {len(conf.adjacent)} adjacent pairs are "
            f"open (whole order P = {conf.whole:.2f}): extending to {total} games"
        )

    def on_game(_game: Any, result: Any) -> None:
        # The bots' faults; the arena's own lateness (harness) apart, as it is never charged to a bot.
        nonlocal faults, harness
        late = sum(1 for f in result.faults if not f.counts)
        faults += len(result.faults) - late
        harness += late
        apart = f" (harness: {harness})" if harness else ""
        progress.update(task, advance=1, extra=f"faults: {faults}{apart}")

    terminated: list[int] = []

    async def main() -> Any:
        # SIGTERM (what service managers and ``kill`` send) stops the event exactly like Ctrl-C: asyncio's
        # SIGINT handler cancels the event, which stops every bot and keeps every finished game.
        on_sigint = signal.getsignal(signal.SIGINT)
        if callable(on_sigint):

            def on_sigterm(signum: int, frame: Any) -> None:
                terminated.append(signum)
                on_sigint(signum, frame)

            signal.signal(signal.SIGTERM, on_sigterm)
        return await run_event(
            cfg,
            on_game=on_game,
            on_start=on_start,
            on_notice=on_notice,
            start_over=start_over,
            strict=strict,
            until_settled=until_settled,
            on_extend=on_extend,
            on_bots=on_bots,
        )

    try:
        try:
            summary = loops.run(main())
        finally:
            if progress.live.is_started:
                progress.stop()
    except StartFailed as exc:
        for name, why in exc.problems[:-1]:
            _fail(f"{name}: {why}")  # one error: line per entrant, its log under it
        name, why = exc.problems[-1]
        raise _fail(f"{name}: {why}") from None
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except ArenaError as exc:
        raise _fail(str(exc), 1) from None
    except sqlite3.Error as exc:
        raise _fail(f"results database in {str(cfg.output)!r}: {exc}") from None
    except KeyboardInterrupt:
        how = "terminated (SIGTERM)" if terminated else "interrupted"
        typer.echo(
            f"\n{how}: finished games are stored in {cfg.output}; run the same command to resume", err=True
        )
        raise typer.Exit(128 + signal.SIGTERM if terminated else 130) from None
    board = Board(summary.standings, summary.confidence)
    typer.echo(render_table(board, f"{cfg.name}: {summary.games_total} games, {cfg.game.variant.value}"))
    if summary.stopped is Stopped.SETTLED:
        typer.echo(f"until-settled: every adjacent pair settled after {summary.games_total} games")
    elif summary.stopped is Stopped.BUDGET:
        still = ", ".join(f"{p.upper} / {p.lower}" for p in summary.confidence.open_pairs())
        typer.echo(
            f"until-settled: budget of {cfg.ranking.max_games} games spent ({summary.games_total} played); "
            f"still open: {still}"
        )
    with Store.open(cfg.output, readonly=True) as store:  # as played: --until-settled may have grown it
        schedule = store.schedule()
    spread = schedule_spread(schedule, [e.name for e in cfg.entrants], cfg.game.team_play)
    typer.echo(f"schedule: {spread.render()}")
    typer.echo(f"results: {cfg.output}  (arena leaderboard {cfg.output}; arena replay {cfg.output} GAME)")
    _write_report(cfg.output)


def _write_report(directory: Path) -> None:
    """The HTML report at the end of an event; a failure to write it is reported, not fatal (the results
    are stored, and ``arena report`` can write it again)."""
    from arena.report import build_report

    try:
        built = build_report(Path(directory))
    except (ArenaError, OSError) as exc:
        typer.echo(f"warning: no HTML report: {exc}", err=True)
        return
    typer.echo(f"report: {built.path}  (one file: open it in a browser)")


@app.command()
def demo(
    rounds: int = typer.Option(30, help="rounds (one table of five per round)"),
    output: Path = typer.Option(Path("results/demo"), help="output directory (replaced if it holds a demo)"),
    concurrency: int = typer.Option(4, help="games at once"),
    decision_ms: int = typer.Option(400, help="time per decision"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
) -> None:
    """A ready event: the sample bots, launched as real gRPC processes, play five-handed Euchre.

    The bots run in the bubblewrap sandbox where it works; elsewhere (macOS, a container without user
    namespaces, bubblewrap not installed) the demo runs them unsandboxed, since they are our own, and says so.
    """
    from arena.event.config import parse_config
    from arena.sandbox import bubblewrap_problem

    problem = bubblewrap_problem()
    if problem is not None:
        typer.echo(f"note: running the sample bots without a sandbox: {problem}", err=True)
    entrants = [
        {"name": "random", "command": "{python} -m sample_bots.random --address {address}"},
        {"name": "rules", "command": "{python} -m sample_bots.rules --address {address}"},
        {"name": "montecarlo", "command": "{python} -m sample_bots.montecarlo --address {address}"},
        {"name": "rules-2", "command": "{python} -m sample_bots.rules --address {address}"},
    ]
    node_bot = Path(__file__).resolve().parents[2] / "sample_bots" / "node"
    if shutil.which("node") and (node_bot / "node_modules").is_dir():
        node_command = f"node {node_bot / 'bot.js'} --address {{address}}"
        entrants.append({"name": "node-random", "command": node_command})
    else:
        entrants.append({"name": "random-2", "command": "{python} -m sample_bots.random --address {address}"})
    cfg = parse_config(
        {
            "name": "demo",
            "seed": 2026,
            "rounds": rounds,
            "concurrency": concurrency,
            "output": str(output),
            "game": {"variant": "five-handed"},
            "faults": {"decision_ms": decision_ms},
            "entrant": entrants,
            "sandbox": "none" if problem else "bubblewrap",
        }
    )
    _run_event(cfg, quiet, start_over=True)


@app.command(epilog=_standings_help())
def leaderboard(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
    as_csv: bool = typer.Option(False, "--csv", help="print CSV"),
) -> None:
    """The standings of a (finished or interrupted) event, from its stored games."""
    from arena.conductor.match import sprt_of_store
    from arena.results.listings import render_csv, render_json, render_table
    from arena.results.store import Store
    from arena.stats.leaderboard import compute_board

    try:
        with Store.open(directory, readonly=True) as store:
            standings = compute_board(store)
            played = len(store.finished())
            total = len(store.schedule())
            sprt = sprt_of_store(store)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except sqlite3.Error as exc:
        raise _fail(f"{str(directory)!r}: the results database cannot be read: {exc}") from None
    if as_json:
        typer.echo(render_json(standings))
    elif as_csv:
        typer.echo(render_csv(standings), nl=False)
    else:
        typer.echo(render_table(standings, f"{directory}: {played} of {total} games played"))
        if sprt is not None:
            typer.echo(sprt[1].render(sprt[0]))


@app.command()
def match(
    candidate: str = typer.Argument(
        ..., help="the strategy to test: package.module:Class, HOST:PORT, or a command containing {port}"
    ),
    baseline: str = typer.Argument(..., help="the strategy to beat, in the same forms"),
    field: list[str] | None = typer.Option(
        None, "--field", help="a bot for the other seats (repeat to mix; default the sample rules bot)"
    ),
    variant: str = typer.Option("call-ace", help="call-ace, five-handed or classic (default options)"),
    seed: int = typer.Option(1, min=0, max=2**63 - 1, help="fixes every deal"),
    h0: float = typer.Option(0.0, help="H0: the candidate's edge in points per hand is this"),
    h1: float = typer.Option(0.1, help="H1: ... or this (must exceed --h0)"),
    alpha: float = typer.Option(0.05, help="chance of accepting H1 when H0 holds"),
    beta: float = typer.Option(0.05, help="chance of accepting H0 when H1 holds"),
    max_deals: int = typer.Option(500, min=1, help="budget: deals (each played 2 x seats games)"),
    output: Path = typer.Option(Path("results/match"), help="where the match is stored (and resumed from)"),
    concurrency: int = typer.Option(4, min=1, max=256, help="games at once"),
    decision_ms: int = typer.Option(1000, min=1, help="time per decision"),
    sandbox: str = typer.Option(
        "bubblewrap", help="how launched (command) bots are confined: bubblewrap or none"
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="print only the result"),
) -> None:
    """A/B test: CANDIDATE and BASELINE play the same deals from the same seats against the same field,
    until a sequential test (SPRT) on the per-deal differences decides or the budget is spent. Exit code:
    0 H1 accepted, 1 H0 accepted, 3 undecided."""
    from arena.conductor.match import MatchSettings, run_match
    from arena.stats.sprt import SprtResult, SprtSettings

    try:
        settings = MatchSettings(
            candidate,
            baseline,
            tuple(field or ["sample_bots.rules:RulesBot"]),
            {"variant": variant},
            seed,
            output,
            SprtSettings(h0, h1, alpha, beta),
            max_deals=max_deals,
            concurrency=concurrency,
            decision_ms=decision_ms,
            sandbox=sandbox,
        )
        settings.event_config()  # every spec and the variant checked before anything starts
        loops.loop_choice()
    except ConfigError as exc:
        raise _fail(str(exc)) from None

    def on_look(state: Any) -> None:
        if not quiet:
            typer.echo(state.render(settings.sprt))

    try:
        result = loops.run(run_match(settings, on_look=on_look))
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except ArenaError as exc:
        raise _fail(str(exc), 1) from None
    except KeyboardInterrupt:
        typer.echo(
            f"\ninterrupted: finished games are stored in {output}; run the same command to resume", err=True
        )
        raise typer.Exit(130) from None
    if quiet:
        typer.echo(result.state.render(settings.sprt))
    typer.echo(f"{result.games} games stored in {output} (arena leaderboard {output})")
    raise typer.Exit({SprtResult.H1: 0, SprtResult.H0: 1}.get(result.state.result, 3))


@app.command()
def replay(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    game: str = typer.Argument(..., help="game id (e.g. r001-t01) or its number in schedule order"),
) -> None:
    """A stored game hand by hand: deal, bids, call, tricks, points."""
    from arena.results.replay import render_game
    from arena.results.store import Store

    try:
        with Store.open(directory, readonly=True) as store:
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
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except sqlite3.Error as exc:
        raise _fail(f"{str(directory)!r}: the results database cannot be read: {exc}") from None
    try:
        text = render_game(data)
    except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
        where = f"game {data['game_id']} in {str(directory)!r}"
        raise _fail(f"{where} is damaged (cannot render it: {exc!r})") from None
    typer.echo(text, nl=False)


@app.command()
def report(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="the HTML file (default DIR/report.html)"
    ),
) -> None:
    """One self-contained HTML page of the event (leaderboard, rating plot, head to head, per-entrant
    figures, faults, and every game as a visual replay); it works offline, from a USB stick or a web page."""
    from arena.report import build_report

    try:
        built = build_report(directory, output)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot write the report: {exc}") from None
    size = built.size / 1e6
    typer.echo(f"report: {built.path} ({size:.1f} MB, {built.games} games, {built.seconds:.1f} s)")


@app.command()
def games(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    entrant: str | None = typer.Option(None, "--entrant", "-e", help="only games this entrant played"),
    as_csv: bool = typer.Option(False, "--csv", help="print CSV (the columns of arena export's games.csv)"),
) -> None:
    """The played games in schedule order: number (for arena replay), id, seats with final scores (* won),
    hands, outcome and faults."""
    from arena.results import listings as views

    with _store(directory) as store:
        try:
            rows = views.games(store, entrant)
        except ConfigError as exc:
            raise _fail(str(exc)) from None
    if as_csv:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=views.GAME_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(views.game_row(g) for g in rows)
        typer.echo(out.getvalue(), nl=False)
    else:
        title = f"{directory}: {len(rows)} games" + (f" with {entrant}" if entrant else "")
        typer.echo(views.render_games(rows, title), nl=False)


@app.command()
def faults(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    entrant: str | None = typer.Option(None, "--entrant", "-e", help="only this entrant's faults"),
    kind: str | None = typer.Option(None, "--kind", "-k", help="only this kind (timeout, crashed ...)"),
    game: str | None = typer.Option(None, "--game", "-g", help="only this game (id or number)"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Every recorded fault: entrant, game, hand, kind and detail. Harness faults (the arena itself was late)
    are listed as not charged: they never count against the bot."""
    from arena.results import listings as views

    with _store(directory) as store:
        try:
            rows = views.faults(store, entrant, kind, game)
        except ConfigError as exc:
            raise _fail(str(exc)) from None
    if as_json:
        typer.echo(views.faults_json(rows))
    else:
        typer.echo(views.render_faults(rows, f"{directory}: {len(rows)} faults"), nl=False)


@app.command()
def export(
    directory: Path = typer.Argument(..., help="an event's output directory"),
    output: Path | None = typer.Option(None, "--output", "-o", help="where to write (default DIR/export)"),
) -> None:
    """Hand records as JSON Lines (hands.jsonl: one v1 record per line, docs/hand-record.md) and the games
    as CSV (games.csv, whose first_hand_line and hands columns say which lines are each game's)."""
    from arena.results import listings as views

    with _store(directory) as store:
        try:
            records, table, hands, played = views.export(store, output or directory / "export")
        except OSError as exc:
            raise _fail(f"cannot write the export: {exc}") from None
    typer.echo(f"{records} ({hands} hand records)\n{table} ({played} games)")


@contextmanager
def _store(directory: Path) -> Iterator[Any]:
    """The event's store for reading, or one clear line and exit 2."""
    from arena.results.store import Store

    try:
        store = Store.open(directory, create=False)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except sqlite3.DatabaseError as exc:
        raise _fail(f"{str(directory)!r}: cannot read {exc}") from None
    with store:
        yield store


@app.command("check-bot")
def check_bot(
    address: str = typer.Argument(..., help="HOST:PORT of a running bot, e.g. 127.0.0.1:50051"),
    games: int = typer.Option(1, "--games", min=1, help="games per variant option set"),
    decision_ms: int = typer.Option(1000, "--decision-ms", min=1, help="time per decision"),
) -> None:
    """Play some games of every variant the bot claims and report every violation; exit 0 pass, 1 fail."""
    from arena.conductor.checkbot import run_check

    report = run_check(address, games, decision_ms)
    typer.echo(report.render())
    raise typer.Exit(0 if report.passed else 1)


@app.command()
def version() -> None:
    """Print the arena's version and protocol version."""
    from arena.protocol import PROTOCOL_VERSION

    typer.echo(f"euchre-arena {__version__}, protocol v{PROTOCOL_VERSION}")


def main() -> None:  # pragma: no cover - console entry point
    app(prog_name="arena")


if __name__ == "__main__":  # pragma: no cover
    main()
