"""Engine values ⇄ protocol messages, both directions, in one place.

The arena turns views and events into messages here; the bot SDK turns them back into the very same engine
values, so a bot written in Python works with ``View``, ``Card`` and ``Action`` and never sees protobuf.
Anything a peer sends is checked on the way in: a malformed message raises ``NotationError`` (or
``ConfigError``) naming the field, never a bare protobuf or ``KeyError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import cast

from arena.engine.actions import Action, ActionKind
from arena.engine.cards import CARDS, Card, Trump, parse_card_id
from arena.engine.config import GameConfig, Variant
from arena.engine.events import (
    ActionTaken,
    Event,
    HandEnded,
    HandShown,
    HandStarted,
    PartnerRevealed,
    TrickCompleted,
)
from arena.engine.scoring import HandOutcome, Outcome
from arena.engine.state import Phase
from arena.engine.views import Play, TrickView, UpCardFate, View
from arena.errors import NotationError
from arena.protocol.v1 import player_pb2 as pb

_VARIANT = {
    Variant.CALL_ACE: pb.VARIANT_CALL_ACE,
    Variant.FIVE_HANDED: pb.VARIANT_FIVE_HANDED,
    Variant.CLASSIC: pb.VARIANT_CLASSIC,
}
_VARIANT_BACK: dict[int, Variant] = {v: k for k, v in _VARIANT.items()}
_PHASE = {
    Phase.TWO_CHOICE: pb.DECISION_KIND_TWO_CHOICE,
    Phase.JOKER_NAME: pb.DECISION_KIND_JOKER_NAME,
    Phase.EXPOSE_NAME: pb.DECISION_KIND_EXPOSE_NAME,
    Phase.BID_ROUND_1: pb.DECISION_KIND_BID_ROUND_1,
    Phase.BID_ROUND_2: pb.DECISION_KIND_BID_ROUND_2,
    Phase.DISCARD: pb.DECISION_KIND_DISCARD,
    Phase.CALL: pb.DECISION_KIND_CALL,
    Phase.PLAY: pb.DECISION_KIND_PLAY,
    Phase.GAME_OVER: pb.DECISION_KIND_UNSPECIFIED,
}
_PHASE_BACK: dict[int, Phase] = {v: k for k, v in _PHASE.items()}
_KIND = {kind: pb.ActionKind.Value(f"ACTION_KIND_{kind.value}") for kind in ActionKind}
_KIND_BACK: dict[int, ActionKind] = {v: k for k, v in _KIND.items()}
_FATE = {
    UpCardFate.ON_TABLE: pb.UP_CARD_FATE_ON_TABLE,
    UpCardFate.TAKEN: pb.UP_CARD_FATE_TAKEN,
    UpCardFate.TURNED_DOWN: pb.UP_CARD_FATE_TURNED_DOWN,
}
_FATE_BACK: dict[int, UpCardFate] = {v: k for k, v in _FATE.items()}
_OUTCOME = {o: pb.HandOutcome.Value(f"HAND_OUTCOME_{o.name}") for o in HandOutcome}
_OUTCOME_BACK: dict[int, HandOutcome] = {v: k for k, v in _OUTCOME.items()}
_CARD_KINDS = (ActionKind.PLAY, ActionKind.DISCARD, ActionKind.CALL)
_SUIT_KINDS = (ActionKind.NAME, ActionKind.JOKER_NAME, ActionKind.BLIND_NAME, ActionKind.EXPOSE_NAME)


# ------------------------------------------------------------------------------------------ small values


def variant_to_pb(variant: Variant) -> pb.Variant:
    return _VARIANT[variant]


def variant_from_pb(value: int) -> Variant:
    try:
        return _VARIANT_BACK[value]
    except KeyError:
        raise NotationError(f"unknown variant enum value {value!r}") from None


def trump_to_pb(trump: Trump | None) -> pb.Trump:
    """The protocol's numbering: 0 is "unspecified", so the engine's suits move up by one."""
    return pb.TRUMP_UNSPECIFIED if trump is None else cast("pb.Trump", int(trump) + 1)


_TRUMP_BACK: tuple[Trump | None, ...] = (None, *Trump)  # by wire value: an enum call costs ~0.5 us


def trump_from_pb(value: int) -> Trump | None:
    if not 0 <= value < len(_TRUMP_BACK):
        raise NotationError(f"unknown trump enum value {value!r}")
    return _TRUMP_BACK[value]


_CARD_BY_TEXT: dict[str, Card] = {str(c): c for c in CARDS}
_TEXT_BY_ID: tuple[str, ...] = tuple(str(c) for c in CARDS)


def _card(text: str) -> Card:
    card = _CARD_BY_TEXT.get(text)
    return card if card is not None else CARDS[parse_card_id(text)]  # parse_card_id raises, naming it


def _card_or_none(text: str) -> Card | None:
    return _card(text) if text else None


def _cards(texts: Sequence[str]) -> tuple[Card, ...]:
    return tuple(_card(t) for t in texts)


def _text(card: Card | None) -> str:
    return "" if card is None else _TEXT_BY_ID[card.id]


# ------------------------------------------------------------------------------------------ config


@lru_cache(maxsize=256)
def _config_pb(config: GameConfig) -> pb.GameConfig:
    """Built once per configuration: every request of a game carries the same config."""
    return config_to_pb(config)


def cached_config_pb(config: GameConfig) -> pb.GameConfig:
    """``config_to_pb``, built once per configuration (every stream of a game starts with it); read-only:
    copy it into the message that carries it."""
    return _config_pb(config)


def config_to_pb(config: GameConfig) -> pb.GameConfig:
    data = config.to_dict()
    data.pop("variant")
    msg = pb.GameConfig(variant=_VARIANT[config.variant])
    for key, value in data.items():
        setattr(msg, key, value)
    return msg


_CONFIGS: dict[bytes, GameConfig] = {}


def config_from_pb(msg: pb.GameConfig) -> GameConfig:
    """:raises ConfigError: or ``NotationError`` for a config no engine game could have.

    Decoded configs are remembered by their bytes (a bot sees the same few configs on every request).
    """
    key = msg.SerializeToString(deterministic=True)
    config = _CONFIGS.get(key)
    if config is None:
        config = _decode_config(msg)
        if len(_CONFIGS) < 1024:
            _CONFIGS[key] = config
    return config


def _decode_config(msg: pb.GameConfig) -> GameConfig:
    variant = variant_from_pb(msg.variant)
    options = GameConfig.create(variant).to_dict()
    options.pop("variant")
    for key in options:
        options[key] = getattr(msg, key)
    return GameConfig.create(variant, **options)


# ------------------------------------------------------------------------------------------ actions


@cache
def cached_action_pb(action: Action) -> pb.Action:
    return action_to_pb(action)


@cache
def _history_pb(seat: int, action: Action | None) -> pb.HistoryEntry:
    if action is None:
        return pb.HistoryEntry(seat=seat, hidden=True)
    return pb.HistoryEntry(seat=seat, action=action_to_pb(action))


@cache
def _play_pb(seat: int, card: Card) -> pb.CardPlay:
    return pb.CardPlay(seat=seat, card=_TEXT_BY_ID[card.id])


def action_to_pb(action: Action) -> pb.Action:
    msg = pb.Action(kind=_KIND[action.kind])
    if action.card is not None:
        msg.card = str(action.card)
    if action.trump is not None:
        msg.trump = trump_to_pb(action.trump)
    return msg


_ACTIONS_BY_FIELDS: dict[tuple[int, str, int], Action] = {}


def action_from_pb(msg: pb.Action) -> Action:
    """The engine action a message names.

    :raises NotationError: for an unknown kind, a missing or unknown card or suit, or an argument the kind
        does not take.
    """
    key = (msg.kind, msg.card, msg.trump)
    action = _ACTIONS_BY_FIELDS.get(key)
    if action is None:
        action = _decode_action(msg)
        _ACTIONS_BY_FIELDS[key] = action  # only well-formed actions get here: at most 140 entries
    return action


def _decode_action(msg: pb.Action) -> Action:
    kind = _KIND_BACK.get(msg.kind)
    if kind is None:
        raise NotationError(f"action has unknown or unset kind {msg.kind!r}")
    if kind in _CARD_KINDS:
        if not msg.card or msg.trump:
            raise NotationError(f"action {kind.value} needs `card` and no `trump`, got {_brief(msg)}")
        return Action(kind, card=_card(msg.card))
    if kind in _SUIT_KINDS:
        trump = trump_from_pb(msg.trump)
        if trump is None or msg.card:
            raise NotationError(f"action {kind.value} needs `trump` and no `card`, got {_brief(msg)}")
        if trump is Trump.NO_TRUMP and kind is not ActionKind.NAME:
            raise NotationError(f"action {kind.value} cannot name No-Trumps")
        return Action(kind, trump=trump)
    if msg.card or msg.trump:
        raise NotationError(f"action {kind.value} takes no argument, got {_brief(msg)}")
    return Action(kind)


def _brief(msg: pb.Action) -> str:
    return f"kind={msg.kind} card={msg.card!r} trump={msg.trump}"


# ------------------------------------------------------------------------------------------ views


def _trick_to_pb(trick: TrickView) -> pb.Trick:
    msg = pb.Trick(leader=trick.leader, plays=[_play_pb(p.seat, p.card) for p in trick.plays])
    if trick.winner is not None:
        msg.winner = trick.winner
    return msg


def _trick_from_pb(msg: pb.Trick) -> TrickView:
    return TrickView(
        msg.leader,
        tuple([Play(p.seat, _card(p.card)) for p in msg.plays]),
        msg.winner if msg.HasField("winner") else None,
    )


def view_to_pb(view: View) -> pb.View:
    msg = pb.View()
    _fill_view(msg, view)
    return msg


def _fill_view(msg: pb.View, view: View) -> None:
    """Write ``view`` into ``msg`` in place (no copy of a finished sub-message: requests embed the view)."""
    msg.config.CopyFrom(_config_pb(view.config))
    msg.history.extend([_history_pb(s, a) for s, a in view.history])
    msg.tricks.extend([_trick_pb(t) for t in view.tricks])
    _fill_view_rest(msg, view)


def _fill_view_rest(msg: pb.View, view: View) -> None:
    """Every field of ``view`` but the config, the history and the completed tricks (the parts that
    ``RequestEncoder`` encodes once and reuses)."""
    text = _TEXT_BY_ID
    msg.seat = view.seat
    msg.hand_index = view.hand_index
    msg.dealer = view.dealer
    msg.to_act = max(view.to_act, 0)
    msg.scores.extend(view.scores)
    msg.scores_before.extend(view.scores_before)
    if view.hand is None:
        msg.hand_hidden = True
    else:
        msg.hand.extend([text[c.id] for c in view.hand])
    msg.up_card = text[view.up_card.id]
    msg.up_card_fate = _FATE[view.up_card_fate]
    if view.proposed_trump is not None:
        msg.proposed_trump = trump_to_pb(view.proposed_trump)
    if view.exposed_card is not None:
        msg.exposed_card = text[view.exposed_card.id]
    if view.trump is not None:
        msg.trump = trump_to_pb(view.trump)
    if view.called_card is not None:
        msg.called_card = text[view.called_card.id]
    msg.alone = view.alone
    if view.discard is not None:
        msg.discard = text[view.discard.id]
    msg.tricks_won.extend(view.tricks_won)
    if view.maker is not None:
        msg.maker = view.maker
    if view.partner is not None:
        msg.partner = view.partner
    msg.teammates.extend(view.teammates)
    if view.sitting_out is not None:
        msg.sitting_out = view.sitting_out
    if view.current_trick is not None:
        msg.current_trick.CopyFrom(_trick_to_pb(view.current_trick))


@lru_cache(maxsize=4096)
def _trick_pb(trick: TrickView) -> pb.Trick:
    """A completed trick, encoded once: every later view of the hand repeats it."""
    return _trick_to_pb(trick)


def view_from_pb(
    msg: pb.View,
    kind: int,
    legal: Sequence[pb.Action],
    history: tuple[tuple[int, Action | None], ...] | None = None,
    tricks: tuple[TrickView, ...] | None = None,
) -> View:
    """The engine ``View`` a decision request describes (the SDK's side).

    ``history`` and ``tricks``, when given, are those fields already decoded (see ``ViewDecoder``).

    :raises NotationError: naming the first field that does not decode.
    """
    phase = _PHASE_BACK.get(kind)
    if phase is None:
        raise NotationError(f"unknown decision kind {kind!r}")
    return View(
        config=config_from_pb(msg.config),
        seat=msg.seat,
        hand_index=msg.hand_index,
        dealer=msg.dealer,
        phase=phase,
        to_act=msg.to_act if phase is not Phase.GAME_OVER else -1,
        scores=tuple(msg.scores),
        scores_before=tuple(msg.scores_before),
        hand=None if msg.hand_hidden else _cards(msg.hand),
        up_card=_card(msg.up_card),
        up_card_fate=_FATE_BACK.get(msg.up_card_fate, UpCardFate.ON_TABLE),
        proposed_trump=trump_from_pb(msg.proposed_trump),
        exposed_card=_card_or_none(msg.exposed_card),
        history=_history(msg.history) if history is None else history,
        trump=trump_from_pb(msg.trump),
        maker=msg.maker if msg.HasField("maker") else None,
        called_card=_card_or_none(msg.called_card),
        alone=msg.alone,
        partner=msg.partner if msg.HasField("partner") else None,
        teammates=tuple(msg.teammates),
        discard=_card_or_none(msg.discard),
        tricks=tuple([_trick_from_pb(t) for t in msg.tricks]) if tricks is None else tricks,
        current_trick=_trick_from_pb(msg.current_trick) if msg.HasField("current_trick") else None,
        tricks_won=tuple(msg.tricks_won),
        sitting_out=msg.sitting_out if msg.HasField("sitting_out") else None,
        legal_actions=tuple(action_from_pb(a) for a in legal),
    )


def decision_request(view: View, decision_id: int, time_ms: int, time_bank_ms: int) -> pb.ArenaMessage:
    """The message asking ``view.seat`` to act; ``view.legal_actions`` are the choices."""
    message = pb.ArenaMessage()
    request = message.decision_request
    request.decision_id = decision_id
    request.kind = _PHASE[view.phase]
    request.legal_actions.extend([cached_action_pb(a) for a in view.legal_actions])
    _fill_view(request.view, view)
    request.time_ms = time_ms
    request.time_bank_ms = time_bank_ms
    return message


# ------------------------------------------------------------------------------------------ wire bytes
# The decision request is the message the arena sends most, and most of it repeats the seat's previous
# request: the config, the hand's history so far, the completed tricks. ``RequestEncoder`` writes it as wire
# bytes from parts it encoded once, relying on two rules of the protobuf encoding: fields may come in any
# order, and the concatenated encodings of a repeated field's elements encode the whole list. Every part is
# encoded by the generated code (a message holding only that part, down to single fields of the view, kept
# in tables by value); the only bytes written here are the three length-delimited wrappers (the request,
# its view, the current trick), whose tags come from the descriptors. ``decision_request`` stays the
# reference: a test checks that the bytes parse to exactly the message it builds.


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _length_delimited_tag(message: type, field: str) -> bytes:
    return _varint(message.DESCRIPTOR.fields_by_name[field].number << 3 | 2)  # type: ignore[attr-defined]


_VIEW_TAG = _length_delimited_tag(pb.DecisionRequest, "view")
_REQUEST_TAG = _length_delimited_tag(pb.ArenaMessage, "decision_request")
_SHORT_VARINTS = tuple(_varint(n) for n in range(1 << 11))  # requests are a few hundred bytes


def _length_prefix(n: int) -> bytes:
    return _SHORT_VARINTS[n] if n < len(_SHORT_VARINTS) else _varint(n)


@lru_cache(maxsize=256)
def _config_bytes(config: GameConfig) -> bytes:
    return pb.View(config=_config_pb(config)).SerializeToString()


@cache
def _history_bytes(seat: int, action: Action | None) -> bytes:
    return pb.View(history=[_history_pb(seat, action)]).SerializeToString()


@lru_cache(maxsize=4096)
def _trick_bytes(trick: TrickView) -> bytes:
    return pb.View(tricks=[_trick_to_pb(trick)]).SerializeToString()


@cache
def _legal_bytes(action: Action) -> bytes:
    return pb.DecisionRequest(legal_actions=[cached_action_pb(action)]).SerializeToString()


@lru_cache(maxsize=4096)
def _event_bytes(event: Event) -> bytes:
    return pb.ArenaMessage(events=[event_to_pb(event)]).SerializeToString()


_RECENT_EVENTS: dict[int, tuple[Event, bytes]] = {}
"""The last events encoded, by identity. A table tells the same event objects to every seat
(``events_for_seats``), and hashing an event for ``_event_bytes`` costs more than encoding it once; the
entry holds the event itself, so its id cannot be reused while it is here."""


def event_bytes(event: Event) -> bytes:
    """``event`` as an element of ``ArenaMessage.events``: prepend these to any encoded ``ArenaMessage``."""
    hit = _RECENT_EVENTS.get(id(event))
    if hit is not None and hit[0] is event:
        return hit[1]
    data = _event_bytes(event)
    if len(_RECENT_EVENTS) >= 512:
        _RECENT_EVENTS.clear()
    _RECENT_EVENTS[id(event)] = (event, data)
    return data


class RequestEncoder:
    """Encodes one seat's decision requests of one game, reusing the parts earlier requests encoded.

    Within a hand the history and the completed tricks only grow (the mirror image of ``ViewDecoder``), so
    each request encodes only what is new since the seat's previous one. A view of another seat or hand,
    or one with less history, starts afresh; views of another game need another encoder.
    """

    def __init__(self) -> None:
        self._config: GameConfig | None = None
        self._config_part = b""
        self._seat = -1
        self._hand = -1
        self._history_count = 0
        self._history_part = b""
        self._tricks_count = 0
        self._tricks_part = b""

    def encode(
        self, view: View, decision_id: int, time_ms: int, time_bank_ms: int, events: Sequence[bytes] = ()
    ) -> bytes:
        """The wire bytes of ``decision_request(view, ...)`` with ``events`` (``event_bytes``) in front."""
        if view.config is not self._config:
            self._config, self._config_part = view.config, _config_bytes(view.config)
        history, tricks = view.history, view.tricks
        if (
            view.hand_index != self._hand
            or view.seat != self._seat
            or len(history) < self._history_count
            or len(tricks) < self._tricks_count
        ):
            self._seat, self._hand = view.seat, view.hand_index
            self._history_count, self._history_part = 0, b""
            self._tricks_count, self._tricks_part = 0, b""
        if len(history) > self._history_count:
            self._history_part += b"".join([_history_bytes(s, a) for s, a in history[self._history_count :]])
            self._history_count = len(history)
        if len(tricks) > self._tricks_count:
            self._tricks_part += b"".join([_trick_bytes(t) for t in tricks[self._tricks_count :]])
            self._tricks_count = len(tricks)

        view_part = b"".join((self._config_part, _view_head(view), self._history_part, self._tricks_part))
        body = b"".join(
            (
                _decision_id_bytes(decision_id),
                _request_rest_bytes(_PHASE[view.phase], time_ms, time_bank_ms),
                *[_legal_bytes(a) for a in view.legal_actions],
                _VIEW_TAG,
                _length_prefix(len(view_part)),
                view_part,
            )
        )
        return b"".join((*events, _REQUEST_TAG, _length_prefix(len(body)), body))


# The rest of a view (``_fill_view_rest``) from the encodings of its single fields, each made once by the
# generated code (a ``View`` holding only that field, with that value) and kept in a table indexed by the
# value: a lookup per field instead of setting it on a message and serializing. Seats, hand numbers and
# cards are small integers, so the tables are small; anything past them is encoded on the spot.


def _one(**field: object) -> bytes:
    return pb.View(**field).SerializeToString()  # type: ignore[arg-type]


_TABLE = 64
_SEAT_F = tuple(_one(seat=v) for v in range(_TABLE))
_HAND_INDEX_F = tuple(_one(hand_index=v) for v in range(_TABLE))
_DEALER_F = tuple(_one(dealer=v) for v in range(_TABLE))
_TO_ACT_F = tuple(_one(to_act=v) for v in range(_TABLE))
_MAKER_F = tuple(_one(maker=v) for v in range(_TABLE))
_PARTNER_F = tuple(_one(partner=v) for v in range(_TABLE))
_SITTING_OUT_F = tuple(_one(sitting_out=v) for v in range(_TABLE))
_HAND_F = tuple(_one(hand=[t]) for t in _TEXT_BY_ID)  # one element of the repeated field
_UP_CARD_F = tuple(_one(up_card=t) for t in _TEXT_BY_ID)
_EXPOSED_F = tuple(_one(exposed_card=t) for t in _TEXT_BY_ID)
_CALLED_F = tuple(_one(called_card=t) for t in _TEXT_BY_ID)
_DISCARD_F = tuple(_one(discard=t) for t in _TEXT_BY_ID)
_FATE_F = {fate: _one(up_card_fate=_FATE[fate]) for fate in UpCardFate}
_TRUMP_F = {t: _one(trump=trump_to_pb(t)) for t in (None, *Trump)}
_PROPOSED_F = {t: _one(proposed_trump=trump_to_pb(t)) for t in (None, *Trump)}
_ALONE_F = (_one(alone=False), _one(alone=True))
_HAND_HIDDEN_F = _one(hand_hidden=True)
_CURRENT_TRICK_TAG = _length_delimited_tag(pb.View, "current_trick")
_LEADER_F = tuple(pb.Trick(leader=v).SerializeToString() for v in range(_TABLE))
_TRICK_PLAY_F = tuple(  # (seat, card id) -> one element of Trick.plays
    tuple(pb.Trick(plays=[pb.CardPlay(seat=s, card=t)]).SerializeToString() for t in _TEXT_BY_ID)
    for s in range(_TABLE)
)


@lru_cache(maxsize=4096)
def _ints_f(field: str, values: tuple[int, ...]) -> bytes:
    """A repeated integer field (scores, tricks won, teammates): a few distinct values per hand."""
    return _one(**{field: values})


def _small(table: tuple[bytes, ...], field: str, value: int) -> bytes:
    return table[value] if value < _TABLE else _one(**{field: value})


def _view_head(view: View) -> bytes:
    """The wire bytes of ``_fill_view_rest(pb.View(), view)`` (a test compares the two on whole games)."""
    parts = [
        _small(_SEAT_F, "seat", view.seat),
        _small(_HAND_INDEX_F, "hand_index", view.hand_index),
        _small(_DEALER_F, "dealer", view.dealer),
        _small(_TO_ACT_F, "to_act", max(view.to_act, 0)),
        _ints_f("scores", view.scores),
        _ints_f("scores_before", view.scores_before),
        _UP_CARD_F[view.up_card.id],
        _FATE_F[view.up_card_fate],
        _PROPOSED_F[view.proposed_trump],
        _TRUMP_F[view.trump],
        _ALONE_F[view.alone],
        _ints_f("tricks_won", view.tricks_won),
        _ints_f("teammates", view.teammates),
    ]
    if view.hand is None:
        parts.append(_HAND_HIDDEN_F)
    else:
        parts += [_HAND_F[c.id] for c in view.hand]
    if view.exposed_card is not None:
        parts.append(_EXPOSED_F[view.exposed_card.id])
    if view.called_card is not None:
        parts.append(_CALLED_F[view.called_card.id])
    if view.discard is not None:
        parts.append(_DISCARD_F[view.discard.id])
    if view.maker is not None:
        parts.append(_small(_MAKER_F, "maker", view.maker))
    if view.partner is not None:
        parts.append(_small(_PARTNER_F, "partner", view.partner))
    if view.sitting_out is not None:
        parts.append(_small(_SITTING_OUT_F, "sitting_out", view.sitting_out))
    trick = view.current_trick
    if trick is not None:
        if trick.winner is not None or trick.leader >= _TABLE or any(p.seat >= _TABLE for p in trick.plays):
            inner = _trick_to_pb(trick).SerializeToString()  # not seen in a current trick; kept exact
        else:
            inner = b"".join(
                (_LEADER_F[trick.leader], *[_TRICK_PLAY_F[p.seat][p.card.id] for p in trick.plays])
            )
        parts += (_CURRENT_TRICK_TAG, _length_prefix(len(inner)), inner)
    return b"".join(parts)


_DECISION_ID_F = tuple(pb.DecisionRequest(decision_id=v).SerializeToString() for v in range(1024))


def _decision_id_bytes(decision_id: int) -> bytes:
    if decision_id < len(_DECISION_ID_F):
        return _DECISION_ID_F[decision_id]
    return pb.DecisionRequest(decision_id=decision_id).SerializeToString()


@lru_cache(maxsize=1024)
def _request_rest_bytes(kind: int, time_ms: int, time_bank_ms: int) -> bytes:
    """The request's own fields but the id: the same for most decisions of a game."""
    return pb.DecisionRequest(
        kind=cast("pb.DecisionKind", kind), time_ms=time_ms, time_bank_ms=time_bank_ms
    ).SerializeToString()


def view_from_request(request: pb.DecisionRequest) -> View:
    return view_from_pb(request.view, request.kind, request.legal_actions)


def _history(entries: Sequence[pb.HistoryEntry]) -> tuple[tuple[int, Action | None], ...]:
    return tuple([(h.seat, None if h.hidden else action_from_pb(h.action)) for h in entries])


class ViewDecoder:
    """Decodes the views of one game stream, reusing what earlier views of the same hand decoded.

    Within a hand the history and the completed tricks only grow, so each request adds a few entries to
    decode instead of all of them (the SDK keeps one decoder per stream).
    """

    def __init__(self) -> None:
        self._hand = -1
        self._history: tuple[tuple[int, Action | None], ...] = ()
        self._tricks: tuple[TrickView, ...] = ()

    def decode(self, request: pb.DecisionRequest) -> View:
        msg = request.view
        if (
            msg.hand_index != self._hand
            or len(msg.history) < len(self._history)
            or len(msg.tricks) < len(self._tricks)
        ):
            self._hand, self._history, self._tricks = msg.hand_index, (), ()
        if len(msg.history) > len(self._history):
            self._history += _history(msg.history[len(self._history) :])
        if len(msg.tricks) > len(self._tricks):
            self._tricks += tuple([_trick_from_pb(t) for t in msg.tricks[len(self._tricks) :]])
        return view_from_pb(msg, request.kind, request.legal_actions, self._history, self._tricks)


# ------------------------------------------------------------------------------------------ events


def event_to_pb(event: Event) -> pb.Event:
    if isinstance(event, ActionTaken):
        msg = pb.ActionTaken(
            seat=event.seat, hidden=event.action is None, exposed_card=_text(event.exposed_card)
        )
        if event.action is not None:
            msg.action.CopyFrom(action_to_pb(event.action))
        return pb.Event(action_taken=msg)
    if isinstance(event, TrickCompleted):
        return pb.Event(trick_completed=pb.TrickCompleted(trick=_trick_to_pb(event.trick)))
    if isinstance(event, PartnerRevealed):
        return pb.Event(partner_revealed=pb.PartnerRevealed(seat=event.seat))
    if isinstance(event, HandStarted):
        return pb.Event(
            hand_started=pb.HandStarted(
                hand_index=event.hand_index,
                dealer=event.dealer,
                up_card=str(event.up_card),
                hand=[str(c) for c in event.hand or ()],
                hand_hidden=event.hand is None,
                scores=event.scores,
            )
        )
    if isinstance(event, HandShown):
        return pb.Event(hand_shown=pb.HandShown(hand=[str(c) for c in event.hand]))
    ended = pb.HandEnded(
        hand_index=event.hand_index,
        outcome=_OUTCOME[event.outcome],
        trump=trump_to_pb(event.trump),
        called_card=_text(event.called_card),
        alone=event.alone,
        tricks_won=event.tricks_won,
        points=event.points,
        scores=event.scores,
    )
    if event.maker is not None:
        ended.maker = event.maker
    if event.partner is not None:
        ended.partner = event.partner
    return pb.Event(hand_ended=ended)


def event_from_pb(msg: pb.Event) -> Event:
    """:raises NotationError: for an empty or undecodable event."""
    which = msg.WhichOneof("body")
    if which == "action_taken":
        m = msg.action_taken
        action = None if m.hidden else action_from_pb(m.action)
        return ActionTaken(m.seat, action, _card_or_none(m.exposed_card))
    if which == "trick_completed":
        return TrickCompleted(_trick_from_pb(msg.trick_completed.trick))
    if which == "partner_revealed":
        return PartnerRevealed(msg.partner_revealed.seat)
    if which == "hand_started":
        h = msg.hand_started
        return HandStarted(
            h.hand_index,
            h.dealer,
            _card(h.up_card),
            None if h.hand_hidden else _cards(h.hand),
            tuple(h.scores),
        )
    if which == "hand_shown":
        return HandShown(_cards(msg.hand_shown.hand))
    if which == "hand_ended":
        e = msg.hand_ended
        return HandEnded(
            hand_index=e.hand_index,
            outcome=_OUTCOME_BACK.get(e.outcome, HandOutcome.THROWN_IN),
            trump=trump_from_pb(e.trump),
            maker=e.maker if e.HasField("maker") else None,
            called_card=_card_or_none(e.called_card),
            alone=e.alone,
            partner=e.partner if e.HasField("partner") else None,
            tricks_won=tuple(e.tricks_won),
            points=tuple(e.points),
            scores=tuple(e.scores),
        )
    raise NotationError(f"event has no known kind (got {which!r})")


def game_over_to_pb(
    outcome: Outcome | None, scores: Sequence[int], forfeited: Sequence[int] = ()
) -> pb.GameOver:
    """The last message of a stream; ``outcome`` is ``None`` when the arena aborted the game."""
    if outcome is None:
        return pb.GameOver(scores=scores, termination="aborted", forfeited=forfeited)
    return pb.GameOver(
        scores=outcome.scores,
        ranks=outcome.ranks,
        winners=outcome.winners,
        termination=outcome.termination.value,
        forfeited=forfeited,
    )
