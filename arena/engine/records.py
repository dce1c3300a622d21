"""Hand records: one self-contained, JSON-serialisable document per hand (docs/hand-record.md).

A record carries the deck order and every action, so anyone who knows RULES.md can re-check the hand by
hand; ``verify_record`` does exactly that with the engine, replaying the deck and actions from the scores
before the hand and comparing every derived field (tricks, partner, points, scores).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.engine.actions import action_to_string, parse_action_id
from arena.engine.cards import Trump, card_text, parse_card_id
from arena.engine.config import GameConfig
from arena.engine.dealing import deal_positions
from arena.engine.state import GameState, HandResult
from arena.errors import RuleError

RECORD_FORMAT = "euchre-arena/hand-record/v1"


def _card(card: int) -> str | None:
    return card_text(card) if card >= 0 else None


def _seat(seat: int) -> int | None:
    return seat if seat >= 0 else None


def hand_record(result: HandResult) -> dict[str, Any]:
    """The JSON-ready record of a finished hand."""
    n = result.config.num_players
    positions = deal_positions(n, result.dealer)
    return {
        "format": RECORD_FORMAT,
        "config": result.config.to_dict(),
        "num_players": n,
        "hand_index": result.hand_index,
        "dealer": result.dealer,
        "deck": [card_text(c) for c in result.deck],
        "dealt": [[card_text(result.deck[p]) for p in seat_positions] for seat_positions in positions],
        "up_card": card_text(result.deck[5 * n]),
        "actions": [{"seat": s, "action": action_to_string(a)} for s, a in result.actions],
        "trump": Trump(result.trump).letter if result.trump >= 0 else None,
        "maker": _seat(result.maker),
        "exposed_card": _card(result.exposed),
        "discard": _card(result.discard),
        "called_card": _card(result.called),
        "alone": result.alone,
        "partner": _seat(result.partner),
        "sitting_out": _seat(result.sitting_out),
        "tricks": [
            {
                "leader": t.leader,
                "plays": [{"seat": s, "card": card_text(c)} for s, c in t.plays],
                "winner": t.winner,
            }
            for t in result.tricks
        ],
        "tricks_won": list(result.tricks_won),
        "making_tricks": result.making_tricks,
        "outcome": result.outcome.value,
        "points": list(result.points),
        "scores_before": list(result.scores_before),
        "scores_after": list(result.scores_after),
    }


def replay_record(record: Mapping[str, Any]) -> HandResult:
    """Replay a record's deck and actions through the engine and return the hand it produces.

    :raises RuleError: if the deck is not a deck of the configuration or an action is illegal.
    """
    try:
        config = GameConfig.from_dict(record["config"])
        deck = [parse_card_id(c) for c in record["deck"]]
        state = GameState(
            config,
            seed=None,
            decks=[deck],
            hand_index=int(record["hand_index"]),
            dealer=int(record["dealer"]),
            scores=[int(s) for s in record["scores_before"]],
            single_hand=True,
        )
        for entry in record["actions"]:
            if state.is_terminal():
                raise RuleError(f"action {entry!r} comes after the hand ended")
            if state.current_player() != entry["seat"]:
                raise RuleError(f"action {entry!r}: it was seat {state.current_player()}'s turn")
            state.apply(parse_action_id(entry["action"]))
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, RuleError):
            raise
        raise RuleError(f"malformed hand record: {exc!r}") from None
    if not state.results:
        raise RuleError("the record's actions stop before the hand ends")
    return state.results[0]


def verify_record(record: Mapping[str, Any]) -> list[str]:
    """Every field of ``record`` that disagrees with a replay of its deck and actions (empty = sound)."""
    try:
        replayed = hand_record(replay_record(record))
    except RuleError as exc:
        return [str(exc)]
    return [
        f"{key}: record says {record.get(key)!r}, replay gives {value!r}"
        for key, value in replayed.items()
        if record.get(key) != value
    ]
