"""Learned bidding: the champion's ``bidding = "learned"`` option, a linear model per variant and decision.

Each model predicts the *advantage* of acting over passing at one bidding decision of one seat, in the
champion's utility (its points minus the others' mean; classic: its team's minus the other team's), from
``features.inputs`` (hand strength with the candidate trump, the up-card's gift, the position after the
dealer). It was fitted by ``bench/train_bidding.py`` to the exact value of each option on real deals:
every option tried on the deal as dealt, the rest of the hand played by rules players, so the hidden
cards are drawn from what the earlier bids really imply (README of the weights: ``bidding.md``).

Play needs numpy only: a dot product per candidate. A configuration the weights do not cover (say
Call-Ace with 7 players) gets ``None`` from ``decide``, and the caller falls back to its own search.

The package's other model, ``inference``, guesses where the hidden cards are (the bots' ``guesses =
"learned"`` setting; its weights' card is ``inference.md``).
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
from sample_bots.learned.features import NUM_INPUTS, inputs
from sample_bots.policy import Seen
from sample_bots.policy.bidding import Style, call

WEIGHTS = Path(__file__).with_name("bidding.npz")
"""The shipped weights (made as ``bidding.md`` says)."""

IGNORED = ("target", "max_hands", "first_dealer", "tiebreak")
"""Rule options that do not change a single hand, so one model serves all their values."""

NO_ALONE = Style(alone_ca=99.0, alone_other=99.0)
"""The rules player that never goes alone: its call is the alternative to ALONE."""


def config_key(config: GameConfig) -> str:
    """The weights' name for a configuration: its options that shape a hand, as sorted JSON."""
    data = {k: v for k, v in config.to_dict().items() if k not in IGNORED}
    return json.dumps(data, sort_keys=True)


class Model:
    """One (configuration, decision kind)'s weights: ``advantage = w . (x - mean) / scale``."""

    def __init__(self, w: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> None:
        if w.shape != (NUM_INPUTS,) or mean.shape != (NUM_INPUTS,) or scale.shape != (NUM_INPUTS,):
            raise ValueError(f"weights of shape {w.shape}, expected ({NUM_INPUTS},)")
        self.w, self.mean, self.scale = w, mean, scale

    def advantage(self, row: list[float]) -> float:
        x = (np.asarray(row, dtype=np.float64) - self.mean) / self.scale
        return float(x @ self.w)


class Bidder:
    """The models of one weights file, keyed by ``(config_key, kind)``."""

    def __init__(self, models: dict[tuple[str, str], Model]) -> None:
        self.models = models

    @classmethod
    def load(cls, path: Path | str) -> Bidder:
        models: dict[tuple[str, str], Model] = {}
        with np.load(path) as data:
            keys = json.loads(str(data["keys"]))
            for i, (config, kind) in enumerate(keys):
                models[(config, kind)] = Model(data[f"w{i}"], data[f"mean{i}"], data[f"scale{i}"])
        return cls(models)

    def save(self, path: Path | str) -> None:
        arrays: dict[str, np.ndarray] = {}
        keys = []
        for i, ((config, kind), model) in enumerate(sorted(self.models.items())):
            keys.append([config, kind])
            arrays[f"w{i}"], arrays[f"mean{i}"], arrays[f"scale{i}"] = model.w, model.mean, model.scale
        np.savez_compressed(path, keys=np.array(json.dumps(keys)), **arrays)  # type: ignore[arg-type]

    def covers(self, config: GameConfig) -> bool:
        key = config_key(config)
        return all((key, kind) in self.models for kind in ("bid1", "bid2", "alone"))

    def scores(self, k: Seen) -> dict[int, float] | None:
        """The model's advantage of each option it prices at ``k``, against the alternative at 0.0 (round
        1: accepting the up-card, passing 0; round 2: each suit, passing 0; the call: ALONE, every other
        call 0), or ``None`` where it does not decide: another kind of decision, a configuration it was not
        fitted for, No-Trumps on offer."""
        key = config_key(k.config)
        if k.phase == P_BID1:
            model = self.models.get((key, "bid1"))
            accept = A.TAKE_UP if A.TAKE_UP in k.legal else A.ORDER_UP
            if model is None or accept not in k.legal or A.PASS not in k.legal:
                return None
            return {accept: model.advantage(inputs(k, k.proposed)), A.PASS: 0.0}
        if k.phase == P_BID2:
            model = self.models.get((key, "bid2"))
            names = [a for a in k.legal if A.NAME_BASE <= a < A.NAME_BASE + 4]
            if model is None or not names or A.NAME_BASE + NO_TRUMP in k.legal:
                return None
            out = {a: model.advantage(inputs(k, a - A.NAME_BASE)) for a in names}
            if A.PASS in k.legal:
                out[A.PASS] = 0.0
            return out
        if k.phase == P_CALL:
            model = self.models.get((key, "alone"))
            if model is None or A.ALONE not in k.legal or len(k.legal) < 2:
                return None
            return {A.ALONE: model.advantage(inputs(k, k.trump))}
        return None

    def decide(self, k: Seen) -> int | None:
        """The learned action at ``k`` (one of ``k.legal``), or ``None`` where the model does not decide
        (``scores``). Round 2's ties go to the lowest suit, and a pass wins a tie with a suit; at the
        call, declining ALONE is the rules player's call without ALONE."""
        scored = self.scores(k)
        if scored is None:
            return None
        if k.phase == P_CALL:
            if scored[A.ALONE] > 0:
                return A.ALONE
            fallback = call(k, NO_ALONE)
            return fallback if fallback != A.ALONE and fallback in k.legal else None
        return max(scored, key=lambda a: (scored[a], a == A.PASS, -a))


@lru_cache(maxsize=4)
def shipped(path: str = str(WEIGHTS)) -> Bidder:
    """The weights at ``path`` (default: the shipped ones), loaded once per process."""
    return Bidder.load(path)


__all__ = ["WEIGHTS", "Bidder", "Model", "config_key", "shipped"]
