"""The report's leaderboard: one order, said plainly, every cell a number rounded for people.

The order, its intervals, the verdicts and places come from the event's ranking (arena.stats.leaderboard
and arena.stats.confidence, the same figures ``arena leaderboard`` prints); nothing is recomputed here.
What is added is wording: each column's explanation in a teacher's words, and one sentence that joins the
places by what the evidence says of them ("Places 1–7 are tied within 0.08 points per hand; 8–10 are
settled below them"). TrueSkill is shown beside the order as the rating it is, never as the order.
The exact figures stay in each row's ``data`` (``arena leaderboard --json``'s row, which the browser test
compares with the CLI's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from arena.report.figures import EventFigures
from arena.stats import wording
from arena.stats.confidence import AdjacentPair, Confidence
from arena.stats.headtohead import PairRecord, elo_estimate
from arena.stats.sequential import Verdict

SCORE_LABELS = {
    "points": ("pts/hand", "points per hand"),
    "paired": ("paired pts/hand", "paired points per hand"),
    "centred": ("centred pts/hand", "centred points per hand"),
}
SCORE_HELP = {
    "points": "points scored per hand dealt at its tables, over the whole event: the number the order is by",
    "paired": (
        "points per hand minus what the other plays of the same deal from the same seat scored (duplicate "
        "deals): who held the good cards cancels out, so this is the play alone; the number the order is by"
    ),
    "centred": "points per hand minus the mean of its table: the number the order is by",
}


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    label: str
    help: str
    numeric: bool = True


def columns(conf: Confidence) -> list[Column]:
    """The leaderboard's columns in order, each with its header and its meaning in plain words."""
    label, words = SCORE_LABELS.get(conf.method, SCORE_LABELS["points"])
    level = f"{conf.level:.0%}"
    margin = f"{conf.margin:g}"
    return [
        Column(
            "place",
            "place",
            "the place in the order; '=3' means the evidence shows these neighbours level (within "
            f"± {margin} {words}), so they share the place",
        ),
        Column("name", "entrant", "the entrant's name in the event's config", numeric=False),
        Column("score", label, SCORE_HELP.get(conf.method, SCORE_HELP["points"])),
        Column(
            "interval",
            "95% range",
            f"where the true {words} very probably lies (95% of resamples of the event's "
            f"{conf.unit}s fall inside)",
        ),
        Column(
            "verdict",
            "vs next",
            f"what the evidence says of this entrant and the next one down, at {level} "
            f"{wording.validity(conf)}: 'settled above', 'tied' (closer than ± {margin} {words}), or 'open' "
            "(not yet told apart; with the rough number of games that would tell)",
            numeric=False,
        ),
        Column(
            "p_next",
            "P(better)",
            "the chance that this entrant is truly better than the next one down, judged against how far "
            "apart the entrants of this event are; a best estimate, not a guarantee (the verdict is that)",
        ),
        Column(
            "wld",
            "W-L-D vs next",
            "games shared with the next one down: finished above it, below it, level (as chess testers "
            "print wins, losses, draws)",
        ),
        Column(
            "elo",
            "Elo vs next",
            "those wins, losses and draws read as an Elo difference with its 95% margin, as cutechess and "
            "fastchess print it ('∞': never finished below it); for comparison, not the order",
        ),
        Column(
            "los",
            "LOS",
            "likelihood of superiority over the next one down, from its wins and losses alone (draws "
            "left out), as the chess testers print it",
        ),
        Column(
            "rating",
            "TrueSkill",
            "the TrueSkill rating: mean skill mu ± its uncertainty σ, updated game by game from who "
            "finished above whom (mu − 3σ, a skill it very probably has, when you point at it); a rating "
            "beside the order, not the order, so it may disagree where places are close",
        ),
        Column("games", "games", "games played"),
        Column("wins", "wins", "games finished first (a shared first place counts)"),
        Column("avg_points", "pts/game", "points scored per game"),
        Column("maker_hands", "made trump", "hands in which it fixed trump (was the maker)"),
        Column("maker_success", "maker won", "share of those hands in which its side took 3 or more tricks"),
        Column("faults", "faults", "faults charged to the bot (the arena's own lateness not counted)"),
        Column("forfeits", "forfeits", "games it forfeited after too many faults"),
    ]


def _num(value: float | None, digits: int = 2, sign: bool = False) -> str:
    if value is None or value != value:
        return "–"
    if abs(value) < 0.5 * 10**-digits:
        value = 0.0  # never "−0"
    text = f"{value:+.{digits}f}" if sign and value else f"{value:.{digits}f}"
    return text.replace("-", "−")


def _pct(value: float | None) -> str:
    if value is None or value != value:
        return "–"
    if value > 0.999:
        return ">99.9%"
    if value < 0.001:
        return "<0.1%"
    return f"{value:.1%}" if value > 0.99 or value < 0.01 else f"{value:.0%}"


def _verdict(pair: AdjacentPair | None, dq_below: bool) -> tuple[str, str]:
    """The cell's words and its CSS class."""
    if pair is None:
        return "–", ""
    if dq_below:
        return "above (next disqualified)", "above"
    if pair.verdict is Verdict.ABOVE:
        return "settled above", "above"
    if pair.verdict is Verdict.TIED:
        return "tied", "tied"
    more = f" (~{pair.more_games:,} games)" if pair.more_games else ""
    return f"open{more}", "open"


def _elo(figures: EventFigures, upper: str, lower: str) -> tuple[str, str, str]:
    record = figures.head_to_head(upper, lower)
    est = elo_estimate(record)
    if not record.games:
        return "never met", "–", "–"
    if est.elo is None:
        elo = "+∞" if record.wins > record.losses else "−∞"
    else:
        elo = _num(est.elo, 0, sign=True) + ("" if est.error is None else f" ± {est.error:.0f}")
    return record.wld(), elo, _pct(est.los)


def elo_title(record: PairRecord) -> str:
    """The Elo difference and LOS of a head-to-head cell, for its title ("" when they never met)."""
    if not record.games:
        return ""
    est = elo_estimate(record)
    if est.elo is None:
        elo = "+∞" if record.wins > record.losses else "−∞"
    else:
        elo = _num(est.elo, 0, sign=True) + ("" if est.error is None else f" ± {est.error:.0f}")
    return f"; Elo {elo}, LOS {_pct(est.los)}"


def rows(figures: EventFigures) -> list[dict[str, Any]]:
    """Every row: the CLI's JSON (``data``), the cells as shown (``cells``, text), and its marks."""
    conf = figures.confidence
    places = conf.places()
    out = []
    for i, standing in enumerate(figures.standings):
        entrant = conf.entrants[i]
        pair = conf.adjacent[i] if i < len(conf.adjacent) else None
        below = figures.standings[i + 1] if i + 1 < len(figures.standings) else None
        verdict, verdict_class = _verdict(
            pair, below is not None and below.disqualified != standing.disqualified
        )
        wld, elo, los_text = _elo(figures, standing.name, below.name) if below else ("–", "–", "–")
        lo, hi = entrant.score_ci
        cells = {
            "place": places[i],
            "name": standing.name,
            "score": _num(entrant.score),
            "interval": "–" if lo != lo else f"{_num(lo)} to {_num(hi)}",
            "verdict": verdict,
            "p_next": _pct(pair.probability) if pair else "–",
            "wld": wld,
            "elo": elo,
            "los": los_text,
            "rating": f"{standing.mu:.1f} ± {standing.sigma:.1f}",
            "games": str(standing.games),
            "wins": str(standing.wins),
            "avg_points": _num(standing.avg_points, 1),
            "maker_hands": str(standing.maker_hands),
            "maker_success": "–" if standing.maker_rate is None else f"{standing.maker_rate:.0%}",
            "faults": str(standing.faults),
            "forfeits": str(standing.forfeits),
        }
        out.append(
            {
                "data": standing.to_dict(),
                "cells": cells,
                "score": None if math.isnan(entrant.score) else round(entrant.score, 6),
                "verdict_class": verdict_class,
                "conservative": f"{standing.conservative:.1f}",
                "disqualified": standing.disqualified,
                "house": standing.house,
            }
        )
    return out


def sentence(conf: Confidence) -> str:
    """The places joined by what is known of them, and what to do about open pairs: the terminal's very
    words (arena.stats.wording), so that the report and ``arena leaderboard`` never say it two ways."""
    advice = wording.advice(conf)
    return wording.verdict_sentence(conf) + (f" {advice}" if advice else "")
