"""An event's games summed into units, kept up to date game by game.

The unit is what is independent: a game, or in a duplicate event a deal block (its games share cards). Each
unit contributes one row per statistic (points, hands, ranks, games, paired and centred points) per entrant.
``Tally`` keeps running sums of those rows and of their cross-products, which is all the ranking's scores
and the covariance of any two of them need: a look at the order after ``n`` games costs the same whether the
event is 50 or 5,000 games long, so ``--until-settled`` never re-reads the event from its first game. The
rows themselves are kept only when asked (``keep_rows``): the leaderboard's bootstrap intervals need them,
a look does not.

Why a delta-method covariance rather than the bootstrap's spread for the pairs: a ranking score is a ratio
(points over hands); linearised, unit ``u`` moves entrant ``i``'s score by ``(p_iu - s_i h_iu) / H_i``, and
the sum of products of those over units, times n/(n-1), is the covariance the bootstrap estimates (the two
agree to within the bootstrap's own noise; tests/stats/test_confidence.py), exactly and without resampling.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.stats.rating import RatedGame

KEYS = ("points", "hands", "ranks", "games", "paired", "paired_hands", "centred")
SCORES = {
    "points": ("points", "hands"),
    "paired": ("paired", "paired_hands"),
    "centred": ("centred", "hands"),
}
"""Each ranking score as (numerator, denominator) rows."""


@dataclass(frozen=True, slots=True)
class Units:
    """The event cut into independent units (games, or duplicate blocks), one row per unit, one column per
    entrant: the sums each statistic needs, so a bootstrap replicate is one weighted sum of rows."""

    names: tuple[str, ...]
    duplicate: bool
    points: np.ndarray
    hands: np.ndarray
    ranks: np.ndarray
    games: np.ndarray
    paired: np.ndarray  # score minus the mean of the same seat over the block's games (duplicate)
    paired_hands: np.ndarray  # hands of the games that have a pair in their block
    centred: np.ndarray  # score minus the mean score of its table
    n_games: int = 0

    @property
    def count(self) -> int:
        return int(self.points.shape[0])


@dataclass
class Totals:
    """Running sums of one score's rows: numerators, denominators and their cross-products."""

    k: int
    n: int = 0
    num: np.ndarray = field(init=False)
    den: np.ndarray = field(init=False)
    nn: np.ndarray = field(init=False)
    nd: np.ndarray = field(init=False)
    dd: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.num, self.den = np.zeros(self.k), np.zeros(self.k)
        self.nn, self.nd, self.dd = (np.zeros((self.k, self.k)) for _ in range(3))

    def add(self, num: np.ndarray, den: np.ndarray) -> None:
        self.n += 1
        self.num += num
        self.den += den
        self.nn += np.outer(num, num)
        self.nd += np.outer(num, den)
        self.dd += np.outer(den, den)

    def scores(self) -> np.ndarray:
        """Each entrant's score (NaN without a denominator)."""
        out = np.full(self.k, np.nan)
        np.divide(self.num, self.den, out=out, where=self.den > 0)
        return out

    def covariance(self) -> np.ndarray:
        """The (delta-method) covariance matrix of the scores; NaN where a score is missing or n < 2."""
        s = self.scores()
        if self.n < 2:
            return np.full((self.k, self.k), np.nan)
        safe = np.where(np.isnan(s), 0.0, s)
        raw = self.nn - self.nd * safe[None, :] - self.nd.T * safe[:, None] + np.outer(safe, safe) * self.dd
        scale = np.where(self.den > 0, self.den, np.nan)
        return raw / np.outer(scale, scale) * (self.n / (self.n - 1))


class Tally:
    """The units of an event, summed as its games arrive in schedule order.

    A block with more than one game makes the event duplicate; a block's games are consecutive in schedule
    order, so one block is held open at a time and closed when the next begins (or by ``close``, which a
    look calls: looks come after whole rounds, so the block is complete).

    Void games and the seats the autopilot played for a disqualified entrant count for nobody. A forfeit
    counts as a game played for no points (what the autopilot scored after it is not the entrant's), so
    forfeiting costs in points as it costs in rank.
    """

    def __init__(self, names: Sequence[str], keep_rows: bool = False) -> None:
        self.names = tuple(names)
        self.index = {name: i for i, name in enumerate(self.names)}
        k = len(self.names)
        self.totals = {method: Totals(k) for method in SCORES}
        self.rank_sum, self.game_sum = np.zeros(k), np.zeros(k)
        self.unit_sum = np.zeros(k)  # units in which each entrant played: what its variance rests on
        self.rows: dict[str, list[np.ndarray]] | None = {key: [] for key in KEYS} if keep_rows else None
        self.n_games = 0
        self.duplicate = False
        self.last_seq = -1
        self._group: list[RatedGame] = []

    @property
    def count(self) -> int:
        """Units closed so far."""
        return self.totals["points"].n

    def add(self, games: Iterable[RatedGame]) -> Tally:
        for game in games:
            assert game.seq > self.last_seq, f"game {game.game_id} (seq {game.seq}) after seq {self.last_seq}"
            self.last_seq = game.seq
            if not game.rated:
                continue
            first = self._group[0] if self._group else None
            if first is not None and (game.block or game.game_id) != (first.block or first.game_id):
                self.close()
            self._group.append(game)
        return self

    def close(self) -> Tally:
        """Close the open block (its games are all in)."""
        group = self._group
        if not group:
            return self
        k = len(self.names)
        row = {key: np.zeros(k) for key in KEYS}
        n_seats = len(group[0].seats)
        effective = [
            [0 if name in g.forfeited else score for name, score in zip(g.seats, g.scores, strict=True)]
            for g in group
        ]
        seat_mean = [sum(scores[s] for scores in effective) / len(group) for s in range(n_seats)]
        for game, scores in zip(group, effective, strict=True):
            table_mean = sum(scores) / len(scores)
            for seat, name in enumerate(game.seats):
                if name in game.excluded or name not in self.index:
                    continue
                e = self.index[name]
                row["points"][e] += scores[seat]
                row["hands"][e] += game.hands
                row["ranks"][e] += game.ranks[seat]
                row["games"][e] += 1
                row["centred"][e] += scores[seat] - table_mean
                if len(group) > 1:
                    row["paired"][e] += scores[seat] - seat_mean[seat]
                    row["paired_hands"][e] += game.hands
        for method, (num, den) in SCORES.items():
            self.totals[method].add(row[num], row[den])
        self.rank_sum += row["ranks"]
        self.game_sum += row["games"]
        self.unit_sum += row["games"] > 0
        if self.rows is not None:
            for key in KEYS:
                self.rows[key].append(row[key])
        self.n_games += len(group)
        self.duplicate = self.duplicate or len(group) > 1
        self._group = []
        return self

    def state(self) -> dict[str, Any]:
        """The running sums as JSON's lists and numbers (a float's ``repr`` reads back as the same float), for
        a closed Tally made without rows: what the competition server's board keeps across a restart, so
        that it does not sum every stored game again (``arena.server.ladder.ratings``)."""
        assert self.rows is None and not self._group, "only a closed Tally without rows is kept"
        return {
            "names": list(self.names),
            "n_games": self.n_games,
            "duplicate": self.duplicate,
            "last_seq": self.last_seq,
            "sums": {
                "rank": self.rank_sum.tolist(),
                "game": self.game_sum.tolist(),
                "unit": self.unit_sum.tolist(),
            },
            "totals": {
                method: [t.n, t.num.tolist(), t.den.tolist(), t.nn.tolist(), t.nd.tolist(), t.dd.tolist()]
                for method, t in self.totals.items()
            },
        }

    @classmethod
    def restore(cls, state: dict[str, Any]) -> Tally:
        """The Tally whose ``state()`` this is: further games add to it exactly as to the original.

        :raises KeyError, TypeError, ValueError: not a state ``state()`` wrote.
        """
        tally = cls([str(n) for n in state["names"]])
        k = len(tally.names)

        def vector(values: Any) -> np.ndarray:
            out = np.array(values, dtype=float)
            if out.shape != (k,):
                raise ValueError("a sum of another field")
            return out

        def matrix(values: Any) -> np.ndarray:
            out = np.array(values, dtype=float)
            if out.shape != (k, k):
                raise ValueError("a sum of another field")
            return out

        tally.n_games, tally.duplicate = int(state["n_games"]), bool(state["duplicate"])
        tally.last_seq = int(state["last_seq"])
        sums = state["sums"]
        tally.rank_sum, tally.game_sum, tally.unit_sum = (
            vector(sums[key]) for key in ("rank", "game", "unit")
        )
        for method in SCORES:
            n, num, den, nn, nd, dd = state["totals"][method]
            totals = tally.totals[method]
            totals.n, totals.num, totals.den = int(n), vector(num), vector(den)
            totals.nn, totals.nd, totals.dd = matrix(nn), matrix(nd), matrix(dd)
        return tally

    def units(self) -> Units:
        """The rows as arrays (``keep_rows`` only), for the bootstrap."""
        assert self.rows is not None, "a Tally made without keep_rows has no rows"
        k = len(self.names)
        arrays = {key: np.array(v, dtype=float).reshape(len(v), k) for key, v in self.rows.items()}
        return Units(self.names, self.duplicate, n_games=self.n_games, **arrays)


def collect(games: Iterable[RatedGame], names: Sequence[str]) -> Units:
    """Sum the rated games, in schedule order, into units (rows kept, for the bootstrap)."""
    return Tally(names, keep_rows=True).add(games).close().units()


def tally_of(units: Units) -> Tally:
    """The running sums of units already collected, added in their order (so the figures are exactly those
    a Tally fed game by game would give)."""
    tally = Tally(units.names)
    for u in range(units.count):
        for method, (num, den) in SCORES.items():
            tally.totals[method].add(getattr(units, num)[u], getattr(units, den)[u])
        tally.rank_sum += units.ranks[u]
        tally.game_sum += units.games[u]
        tally.unit_sum += units.games[u] > 0
    tally.n_games, tally.duplicate = units.n_games, units.duplicate
    return tally
