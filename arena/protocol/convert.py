"""Engine values ⇄ protocol messages, both directions, in one place.

The arena turns views and events into messages here; the bot SDK turns them back into the very same engine
values, so a bot written in Python works with ``View``, ``Card`` and ``Action`` and never sees protobuf.
Every message either side sends is built here (the handshake, a stream's first and last messages, the
decision request and its reply, the events), so the mapping between the two worlds has one home and the
rest of the arena handles engine values and bytes only (a test keeps it so). Anything a peer sends is
checked on the way in: a malformed message raises ``NotationError`` (or ``ConfigError``) naming the field,
never a bare protobuf or ``KeyError``.

The arena writes its decision requests as bytes it assembles from parts of these messages
(``arena.protocol.wire``); ``decision_request`` here is the message those bytes must parse to.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import cast

from arena.engine.actions import Action, ActionKind
from arena.engine.cards import CARDS, Card, Trump, parse_card_id
from arena.engine.config import GameConfig, Variant
from arena.engine.news import (
    ActionTaken,
    HandEnded,
    HandShown,
    HandStarted,
    News,
    PartnerRevealed,
    TrickCompleted,
)
from arena.engine.scoring import HandOutcome
from arena.engine.state import Phase
from arena.engine.views import Play, TrickView, UpCardFate, View
from arena.errors import NotationError
from arena.gameinfo import GameInfo, GameResult
from arena.protocol import PROTOCOL_VERSION
from arena.protocol.v1 import player_pb2 as pb

ARENA_NAME = "euchre-arena"
"""How the arena introduces itself in the handshake (``HelloRequest.arena_name``)."""

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


def variants_from_pb(values: Iterable[int]) -> tuple[Variant, ...]:
    """The variants a peer listed that this side knows; one from a later protocol revision is skipped,
    so a newer bot still plays the variants both sides share."""
    return tuple(_VARIANT_BACK[v] for v in values if v in _VARIANT_BACK)


def trump_to_pb(trump: Trump | None) -> pb.Trump:
    """The protocol's numbering: 0 is "unspecified", so the engine's suits move up by one."""
    return pb.TRUMP_UNSPECIFIED if trump is None else cast("pb.Trump", int(trump) + 1)


_TRUMP_BACK: tuple[Trump | None, ...] = (None, *Trump)  # by wire value: an index, not an enum call per field


def trump_from_pb(value: int) -> Trump | None:
    if not 0 <= value < len(_TRUMP_BACK):
        raise NotationError(f"unknown trump enum value {value!r}")
    return _TRUMP_BACK[value]


_CARD_BY_TEXT: dict[str, Card] = {str(c): c for c in CARDS}
_TEXT_BY_ID: tuple[str, ...] = tuple(str(c) for c in CARDS)


def card_to_pb(card: Card) -> str:
    """A card's text on the wire (``"JH"``), the same as ``str(card)``, from a table."""
    return _TEXT_BY_ID[card.id]


def fate_to_pb(fate: UpCardFate) -> pb.UpCardFate:
    return _FATE[fate]


def decision_kind_to_pb(phase: Phase) -> pb.DecisionKind:
    """The kind of decision a view of ``phase`` asks for (``DecisionRequest.kind``)."""
    return _PHASE[phase]


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
def cached_history_pb(seat: int, action: Action | None) -> pb.HistoryEntry:
    """One entry of ``View.history``, built once (every later view of the hand repeats it); read-only."""
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


def trick_to_pb(trick: TrickView) -> pb.Trick:
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


def _fill_view(msg: pb.View, view: View) -> None:
    """Write ``view`` into ``msg`` in place (no copy of a finished sub-message: requests embed the view)."""
    msg.config.CopyFrom(_config_pb(view.config))
    msg.history.extend([cached_history_pb(s, a) for s, a in view.history])
    msg.tricks.extend([_trick_pb(t) for t in view.tricks])
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
        msg.current_trick.CopyFrom(trick_to_pb(view.current_trick))


@lru_cache(maxsize=4096)
def _trick_pb(trick: TrickView) -> pb.Trick:
    """A completed trick, encoded once: every later view of the hand repeats it."""
    return trick_to_pb(trick)


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
    """The message asking ``view.seat`` to act; ``view.legal_actions`` are the choices.

    Built field by field: the reference that ``wire.RequestEncoder``'s bytes must parse to.
    """
    message = pb.ArenaMessage()
    request = message.decision_request
    request.decision_id = decision_id
    request.kind = _PHASE[view.phase]
    request.legal_actions.extend([cached_action_pb(a) for a in view.legal_actions])
    _fill_view(request.view, view)
    request.time_ms = time_ms
    request.time_bank_ms = time_bank_ms
    return message


def _history(entries: Sequence[pb.HistoryEntry]) -> tuple[tuple[int, Action | None], ...]:
    return tuple([(h.seat, None if h.hidden else action_from_pb(h.action)) for h in entries])


class ViewDecoder:
    """Decodes the views of one game stream, every field at once, reusing what earlier views of the same
    hand decoded.

    Within a hand the history and the completed tricks only grow, so each request adds a few entries to
    decode instead of all of them. The SDK decodes lazily instead (``lazyview.LazyViewDecoder``: a field
    costs only when read); this eager decoder is what ``bench/protocol.py`` weighs the lazy one against.
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


def event_to_pb(event: News) -> pb.Event:
    if isinstance(event, ActionTaken):
        msg = pb.ActionTaken(
            seat=event.seat, hidden=event.action is None, exposed_card=_text(event.exposed_card)
        )
        if event.action is not None:
            msg.action.CopyFrom(action_to_pb(event.action))
        return pb.Event(action_taken=msg)
    if isinstance(event, TrickCompleted):
        return pb.Event(trick_completed=pb.TrickCompleted(trick=trick_to_pb(event.trick)))
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


def event_from_pb(msg: pb.Event) -> News:
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


# ------------------------------------------------------------------------------ handshake, start and end


def hello_request(arena_version: str) -> pb.HelloRequest:
    """The arena's side of the handshake."""
    return pb.HelloRequest(
        protocol_version=PROTOCOL_VERSION, arena_name=ARENA_NAME, arena_version=arena_version
    )


def hello_response(name: str, author: str, version: str, variants: Iterable[Variant]) -> pb.HelloResponse:
    """The bot's side of the handshake: who it is and which variants it plays."""
    return pb.HelloResponse(
        protocol_version=PROTOCOL_VERSION,
        name=name,
        author=author,
        version=version,
        variants=[_VARIANT[v] for v in variants],
    )


def game_start(info: GameInfo, resumed: bool) -> pb.ArenaMessage:
    """The first message of a seat's stream; ``resumed`` when the arena reopens a stream in mid-game."""
    start = pb.GameStart(
        game_id=info.game_id,
        config=_config_pb(info.config),
        seat=info.seat,
        seats=[pb.SeatInfo(seat=i, name=n) for i, n in enumerate(info.seat_names)],
        decision_time_ms=info.decision_time_ms,
        time_bank_ms=info.time_bank_ms,
        resumed=resumed,
    )
    return pb.ArenaMessage(game_start=start)


def game_info_from_pb(msg: pb.GameStart) -> GameInfo:
    """What the SDK tells a bot at the start (``Bot.game``); a seat number past the list is ignored.

    :raises ConfigError: or ``NotationError`` for a config no engine game could have.
    """
    names = [""] * len(msg.seats)
    for s in msg.seats:
        if s.seat < len(names):
            names[s.seat] = s.name
    return GameInfo(
        game_id=msg.game_id,
        config=config_from_pb(msg.config),
        seat=msg.seat,
        seat_names=tuple(names),
        decision_time_ms=msg.decision_time_ms,
        time_bank_ms=msg.time_bank_ms,
        resumed=msg.resumed,
    )


def game_over(result: GameResult) -> pb.ArenaMessage:
    """The last message of a seat's stream."""
    over = pb.GameOver(
        scores=result.scores,
        ranks=result.ranks,
        winners=result.winners,
        termination=result.termination,
        forfeited=result.forfeited,
    )
    return pb.ArenaMessage(game_over=over)


def game_result_from_pb(msg: pb.GameOver) -> GameResult:
    return GameResult(
        tuple(msg.scores), tuple(msg.ranks), tuple(msg.winners), msg.termination, tuple(msg.forfeited)
    )


_REPLY_ACTIONS: dict[int, tuple[Action, pb.Action]] = {}
"""Encoded actions by the identity of the ``Action`` a bot returned (nearly always one of the view's
``legal_actions``, which are shared objects): hashing an ``Action`` costs more than this lookup. The entry
holds the action itself, so its id cannot be reused while it is here."""


def decision_reply(decision_id: int, action: Action) -> pb.BotMessage:
    """The bot's answer to decision ``decision_id``."""
    hit = _REPLY_ACTIONS.get(id(action))
    if hit is None or hit[0] is not action:
        hit = (action, cached_action_pb(action))
        if len(_REPLY_ACTIONS) >= 1024:
            _REPLY_ACTIONS.clear()
        _REPLY_ACTIONS[id(action)] = hit
    message = pb.BotMessage()
    decision = message.decision
    decision.decision_id = decision_id
    decision.action.CopyFrom(hit[1])
    return message
