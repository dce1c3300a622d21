"""The leaderboard's one sentence, on verdict chains worked out by hand."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from arena.report.board import sentence
from arena.stats.confidence import AdjacentPair, Confidence
from arena.stats.sequential import Verdict

A, T, OP = Verdict.ABOVE, Verdict.TIED, Verdict.OPEN


def conf(verdicts: list[Verdict], more: int | None = None, **kw: Any) -> Confidence:
    names = tuple(f"e{i + 1}" for i in range(len(verdicts) + 1))
    pairs = tuple(
        AdjacentPair(names[i], names[i + 1], 0.5, v, 0.0, (0.0, 0.0), 0.0, more if v is OP else None)
        for i, v in enumerate(verdicts)
    )
    base = Confidence("points", 0.95, 0.03, "game", 100, 100, 0, 1, names, (), (), pairs, 0.5, 3.0, 0.0)
    return replace(base, **kw)


def test_the_issues_example() -> None:
    text = sentence(conf([T] * 6 + [A, OP, OP]))
    assert text == (
        "Places 1–7 are tied within 0.03 points per hand; 8–10 (e8, e9, e10) are settled below them, and "
        "not yet told apart among themselves."
    )


def test_identical_bots_are_said_tied() -> None:
    assert sentence(conf([T, T, T, T])) == "Places 1–5 are tied within 0.03 points per hand."


def test_a_settled_ladder_and_an_open_pair() -> None:
    assert sentence(conf([A, A])) == (
        "Place 1 (e1) is settled first; 2 (e2) is settled below it; 3 (e3) is settled below it."
    )
    assert sentence(conf([OP, A], more=1200)) == (
        "Places 1–2 (e1, e2) are not yet told apart; 3 (e3) is settled below them. "
        "The closest open pair would need about 1,200 more games to be told apart."
    )
    assert sentence(conf([OP, OP])).startswith("No place is settled yet: places 1–3")
    mixed = sentence(conf([A, T, OP]))
    assert "2–4 (e2, e3, e4) are settled below it, and not yet all told apart among themselves" in mixed


def test_paired_words_and_degenerate_fields() -> None:
    assert "paired points per hand" in sentence(conf([T], method="paired"))
    assert sentence(conf([], order=("solo",))) == "One entrant: nothing to compare."
