"""One small error hierarchy for the whole arena.

Callers catch what they can handle and nothing more: a referee catches ``RuleError`` from a bot's move,
the CLI catches ``ArenaError`` once (exit code 2 for the organiser's input: ``ConfigError`` and
``StoreError``; 1 for the rest), and a table records every ``DecisionFailed`` as a fault of its kind. A
foreign library's exceptions become ours at the one place that calls it (gRPC status codes become
``BotError`` in ``arena.players``, SQLite's errors ``StoreError`` in ``arena.results.database``). Every
message names the offending value with ``!r`` and its context.

Whose fault a failed decision was is the class, not a flag: ``BotError`` (the bot's, charged to it) and
``HarnessLate`` (the arena's own lateness, never charged) are siblings under ``DecisionFailed``, so code
that charges a ``BotError`` to the bot cannot catch the arena's lateness by accident. Bot faults are named
apart from the engine's errors: ``BotIllegalAction`` is a bot's illegal reply (a fault, like ``BotTimeout``
and ``BotCrashed``), ``IllegalActionError`` is a caller asking the rules engine for an illegal action (a
``RuleError``). ``IllegalAction``, the bot fault's old name, is kept as an alias (a bot author's import path).
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar


class ArenaError(Exception):
    """Root of every error the arena raises on purpose."""


class ConfigError(ArenaError, ValueError):
    """A configuration value is unknown or out of range; the message names the key and what is allowed."""


class StoreError(ArenaError):
    """An event's results cannot be read or written: not ours, damaged, truncated, read-only, disk full.

    The message names the file (and the damaged row), so the organiser knows what to move or restore.
    """


class RuleError(ArenaError, ValueError):
    """Something asked of the rules engine that the rules do not allow."""


class NotationError(RuleError):
    """A card or action string is not well formed (``"ZZ"``, ``"PLAY(XX)"``)."""


class IllegalActionError(RuleError):
    """A well-formed action that is not legal at this decision, asked of the rules engine (a caller's bug or
    bad input; a bot's illegal reply is ``BotIllegalAction``)."""


class DecisionFailed(ArenaError):
    """A decision the table asked a seat for and did not get: it plays a substitute and records a fault of
    ``kind``. The subclass says whose fault it was: ``BotError`` or ``HarnessLate``."""

    kind: ClassVar[FaultKind]


class BotError(DecisionFailed):
    """A bot misbehaved; subclasses say how. Charged to the bot: it counts towards forfeiting the game."""


class FaultKind(StrEnum):
    """What went wrong with a bot's decision; every recorded fault has exactly one kind."""

    TIMEOUT = "timeout"  # no reply within the decision time plus what was left of the time bank
    ILLEGAL_ACTION = "illegal_action"  # a well-formed action that is not legal at this decision
    MALFORMED_REPLY = "malformed_reply"  # a reply that is not a decodable action, or unsolicited messages
    CRASHED = "crashed"  # the bot's process is gone or unreachable (UNAVAILABLE, connection refused)
    ERROR_STATUS = "error_status"  # the bot ended the stream with an error status
    OVERSIZED = "oversized"  # a message above the size limit (RESOURCE_EXHAUSTED)
    STREAM_CLOSED = "stream_closed"  # the bot closed the stream before the game ended
    PROTOCOL_MISMATCH = "protocol_mismatch"  # the handshake named another protocol version
    HARNESS = "harness"  # the arena itself was late (overloaded); never counted against the bot


class BotTimeout(BotError):
    kind = FaultKind.TIMEOUT


class BotIllegalAction(BotError):
    """The bot replied with a well-formed action that is not legal at this decision (its fault; compare
    ``IllegalActionError``, an illegal action asked of the engine by the arena's own code)."""

    kind = FaultKind.ILLEGAL_ACTION


IllegalAction = BotIllegalAction
"""The old name of ``BotIllegalAction``, kept for bot authors' imports (the same class)."""


class MalformedAction(BotError):
    kind = FaultKind.MALFORMED_REPLY


class BotCrashed(BotError):
    kind = FaultKind.CRASHED


class BotStatusError(BotError):
    kind = FaultKind.ERROR_STATUS


class OversizedMessage(BotError):
    kind = FaultKind.OVERSIZED


class StreamClosed(BotError):
    kind = FaultKind.STREAM_CLOSED


class ProtocolMismatch(BotError):
    kind = FaultKind.PROTOCOL_MISMATCH


class HarnessLate(DecisionFailed):
    """Not the bot's fault: the arena's own event loop was too busy to hear the reply in time (or the arena
    failed talking to the seat). Recorded, never charged: it is not a ``BotError``."""

    kind = FaultKind.HARNESS
