"""The fault policy: what a misbehaving bot costs, in one frozen value with documented defaults.

Each setting is declared once, on its field below (check, default, one-line doc; ``arena/options.py``), and
overridable in the tournament config's ``[faults]`` section; docs/config.md explains them at length.

Every fault plays a substitute legal action drawn from a generator seeded by the game's seed, so the same
faults give the same game. A forfeiter's seat is played by that same generator to the end of the game (the
autopilot), so the game still completes for everyone else. Harness faults (the arena itself was late) are
recorded but never counted against a bot.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena import options
from arena.options import OneOf, Range, option
from arena.players.process import RestartBackoff


class ForfeitResult(StrEnum):
    """What a forfeited game counts for (``[faults] forfeit_result``)."""

    LOSS = "loss"  # rated, with the forfeiter last
    VOID = "void"  # not rated for anyone; still stored


_SECONDS = Range(0, 3600, "a number of seconds", integer=False)


@dataclass(frozen=True, slots=True)
class FaultPolicy:
    """What a misbehaving bot costs; the ``[faults]`` section."""

    decision_ms: int = option(1000, Range(1, 600_000), "time for one decision, from request to reply")
    time_bank_ms: int = option(0, Range(0, 3_600_000), "extra time per game, drawn on once over decision_ms")
    max_faults_per_game: int = option(3, Range(0, 1_000_000), "more faults than this in one game forfeit it")
    forfeit_result: ForfeitResult = option(
        ForfeitResult.LOSS, OneOf(ForfeitResult, "either"), "what a forfeited game counts for"
    )
    disqualify_share: float = option(
        0.5, Range(0, 1, "a number", integer=False, open_lo=True), "forfeiting more than this share ..."
    )
    disqualify_min_games: int = option(4, Range(1, 1_000_000), "... of at least this many games disqualifies")
    restart_backoff_s: float = option(0.5, _SECONDS, "first wait before restarting a crashed launched bot")
    restart_backoff_max_s: float = option(30.0, _SECONDS, "... doubling per crash up to this")

    def __post_init__(self) -> None:
        options.settle(self, "faults")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultPolicy:
        """The ``[faults]`` table.

        :raises ConfigError: an unknown key or a bad value.
        """
        options.reject_unknown(data, sorted(options.keys(cls)), "faults")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return options.to_dict(self)

    @property
    def restart(self) -> RestartBackoff:
        """The waits before a crashed launched bot's restarts."""
        return RestartBackoff(self.restart_backoff_s, self.restart_backoff_max_s)

    def backoff_s(self, crashes: int) -> float:
        """How long to wait before restart number ``crashes`` (1-based) of a managed bot."""
        return self.restart.delay_s(crashes)
