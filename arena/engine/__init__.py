"""The rules engine: pure Python, no I/O, no clocks, no global randomness (RULES.md).

Start here::

    from arena.engine import GameConfig, GameState, build_view
    state = GameState(GameConfig.create("five-handed"), seed=7)
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    print(state.outcome)
"""

from arena.engine.actions import ACTIONS, Action, ActionId, ActionKind, action_to_string, parse_action_id
from arena.engine.cards import CARDS, Card, CardId, Suit, Trump, effective_suit, is_trump
from arena.engine.config import GameConfig, Variant, deck_of
from arena.engine.dealing import deal_order
from arena.engine.determinize import Guess, determinize, sample_hidden, state_from_guess
from arena.engine.records import hand_record, replay_record, verify_record
from arena.engine.scoring import HandOutcome, Outcome, Termination
from arena.engine.state import GameState, HandResult, Phase, Trick
from arena.engine.views import Play, TrickView, UpCardFate, View, build_view

__all__ = [
    "ACTIONS",
    "CARDS",
    "Action",
    "ActionId",
    "ActionKind",
    "Card",
    "CardId",
    "GameConfig",
    "GameState",
    "Guess",
    "HandOutcome",
    "HandResult",
    "Outcome",
    "Phase",
    "Play",
    "Suit",
    "Termination",
    "Trick",
    "TrickView",
    "Trump",
    "UpCardFate",
    "Variant",
    "View",
    "action_to_string",
    "build_view",
    "deal_order",
    "deck_of",
    "determinize",
    "effective_suit",
    "hand_record",
    "is_trump",
    "parse_action_id",
    "replay_record",
    "sample_hidden",
    "state_from_guess",
    "verify_record",
]
