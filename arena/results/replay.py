"""``arena replay DIR GAME``: a stored game told hand by hand, for a person to read.

Works from the stored hand records alone (deal, bids, call, tricks, points), with entrant names in place of
seat numbers, so what is printed is exactly what was refereed.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from arena.errors import FaultKind
from arena.results.queries import StoredGame
from arena.text import printable

_SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "NT": "No-Trumps"}


def _card(text: str | None) -> str:
    """A card as the hand records write it (``TD``, ``2S``, ``JKR``): what a reader can grep and paste."""
    return text or "-"


def _suit(suit: str) -> str:
    """A suit as the records write it, the symbol only as decoration: ``D ♦``."""
    return suit if suit == "NT" else f"{suit} {_SUITS[suit]}"


def _action(text: str) -> str:
    if "(" not in text:
        return text.replace("_", " ").lower()
    kind, arg = text[:-1].split("(")
    shown = _suit(arg) if arg in _SUITS else _card(arg)
    return f"{kind.replace('_', ' ').lower()} {shown}"


def render_game(game: StoredGame) -> str:
    seats = game.seats
    width = max(len(s) for s in seats)

    def who(seat: int | None) -> str:
        return "nobody" if seat is None else f"{seats[seat]} (seat {seat})"

    # An event with secret deals was dealt from this public seed *and* its key (arena/event/deals.py), which
    # is not shown; events stored before secret deals (no key) were dealt from the seed alone.
    seed = (
        f"public seed {game.seed} (deals keyed by the event's secret key)"
        if game.keyed_deals
        else f"deal seed {game.seed}"
    )
    lines = [
        f"Game {game.game_id}: round {game.round}, table {game.table}"
        + (f", duplicate block {game.block} rotation {game.rotation}" if game.block != game.game_id else ""),
        f"Seed: {seed}",
        "Seats: " + ", ".join(f"{i} {name}" for i, name in enumerate(seats)),
    ]
    for hand in game.hands:
        lines.append("")
        lines.append(
            f"Hand {hand['hand_index'] + 1} — dealer {who(hand['dealer'])}, scores before "
            f"{_scores(hand['scores_before'])}"
        )
        for seat, cards in enumerate(hand["dealt"]):
            lines.append(f"  {seats[seat]:<{width}}  {' '.join(_card(c) for c in cards)}")
        lines.append(f"  up-card {_card(hand['up_card'])}")
        bids = [
            a
            for a in hand["actions"]
            if not a["action"].startswith(("PLAY", "DISCARD", "CALL", "ALONE", "PARTNER"))
        ]
        lines.append("  bidding: " + "; ".join(f"{seats[a['seat']]} {_action(a['action'])}" for a in bids))
        if hand["exposed_card"]:
            lines.append(f"  exposed: {_card(hand['exposed_card'])}")
        if hand["maker"] is None:
            lines.append("  everybody passed twice: thrown in, nobody scores")
            lines += _faults(game, hand["hand_index"])
            continue
        call = (
            "alone"
            if hand["alone"]
            else f"calls {_card(hand['called_card'])}"
            if hand["called_card"]
            else "with partner"
        )
        lines.append(
            f"  trump {_suit(hand['trump'])}, maker {who(hand['maker'])}, {call}"
            + (f"; dealer discards {_card(hand['discard'])}" if hand["discard"] else "")
        )
        if hand["called_card"]:
            lines.append(f"  partner: {who(hand['partner'])}")
        if hand["sitting_out"] is not None:
            lines.append(f"  sitting out: {who(hand['sitting_out'])}")
        marked = _faulted_plays(game, hand["hand_index"])
        for number, trick in enumerate(hand["tricks"], 1):
            plays = ", ".join(
                f"{seats[p['seat']]} {_card(p['card'])}{marked.get((p['seat'], p['card']), '')}"
                for p in trick["plays"]
            )
            lines.append(f"  trick {number}: {plays} → {seats[trick['winner']]}")
        lines.append(
            f"  {hand['outcome']}: making side took {hand['making_tricks']} tricks; points "
            f"{_named(seats, hand['points'])}; scores {_scores(hand['scores_after'])}"
        )
        lines += _faults(game, hand["hand_index"])
    lines.append("")
    lines.append(
        f"Final ({game.termination.replace('_', ' ')} after {game.hands_played} hands): "
        + ", ".join(
            f"{seats[s]} {game.scores[s]} (rank {game.ranks[s]})"
            for s in sorted(range(len(seats)), key=lambda s: game.ranks[s])
        )
    )
    if game.forfeited:
        lines.append("Forfeited: " + ", ".join(seats[s] for s in game.forfeited))
    faults = len(game.faults)
    if faults:
        lines.append(f"Faults: {faults}, each shown in its hand above")
    return "\n".join(_wrapped(lines)) + "\n"


def _wrapped(lines: list[str], width: int = 80) -> list[str]:
    """Each line wrapped to ``width`` at its commas and semicolons (a seat and its card stay together),
    its continuation indented under it (a trick of seven seats, a long bidding), so the replay reads in an
    80-column terminal or log."""
    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        lead = " " * (len(line) - len(line.lstrip()))
        more = lead + "    "
        current = ""
        for piece in re.split(r"(?<=[,;]) ", line):
            candidate = f"{current} {piece}" if current else piece
            if len(candidate) <= width or not current:
                current = candidate
            else:
                out.append(current)
                current = more + piece
        out += textwrap.wrap(
            current, width, subsequent_indent=more, break_on_hyphens=False, break_long_words=False
        ) or [""]
    return out


def _faults(game: StoredGame, hand_index: int) -> list[str]:
    """The faults of one hand, where they happened (harness faults marked: they are not the bot's)."""
    return [
        f"  fault: {f.entrant} (seat {f.seat}) at decision {f.decision_id}: {f.kind.value}"
        f"{' (the arena was late; not charged)' if f.kind is FaultKind.HARNESS else ''} — "
        f"{printable(f.detail)}; the arena played {f.substitute} instead"
        for f in game.faults
        if f.hand_index == hand_index
    ]


def _faulted_plays(game: StoredGame, hand_index: int) -> dict[tuple[int, str], str]:
    """The card plays of one hand that the arena made for a seat after a fault, by (seat, card), each with
    its mark: the decision it happened at (a card is played once a hand, so the play is the fault's)."""
    return {
        (f.seat, f.substitute[5:-1]): f" (fault at decision {f.decision_id})"
        for f in game.faults
        if f.hand_index == hand_index and f.substitute.startswith("PLAY(")
    }


def _scores(scores: Sequence[int]) -> str:
    return "/".join(str(s) for s in scores)


def _named(seats: Sequence[str], values: Sequence[int]) -> str:
    shown = [f"{seats[i]} +{v}" for i, v in enumerate(values) if v]
    return ", ".join(shown) or "none"
