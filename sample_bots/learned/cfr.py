"""Bidding by regret minimisation: the average strategy of Monte-Carlo CFR over a small abstraction of the
bidding information sets (the champion's ``bidding = "cfr"`` option; trained by ``bench/cfr_bidding.py``,
figures in ``bidding.md``, section "Regret minimisation over the bidding (CFR)").

**The abstraction.** A bidding decision is one of three kinds, each a choice between two actions:

- round 1: pass (0) or accept the up-card (1: ``ORDER_UP``, the dealer's ``TAKE_UP``);
- round 2: pass (0) or name the best suit by the rules player's estimate (1: ``best_named_suit``);
- the call, once trump is made: the rules player's call without ALONE (0) or ``ALONE`` (1).

Its information set is the kind, the seat's position after the dealer, a bucket of the hand's strength
with the option's trump (the rules player's own estimates: ``order_up_tricks`` in round 1, which counts
the up-card's gift and the dealer's pick-up, ``hand_tricks`` otherwise, in steps of ``STEP`` tricks), and
in round 1 whether another suit is better by ``WAIT_MARGIN`` (the rules player's reason to wait for round
2); the call also knows the round trump was made in. Everything before a decision is implied by it
(bidding ends at the first bid, so a seat deciding has seen every earlier seat pass), and every other
choice (the suit the stuck dealer names, the discard, the card called, the blind Five-handed choices)
stays the rules player's. 625 information sets in all (``coarse``, ``NUM_INFOSETS``). The shipped table is
over a finer abstraction (``fine``: round 1 split by the trumps and bowers too, 2,625 sets; ``SPLITS``),
which measured better (``bidding.md``).

Play needs numpy only: an index into a table of average-strategy probabilities. An information set seen
fewer than ``min_visits`` times in training gets the rules player's action; a configuration the table was
not trained for gets ``None`` from ``decide`` (the champion falls back to its rollouts).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from arena.engine import actions as A
from arena.engine.cards import NO_TRUMP
from arena.engine.config import GameConfig
from arena.engine.state import P_BID1, P_BID2, P_CALL
from sample_bots.learned import NO_ALONE, config_key
from sample_bots.learned.features import bid_features
from sample_bots.policy import Seen, choose
from sample_bots.policy.bidding import best_named_suit, call, hand_tricks

CFR_WEIGHTS = Path(__file__).with_name("cfr.npz")
"""The shipped table (made as ``bidding.md`` says)."""

STEP = 0.25
"""Width of a strength bucket, in expected tricks."""
BUCKETS = 25
"""Strength buckets: ``[0, STEP)``, ..., the last one open above (6 tricks and more)."""
POSITIONS = 5
"""Positions after the dealer (Five-handed: 0 bids first, 4 is the dealer)."""
WAIT_MARGIN = 0.3
"""Round 1: another suit is better by this much (``Style.wait_margin``, the rules player's)."""

BID1, BID2, ALONE = "bid1", "bid2", "alone"
SPLITS = {"coarse": 1, "fine": 9}
"""Abstractions: how many parts each round-1 information set is split into. ``coarse``: none; ``fine`` (the
shipped table): by the trumps the seat would hold (one or fewer, two, three or more) and the bowers among
them (none, one, both), nine parts."""


def layout(abstraction: str) -> tuple[dict[str, int], int]:
    """Where each decision kind's information sets start, and how many there are in all: round 1
    position x wait x bucket x split, round 2 position x bucket, the call round x position x bucket
    (``coarse``: 250 + 125 + 250 = 625; ``fine``: 2,250 + 125 + 250 = 2,625)."""
    split = SPLITS[abstraction]
    bid1 = POSITIONS * 2 * BUCKETS * split
    offsets = {BID1: 0, BID2: bid1, ALONE: bid1 + POSITIONS * BUCKETS}
    return offsets, offsets[ALONE] + 2 * POSITIONS * BUCKETS


OFFSETS, NUM_INFOSETS = layout("coarse")


def bucket(strength: float) -> int:
    return min(max(int(strength / STEP), 0), BUCKETS - 1)


def infoset(k: Seen, abstraction: str = "coarse") -> tuple[int, tuple[int, int]] | None:
    """The information set of the decision ``k`` and its two concrete actions (pass or decline, act), or
    ``None`` where the abstraction has no decision: one legal action, the stuck dealer, No-Trumps on
    offer, a call with no alternative to ALONE, a table other than five seats."""
    if k.n != POSITIONS or len(k.legal) < 2:
        return None
    offsets = layout(abstraction)[0]
    place = (k.seat - k.dealer - 1) % k.n
    if k.phase == P_BID1:
        accept = A.TAKE_UP if A.TAKE_UP in k.legal else A.ORDER_UP
        if accept not in k.legal or A.PASS not in k.legal:
            return None
        # order_up_tricks, the trumps and bowers after the dealer's pick-up, best_other_suit:
        _, strength, trumps, right, left, *_, other, _, _ = bid_features(k, k.proposed)
        wait = int(k.seat != k.dealer and other >= strength + WAIT_MARGIN)
        index = (place * 2 + wait) * BUCKETS + bucket(strength)
        if abstraction == "fine":
            index = index * 9 + min(max(int(trumps) - 1, 0), 2) * 3 + min(int(right + left), 2)
        return offsets[BID1] + index, (A.PASS, accept)
    if k.phase == P_BID2:
        if A.PASS not in k.legal or A.NAME_BASE + NO_TRUMP in k.legal:
            return None
        best, value = best_named_suit(k)
        if best < 0:
            return None
        return offsets[BID2] + place * BUCKETS + bucket(value), (A.PASS, best)
    if k.phase == P_CALL:
        if A.ALONE not in k.legal:
            return None
        other_call = call(k, NO_ALONE)
        if other_call == A.ALONE or other_call not in k.legal:
            return None
        round_2 = int(k.turned_down >= 0)
        strength = hand_tricks(list(k.hand or []), k.trump, k.config)
        index = (round_2 * POSITIONS + place) * BUCKETS + bucket(strength)
        return offsets[ALONE] + index, (other_call, A.ALONE)
    return None


def describe(index: int, abstraction: str = "coarse") -> str:
    """An information set's index in words (for the training report)."""
    offsets, split = layout(abstraction)[0], SPLITS[abstraction]
    if index < offsets[BID2]:
        coarse, part = divmod(index, split)
        place, rest = divmod(coarse, 2 * BUCKETS)
        wait, b = divmod(rest, BUCKETS)
        out = f"round 1, position {place}{', another suit better' if wait else ''}, {b * STEP:.2f}+ tricks"
        if split > 1:
            trumps, bowers = divmod(part, 3)
            out += f", {('<= 1', '2', '3+')[trumps]} trumps, {bowers} bowers"
        return out
    if index < offsets[ALONE]:
        place, b = divmod(index - offsets[BID2], BUCKETS)
        return f"round 2, position {place}, {b * STEP:.2f}+ tricks"
    rnd, rest = divmod(index - offsets[ALONE], POSITIONS * BUCKETS)
    place, b = divmod(rest, BUCKETS)
    return f"alone after round {rnd + 1}, position {place}, {b * STEP:.2f}+ tricks"


class CfrBidder:
    """A table of average-strategy probabilities of acting (action 1), with the visit counts of training.

    ``mode`` is how ``decide`` reads it: ``"argmax"`` (the default: act where the average strategy acts
    with probability above one half) or ``"sample"`` (act with that probability, from ``rng``).
    ``abstraction`` is the one it was trained over (``SPLITS``)."""

    def __init__(
        self,
        key: str,
        act: np.ndarray,
        visits: np.ndarray,
        min_visits: int = 1,
        mode: str = "argmax",
        seed: int | None = None,
        abstraction: str = "coarse",
    ) -> None:
        size = layout(abstraction)[1]
        if act.shape != (size,) or visits.shape != (size,):
            raise ValueError(f"tables of shape {act.shape}, {visits.shape}, expected ({size},)")
        if mode not in ("argmax", "sample"):
            raise ValueError(f"mode {mode!r}: expected argmax or sample")
        self.key, self.act, self.visits = key, act, visits
        self.min_visits, self.mode, self.abstraction = min_visits, mode, abstraction
        self.rng = np.random.default_rng(seed)

    @classmethod
    def load(cls, path: Path | str, mode: str = "argmax", seed: int | None = None) -> CfrBidder:
        with np.load(path) as data:
            key = json.loads(str(data["key"]))
            abstraction = str(data["abstraction"]) if "abstraction" in data else "coarse"
            min_visits = int(data["min_visits"])
            return cls(key, data["act"], data["visits"], min_visits, mode, seed, abstraction)

    def save(self, path: Path | str) -> None:
        np.savez_compressed(
            path,
            key=np.array(json.dumps(self.key)),
            act=self.act,
            visits=self.visits,
            min_visits=np.array(self.min_visits),
            abstraction=np.array(self.abstraction),
        )

    def covers(self, config: GameConfig) -> bool:
        return config_key(config) == self.key

    def probability(self, k: Seen) -> float | None:
        """The average strategy's probability of acting at ``k``, or ``None`` where the table does not
        decide (no decision in the abstraction, another configuration, too few visits)."""
        if config_key(k.config) != self.key:
            return None
        found = infoset(k, self.abstraction)
        if found is None or self.visits[found[0]] < self.min_visits:
            return None
        return float(self.act[found[0]])

    def decide(self, k: Seen) -> int | None:
        """The table's action at ``k`` (one of ``k.legal``); the rules player's where the abstraction has
        no decision or the information set was seldom visited (the stuck dealer's suit, say); ``None``
        outside the bidding or in a configuration the table was not trained for."""
        if k.phase not in (P_BID1, P_BID2, P_CALL) or config_key(k.config) != self.key:
            return None
        found = infoset(k, self.abstraction)
        p = self.probability(k)
        if found is None or p is None:
            return choose(k) if len(k.legal) > 1 else k.legal[0]
        acts = p > 0.5 if self.mode == "argmax" else bool(self.rng.random() < p)
        return found[1][int(acts)]


@lru_cache(maxsize=4)
def shipped_cfr(path: str = str(CFR_WEIGHTS)) -> CfrBidder:
    """The table at ``path`` (default: the shipped one), loaded once per process (argmax)."""
    return CfrBidder.load(path)


__all__ = [
    "CFR_WEIGHTS",
    "NUM_INFOSETS",
    "SPLITS",
    "CfrBidder",
    "describe",
    "infoset",
    "layout",
    "shipped_cfr",
]
