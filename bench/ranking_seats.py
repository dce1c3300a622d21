"""Does a seat and table-mate model pay? A linear model of each seat's points per hand, by least squares.

Usage::

    python bench/ranking.py --events E --games G --fields ladder --save runs.pkl     # play once
    python bench/ranking_seats.py --load runs.pkl [--games G] [--events E]

The model: points per hand of entrant i in seat s of game g = θ_i + β_s + δ_out(g) + noise, with β the seat
effects (sum to zero) and δ the effect of who sits out of the table (fields with more entrants than seats;
with five entrants on five seats every table is the same). Each score is corrected by the fitted seat and
table-mate part, times the game's hands: points − hands × (β_s + δ_out(g) − the mean δ over the tables i
can sit at), which keeps every entrant's expectation (each sits in every seat and beside every other
equally often over the schedule's rounds), so the gaps keep theirs.

Why the fit is *predictable*: the verdicts' boundaries (arena.stats.sequential) assume independent units with
a variance estimated as it goes. A correction fitted on the same games would make every unit depend on all
the others (and the estimated variance too small: the fit absorbs noise). So the coefficients that correct
unit u are fitted on the units before u only (refitted every ``REFIT`` units, none before ``WARMUP``): the
corrected units are then a martingale difference sequence around the gaps, which is what a confidence
sequence with a variance estimated as it goes needs. The in-sample fit (every unit corrected by
coefficients fitted on all of them) is printed beside it as the optimistic bound, not as a valid method.

Printed per field and mode: the variance of the true order's adjacent gaps × games (as bench/ranking.py
and bench/control_variate.py print it) for the plain score, the predictable correction, the in-sample one,
the paired score (duplicate), and the gain as effective games; and the statistics' CPU per game.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))

from control_variate import gap_variances
from ranking_fields import FIELDS, SEATS, names, saved_events

from arena.stats.rating import RatedGame

WARMUP = 20
"""Units played before the first correction (the fit needs some games to mean anything)."""
REFIT = 10
"""Units between refits of the predictable coefficients."""


def units_of(games: Sequence[RatedGame]) -> list[list[RatedGame]]:
    """The games cut into the independent units (a duplicate block's games together), in schedule order."""
    out: list[list[RatedGame]] = []
    for g in games:
        key = g.block or g.game_id
        if out and (out[-1][0].block or out[-1][0].game_id) == key:
            out[-1].append(g)
        else:
            out.append([g])
    return out


class SeatModel:
    """The normal equations of the linear model, summed game by game; ``effects`` solves them."""

    def __init__(self, entrants: Sequence[str], seats: int) -> None:
        self.index = {n: i for i, n in enumerate(entrants)}
        self.k, self.seats = len(entrants), seats
        self.tables = self.k > seats  # who sits out varies
        width = self.k + seats + (self.k if self.tables else 0)
        self.xtx = np.zeros((width, width))
        self.xty = np.zeros(width)

    def _out(self, game: RatedGame) -> int | None:
        if not self.tables:
            return None
        missing = set(self.index) - set(game.seats)
        return self.index[min(missing)] if len(missing) == 1 else None

    def add(self, game: RatedGame) -> None:
        hands = max(game.hands, 1)
        out = self._out(game)
        for s, (name, score) in enumerate(zip(game.seats, game.scores, strict=True)):
            x = np.zeros(self.xty.size)
            x[self.index[name]] = 1
            x[self.k + s] = 1
            if out is not None:
                x[self.k + self.seats + out] = 1
            self.xtx += np.outer(x, x)
            self.xty += x * (score / hands)

    def effects(self) -> tuple[np.ndarray, np.ndarray]:
        """Seat effects (mean zero) and sit-out effects (mean zero; empty without them), by least squares
        (minimum norm: the model's constants are not identified, only the contrasts used)."""
        beta = np.linalg.pinv(self.xtx) @ self.xty
        seat = beta[self.k : self.k + self.seats]
        sit = beta[self.k + self.seats :]
        return seat - seat.mean(), sit - sit.mean() if sit.size else sit

    def correct(self, game: RatedGame, seat: np.ndarray, sit: np.ndarray) -> RatedGame:
        """The game with every score less the model's seat and table-mate part (in points)."""
        out = self._out(game)
        scores = []
        for s, (name, score) in enumerate(zip(game.seats, game.scores, strict=True)):
            part = seat[s]
            if out is not None and sit.size:
                me = self.index[name]
                others = [j for j in range(self.k) if j != me]
                part += sit[out] - float(np.mean(sit[others]))
            scores.append(score - game.hands * part)
        return replace(game, scores=tuple(scores))  # type: ignore[arg-type]


def predictable(games: Sequence[RatedGame], entrants: Sequence[str]) -> list[RatedGame]:
    """Every unit corrected by coefficients fitted on the units before it only."""
    model = SeatModel(entrants, SEATS)
    out: list[RatedGame] = []
    seat = sit = None
    for u, unit in enumerate(units_of(games)):
        if u >= WARMUP and (seat is None or u % REFIT == 0):
            seat, sit = model.effects()
        for g in unit:
            out.append(g if seat is None or sit is None else model.correct(g, seat, sit))
        for g in unit:
            model.add(g)
    return out


def in_sample(games: Sequence[RatedGame], entrants: Sequence[str]) -> list[RatedGame]:
    """Every game corrected by coefficients fitted on all of them (optimistic; not valid for the verdicts)."""
    model = SeatModel(entrants, SEATS)
    for g in games:
        model.add(g)
    seat, sit = model.effects()
    return [model.correct(g, seat, sit) for g in games]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=Path, required=True, help="a bench/ranking.py --save file")
    parser.add_argument("--games", type=int, default=1000, help="games per event to use (default 1000)")
    parser.add_argument("--events", type=int, default=20, help="events per field and mode (default 20)")
    args = parser.parse_args(argv)
    groups = saved_events(args.load, args.games, args.events)
    for fld in FIELDS:
        for mode in ("plain", "duplicate"):
            events = groups.get((fld, mode))
            if not events:
                continue
            pairs = len(FIELDS[fld]) - 1
            sums: dict[str, list[float]] = defaultdict(lambda: [0.0] * pairs)  # noqa: B023
            started = time.process_time()
            n_games = 0
            for event in events:
                entrants = names(fld)
                n_games += len(event.games)
                fixed = predictable(event.games, entrants)
                rows = {
                    "points": gap_variances(fld, event.games, "points"),
                    "points, predictable fit": gap_variances(fld, fixed, "points"),
                    "points, in-sample fit": gap_variances(fld, in_sample(event.games, entrants), "points"),
                }
                if mode == "duplicate":
                    rows["paired"] = gap_variances(fld, event.games, "paired")
                    rows["paired, predictable fit"] = gap_variances(fld, fixed, "paired")
                for key, values in rows.items():
                    sums[key] = [a + b / len(events) for a, b in zip(sums[key], values, strict=True)]
            spent = time.process_time() - started
            base = sum(sums["points"])
            print(f"\n=== {fld}, {mode}: {len(events)} events x {len(events[0].games)} games ===")
            for key, values in sums.items():
                print(
                    f"    {key:<24} {', '.join(f'{v:.3f}' for v in values)}; "
                    f"effective games x{base / sum(values):.3f} against points"
                )
            print(f"    statistics (all rows above): {spent / n_games * 1000:.2f} ms CPU per game")


if __name__ == "__main__":
    main()
