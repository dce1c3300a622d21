"""Two entrants over the games they shared: wins, losses and draws, and the chess testers' figures of them.

Readers who know cutechess-cli or fastchess look for "W-L-D", an Elo difference with its ± error and the
LOS (likelihood of superiority) next to a pair. A five-handed game is not a match between two, so here a
*win* of A over B is a game in which A finished above B, a *loss* one in which it finished below, a *draw*
one in which they shared a place; each shared game counts once for the pair, as if it were a game between
the two. The figures are the testers' (pentanomial-free, game by game):

* score ``s = (W + D/2) / N``; Elo difference ``-400 · log10(1/s − 1)``;
* its ± error: the Elo of ``s ± 1.96 · sd / √N``, halved across (``sd``: the per-game score's standard
  deviation), so it is the half-width of a 95% interval, as cutechess prints it;
* ``LOS = Φ((W − L) / √(W + L))``: draws tell nothing of who is better and are left out.

These are for comparison with those tools only: they ignore the other seats at the table and the margins,
so the leaderboard's order and its verdicts stay with points per hand (arena.stats.confidence).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class PairRecord:
    """A's record against B over the games they shared (``wins``: A finished above B)."""

    a: str
    b: str
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def flipped(self) -> PairRecord:
        """The same games from B's side."""
        return PairRecord(self.b, self.a, self.losses, self.wins, self.draws)

    def wld(self) -> str:
        """``"3-1-1"``: wins, losses, draws, as the chess testers print them."""
        return f"{self.wins}-{self.losses}-{self.draws}"


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """An Elo-style difference with the half-width of its 95% interval, and the LOS.

    ``elo`` is None when every game was won (or lost): the difference is then unbounded, as the testers'
    "inf"; ``error`` is None where the interval reaches that far or there is no spread; ``los`` is None
    without games.
    """

    elo: float | None
    error: float | None
    los: float | None


def elo_of(score: float) -> float | None:
    """The Elo difference of an expected score in (0, 1); None outside it."""
    if not 0.0 < score < 1.0:
        return None
    return -400.0 * math.log10(1.0 / score - 1.0)


def los(wins: int, losses: int) -> float | None:
    """Likelihood of superiority: Φ((W − L)/√(W + L)); 0.5 when no shared game was decided."""
    decisive = wins + losses
    if decisive == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * decisive)))


def elo_estimate(record: PairRecord) -> EloEstimate:
    """The testers' Elo ± error and LOS of ``record`` (see the module's docstring)."""
    n = record.games
    if n == 0:
        return EloEstimate(None, None, None)
    score = (record.wins + record.draws / 2) / n
    variance = (
        record.wins * (1.0 - score) ** 2 + record.losses * score**2 + record.draws * (0.5 - score) ** 2
    ) / n
    elo = elo_of(score)
    error = None
    if elo is not None and variance > 0:
        half = Z95 * math.sqrt(variance / n)
        lo, hi = elo_of(score - half), elo_of(score + half)
        if lo is not None and hi is not None:
            error = (hi - lo) / 2
    return EloEstimate(elo, error, los(record.wins, record.losses))


def head_to_head(
    games: Iterable[tuple[Sequence[str], Sequence[int]]], order: Sequence[str]
) -> dict[tuple[str, str], PairRecord]:
    """Every pair's record over ``games`` (each: the seats' entrants and their final ranks, 1 best), keyed
    ``(a, b)`` with ``a`` the earlier of the two in ``order`` (entrants not in it after, by name). A game
    with one entrant in two seats does not count for that entrant against itself."""
    place = {name: i for i, name in enumerate(order)}
    counts: dict[tuple[str, str], list[int]] = {}
    for seats, ranks in games:
        for i in range(len(seats)):
            for j in range(i + 1, len(seats)):
                a, b, ra, rb = seats[i], seats[j], ranks[i], ranks[j]
                if a == b:
                    continue
                if (place.get(a, len(place)), a) > (place.get(b, len(place)), b):
                    a, b, ra, rb = b, a, rb, ra
                c = counts.setdefault((a, b), [0, 0, 0])
                c[0 if ra < rb else 1 if rb < ra else 2] += 1
    return {key: PairRecord(key[0], key[1], *c) for key, c in counts.items()}


def record_of(pairs: Mapping[tuple[str, str], PairRecord], a: str, b: str) -> PairRecord:
    """A's record against B, whichever way round ``pairs`` keeps it (an empty record if they never met)."""
    if (a, b) in pairs:
        return pairs[a, b]
    if (b, a) in pairs:
        return pairs[b, a].flipped()
    return PairRecord(a, b)
