"""One small error hierarchy for the whole arena.

Callers catch what they can handle and nothing more: a referee catches ``RuleError`` from a bot's move,
the CLI turns ``ConfigError`` into exit code 2, and the fault policy maps ``BotError`` subclasses to fault
kinds. Every message names the offending value with ``!r`` and its context.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Root of every error the arena raises on purpose."""


class ConfigError(ArenaError, ValueError):
    """A configuration value is unknown or out of range; the message names the key and what is allowed."""


class RuleError(ArenaError, ValueError):
    """Something asked of the rules engine that the rules do not allow."""


class NotationError(RuleError):
    """A card or action string is not well formed (``"ZZ"``, ``"PLAY(XX)"``)."""


class IllegalActionError(RuleError):
    """A well-formed action that is not legal at this decision."""


class BotError(ArenaError):
    """A bot misbehaved; subclasses say how. The table turns these into recorded faults."""
