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
    # neighbour verdicts alone (no pair tested over the field): nobody is claimed first, nothing is one tier
    # above another, and only the pairs shown within the margin are called tied
    assert text.startswith(
        "No winner yet: any of the 10 ranked entrants may be first (at 0.95). One tier: no group of entrants "
        "is yet shown better than the rest. Tied (shown within 0.03 points per hand): 1 e1 and 2 e2;"
    )
    assert "2 of 9 neighbour pairs are still open" in text
    assert "about 1,200 more games for the slowest pair" in text


def test_identical_bots_are_said_tied() -> None:
    assert sentence(conf([T, T, T, T])) == (
        "No winner yet: any of the 5 ranked entrants may be first (at 0.95). One tier: no group of entrants "
        "is yet shown better than the rest. Tied (shown within 0.03 points per hand): 1 e1 and 2 e2; 2 e2 "
        "and 3 e3; 3 e3 and 4 e4; 4 e4 and 5 e5."
    )


def test_a_settled_ladder_and_an_open_pair() -> None:
    # settled neighbours are not a claim over all pairs: without rank ranges no tier or winner is said
    assert sentence(conf([A, A])).startswith("No winner yet: any of the 3 ranked entrants may be first")
    one_open = sentence(conf([OP, A], more=1200))
    assert "1 of 2 neighbour pairs is still open: more games would separate it" in one_open
    mixed = sentence(conf([A, T, OP]))
    assert "Tied (shown within 0.03 points per hand): 2 e2 and 3 e3." in mixed


def test_the_report_says_what_the_terminal_says() -> None:
    for chain in ([T] * 6 + [A, OP, OP], [A, A], [OP, A], [OP, OP], [A, T, OP], [T]):
        c = conf(chain, more=900)
        advice = wording.advice(c)
        assert sentence(c) == wording.verdict_sentence(c) + (f" {advice}" if advice else "")


def test_paired_words_and_degenerate_fields() -> None:
    assert "paired points per hand" in sentence(conf([T], method="paired"))
    assert sentence(conf([], order=("solo",))) == "One entrant: nothing to order."
