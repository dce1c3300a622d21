"""The SDK's ``View``: each field decoded from the request message the first time a bot reads it.

Why: decoding every field of every request into engine values costs several times what a bot reads, most
of it spent on fields a given bot never reads (the first-legal bot reads one; a rules bot a handful;
``bench/protocol.py`` times both, in its "conversions alone" line). A
``LazyView`` is a real ``View`` (a subclass, so ``isinstance`` holds and every property works) whose
dataclass slots start empty: reading an empty slot falls through to ``__getattr__``, which decodes that one
field, stores it in the slot and returns it, so the second read is a plain slot read with no overhead at
all. Equality and hashing compare field by field with any ``View``; assignment fails as on a ``View``.

The history and the completed tricks of a hand only grow, so ``LazyViewDecoder`` (one per stream) keeps
the last ones decoded and a later view decodes only the new entries (what ``convert.ViewDecoder`` does
eagerly). Decoding errors (``NotationError``) are raised when the field is read; an unknown decision kind
is raised at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

from arena.engine.actions import Action
from arena.engine.cards import Card
from arena.engine.config import GameConfig
from arena.engine.state import Phase
from arena.engine.views import TrickView, UpCardFate, View
from arena.errors import NotationError
from arena.protocol import convert
from arena.protocol.v1 import player_pb2 as pb

_FIELDS = tuple(f.name for f in dataclasses.fields(View))
_set = object.__setattr__  # fills a slot of the frozen dataclass (what its own __init__ does)
_State = tuple[int, int, tuple[tuple[int, Action | None], ...], tuple[TrickView, ...]]
"""(hand index, seat, history, completed tricks) of the latest view decoded."""


class LazyViewDecoder:
    """Turns one stream's decision requests into ``LazyView`` objects, sharing decoded history and tricks.

    The shared state is one tuple replaced as a whole, so views read from several threads (a bot may hand
    a view to threads of its own) at worst decode a part twice, never mix two hands.
    """

    def __init__(self) -> None:
        self._state: _State = (-1, -1, (), ())
        self._config: tuple[pb.GameConfig, GameConfig] | None = None

    def decode(self, request: pb.DecisionRequest) -> LazyView:
        """A view of ``request`` that decodes its fields when read.

        :raises NotationError: for an unknown decision kind.
        """
        phase = convert._PHASE_BACK.get(request.kind)
        if phase is None:
            raise NotationError(f"unknown decision kind {request.kind!r}")
        view = LazyView.__new__(LazyView)
        _set(view, "_request", request)
        _set(view, "_decoder", self)
        _set(view, "phase", phase)
        return view

    def _history(self, msg: pb.View) -> tuple[tuple[int, Action | None], ...]:
        hand, seat, history, tricks = self._prefix(msg)
        if len(msg.history) > len(history):
            history += convert._history(msg.history[len(history) :])
            self._keep((hand, seat, history, tricks))
        return history

    def _tricks(self, msg: pb.View) -> tuple[TrickView, ...]:
        hand, seat, history, tricks = self._prefix(msg)
        if len(msg.tricks) > len(tricks):
            tricks += tuple([convert._trick_from_pb(t) for t in msg.tricks[len(tricks) :]])
            self._keep((hand, seat, history, tricks))
        return tricks

    def _prefix(self, msg: pb.View) -> _State:
        """The shared state if its history and tricks begin ``msg``'s (same hand and seat, no longer),
        else an empty one for ``msg``."""
        state = self._state
        if (
            msg.hand_index == state[0]
            and msg.seat == state[1]
            and len(msg.history) >= len(state[2])
            and len(msg.tricks) >= len(state[3])
        ):
            return state
        return (msg.hand_index, msg.seat, (), ())

    def _keep(self, new: _State) -> None:
        """Share what was just decoded, unless it belongs to an older view of the hand the state holds."""
        state = self._state
        if new[0:2] != state[0:2] or (len(new[2]) >= len(state[2]) and len(new[3]) >= len(state[3])):
            self._state = new

    def _game_config(self, msg: pb.GameConfig) -> GameConfig:
        """The stream's config, decoded once: every request of a game carries the same one."""
        cached = self._config
        if cached is not None and cached[0] == msg:
            return cached[1]
        config = convert.config_from_pb(msg)
        self._config = (msg, config)
        return config


class LazyView(View):
    """A ``View`` decoded field by field on first read (see the module docstring); built by
    ``LazyViewDecoder.decode``, never by hand."""

    __slots__ = ("_decoder", "_request")

    _DECODE: ClassVar[dict[str, Callable[[LazyView], Any]]]

    def __getattr__(self, name: str) -> Any:
        """Called only for an empty slot: decode that field, keep it, return it."""
        decode = LazyView._DECODE.get(name)
        if decode is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = decode(self)
        _set(self, name, value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, View):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f) for f in _FIELDS))

    def __repr__(self) -> str:
        """The same text as the eager ``View`` (every field decoded)."""
        return "View(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in _FIELDS) + ")"

    def materialize(self) -> LazyView:
        """Decode every field now (for a bot that hands the view to another process or thread pool)."""
        for f in _FIELDS:
            getattr(self, f)
        return self


def _msg(v: LazyView) -> pb.View:
    return v._request.view


def _scalars(v: LazyView) -> None:
    """Every small field at once: reading any one of them costs one slot miss, not one per field (a bot
    that reads one of them tends to read several)."""
    msg = _msg(v)
    has = msg.HasField
    _set(v, "seat", msg.seat)
    _set(v, "hand_index", msg.hand_index)
    _set(v, "dealer", msg.dealer)
    _set(v, "to_act", -1 if v.phase is Phase.GAME_OVER else msg.to_act)
    _set(v, "scores", tuple(msg.scores))
    _set(v, "scores_before", tuple(msg.scores_before))
    _set(v, "up_card_fate", convert._FATE_BACK.get(msg.up_card_fate, UpCardFate.ON_TABLE))
    _set(v, "alone", msg.alone)
    _set(v, "maker", msg.maker if has("maker") else None)
    _set(v, "partner", msg.partner if has("partner") else None)
    _set(v, "sitting_out", msg.sitting_out if has("sitting_out") else None)
    _set(v, "teammates", tuple(msg.teammates))
    _set(v, "tricks_won", tuple(msg.tricks_won))


def _suits_and_cards(v: LazyView) -> None:
    """The single cards and suits, together (they can raise ``NotationError``, so apart from the ints)."""
    msg = _msg(v)
    _set(v, "up_card", convert._card(msg.up_card))
    _set(v, "proposed_trump", convert.trump_from_pb(msg.proposed_trump))
    _set(v, "exposed_card", convert._card_or_none(msg.exposed_card))
    _set(v, "trump", convert.trump_from_pb(msg.trump))
    _set(v, "called_card", convert._card_or_none(msg.called_card))
    _set(v, "discard", convert._card_or_none(msg.discard))


def _legal(v: LazyView) -> tuple[Action, ...]:
    return tuple([convert.action_from_pb(a) for a in v._request.legal_actions])


def _hand(v: LazyView) -> tuple[Card, ...] | None:
    msg = _msg(v)
    return None if msg.hand_hidden else convert._cards(msg.hand)


def _current_trick(v: LazyView) -> TrickView | None:
    msg = _msg(v)
    return convert._trick_from_pb(msg.current_trick) if msg.HasField("current_trick") else None


_GROUPS: dict[Callable[[LazyView], None], tuple[str, ...]] = {
    _scalars: (
        "seat",
        "hand_index",
        "dealer",
        "to_act",
        "scores",
        "scores_before",
        "up_card_fate",
        "alone",
        "maker",
        "partner",
        "sitting_out",
        "teammates",
        "tricks_won",
    ),
    _suits_and_cards: ("up_card", "proposed_trump", "exposed_card", "trump", "called_card", "discard"),
}


def _grouped(fill: Callable[[LazyView], None], name: str) -> Callable[[LazyView], Any]:
    def decode(v: LazyView) -> Any:
        fill(v)
        return object.__getattribute__(v, name)

    return decode


LazyView._DECODE = {
    "config": lambda v: v._decoder._game_config(_msg(v).config),
    "hand": _hand,
    "history": lambda v: v._decoder._history(_msg(v)),
    "tricks": lambda v: v._decoder._tricks(_msg(v)),
    "current_trick": _current_trick,
    "legal_actions": _legal,
    **{name: _grouped(fill, name) for fill, names in _GROUPS.items() for name in names},
}
assert set(LazyView._DECODE) | {"phase"} == set(_FIELDS), "every View field has a decoder"


__all__ = ["LazyView", "LazyViewDecoder"]
