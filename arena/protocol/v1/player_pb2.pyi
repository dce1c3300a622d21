from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Variant(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIANT_UNSPECIFIED: _ClassVar[Variant]
    VARIANT_CALL_ACE: _ClassVar[Variant]
    VARIANT_FIVE_HANDED: _ClassVar[Variant]
    VARIANT_CLASSIC: _ClassVar[Variant]

class Trump(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRUMP_UNSPECIFIED: _ClassVar[Trump]
    TRUMP_CLUBS: _ClassVar[Trump]
    TRUMP_DIAMONDS: _ClassVar[Trump]
    TRUMP_HEARTS: _ClassVar[Trump]
    TRUMP_SPADES: _ClassVar[Trump]
    TRUMP_NO_TRUMP: _ClassVar[Trump]

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_TWO_CHOICE: _ClassVar[DecisionKind]
    DECISION_KIND_JOKER_NAME: _ClassVar[DecisionKind]
    DECISION_KIND_EXPOSE_NAME: _ClassVar[DecisionKind]
    DECISION_KIND_BID_ROUND_1: _ClassVar[DecisionKind]
    DECISION_KIND_BID_ROUND_2: _ClassVar[DecisionKind]
    DECISION_KIND_DISCARD: _ClassVar[DecisionKind]
    DECISION_KIND_CALL: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY: _ClassVar[DecisionKind]

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_PASS: _ClassVar[ActionKind]
    ACTION_KIND_ORDER_UP: _ClassVar[ActionKind]
    ACTION_KIND_TAKE_UP: _ClassVar[ActionKind]
    ACTION_KIND_NAME: _ClassVar[ActionKind]
    ACTION_KIND_JOKER_NAME: _ClassVar[ActionKind]
    ACTION_KIND_BLIND_NAME: _ClassVar[ActionKind]
    ACTION_KIND_EXPOSE: _ClassVar[ActionKind]
    ACTION_KIND_EXPOSE_NAME: _ClassVar[ActionKind]
    ACTION_KIND_DISCARD: _ClassVar[ActionKind]
    ACTION_KIND_ALONE: _ClassVar[ActionKind]
    ACTION_KIND_CALL: _ClassVar[ActionKind]
    ACTION_KIND_PARTNER: _ClassVar[ActionKind]
    ACTION_KIND_PLAY: _ClassVar[ActionKind]

class UpCardFate(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UP_CARD_FATE_UNSPECIFIED: _ClassVar[UpCardFate]
    UP_CARD_FATE_ON_TABLE: _ClassVar[UpCardFate]
    UP_CARD_FATE_TAKEN: _ClassVar[UpCardFate]
    UP_CARD_FATE_TURNED_DOWN: _ClassVar[UpCardFate]

class HandOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_OUTCOME_UNSPECIFIED: _ClassVar[HandOutcome]
    HAND_OUTCOME_THROWN_IN: _ClassVar[HandOutcome]
    HAND_OUTCOME_EUCHRED: _ClassVar[HandOutcome]
    HAND_OUTCOME_MADE: _ClassVar[HandOutcome]
    HAND_OUTCOME_MARCH: _ClassVar[HandOutcome]
VARIANT_UNSPECIFIED: Variant
VARIANT_CALL_ACE: Variant
VARIANT_FIVE_HANDED: Variant
VARIANT_CLASSIC: Variant
TRUMP_UNSPECIFIED: Trump
TRUMP_CLUBS: Trump
TRUMP_DIAMONDS: Trump
TRUMP_HEARTS: Trump
TRUMP_SPADES: Trump
TRUMP_NO_TRUMP: Trump
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_TWO_CHOICE: DecisionKind
DECISION_KIND_JOKER_NAME: DecisionKind
DECISION_KIND_EXPOSE_NAME: DecisionKind
DECISION_KIND_BID_ROUND_1: DecisionKind
DECISION_KIND_BID_ROUND_2: DecisionKind
DECISION_KIND_DISCARD: DecisionKind
DECISION_KIND_CALL: DecisionKind
DECISION_KIND_PLAY: DecisionKind
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_PASS: ActionKind
ACTION_KIND_ORDER_UP: ActionKind
ACTION_KIND_TAKE_UP: ActionKind
ACTION_KIND_NAME: ActionKind
ACTION_KIND_JOKER_NAME: ActionKind
ACTION_KIND_BLIND_NAME: ActionKind
ACTION_KIND_EXPOSE: ActionKind
ACTION_KIND_EXPOSE_NAME: ActionKind
ACTION_KIND_DISCARD: ActionKind
ACTION_KIND_ALONE: ActionKind
ACTION_KIND_CALL: ActionKind
ACTION_KIND_PARTNER: ActionKind
ACTION_KIND_PLAY: ActionKind
UP_CARD_FATE_UNSPECIFIED: UpCardFate
UP_CARD_FATE_ON_TABLE: UpCardFate
UP_CARD_FATE_TAKEN: UpCardFate
UP_CARD_FATE_TURNED_DOWN: UpCardFate
HAND_OUTCOME_UNSPECIFIED: HandOutcome
HAND_OUTCOME_THROWN_IN: HandOutcome
HAND_OUTCOME_EUCHRED: HandOutcome
HAND_OUTCOME_MADE: HandOutcome
HAND_OUTCOME_MARCH: HandOutcome

class HelloRequest(_message.Message):
    __slots__ = ("protocol_version", "arena_name", "arena_version")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    ARENA_NAME_FIELD_NUMBER: _ClassVar[int]
    ARENA_VERSION_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    arena_name: str
    arena_version: str
    def __init__(self, protocol_version: _Optional[int] = ..., arena_name: _Optional[str] = ..., arena_version: _Optional[str] = ...) -> None: ...

class HelloResponse(_message.Message):
    __slots__ = ("protocol_version", "name", "author", "version", "variants")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    name: str
    author: str
    version: str
    variants: _containers.RepeatedScalarFieldContainer[Variant]
    def __init__(self, protocol_version: _Optional[int] = ..., name: _Optional[str] = ..., author: _Optional[str] = ..., version: _Optional[str] = ..., variants: _Optional[_Iterable[_Union[Variant, str]]] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("events", "game_start", "decision_request", "game_over")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    game_start: GameStart
    decision_request: DecisionRequest
    game_over: GameOver
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., game_start: _Optional[_Union[GameStart, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., game_over: _Optional[_Union[GameOver, _Mapping]] = ...) -> None: ...

class BotMessage(_message.Message):
    __slots__ = ("decision",)
    DECISION_FIELD_NUMBER: _ClassVar[int]
    decision: Decision
    def __init__(self, decision: _Optional[_Union[Decision, _Mapping]] = ...) -> None: ...

class GameStart(_message.Message):
    __slots__ = ("game_id", "config", "seat", "seats", "decision_time_ms", "time_bank_ms", "resumed")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    DECISION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    config: GameConfig
    seat: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    decision_time_ms: int
    time_bank_ms: int
    resumed: bool
    def __init__(self, game_id: _Optional[str] = ..., config: _Optional[_Union[GameConfig, _Mapping]] = ..., seat: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., decision_time_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., resumed: _Optional[bool] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class GameConfig(_message.Message):
    __slots__ = ("variant", "num_players", "target", "max_hands", "first_dealer", "may_discard_upcard", "stick_the_dealer", "deck_5p", "use_joker", "tiebreak", "allow_no_trump", "deck", "joker_names", "call_may_be_trump", "two_expose_mode")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    MAX_HANDS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    MAY_DISCARD_UPCARD_FIELD_NUMBER: _ClassVar[int]
    STICK_THE_DEALER_FIELD_NUMBER: _ClassVar[int]
    DECK_5P_FIELD_NUMBER: _ClassVar[int]
    USE_JOKER_FIELD_NUMBER: _ClassVar[int]
    TIEBREAK_FIELD_NUMBER: _ClassVar[int]
    ALLOW_NO_TRUMP_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    JOKER_NAMES_FIELD_NUMBER: _ClassVar[int]
    CALL_MAY_BE_TRUMP_FIELD_NUMBER: _ClassVar[int]
    TWO_EXPOSE_MODE_FIELD_NUMBER: _ClassVar[int]
    variant: Variant
    num_players: int
    target: int
    max_hands: int
    first_dealer: int
    may_discard_upcard: bool
    stick_the_dealer: bool
    deck_5p: str
    use_joker: bool
    tiebreak: str
    allow_no_trump: bool
    deck: str
    joker_names: bool
    call_may_be_trump: bool
    two_expose_mode: str
    def __init__(self, variant: _Optional[_Union[Variant, str]] = ..., num_players: _Optional[int] = ..., target: _Optional[int] = ..., max_hands: _Optional[int] = ..., first_dealer: _Optional[int] = ..., may_discard_upcard: _Optional[bool] = ..., stick_the_dealer: _Optional[bool] = ..., deck_5p: _Optional[str] = ..., use_joker: _Optional[bool] = ..., tiebreak: _Optional[str] = ..., allow_no_trump: _Optional[bool] = ..., deck: _Optional[str] = ..., joker_names: _Optional[bool] = ..., call_may_be_trump: _Optional[bool] = ..., two_expose_mode: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("kind", "card", "trump")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    card: str
    trump: Trump
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., card: _Optional[str] = ..., trump: _Optional[_Union[Trump, str]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("decision_id", "kind", "legal_actions", "view", "time_ms", "time_bank_ms")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    kind: DecisionKind
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    view: View
    time_ms: int
    time_bank_ms: int
    def __init__(self, decision_id: _Optional[int] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., view: _Optional[_Union[View, _Mapping]] = ..., time_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("decision_id", "action")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    action: Action
    def __init__(self, decision_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("config", "seat", "hand_index", "dealer", "to_act", "scores", "scores_before", "hand", "hand_hidden", "up_card", "up_card_fate", "proposed_trump", "exposed_card", "history", "trump", "maker", "called_card", "alone", "partner", "discard", "tricks", "current_trick", "tricks_won", "sitting_out", "teammates")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_INDEX_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    SCORES_BEFORE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    UP_CARD_FIELD_NUMBER: _ClassVar[int]
    UP_CARD_FATE_FIELD_NUMBER: _ClassVar[int]
    PROPOSED_TRUMP_FIELD_NUMBER: _ClassVar[int]
    EXPOSED_CARD_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    MAKER_FIELD_NUMBER: _ClassVar[int]
    CALLED_CARD_FIELD_NUMBER: _ClassVar[int]
    ALONE_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    SITTING_OUT_FIELD_NUMBER: _ClassVar[int]
    TEAMMATES_FIELD_NUMBER: _ClassVar[int]
    config: GameConfig
    seat: int
    hand_index: int
    dealer: int
    to_act: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    scores_before: _containers.RepeatedScalarFieldContainer[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_hidden: bool
    up_card: str
    up_card_fate: UpCardFate
    proposed_trump: Trump
    exposed_card: str
    history: _containers.RepeatedCompositeFieldContainer[HistoryEntry]
    trump: Trump
    maker: int
    called_card: str
    alone: bool
    partner: int
    discard: str
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    current_trick: Trick
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    sitting_out: int
    teammates: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, config: _Optional[_Union[GameConfig, _Mapping]] = ..., seat: _Optional[int] = ..., hand_index: _Optional[int] = ..., dealer: _Optional[int] = ..., to_act: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., scores_before: _Optional[_Iterable[int]] = ..., hand: _Optional[_Iterable[str]] = ..., hand_hidden: _Optional[bool] = ..., up_card: _Optional[str] = ..., up_card_fate: _Optional[_Union[UpCardFate, str]] = ..., proposed_trump: _Optional[_Union[Trump, str]] = ..., exposed_card: _Optional[str] = ..., history: _Optional[_Iterable[_Union[HistoryEntry, _Mapping]]] = ..., trump: _Optional[_Union[Trump, str]] = ..., maker: _Optional[int] = ..., called_card: _Optional[str] = ..., alone: _Optional[bool] = ..., partner: _Optional[int] = ..., discard: _Optional[str] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., current_trick: _Optional[_Union[Trick, _Mapping]] = ..., tricks_won: _Optional[_Iterable[int]] = ..., sitting_out: _Optional[int] = ..., teammates: _Optional[_Iterable[int]] = ...) -> None: ...

class HistoryEntry(_message.Message):
    __slots__ = ("seat", "action", "hidden")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: Action
    hidden: bool
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., hidden: _Optional[bool] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "plays", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    plays: _containers.RepeatedCompositeFieldContainer[CardPlay]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[CardPlay, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class CardPlay(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("hand_started", "action_taken", "trick_completed", "partner_revealed", "hand_ended", "hand_shown")
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    ACTION_TAKEN_FIELD_NUMBER: _ClassVar[int]
    TRICK_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    PARTNER_REVEALED_FIELD_NUMBER: _ClassVar[int]
    HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    HAND_SHOWN_FIELD_NUMBER: _ClassVar[int]
    hand_started: HandStarted
    action_taken: ActionTaken
    trick_completed: TrickCompleted
    partner_revealed: PartnerRevealed
    hand_ended: HandEnded
    hand_shown: HandShown
    def __init__(self, hand_started: _Optional[_Union[HandStarted, _Mapping]] = ..., action_taken: _Optional[_Union[ActionTaken, _Mapping]] = ..., trick_completed: _Optional[_Union[TrickCompleted, _Mapping]] = ..., partner_revealed: _Optional[_Union[PartnerRevealed, _Mapping]] = ..., hand_ended: _Optional[_Union[HandEnded, _Mapping]] = ..., hand_shown: _Optional[_Union[HandShown, _Mapping]] = ...) -> None: ...

class HandStarted(_message.Message):
    __slots__ = ("hand_index", "dealer", "up_card", "hand", "hand_hidden", "scores")
    HAND_INDEX_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    UP_CARD_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    hand_index: int
    dealer: int
    up_card: str
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_hidden: bool
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hand_index: _Optional[int] = ..., dealer: _Optional[int] = ..., up_card: _Optional[str] = ..., hand: _Optional[_Iterable[str]] = ..., hand_hidden: _Optional[bool] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class HandShown(_message.Message):
    __slots__ = ("hand",)
    HAND_FIELD_NUMBER: _ClassVar[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hand: _Optional[_Iterable[str]] = ...) -> None: ...

class ActionTaken(_message.Message):
    __slots__ = ("seat", "action", "hidden", "exposed_card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    EXPOSED_CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: Action
    hidden: bool
    exposed_card: str
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., hidden: _Optional[bool] = ..., exposed_card: _Optional[str] = ...) -> None: ...

class TrickCompleted(_message.Message):
    __slots__ = ("trick",)
    TRICK_FIELD_NUMBER: _ClassVar[int]
    trick: Trick
    def __init__(self, trick: _Optional[_Union[Trick, _Mapping]] = ...) -> None: ...

class PartnerRevealed(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class HandEnded(_message.Message):
    __slots__ = ("hand_index", "outcome", "trump", "maker", "called_card", "alone", "partner", "tricks_won", "points", "scores")
    HAND_INDEX_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    MAKER_FIELD_NUMBER: _ClassVar[int]
    CALLED_CARD_FIELD_NUMBER: _ClassVar[int]
    ALONE_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    hand_index: int
    outcome: HandOutcome
    trump: Trump
    maker: int
    called_card: str
    alone: bool
    partner: int
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hand_index: _Optional[int] = ..., outcome: _Optional[_Union[HandOutcome, str]] = ..., trump: _Optional[_Union[Trump, str]] = ..., maker: _Optional[int] = ..., called_card: _Optional[str] = ..., alone: _Optional[bool] = ..., partner: _Optional[int] = ..., tricks_won: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class GameOver(_message.Message):
    __slots__ = ("scores", "ranks", "winners", "termination", "forfeited")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    termination: str
    forfeited: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., termination: _Optional[str] = ..., forfeited: _Optional[_Iterable[int]] = ...) -> None: ...
