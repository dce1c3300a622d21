"""What the play page is sent about its seat: the seat's ``View`` and news, as JSON, and nothing else.

Why a module of its own: the page must show a person exactly what a bot in that seat is given (the brief of
``arena play``: "the same view a bot gets"), so everything here is a plain transcription of
``arena.engine.views.View`` and of the seat's ``arena.engine.news`` items, field by field, with no state of
the game besides. A card no bot in the seat could see cannot reach the page, because it is not in the view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.engine.actions import Action
from arena.engine.cards import Card, Trump
from arena.engine.news import (
    ActionTaken,
    HandEnded,
    HandShown,
    HandStarted,
    News,
    PartnerRevealed,
    TrickCompleted,
)
from arena.engine.views import TrickView, View

_SUIT_WORD = {"C": "clubs ♣", "D": "diamonds ♦", "H": "hearts ♥", "S": "spades ♠", "NT": "no trumps"}


def _card(card: Card | None) -> str | None:
    return None if card is None else str(card)


def _trump(trump: Trump | None) -> str | None:
    return None if trump is None else trump.letter


def _trick(trick: TrickView | None) -> dict[str, Any] | None:
    if trick is None:
        return None
    return {
        "leader": trick.leader,
        "plays": [{"seat": p.seat, "card": str(p.card)} for p in trick.plays],
        "winner": trick.winner,
    }


def view_json(view: View) -> dict[str, Any]:
    """Every field of the seat's ``View`` (docs/protocol.md), cards and actions in their text forms."""
    return {
        "seat": view.seat,
        "hand_index": view.hand_index,
        "dealer": view.dealer,
        "phase": view.phase.name,
        "to_act": view.to_act,
        "scores": list(view.scores),
        "scores_before": list(view.scores_before),
        "hand": None if view.hand is None else [str(c) for c in view.hand],
        "up_card": str(view.up_card),
        "up_card_fate": view.up_card_fate.value,
        "proposed_trump": _trump(view.proposed_trump),
        "exposed_card": _card(view.exposed_card),
        "history": [[seat, None if a is None else str(a)] for seat, a in view.history],
        "trump": _trump(view.trump),
        "maker": view.maker,
        "called_card": _card(view.called_card),
        "alone": view.alone,
        "partner": view.partner,
        "teammates": list(view.teammates),
        "discard": _card(view.discard),
        "tricks": [_trick(t) for t in view.tricks],
        "current_trick": _trick(view.current_trick),
        "tricks_won": list(view.tricks_won),
        "sitting_out": view.sitting_out,
        "legal_actions": [str(a) for a in view.legal_actions],
    }


def action_words(action: Action | None, you: bool = False) -> str:
    """An action as a sentence's verb: ``orders up``, ``plays JH``, ``names spades ♠`` (``you``: ``order
    up``, ``play JH``)."""
    if action is None:
        return "discard a card" if you else "discards a card"  # the dealer's discard, as others are told it
    kind = action.kind.value.lower().replace("_", " ")
    if action.card is not None:
        verb = {"play": "play", "discard": "discard", "call": "call"}[kind]
        return f"{verb if you else verb + 's'} {action.card}"
    if action.trump is not None:
        how = {
            "name": "",
            "joker name": " (Joker up)",
            "blind name": " blind",
            "expose name": " after the exposure",
        }[kind]
        return f"{'name' if you else 'names'} {_SUIT_WORD[action.trump.letter]}{how}"
    verbs = {
        "pass": ("pass", "passes"),
        "order up": ("order up", "orders up"),
        "take up": ("take up", "takes up"),
        "expose": ("expose a card", "exposes a card"),
        "alone": ("go alone", "goes alone"),
        "partner": ("play with a partner", "plays with a partner"),
    }
    return verbs[kind][0 if you else 1]


def news_line(item: News, names: Sequence[str], seat: int) -> str:
    """One piece of the seat's news in words, for the page's log (the same items ``Bot.on_event`` gets)."""
    match item:
        case HandStarted():
            cards = (
                "your cards are hidden (a blind decision)"
                if item.hand is None
                else ("your cards " + " ".join(str(c) for c in item.hand))
            )
            return (
                f"hand {item.hand_index + 1}: {names[item.dealer]} "
                f"{'deal' if item.dealer == seat else 'deals'}; up-card {item.up_card}; {cards}"
            )
        case HandShown():
            return "you see your cards: " + " ".join(str(c) for c in item.hand)
        case ActionTaken():
            who = "you" if item.seat == seat else names[item.seat]
            text = f"{who} {action_words(item.action, item.seat == seat)}"
            return text + (f" ({item.exposed_card})" if item.exposed_card is not None else "")
        case TrickCompleted():
            winner = item.trick.winner
            return f"trick to {'you' if winner == seat else names[winner or 0]}"
        case PartnerRevealed():
            return f"{'you are' if item.seat == seat else names[item.seat] + ' is'} the maker's partner"
        case HandEnded():
            points = ", ".join(f"{names[s]} +{p}" for s, p in enumerate(item.points) if p) or "nobody scores"
            return f"hand {item.hand_index + 1} {item.outcome.value.replace('_', ' ')}: {points}"
    return str(item)  # pragma: no cover - every kind of news is matched above


def hand_end_json(item: HandEnded) -> dict[str, Any]:
    """The hand's points as the page shows them between hands (all of it public: ``HandEnded``)."""
    return {
        "hand_index": item.hand_index,
        "outcome": item.outcome.value,
        "trump": _trump(item.trump),
        "maker": item.maker,
        "called_card": _card(item.called_card),
        "alone": item.alone,
        "partner": item.partner,
        "tricks_won": list(item.tricks_won),
        "points": list(item.points),
        "scores": list(item.scores),
    }


def trick_json(item: TrickCompleted) -> dict[str, Any] | None:
    return _trick(item.trick)
