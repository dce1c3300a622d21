"""The arena's decision requests as wire bytes, assembled from parts encoded once.

Why a module of its own: the decision request is the message the arena sends most, and most of it repeats
the seat's previous request (the config, the hand's history so far, the completed tricks), so building and
serializing a whole message per decision would redo the same work every time. ``RequestEncoder`` writes
the request as bytes instead, relying on two rules of the protobuf encoding: fields may come in any order,
and the concatenated encodings of a repeated field's elements encode the whole list.

Every part is still encoded by the generated code (a message holding only that part, down to single fields
of the view, kept in tables by value), from the messages ``convert`` builds; the only bytes written here are
the three length-delimited wrappers (the request, its view, the current trick), whose tags come from the
descriptors. ``convert.decision_request`` is the reference: the tests check that the bytes parse to exactly
the message it builds, for every decision of whole games in every variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import cast

from arena.engine.actions import Action
from arena.engine.cards import CARDS, Trump
from arena.engine.config import GameConfig
from arena.engine.news import News
from arena.engine.views import TrickView, UpCardFate, View
from arena.protocol import convert
from arena.protocol.v1 import player_pb2 as pb

# ------------------------------------------------------------------------------------------ byte helpers


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
_CURRENT_TRICK_TAG = _length_delimited_tag(pb.View, "current_trick")
_SHORT_VARINTS = tuple(_varint(n) for n in range(1 << 11))  # requests are a few hundred bytes


def _length_prefix(n: int) -> bytes:
    return _SHORT_VARINTS[n] if n < len(_SHORT_VARINTS) else _varint(n)


# ------------------------------------------------------------------------------------------ reused parts


@lru_cache(maxsize=256)
def _config_bytes(config: GameConfig) -> bytes:
    return pb.View(config=convert.cached_config_pb(config)).SerializeToString()


@cache
def _history_bytes(seat: int, action: Action | None) -> bytes:
    return pb.View(history=[convert.cached_history_pb(seat, action)]).SerializeToString()


@lru_cache(maxsize=4096)
def _trick_bytes(trick: TrickView) -> bytes:
    return pb.View(tricks=[convert.trick_to_pb(trick)]).SerializeToString()


@cache
def _legal_bytes(action: Action) -> bytes:
    return pb.DecisionRequest(legal_actions=[convert.cached_action_pb(action)]).SerializeToString()


@lru_cache(maxsize=4096)
def _event_bytes(event: News) -> bytes:
    return pb.ArenaMessage(events=[convert.event_to_pb(event)]).SerializeToString()


_RECENT_EVENTS: dict[int, tuple[News, bytes]] = {}
"""The last events encoded, by identity. A table tells the same event objects to every seat
(``news_for_seats``), and hashing an event for ``_event_bytes`` costs more than encoding it once; the
entry holds the event itself, so its id cannot be reused while it is here."""


def event_bytes(event: News) -> bytes:
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

    Within a hand the history and the completed tricks only grow (the mirror image of the SDK's
    ``LazyViewDecoder``), so each request encodes only what is new since the seat's previous one. A view of
    another seat or hand, or one with less history, starts afresh; views of another game need another
    encoder.
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
        """The wire bytes of ``convert.decision_request(view, ...)`` with ``events`` (``event_bytes``) in
        front."""
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
                _request_rest_bytes(convert.decision_kind_to_pb(view.phase), time_ms, time_bank_ms),
                *[_legal_bytes(a) for a in view.legal_actions],
                _VIEW_TAG,
                _length_prefix(len(view_part)),
                view_part,
            )
        )
        return b"".join((*events, _REQUEST_TAG, _length_prefix(len(body)), body))


# ------------------------------------------------------------------------------------------ single fields
# The rest of a view (every field but the config, the history and the completed tricks) from the encodings
# of its single fields, each made once by the generated code (a ``View`` holding only that field, with that
# value) and kept in a table indexed by the value: a lookup per field instead of setting it on a message and
# serializing. Seats, hand numbers and cards are small integers, so the tables are small; anything past them
# is encoded on the spot.


def _one(**field: object) -> bytes:
    return pb.View(**field).SerializeToString()  # type: ignore[arg-type]


_TEXT_BY_ID: tuple[str, ...] = tuple(convert.card_to_pb(c) for c in CARDS)
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
_FATE_F = {fate: _one(up_card_fate=convert.fate_to_pb(fate)) for fate in UpCardFate}
_TRUMP_F = {t: _one(trump=convert.trump_to_pb(t)) for t in (None, *Trump)}
_PROPOSED_F = {t: _one(proposed_trump=convert.trump_to_pb(t)) for t in (None, *Trump)}
_ALONE_F = (_one(alone=False), _one(alone=True))
_HAND_HIDDEN_F = _one(hand_hidden=True)
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
    """The wire bytes of every field of ``view`` but the config, the history and the completed tricks."""
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
            inner = convert.trick_to_pb(trick).SerializeToString()  # not seen in a current trick; kept exact
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
