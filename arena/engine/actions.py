"""The one flat action space of every variant, defined here and nowhere else (RULES.md section 8).

The engine moves ints (``ActionId``) for speed; ``Action`` is the public value with one text form:
``PASS``, ``ORDER_UP``, ``TAKE_UP``, ``NAME(H)``, ``NAME(NT)``, ``JOKER_NAME(S)``, ``BLIND_NAME(D)``,
``EXPOSE``, ``EXPOSE_NAME(C)``, ``DISCARD(9C)``, ``ALONE``, ``CALL(AS)``, ``PARTNER``, ``PLAY(JH)``.

Layout: PLAY(card) 0..38, DISCARD(card) 39..77, CALL(card) 78..116, then the card-less actions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from arena.engine.cards import CARDS, NUM_CARDS, Card, CardId, Trump, card_text, parse_card_id
from arena.errors import NotationError

ActionId: TypeAlias = int


class ActionKind(StrEnum):
    """What an action does. Its argument: a card for ``PLAY``, ``DISCARD`` and ``CALL``; a ``Trump`` for
    ``NAME``, ``JOKER_NAME``, ``BLIND_NAME`` and ``EXPOSE_NAME``; none for the others. Which kinds a
    decision offers is in docs/protocol.md ("The decisions")."""

    PLAY = "PLAY"
    DISCARD = "DISCARD"
    CALL = "CALL"
    PASS = "PASS"
    ORDER_UP = "ORDER_UP"
    TAKE_UP = "TAKE_UP"
    NAME = "NAME"
    JOKER_NAME = "JOKER_NAME"
    BLIND_NAME = "BLIND_NAME"
    EXPOSE = "EXPOSE"
    EXPOSE_NAME = "EXPOSE_NAME"
    ALONE = "ALONE"
    PARTNER = "PARTNER"


PLAY_BASE = 0
DISCARD_BASE = NUM_CARDS
CALL_BASE = 2 * NUM_CARDS
PASS = 3 * NUM_CARDS
ORDER_UP = PASS + 1
TAKE_UP = PASS + 2
NAME_BASE = PASS + 3  # 5 entries: C D H S NT
JOKER_NAME_BASE = NAME_BASE + 5  # 4 entries
BLIND_NAME_BASE = JOKER_NAME_BASE + 4  # 4 entries
EXPOSE = BLIND_NAME_BASE + 4
EXPOSE_NAME_BASE = EXPOSE + 1  # 4 entries
ALONE = EXPOSE_NAME_BASE + 4
PARTNER = ALONE + 1
NUM_ACTIONS = PARTNER + 1

_CARD_KINDS = (ActionKind.PLAY, ActionKind.DISCARD, ActionKind.CALL)
_SUIT_KINDS = {
    ActionKind.NAME: (NAME_BASE, 5),
    ActionKind.JOKER_NAME: (JOKER_NAME_BASE, 4),
    ActionKind.BLIND_NAME: (BLIND_NAME_BASE, 4),
    ActionKind.EXPOSE_NAME: (EXPOSE_NAME_BASE, 4),
}
_PLAIN_KINDS = {
    ActionKind.PASS: PASS,
    ActionKind.ORDER_UP: ORDER_UP,
    ActionKind.TAKE_UP: TAKE_UP,
    ActionKind.EXPOSE: EXPOSE,
    ActionKind.ALONE: ALONE,
    ActionKind.PARTNER: PARTNER,
}


@dataclass(frozen=True, slots=True)
class Action:
    """A player's action, with one text form (``str(action)``: ``"PLAY(JH)"``, ``"NAME(NT)"``, ``"PASS"``).

    Compare actions with ``==`` or by ``id``; every distinct action is one value of ``ACTIONS``.

    Attributes:
        kind: What the action does.
        card: The card of ``PLAY``, ``DISCARD`` and ``CALL``, else ``None``.
        trump: The suit (or No-Trumps) of ``NAME``, ``JOKER_NAME``, ``BLIND_NAME`` and ``EXPOSE_NAME``,
            else ``None``.
    """

    kind: ActionKind
    card: Card | None = None
    trump: Trump | None = None

    @property
    def id(self) -> ActionId:
        """The action's number in ``ACTIONS`` (0..NUM_ACTIONS-1), the same in every variant."""
        return encode(self)

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the text form, e.g. ``Action.parse("PLAY(JH)")``.

        :raises NotationError: naming the text and the expected forms.
        """
        return ACTIONS[parse_action_id(text)]

    def __str__(self) -> str:
        if self.card is not None:
            return f"{self.kind.value}({self.card})"
        if self.trump is not None:
            return f"{self.kind.value}({self.trump.letter})"
        return self.kind.value

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"


def encode(action: Action) -> ActionId:
    """The id of an action value.

    :raises NotationError: if the value's fields do not fit its kind (e.g. ``PLAY`` without a card).
    """
    kind = action.kind
    if kind in _CARD_KINDS:
        if action.card is None or action.trump is not None:
            raise NotationError(f"action {kind.value} needs exactly one card: {action!r}")
        return _CARD_KINDS.index(kind) * NUM_CARDS + action.card.id
    if kind in _SUIT_KINDS:
        base, count = _SUIT_KINDS[kind]
        if action.trump is None or action.card is not None or action.trump >= count:
            raise NotationError(f"action {kind.value} needs one {'suit or NT' if count == 5 else 'suit'}")
        return base + action.trump
    if action.card is not None or action.trump is not None:
        raise NotationError(f"action {kind.value} takes no argument")
    return _PLAIN_KINDS[kind]


def _decode(action: ActionId) -> Action:
    if action < CALL_BASE + NUM_CARDS:
        return Action(_CARD_KINDS[action // NUM_CARDS], card=CARDS[action % NUM_CARDS])
    for kind, (base, count) in _SUIT_KINDS.items():
        if base <= action < base + count:
            return Action(kind, trump=Trump(action - base))
    for kind, value in _PLAIN_KINDS.items():
        if value == action:
            return Action(kind)
    raise AssertionError(action)


ACTIONS: tuple[Action, ...] = tuple(_decode(a) for a in range(NUM_ACTIONS))
"""``ACTIONS[id]`` is the value of every action id."""
_TEXT: tuple[str, ...] = tuple(str(a) for a in ACTIONS)
_BY_TEXT: dict[str, ActionId] = {t: i for i, t in enumerate(_TEXT)}
_FORM = re.compile(r"^([A-Z_]+)(?:\(([^()]*)\))?$")


def action_to_string(action: ActionId) -> str:
    """The text form of an action id (``"PLAY(JH)"``)."""
    return _TEXT[action]


def parse_action_id(text: str) -> ActionId:
    """The id of an action text.

    :raises NotationError: naming the text and, where possible, which part is wrong.
    """
    found = _BY_TEXT.get(text) if isinstance(text, str) else None
    if found is not None:
        return found
    match = _FORM.match(text) if isinstance(text, str) else None
    kinds = ", ".join(k.value for k in ActionKind)
    if match is None or match.group(1) not in ActionKind.__members__:
        raise NotationError(f"invalid action {text!r}: expected KIND or KIND(ARG) with KIND one of {kinds}")
    kind, arg = ActionKind(match.group(1)), match.group(2)
    if kind in _CARD_KINDS:
        if arg is None:
            raise NotationError(f"invalid action {text!r}: {kind.value} needs a card, e.g. {kind.value}(JH)")
        parse_card_id(arg)  # raises a NotationError naming the card
    elif kind in _SUIT_KINDS:
        allowed = "C, D, H, S" + (", NT" if kind is ActionKind.NAME else "")
        raise NotationError(f"invalid action {text!r}: {kind.value} needs one of {allowed}")
    raise NotationError(f"invalid action {text!r}: {kind.value} takes no argument")


def play(card: CardId) -> ActionId:
    return PLAY_BASE + card


def discard(card: CardId) -> ActionId:
    return DISCARD_BASE + card


def call(card: CardId) -> ActionId:
    return CALL_BASE + card


def card_of(action: ActionId) -> CardId:
    """The card of a PLAY, DISCARD or CALL action id."""
    return action % NUM_CARDS


def describe(actions: list[ActionId] | tuple[ActionId, ...]) -> str:
    """A short human list of action ids, for error messages."""
    return ", ".join(_TEXT[a] for a in actions) or "(none)"


__all__ = ["ACTIONS", "Action", "ActionId", "ActionKind", "action_to_string", "card_text", "parse_action_id"]
