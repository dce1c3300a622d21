"""The report's leaderboard sentence, on verdict chains worked out by hand: the terminal's own words
(arena.stats.wording), so the two never say it two ways."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from arena.report.board import sentence
from arena.stats import wording
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
    text = sentence(conf([T] * 6 + [A, OP, OP], more=1200))
    assert text.startswith(
        "Places 1–7 are tied within the evidence; 8–10 are tied within the evidence, settled below them "
        "(at 0.95). 2 of 9 neighbour pairs are still open"
    )
    assert "about 1,200 more for the slowest pair" in text


def test_identical_bots_are_said_tied() -> None:
    assert sentence(conf([T, T, T, T])) == (
        "All 5 places are tied within the evidence (each within 0.03 points per hand of the next, at 0.95)."
    )


def test_a_settled_ladder_and_an_open_pair() -> None:
    assert sentence(conf([A, A])) == "Every place is settled: each entrant is above the next (at 0.95)."
    one_open = sentence(conf([OP, A], more=1200))
    assert one_open.startswith("Places 1–2 are tied within the evidence; 3 is settled below them (at 0.95).")
    assert "1 of 2 neighbour pairs is still open: more games would separate it" in one_open
    mixed = sentence(conf([A, T, OP]))
    assert mixed.startswith("Place 1 is settled first; 2–4 are tied within the evidence, settled below 1")


def test_the_report_says_what_the_terminal_says() -> None:
    for chain in ([T] * 6 + [A, OP, OP], [A, A], [OP, A], [OP, OP], [A, T, OP], [T]):
        c = conf(chain, more=900)
        advice = wording.advice(c)
        assert sentence(c) == wording.verdict_sentence(c) + (f" {advice}" if advice else "")


def test_paired_words_and_degenerate_fields() -> None:
    assert "paired points per hand" in sentence(conf([T], method="paired"))
    assert sentence(conf([], order=("solo",))) == "One entrant: nothing to order."
