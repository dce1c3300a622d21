"""Where each entrant's true rank lies, for every entrant at once: rank ranges from all pairs, and tiers.

A leaderboard built from neighbours alone cannot name the winner of a large field: a chain of neighbour
pairs that are each still open joins the whole field into one shared place, however far apart its ends
are. Here every pair speaks. Each ordered pair (i, j) is the hypothesis "i is not better than j"; it is
rejected (i is *shown* better than j) when its standardised gap clears a critical value, and the critical
values come from a step-down over all pairs at once (Holm's; Mogstad, Romano, Shaikh and Wilhelm,
"Inference for Ranks with Applications to Mobility across Neighbourhoods and Academic Achievement across
Countries", Review of Economic Studies 2024, section 3, who use the max-t form of the same step-down):

1. I = every ordered pair; with m = |I|, each pair of I is tested at α/m (one-sided);
2. every pair of I that clears it is shown; drop them from I; repeat with the smaller m until none clears.

The chance that *any* pair is shown in the wrong order is at most α (a closed test with Bonferroni
intersection tests: Holm 1979). Entrant i's rank then lies in

    [1 + #{j shown better than i},  N − #{j shown worse than i}]

for every entrant jointly with probability at least 1 − α: the simultaneous rank ranges of Mogstad et al.
Why Holm's critical values and not the max-t quantile: for a round robin the pairs' gaps are nearly
exchangeable, and the max-t critical value is within 0.1 standard errors of Holm's for 12 to 30 entrants
(the studentised range: 3.27 against 3.37 for 12, 3.82 against 3.86 for 30), while Holm needs no
simulation, so a look stays exact, deterministic and cheap (docs/ranking.md).

**Repeated looks.** Each pair's test at level α/m is the group-sequential test of the neighbour verdicts
(arena.stats.sequential: the planned looks' boundary, or the confidence sequence) at that level, and a
pair once shown stays shown at later looks: the Bonferroni-based closed test with group-sequential local
tests (Maurer and Bretz, Statistics in Biopharmaceutical Research 2013), so the ranges hold at every
planned look at once, as the neighbour verdicts do.

**Few units.** The standard errors are estimated from the units themselves; in a duplicate event the
first look rests on 20 blocks. Each boundary is therefore moved from the normal to Student's t with
``units − 1`` degrees of freedom at the same tail probability (``t_boundary``).

**Tiers.** The order is cut between places p and p + 1 when every entrant above is shown better than every
entrant below; the runs between cuts are the tiers. The winner is named when one entrant alone may be
first (every other entrant is shown below someone).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

_NORMAL = NormalDist()
MIN_DF = 9
"""No pair is shown on a variance from fewer than ten units in which both entrants played (as
arena.stats.sequential.MIN_UNITS for the neighbours)."""


def t_boundary(z: float, df: float) -> float:
    """The point of Student's t with ``df`` degrees of freedom whose two-sided tail equals the normal's
    beyond ``z`` (a boundary in standard errors moved to an estimated variance). Cornish-Fisher (Hill
    1970): within 0.01 of the exact quantile from 8 degrees of freedom at the tails used here."""
    if not math.isfinite(z) or df <= 0 or math.isinf(df):
        return z
    return float(t_boundaries(z, np.asarray([df], dtype=float))[0])


def t_boundaries(z: float, df: np.ndarray) -> np.ndarray:
    """``t_boundary`` for many degrees of freedom at once (a step of the step-down moves every remaining
    pair's boundary); ``df`` not positive or infinite: ``z`` itself."""
    df = np.asarray(df, dtype=float)
    if not math.isfinite(z):
        return np.full(df.shape, z)
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    ok = (df > 0) & np.isfinite(df)
    d = np.where(ok, df, 1.0)
    return np.where(ok, z + g1 / d + g2 / d**2 + g3 / d**3 + g4 / d**4, z)


@dataclass(frozen=True, slots=True)
class Ranks:
    """The rank ranges of the printed order (1-based, inclusive), the pairs shown ordered (as index pairs
    of the order, upper first) and the tiers (1-based, one per entrant)."""

    ranges: tuple[tuple[int, int], ...]
    shown: frozenset[tuple[int, int]]
    tiers: tuple[int, ...]
    rated: int  # the first ``rated`` of the order are ranked by the games, the rest after them by rule

    def may_be_first(self) -> list[int]:
        """The entrants (indices of the order) that no one is shown better than."""
        return [i for i, (lo, _) in enumerate(self.ranges) if lo == 1]

    def cut_after(self, p: int) -> bool:
        """The first ``p`` entrants are a tier or tiers of their own: each is shown better than every rated
        entrant after them (or those after are placed after them by rule)."""
        return 0 < p < len(self.tiers) and self.tiers[p - 1] != self.tiers[p]


def step_down(
    gaps: np.ndarray,
    ses: np.ndarray,
    rated: Sequence[int],
    critical: Callable[[float], float],
    df: np.ndarray | None = None,
) -> set[tuple[int, int]]:
    """The pairs (i, j) of ``rated`` shown "i better than j" by Holm's step-down: ``gaps[i, j]`` is i's
    score minus j's, ``ses[i, j]`` its standard error, ``critical(a)`` the normal boundary (in standard
    errors) of a one-sided test at level ``a``, moved to Student's t with ``df[i, j]`` degrees of freedom
    for the pair (the units its variance rests on, less one; none: normal). Pairs without a measured
    spread, or with fewer than ``MIN_DF`` degrees of freedom, are never shown."""
    idx = np.asarray(list(rated), dtype=int)
    if idx.size < 2:
        return set()
    sub = np.ix_(idx, idx)
    g, se = np.asarray(gaps, dtype=float)[sub], np.asarray(ses, dtype=float)[sub]
    ok = (se > 0) & np.isfinite(se) & np.isfinite(g) & ~np.eye(idx.size, dtype=bool)
    if df is not None:
        few = np.asarray(df, dtype=float)[sub] < MIN_DF
        ok &= ~few
    stat = np.where(ok, g / np.where(ok, se, 1.0), -math.inf)
    remaining = ~np.eye(idx.size, dtype=bool)
    shown = np.zeros_like(remaining)
    pair_df = None if df is None else np.asarray(df, dtype=float)[sub]
    while remaining.any():
        c = critical(1 / int(remaining.sum()))
        bound = np.full(stat.shape, c) if pair_df is None else t_boundaries(c, pair_df)
        new = remaining & (stat > bound)
        if not new.any():
            break
        shown |= new
        remaining &= ~new
    return {(int(idx[a]), int(idx[b])) for a, b in zip(*np.nonzero(shown), strict=True)}


def rank_ranges(k: int, rated: Sequence[int], shown: set[tuple[int, int]]) -> Ranks:
    """Ranges and tiers of an order of ``k`` entrants of which ``rated`` (the first ones, in order) are
    ranked by the games; the others (disqualified, or without a game) come after them by rule and share
    the places after the rated ones."""
    r = len(rated)
    ranges: list[tuple[int, int]] = []
    for i in range(k):
        if i < r:
            above = sum((j, i) in shown for j in range(r))
            below = sum((i, j) in shown for j in range(r))
            ranges.append((1 + above, r - below))
        else:
            ranges.append((r + 1, k))
    lone = [i for i in range(r) if ranges[i][0] == 1]
    if len(lone) == 1:  # every other entrant is below someone, so this one is first
        ranges[lone[0]] = (1, 1)
    tiers: list[int] = []
    tier = 1
    for i in range(k):
        if i and (i == r or (i < r and all((a, b) in shown for a in range(i) for b in range(i, r)))):
            tier += 1
        tiers.append(tier)
    return Ranks(tuple(ranges), frozenset(shown), tuple(tiers), r)
