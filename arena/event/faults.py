"""The fault policy: what a misbehaving bot costs, in one frozen value with documented defaults.

Defaults (each overridable in the tournament config, section ``[faults]``):

=========================  ========  =========================================================================
setting                    default   meaning
=========================  ========  =========================================================================
``decision_ms``            1000      time for one decision, from request sent to reply received
``time_bank_ms``           0         extra time per game a seat may draw on once over ``decision_ms``
``max_faults_per_game``    3         a seat with more faults than this in one game forfeits it
``forfeit_result``         "loss"    "loss": the forfeiter ranks last and the game is rated;
                                     "void": the game is not rated for anyone (it is still stored)
``disqualify_share``       0.5       an entrant that forfeits more than this share of its games ...
``disqualify_min_games``   4         ... once it has played at least this many, is disqualified
``restart_backoff_s``      0.5       first wait before restarting a crashed managed bot; doubles per crash
``restart_backoff_max_s``  30        ... up to this
=========================  ========  =========================================================================

Every fault plays a substitute legal action drawn from a generator seeded by the game's seed, so the same
faults give the same game. A forfeiter's seat is played by that same generator to the end of the game (the
autopilot), so the game still completes for everyone else. Harness faults (the arena itself was late) are
recorded but never counted against a bot.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from arena.errors import ConfigError
from arena.players.process import RestartBackoff


@dataclass(frozen=True, slots=True)
class FaultPolicy:
    decision_ms: int = 1000
    time_bank_ms: int = 0
    max_faults_per_game: int = 3
    forfeit_result: str = "loss"
    disqualify_share: float = 0.5
    disqualify_min_games: int = 4
    restart_backoff_s: float = 0.5
    restart_backoff_max_s: float = 30.0

    def __post_init__(self) -> None:
        for name, lo, hi in (
            ("decision_ms", 1, 600_000),
            ("time_bank_ms", 0, 3_600_000),
            ("max_faults_per_game", 0, 1_000_000),
            ("disqualify_min_games", 1, 1_000_000),
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ConfigError(f"faults.{name}={value!r}: expected an integer {lo}..{hi}")
        if self.forfeit_result not in ("loss", "void"):
            raise ConfigError(f"faults.forfeit_result={self.forfeit_result!r}: expected 'loss' or 'void'")
        if not isinstance(self.disqualify_share, int | float) or not 0 < self.disqualify_share <= 1:
            raise ConfigError(
                f"faults.disqualify_share={self.disqualify_share!r}: expected a number in (0, 1]"
            )
        for name in ("restart_backoff_s", "restart_backoff_max_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 3600:
                raise ConfigError(f"faults.{name}={value!r}: expected a number of seconds 0..3600")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultPolicy:
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ConfigError(f"unknown key faults.{key}: allowed keys are {', '.join(sorted(known))}")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def restart(self) -> RestartBackoff:
        """The waits before a crashed launched bot's restarts."""
        return RestartBackoff(self.restart_backoff_s, self.restart_backoff_max_s)

    def backoff_s(self, crashes: int) -> float:
        """How long to wait before restart number ``crashes`` (1-based) of a managed bot."""
        return self.restart.delay_s(crashes)
