"""The replays' compact form: every game of an event, small enough for one HTML file of a 2,000-game event.

A stored hand record is about 2.5 kB of JSON; 2,000 games hold some 14,000 hands, 35 MB. The replay needs
only what cannot be derived in the page: the deck (one character per card), the dealer, the actions (two
or three characters each), trump, maker, partner, sit-out, trick winners and points; ``replay.js`` deals the
cards, replays the actions and adds up the scores. The whole is then gzipped and base64-encoded, and the
page inflates it with the browser's own ``DecompressionStream``: about 120 bytes a hand in the file.
``decode_hand`` is the inverse used by the tests, so the page's format is pinned by a round trip.
"""

from __future__ import annotations

import base64
import gzip
import json
import string
from collections.abc import Sequence
from typing import Any

from arena.errors import NotationError
from arena.results.queries import Fault
from arena.text import printable

# Every card of every variant: ranks 2..A in four suits, and the Call-Ace Joker. Shared with replay.js.
CARD_LIST = [r + s for s in "CDHS" for r in "23456789TJQKA"] + ["JKR"]
ALPHABET = string.ascii_letters + string.digits
CARD_CHAR = {card: ALPHABET[i] for i, card in enumerate(CARD_LIST)}
CHAR_CARD = {c: card for card, c in CARD_CHAR.items()}
SIMPLE = {"PASS": "p", "ORDER_UP": "o", "TAKE_UP": "t", "EXPOSE": "e", "ALONE": "a", "PARTNER": "r"}
SUITED = {"NAME": "n", "JOKER_NAME": "j", "BLIND_NAME": "b", "EXPOSE_NAME": "x"}
CARDED = {"DISCARD": "d", "CALL": "c", "PLAY": "y"}
OUTCOMES = {"thrown_in": "t", "euchred": "e", "made": "m", "march": "M"}
_BACK = {v: k for k, v in (SIMPLE | SUITED | CARDED).items()}


def encode_action(seat: int, text: str) -> str:
    """``PLAY(TD)`` by seat 3 -> ``3y`` + the card's character; ``NAME(NT)`` -> ``nN``."""
    if text in SIMPLE:
        return f"{seat}{SIMPLE[text]}"
    kind, _, arg = text.rstrip(")").partition("(")
    if kind in SUITED:
        return f"{seat}{SUITED[kind]}{'N' if arg == 'NT' else arg}"
    if kind in CARDED:
        return f"{seat}{CARDED[kind]}{CARD_CHAR[arg]}"
    raise NotationError(f"action {text!r} is not in the hand-record vocabulary")


def decode_actions(code: str) -> list[tuple[int, str]]:
    out, i = [], 0
    while i < len(code):
        seat, kind = int(code[i]), _BACK[code[i + 1]]
        i += 2
        if kind in SIMPLE:
            out.append((seat, kind))
            continue
        arg = code[i]
        i += 1
        if kind in CARDED:
            arg = CHAR_CARD[arg]
        elif arg == "N":
            arg = "NT"
        out.append((seat, f"{kind}({arg})"))
    return out


def encode_hand(record: dict[str, Any]) -> list[Any]:
    """[dealer, deck, actions, trump, maker, partner, sitting_out, trick winners, outcome, points]."""
    return [
        record["dealer"],
        "".join(CARD_CHAR[c] for c in record["deck"]),
        "".join(encode_action(a["seat"], a["action"]) for a in record["actions"]),
        record["trump"],
        record["maker"],
        record["partner"],
        record["sitting_out"],
        "".join(str(t["winner"]) for t in record["tricks"]),
        OUTCOMES[record["outcome"]],
        record["points"],
    ]


def decode_hand(code: list[Any]) -> dict[str, Any]:
    """The fields of a hand record that the page shows, rebuilt from ``encode_hand`` (for the tests)."""
    dealer, deck, actions, trump, maker, partner, sitting_out, winners, outcome, points = code
    return {
        "dealer": dealer,
        "deck": [CHAR_CARD[c] for c in deck],
        "actions": [{"seat": s, "action": a} for s, a in decode_actions(actions)],
        "trump": trump,
        "maker": maker,
        "partner": partner,
        "sitting_out": sitting_out,
        "winners": [int(w) for w in winners],
        "outcome": {v: k for k, v in OUTCOMES.items()}[outcome],
        "points": points,
    }


def place_faults(
    hands: Sequence[dict[str, Any]], faults: Sequence[Fault], max_faults: int
) -> list[list[Any]]:
    """Each fault as [hand index, action index in that hand or -1, seat, kind, detail, substitute, decision
    number] (the number ``arena ask --decision`` takes, shown by the replay beside the fault).

    ``decision_id`` counts the decisions the arena asked for in the game; a forfeiter's seat is played by the
    autopilot without asking, so walking the actions and forfeiting seats as the referee did (more than
    ``max_faults`` charged faults) finds the action each fault replaced. A fault that does not line up with
    its action (a store from another version of the referee) stays at its hand, with index -1.
    """
    by_decision = {f.decision_id: f for f in faults}
    placed: dict[int, tuple[int, int]] = {}
    counted: dict[int, int] = {}
    forfeited: set[int] = set()
    decision = 0
    for h, hand in enumerate(hands):
        for i, action in enumerate(hand["actions"]):
            seat = action["seat"]
            if seat in forfeited:
                continue
            decision += 1
            fault = by_decision.get(decision)
            if fault is None or fault.seat != seat or fault.substitute != action["action"]:
                continue
            placed[decision] = (h, i)
            if fault.charged:
                counted[seat] = counted.get(seat, 0) + 1
                if counted[seat] > max_faults:
                    forfeited.add(seat)
    return [
        [
            *placed.get(f.decision_id, (f.hand_index, -1)),
            f.seat,
            f.kind.value,
            printable(f.detail),  # shown by the replay, and shown as the arena's listings show it
            f.substitute,
            f.decision_id,
        ]
        for f in faults
    ]


def place_times(
    hands: Sequence[dict[str, Any]],
    faults: Sequence[Fault],
    max_faults: int,
    times: Sequence[Sequence[float]],
) -> list[list[float | None]]:
    """Each action's decision time in ms, hand by hand (None: played by the autopilot, or faulted, whose
    fault carries its time).

    The store keeps each seat's answered decisions' times in the order asked; walking the actions as the
    referee asked them (as ``place_faults`` does: a forfeiter's seat is not asked, a faulted decision has no
    answered time) lines each time up with its action.
    """
    by_decision = {f.decision_id: f for f in faults}
    queues = [iter(seat) for seat in times]
    counted: dict[int, int] = {}
    forfeited: set[int] = set()
    decision = 0
    out: list[list[float | None]] = []
    for hand in hands:
        row: list[float | None] = []
        for action in hand["actions"]:
            seat = action["seat"]
            if seat in forfeited:
                row.append(None)
                continue
            decision += 1
            fault = by_decision.get(decision)
            if fault is not None and fault.seat == seat and fault.substitute == action["action"]:
                row.append(None)
                if fault.charged:
                    counted[seat] = counted.get(seat, 0) + 1
                    if counted[seat] > max_faults:
                        forfeited.add(seat)
                continue
            row.append(next(queues[seat], None) if seat < len(queues) else None)
        out.append(row)
    return out


def pack(data: Any) -> str:
    """JSON, gzipped (level 9, fixed mtime so the same event gives the same file), base64."""
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack(text: str) -> Any:
    return json.loads(gzip.decompress(base64.b64decode(text)))
