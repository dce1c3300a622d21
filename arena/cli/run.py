"""``arena run`` and ``arena demo``: run (or resume) an event with a progress bar, then print its leaderboard,
its schedule's spread and where its results and report are."""

from __future__ import annotations

import asyncio
import shutil
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from arena.cli.app import app, echo, one_line_errors
from arena.protocol import loops

if TYPE_CHECKING:  # imported when a command runs, so that `arena --help` starts quickly
    from arena.cli.progress import Every
    from arena.conductor.tournament import EventSummary
    from arena.event.config import TournamentConfig


# `run` and `demo` report progress alike: each option declared once.
PROGRESS_EVERY: str = typer.Option(
    "10s",
    "--progress-every",
    help="when the output is not a terminal (a log, CI): a progress line every this many seconds (10s) "
    "or games (50); 0: none",
)
STANDINGS_EVERY: int = typer.Option(
    0,
    "--standings-every",
    min=0,
    help="print the standings every this many games (0: only at the end; one is skipped while the "
    "last is still being computed)",
)


@app.command()
def run(
    config: Path = typer.Argument(..., help="tournament config (TOML); see docs/config.md"),
    seed: int | None = typer.Option(None, help="override the config's seed"),
    rounds: int | None = typer.Option(None, help="override the number of rounds"),
    concurrency: int | None = typer.Option(None, help="override how many games run at once"),
    # Text, not Path: typer would turn an empty --output into Path("."), the working directory itself.
    output: str | None = typer.Option(None, help="override the output directory"),
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
    progress_every: str = PROGRESS_EVERY,
    standings_every: int = STANDINGS_EVERY,
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
    """Run a tournament, or resume it where it stopped.

    Games already stored in the output directory are not played again; the leaderboard, the schedule and
    the HTML report follow at the end."""
    from arena.cli.progress import Every
    from arena.event.config import TLS_KEYS, load_config, parse_executor

    with one_line_errors():
        every = Every.parse(progress_every)
        cfg = load_config(config)
        spec = None
        if executor or workers is not None or scheduler:  # --workers 0 is checked, as in the file
            flags: dict[str, Any] = {"kind": executor or "dask", "workers": workers}
            if scheduler:
                flags["scheduler_file" if Path(scheduler).is_file() else "scheduler"] = scheduler
                # the file's certificates, for the flags' cluster
                flags |= {k: v for k in TLS_KEYS if (v := getattr(cfg.executor, k)) is not None}
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
        loops.loop_choice()  # ARENA_LOOP, checked before anything starts
    exposed = cfg.exposed_to_fixed_key()
    if exposed:
        typer.echo(
            f"warning: deal_key is fixed and {', '.join(exposed)} {'is' if len(exposed) == 1 else 'are'} not "
            "trusted code: whoever learns the key can compute every deal; fix it only for experiments",
            err=True,
        )
    run_and_print(
        cfg, quiet, strict=strict, until_settled=until_settled, every=every, standings_every=standings_every
    )


@app.command()
def demo(
    rounds: int = typer.Option(30, help="rounds (one table of five per round)"),
    output: str = typer.Option("results/demo", help="output directory (replaced if it holds a demo)"),
    concurrency: int = typer.Option(4, help="games at once"),
    decision_ms: int = typer.Option(400, help="time per decision"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
    progress_every: str = PROGRESS_EVERY,
    standings_every: int = STANDINGS_EVERY,
) -> None:
    """A ready event: the sample bots play five-handed Euchre.

    They are launched as real gRPC processes, as an event's bots are. They run in the bubblewrap sandbox
    where it works; elsewhere (macOS, a container without user namespaces, bubblewrap not installed) the
    demo runs them unsandboxed, since they are our own, and says so.
    """
    from arena.cli.progress import Every
    from arena.event.config import parse_config
    from arena.sandbox import bubblewrap_problem

    with one_line_errors():
        every = Every.parse(progress_every)
        loops.loop_choice()  # ARENA_LOOP, checked before anything is said or started
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
    with one_line_errors():
        cfg = parse_config(
            {
                "name": "demo",
                "seed": 2026,
                "rounds": rounds,
                "concurrency": concurrency,
                "output": output,
                "game": {"variant": "five-handed"},
                "faults": {"decision_ms": decision_ms},
                "entrant": entrants,
                "sandbox": "none" if problem else "bubblewrap",
            }
        )
    run_and_print(cfg, quiet, start_over=True, every=every, standings_every=standings_every)


def run_and_print(
    cfg: TournamentConfig,
    quiet: bool,
    start_over: bool = False,
    strict: bool = False,
    until_settled: bool = False,
    every: Every | None = None,
    standings_every: int = 0,
) -> None:
    """Run the event with a progress bar, then print the leaderboard, the schedule and where things are.

    SIGTERM (what service managers and ``kill`` send) stops the event exactly like Ctrl-C: the event is
    cancelled, which stops every bot and keeps every finished game; exit 143 (130 for Ctrl-C). Its handler is
    the loop's own, not a wrapper of asyncio's SIGINT handler, because asyncio installs none when the arena
    was started with SIGINT ignored (``arena run ... &`` from a script, ``nohup``).
    """
    from arena.cli.progress import TerminalProgress
    from arena.conductor.tournament import run_event

    progress = TerminalProgress(cfg.name, str(cfg.output), quiet, every, standings_every)
    terminated: list[int] = []

    async def main() -> EventSummary:
        loop = asyncio.get_running_loop()
        event = asyncio.current_task()
        assert event is not None

        def on_sigterm() -> None:
            terminated.append(signal.SIGTERM)
            event.cancel()

        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
        try:
            return await run_event(
                cfg, progress, start_over=start_over, strict=strict, until_settled=until_settled
            )
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    try:
        with one_line_errors():
            try:
                summary = loops.run(main())
            finally:
                progress.stop()
    except (KeyboardInterrupt, asyncio.CancelledError) as stop:
        if isinstance(stop, asyncio.CancelledError) and not terminated:
            raise  # cancelled by something else than our SIGTERM handler: not ours to explain
        how = "terminated (SIGTERM)" if terminated else "interrupted"
        typer.echo(
            f"\n{how}: finished games are stored in {cfg.output}; run the same command to resume", err=True
        )
        raise typer.Exit(128 + signal.SIGTERM if terminated else 130) from None
    _print_summary(cfg, summary)
    _write_report(cfg.output)
    if summary.launched and set(summary.launched) <= set(summary.never_up):
        # Not a success: every seat of a launched entrant was the autopilot's. Exit 1, not 2: the config was
        # good and the games are stored (the event resumes once the bots start), but no contest took place.
        echo(
            f"error: no launched entrant came up ({', '.join(summary.launched)}): their seats were played by "
            "the autopilot; see the warnings above (arena run --strict refuses such an event at once)",
            err=True,
        )
        raise typer.Exit(1)


def _print_summary(cfg: TournamentConfig, summary: EventSummary) -> None:
    from arena.conductor.tournament import Stopped
    from arena.event.schedule import schedule_spread
    from arena.results.listings import render_table
    from arena.results.queries import Queries
    from arena.stats.leaderboard import Leaderboard

    board = Leaderboard(summary.standings, summary.confidence)
    title = f"{cfg.name}: {summary.games_total} games, {cfg.game.variant.value}"
    source = str(cfg.source) if cfg.source is not None else None
    typer.echo(render_table(board, title, max_games=cfg.ranking.max_games, config=source))
    if summary.stopped is Stopped.SETTLED:
        echo(f"until-settled: {cfg.ranking.question()} after {summary.games_total} games")
    elif summary.stopped is Stopped.BUDGET:
        still = ", ".join(f"{p.upper} / {p.lower}" for p in summary.confidence.open_pairs())
        echo(
            f"until-settled: budget of {cfg.ranking.max_games} games spent ({summary.games_total} played) "
            f"before {cfg.ranking.question()}" + (f"; neighbour pairs still open: {still}" if still else "")
        )
    with one_line_errors(), Queries.open(cfg.output) as store:
        schedule = store.schedule()  # as played: --until-settled may have grown it
    spread = schedule_spread(schedule, [e.name for e in cfg.entrants], cfg.game.team_play)
    echo(f"schedule: {spread.render()}")
    echo(f"results: {cfg.output} (arena leaderboard {cfg.output}; arena replay {cfg.output} GAME)")


def _write_report(directory: Path) -> None:
    """The HTML report at the end of an event; a failure to write it is reported, not fatal (the results
    are stored, and ``arena report`` can write it again)."""
    from arena.errors import ArenaError
    from arena.report import build_report

    try:
        built = build_report(Path(directory))
    except (ArenaError, OSError) as exc:
        echo(f"warning: no HTML report: {exc}", err=True)
        return
    # The organiser's copy is readable by its owner only (it shows the bots' logs, which may hold what their
    # authors keep to themselves): say at once how to make the copy to share, as the README's "Publish".
    public = f"{Path(directory).name}-public.html"
    echo(f"report: {built.path} (one file: open it in a browser)")
    echo("only you can read it, as it shows the bots' logs; the copy to share, without:")
    typer.echo(f"  arena report {directory} --public -o {public}")  # whole, to copy: never wrapped
