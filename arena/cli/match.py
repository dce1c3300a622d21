"""``arena match``: an A/B test of two strategies on the same deals, stopped by an SPRT."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from arena.cli.app import app, echo, one_line_errors
from arena.protocol import loops

if TYPE_CHECKING:
    from arena.stats.sprt import SprtState

DEFAULT_VARIANT = "five-handed"


@app.command()
def match(
    candidate: str = typer.Argument(
        ..., help="the strategy to test: package.module:Class, HOST:PORT, or a command containing {port}"
    ),
    baseline: str = typer.Argument(..., help="the strategy to beat, in the same forms"),
    field: list[str] | None = typer.Option(
        None, "--field", help="a bot for the other seats (repeat to mix; default the sample rules bot)"
    ),
    variant: str = typer.Option(
        DEFAULT_VARIANT,
        help="call-ace, five-handed or classic, with its default options (the default is the "
        "variant of the README's example event and of arena demo)",
    ),
    seed: int = typer.Option(1, min=0, max=2**63 - 1, help="fixes every deal"),
    h0: float = typer.Option(0.0, help="H0: the candidate's edge in points per hand is this"),
    h1: float = typer.Option(0.1, help="H1: ... or this (must exceed --h0)"),
    alpha: float = typer.Option(0.05, help="chance of accepting H1 when H0 holds"),
    beta: float = typer.Option(0.05, help="chance of accepting H0 when H1 holds"),
    max_deals: int = typer.Option(
        500, help="budget: deals (each played 2 x seats games); at least the test's first look, 10"
    ),
    output: str = typer.Option("results/match", help="where the match is stored (and resumed from)"),
    concurrency: int = typer.Option(4, min=1, max=256, help="games at once"),
    decision_ms: int = typer.Option(1000, min=1, help="time per decision"),
    sandbox: str = typer.Option(
        "bubblewrap", help="how launched (command) bots are confined: bubblewrap or none"
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="print only the result"),
) -> None:
    """A/B test of two bots on the same deals, stopped by an SPRT.

    CANDIDATE and BASELINE play the same deals from the same seats against the same field, until a
    sequential test (SPRT) on the per-deal differences decides or the budget is spent.

    Exit code: 0 H1 accepted, 1 H0 accepted, 3 undecided."""
    from arena.conductor.match import MatchSettings, run_match
    from arena.event.config import output_path
    from arena.stats.sprt import SprtResult, SprtSettings

    with one_line_errors():
        settings = MatchSettings(
            candidate,
            baseline,
            tuple(field or ["sample_bots.rules:RulesBot"]),
            {"variant": variant},
            seed,
            output_path(output),
            SprtSettings(h0, h1, alpha, beta),
            max_deals=max_deals,
            concurrency=concurrency,
            decision_ms=decision_ms,
            sandbox=sandbox,
        )
        settings.event_config()  # every spec and the variant checked before anything starts
        loops.loop_choice()

    if not quiet:
        for line in settings.describe():
            echo(line)

    def on_look(state: SprtState) -> None:
        if not quiet:
            typer.echo(state.line())

    try:
        with one_line_errors():
            result = loops.run(run_match(settings, on_look=on_look))
    except KeyboardInterrupt:
        typer.echo(
            f"\ninterrupted: finished games are stored in {output}; run the same command to resume", err=True
        )
        raise typer.Exit(130) from None
    typer.echo(settings.render(result.state))
    echo(f"{result.games} games stored in {output} (arena leaderboard {output})")
    raise typer.Exit({SprtResult.H1: 0, SprtResult.H0: 1}.get(result.state.result, 3))
