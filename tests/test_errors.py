"""``arena.errors``: whose fault a failed decision was is its class, and a bot author's names still import."""

from __future__ import annotations

import arena.errors as errors
from arena.errors import (
    BotError,
    BotIllegalAction,
    DecisionFailed,
    FaultKind,
    HarnessLate,
    IllegalAction,
    IllegalActionError,
    RuleError,
)


def _subclasses(cls: type) -> set[type]:
    out = set(cls.__subclasses__())
    for sub in list(out):
        out |= _subclasses(sub)
    return out


def test_every_fault_kind_has_one_class_and_only_the_arenas_own_lateness_is_not_a_bot_error() -> None:
    """A ``BotError`` is charged to the bot; ``HarnessLate`` must never be one (it is the arena's fault)."""
    concrete = [c for c in _subclasses(DecisionFailed) if "kind" in vars(c)]
    assert sorted(c.kind for c in concrete) == sorted(FaultKind)
    for cls in concrete:
        assert issubclass(cls, BotError) == (cls.kind is not FaultKind.HARNESS), cls
    assert not issubclass(HarnessLate, BotError) and issubclass(HarnessLate, DecisionFailed)


def test_a_bots_illegal_reply_is_named_apart_from_an_illegal_action_asked_of_the_engine() -> None:
    assert issubclass(BotIllegalAction, BotError) and not issubclass(BotIllegalAction, RuleError)
    assert issubclass(IllegalActionError, RuleError) and not issubclass(IllegalActionError, DecisionFailed)


def test_the_old_names_still_import_as_the_same_classes() -> None:
    """``arena.errors`` is a bot author's import path: ``IllegalAction`` was renamed, not removed."""
    assert IllegalAction is BotIllegalAction
    assert errors.IllegalAction is BotIllegalAction
    try:
        raise BotIllegalAction("x")
    except IllegalAction as caught:  # an old ``except`` clause still catches it
        assert caught.kind is FaultKind.ILLEGAL_ACTION
