"""The collusion check's second test, on the sides of each hand, for a pair weak apart and strong together.

Two honest bots far weaker than the rest gain at the same table (about 0.2 points per hand each in the
bench's ``weakpair`` field), and from the games' scores alone that is the shape of a colluding pair that
plays well only together: the strength interaction the model fits cannot tell them apart
(docs/ranking.md, "Collusion"). The hands can. Each stored hand record says who made trump, who was the
maker's partner and who sat out, so each table-mate of an entrant was on its *side* of the hand, on the
*other* side, or on none (a thrown-in hand, a lone maker's partner). Per seated entrant and hand,

    points of i in the hand = θ_i + Σ_{j at i's table} φ_j^{side of j to i}

where φ_j^same is what j does to the points of whoever is on its side, φ_j^other to its opponents. The
honest weak pair's gain lives in the sides: given them, two weak bots score *less* together than the
model says (the bench's ``weakpair``, 14 events of 1,000 games: joint −0.08 to −0.14 points per hand,
z −3.4 to −6.3), while a pair that plays well together gains on either side (``Together``, 8 events of 300
games: +0.89 to +0.99, z 16 to 18). (Presumably, not measured: a bot that makes trump at random feeds
whoever defends against it, and a bot that seldom makes trump itself loses no good bids to it.)

``test`` gives a pair's three one-sided tests (a with b, b with a, both) as gains, standard errors
clustered by the independent unit, and z-scores: a Wald test of two more columns (a's rows whose table
held b, b's likewise), fitted beside the model. ``arena.stats.collusion`` asks it only of a pair that the
strength interaction rests on (``Design.effects``), and flags such a pair only when both tests say so
(the larger of the two p-values): the games' test alone cannot tell it from two honest weak bots.

A pure function of arrays; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

HandSides = tuple[int, int, int, tuple[float, ...]]
"""One hand as the store's hand record holds it: the maker's seat, the partner's and the seat sitting out
(-1: none; a maker of -1 is a thrown-in hand), and each seat's points."""


def hand_sides(record: Mapping[str, Any]) -> HandSides:
    """A stored hand record's sides and points (``HandSides``; docs/hand-record.md).

    :raises TypeError, KeyError, ValueError: a record without them, or of the wrong shape.
    """
    maker, partner, out = (
        -1 if record[k] is None else int(record[k]) for k in ("maker", "partner", "sitting_out")
    )
    return maker, partner, out, tuple(float(v) for v in record["points"])


SAME, OTHER, NO_SIDE = 1, 2, 3
"""A table-mate's relation to an entrant in one hand (0: not at the table)."""


@dataclass(frozen=True, slots=True)
class SidedTest:
    """One pair's figures on the sides of its hands: the gains (a with b, b with a, both), their standard
    errors and z-scores, and the hands they rest on."""

    gain: tuple[float, float, float]
    se: tuple[float, float, float]
    z: tuple[float, float, float]
    hands: int


class Sides:
    """Every seated entrant's points in every hand of the games, with each table-mate's side, and the
    sided additive model's fixed part (``test`` adds a pair's two columns). Each row has at most five
    columns (its entrant's θ and one φ per table-mate), kept as indices: a field of 30 entrants over
    thousands of games stays a few arrays of the rows' length."""

    def __init__(
        self,
        n: int,
        entrant: np.ndarray,
        relation: np.ndarray,
        y: np.ndarray,
        cluster: np.ndarray,
    ) -> None:
        self.n, self.entrant, self.relation, self.y = n, entrant, relation, y
        self.cluster = cluster
        self.units = int(cluster.max()) + 1
        self.p = 4 * n  # θ, then φ for the same side, the other side, no side
        mates = [np.flatnonzero(r) for r in relation]
        width = 1 + max((len(m) for m in mates), default=0)
        cols = np.full((len(y), width), -1, dtype=np.int64)
        cols[:, 0] = entrant
        for row, m in enumerate(mates):
            cols[row, 1 : 1 + len(m)] = m + n * relation[row, m].astype(np.int64)
        self.cols, self.valid = cols, cols >= 0
        self.btb = np.zeros((self.p, self.p))
        self.bty = np.zeros(self.p)
        for c in range(width):
            ok = self.valid[:, c]
            np.add.at(self.bty, cols[ok, c], y[ok])
            for d in range(width):
                both = ok & self.valid[:, d]
                np.add.at(self.btb, (cols[both, c], cols[both, d]), 1.0)
        self._tested: dict[tuple[int, int], SidedTest | None] = {}

    @classmethod
    def of(
        cls,
        seated: Sequence[tuple[int, list[tuple[int, int]], int]],
        hands: Mapping[int, Sequence[HandSides]],
        n: int,
    ) -> Sides | None:
        """The rows of ``seated`` games: (game number, its (seat, entrant) pairs that count, cluster), with
        ``hands`` by game number; None when no game has its hands."""
        entrant: list[int] = []
        relation: list[np.ndarray] = []
        y: list[float] = []
        cluster: list[int] = []
        for number, seats, unit in seated:
            for maker, partner, out, points in hands.get(number, ()):
                making = {maker, partner} - {-1}
                for seat, i in seats:
                    rel = np.zeros(n, dtype=np.int8)
                    for other, j in seats:
                        if other == seat:
                            continue
                        if maker < 0 or out in (seat, other):
                            rel[j] = NO_SIDE
                        else:
                            rel[j] = SAME if (seat in making) == (other in making) else OTHER
                    entrant.append(i)
                    relation.append(rel)
                    y.append(float(points[seat]))
                    cluster.append(unit)
        if not y:
            return None
        return cls(n, np.array(entrant), np.array(relation), np.array(y), np.array(cluster))

    def test(self, a: int, b: int) -> SidedTest | None:
        """The pair's gains given the sides: a Wald test of its two columns fitted beside the sided model,
        the variance a sandwich clustered by the independent unit; the joint gain is the two gains'
        mean weighted by their hands. None where the columns are empty or no variation is left. (The
        step-down asks again after each flag; the answer does not change: the flagged pairs' columns are
        not in this model.)"""
        if (a, b) not in self._tested:
            self._tested[a, b] = self._test(a, b)
        return self._tested[a, b]

    def _test(self, a: int, b: int) -> SidedTest | None:
        za = (self.entrant == a) & (self.relation[:, b] > 0)
        zb = (self.entrant == b) & (self.relation[:, a] > 0)
        wa, wb = float(za.sum()), float(zb.sum())
        if wa == 0 or wb == 0:
            return None
        p, cols, valid = self.p, self.cols, self.valid
        btz = np.zeros((p, 2))
        for k, z in enumerate((za, zb)):
            for c in range(cols.shape[1]):
                ok = z & valid[:, c]
                np.add.at(btz[:, k], cols[ok, c], 1.0)
        xtx = np.block([[self.btb, btz], [btz.T, np.diag([wa, wb])]])
        xty = np.concatenate([self.bty, [float(self.y[za].sum()), float(self.y[zb].sum())]])
        pinv = np.linalg.pinv(xtx, rcond=1e-10, hermitian=True)
        beta = pinv @ xty
        fit = (
            np.where(valid, beta[np.where(valid, cols, 0)], 0.0).sum(axis=1) + beta[p] * za + beta[p + 1] * zb
        )
        residual = self.y - fit
        sums = np.zeros((self.units, p + 2))  # per cluster: Σ x e over its rows, for the sandwich
        for c in range(cols.shape[1]):
            ok = valid[:, c]
            np.add.at(sums, (self.cluster[ok], cols[ok, c]), residual[ok])
        sums[:, p] = np.bincount(self.cluster[za], weights=residual[za], minlength=self.units)
        sums[:, p + 1] = np.bincount(self.cluster[zb], weights=residual[zb], minlength=self.units)
        u = sums @ pinv[p:].T  # each cluster's part of the two gains
        cov = u.T @ u * self.units / max(self.units - 1, 1)
        weights = np.array([wa, wb]) / (wa + wb)
        gains = (float(beta[p]), float(beta[p + 1]), float(weights @ beta[p:]))
        ses = (
            math.sqrt(max(float(cov[0, 0]), 0.0)),
            math.sqrt(max(float(cov[1, 1]), 0.0)),
            math.sqrt(max(float(weights @ cov @ weights), 0.0)),
        )
        if min(ses) <= 1e-9:
            return None
        zs = (gains[0] / ses[0], gains[1] / ses[1], gains[2] / ses[2])
        return SidedTest(gains, ses, zs, int(wa + wb))


class LazySides:
    """``Sides.of`` the event's hands, built when a pair first asks for its test: most events have no pair
    that the strength interaction rests on, and their check then reads no hand at all (``hands`` may be a
    function that reads them from the store)."""

    def __init__(
        self,
        seated: Sequence[tuple[str, list[tuple[int, int]], int]],
        hands: Mapping[str, Sequence[HandSides]] | Callable[[], Mapping[str, Sequence[HandSides]]],
        n: int,
    ) -> None:
        self.seated, self.hands, self.n = seated, hands, n
        self._sides: Sides | None = None
        self._built = False

    def test(self, a: int, b: int) -> SidedTest | None:
        """``Sides.test``, or None when no game has its hands."""
        if not self._built:
            found = self.hands() if callable(self.hands) else self.hands
            numbered = [(k, seats, unit) for k, (_, seats, unit) in enumerate(self.seated)]
            by_number = {
                k: found[game_id] for k, (game_id, _, _) in enumerate(self.seated) if game_id in found
            }
            self._sides, self._built = Sides.of(numbered, by_number, self.n), True
        return None if self._sides is None else self._sides.test(a, b)
