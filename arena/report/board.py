"""The report's leaderboard: one order, said plainly, every cell a number rounded for people.

The order, its intervals, the verdicts and places come from the event's ranking (arena.stats.leaderboard
and arena.stats.confidence, the same figures ``arena leaderboard`` prints); nothing is recomputed here.
What is added is wording: each column's explanation in a teacher's words, and one sentence that joins the
places by what the evidence says of them (the winner or who may be first, the tiers, the ties, in the
terminal's words). TrueSkill is shown beside the order as the rating it is, never as the order.
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


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    label: str
    help: str
    numeric: bool = True


TEXT_KEYS = ("name", "verdict", "wld")
"""Columns of words, not numbers (left-aligned)."""


def columns(conf: Confidence) -> list[Column]:
    """The leaderboard's columns in order: the one list of arena.stats.wording (the terminal's, with the
    report's own columns), each with its header and its meaning in plain words."""
    return [
        Column(c.key, c.label, c.meaning, c.key not in TEXT_KEYS)
        for c in wording.columns(conf.method, conf.level)
        if c.key != "note"
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
    out = []
    for i, standing in enumerate(figures.standings):
        entrant = conf.entrants[i]
        pair = conf.adjacent[i] if i < len(conf.adjacent) else None
        below = figures.standings[i + 1] if i + 1 < len(figures.standings) else None
        verdict, verdict_class = _verdict(
            pair, below is not None and below.disqualified != standing.disqualified
        )
        wld, elo, los_text = _elo(figures, standing.name, below.name) if below else ("–", "–", "–")
        shared = {k: v for k, v in wording.cells(standing, conf, i).items() if k != "note"}
        cells = shared | {
            "verdict": verdict,
            "p_next": _pct(pair.probability) if pair else "–",
            "wld": wld,
            "elo": elo,
            "los": los_text,
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
