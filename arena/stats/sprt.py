"""Wald's sequential probability ratio test on paired per-deal differences, for ``arena match``.

Each observation is one deal's paired difference: the candidate's points per hand minus the baseline's,
both having played that deal from every seat against the same field. The test weighs H0: mean = ``h0``
against H1: mean = ``h1`` (points per hand) with the differences taken as normal with a common variance,
estimated from the differences seen so far (as chess testers do with game-pair scores). Its log-likelihood
ratio is then

    LLR = (h1 - h0) / s² · (Σx - n (h0 + h1) / 2)

and it stops at the first deal where LLR ≥ ln((1 - β) / α) (accept H1: the edge is nearer ``h1`` than
``h0``; the measured edge, not ``h1``, is the estimate) or LLR ≤ ln(β / (1 - α)) (accept H0: it is not
better by ``h1``; an edge between ``h0`` and ``h1`` is not ruled out), which keeps the chance of accepting
H1 when H0 holds near ``α`` and the reverse near ``β`` while using, on average, far fewer deals than a
fixed-size test of the same power. The variance is re-estimated at every look, so the first ``min_deals``
deals only inform it: the ratio before then is no look, and may lie far past a bound (a variance from a few
deals can be tiny) without deciding anything.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena import options
from arena.errors import ConfigError
from arena.options import Range, option

_NUMBER = Range(None, None, "a number", integer=False)
_ERROR = Range(0, 0.5, "a probability", integer=False, open_lo=True, open_hi=True)


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """The test's hypotheses and error rates (``arena match``'s flags, stored with the match)."""

    h0: float = option(0.0, _NUMBER, "H0: the candidate's edge in points per hand is this")
    h1: float = option(0.1, _NUMBER, "H1: ... or this (greater)")
    alpha: float = option(0.05, _ERROR, "the chance of accepting H1 when H0 holds")
    beta: float = option(0.05, _ERROR, "the chance of accepting H0 when H1 holds")
    min_deals: int = option(10, Range(2, None, note=" (a variance needs two)"), "deals before the first look")

    def __post_init__(self) -> None:
        """:raises ConfigError: a bad setting, or ``h1`` not above ``h0``."""
        options.settle(self, "")
        if not self.h1 > self.h0:
            raise ConfigError(f"h1={self.h1} must be greater than h0={self.h0}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def to_dict(self) -> dict[str, Any]:
        return options.to_dict(self)


class SprtResult(StrEnum):
    """What the test says; the text is what ``SprtState.to_dict`` and ``--json`` carry."""

    H1 = "H1"  # the edge is nearer h1 than h0 (not: it reached h1)
    H0 = "H0"  # it is not better by h1 (an edge between h0 and h1 is not ruled out)
    UNDECIDED = ""  # neither bound crossed yet


@dataclass(frozen=True, slots=True)
class SprtState:
    """The test after ``deals`` observations; ``first_look`` is the deal it first looks at (``min_deals``),
    so a state read before then is not taken for a look."""

    deals: int
    mean: float
    sd: float
    llr: float
    lower: float
    upper: float
    result: SprtResult
    first_look: int = 0

    def render(
        self,
        settings: SprtSettings,
        width: int = 80,
        *,
        candidate: str | None = None,
        baseline: str | None = None,
    ) -> str:
        """The test in words, wrapped on words to ``width``: the two sides (named when given), the
        hypotheses, the measured edge with its labelled interval, the LLR against its bounds, and the
        verdict, which says what the test decided of the measured edge: H1 means the edge is nearer h1 than
        h0, not that it reached h1."""
        sides = ""
        if candidate is not None and baseline is not None:
            sides = f" the candidate {candidate} against the baseline {baseline},"
        text = (
            f"SPRT of{sides} H0: edge {settings.h0:+g} against H1: edge {settings.h1:+g} points per hand "
            f"(alpha {settings.alpha:g}, beta {settings.beta:g}): {self.deals} deals; {self.edge_text()}; "
            f"{self._llr_words(look_note=False)}: {self._verdict(settings, candidate, baseline)}"
        )
        return "\n".join(textwrap.wrap(text, width, subsequent_indent="  ", break_on_hyphens=False))

    def _verdict(self, settings: SprtSettings, candidate: str | None, baseline: str | None) -> str:
        """The decision as a sentence true of what was measured (the edge and its interval are beside it)."""
        if self.result is SprtResult.UNDECIDED:
            if self.deals < settings.min_deals:
                return f"undecided (the test looks from deal {settings.min_deals} on)"
            return "undecided"
        h0, h1 = f"{settings.h0:+g}", f"{settings.h1:+g}"
        named = candidate and baseline and candidate != baseline  # a bot against itself: roles say more
        edge = f"{candidate}'s edge over {baseline}" if named else "the candidate's edge over the baseline"
        measured = f"as measured it is {self.mean:+.3f} points per hand"
        lo, hi = self.interval()
        if self.constant:  # no spread: the interval is the edge itself, and says nothing beyond these deals
            measured, lo, hi = f"{measured} on every deal", -math.inf, math.inf
        if self.result is SprtResult.H1:
            if lo > settings.h1:
                measured += ", and its 95% interval lies above h1"
            elif not self.constant:
                measured += ", which does not show that it reaches h1"
            verdict = f"H1 accepted: {edge} is nearer h1 ({h1}) than h0 ({h0}); {measured}"
        else:
            if hi < settings.h0:
                measured += ", and its 95% interval lies below h0"
            elif not self.constant:
                measured += ", and an edge between h0 and h1 is not ruled out"
            verdict = (
                f"H0 accepted: {edge} is nearer h0 ({h0}) than h1 ({h1}): it is not better by h1 (= {h1} "
                f"points per hand); {measured}"
            )
        if self.deals == settings.min_deals:
            verdict += (
                f" (decided at its first look, deal {settings.min_deals}: the minimum, on a variance "
                f"estimated from {settings.min_deals} deals; at this noise the test is a fixed test of that "
                "many deals)"
            )
        return verdict

    @property
    def constant(self) -> bool:
        """Every deal's difference was the same (two bots that play alike): no spread to weigh a gap by."""
        return self.deals > 1 and self.sd <= 1e-6

    def interval(self) -> tuple[float, float]:
        """The 95% interval of the edge (normal, on the deals' spread): the mean itself when there is no
        spread, unbounded before two deals."""
        if self.deals < 2:
            return -math.inf, math.inf
        half = 0.0 if self.constant else 1.96 * self.sd / math.sqrt(self.deals)
        return self.mean - half, self.mean + half

    def edge_text(self) -> str:
        """The candidate's measured edge with its 95% interval, labelled (never a bare "±")."""
        if not self.deals:
            return "no deal played yet"
        edge = f"candidate minus baseline {self.mean:+.3f} points per hand"
        if self.deals < 2:
            return f"{edge} (an interval needs two deals)"
        if self.constant:
            return f"{edge} on every deal (the two played alike: no spread)"
        lo, hi = self.interval()
        return f"{edge} (95% interval {lo:+.3f} to {hi:+.3f})"

    def llr_text(self) -> str:
        """The log-likelihood ratio against its bounds, and how far it has gone towards the one it leans
        to: a decided test is past its bound, an open one at most 99% of the way (a share that rounds to
        100% would read as a bound reached), and a ratio before the first look is said to be none (on a few
        deals it may lie far past a bound without deciding anything). A ratio beyond all measure (no spread
        at all) is said as past its bound, not as 5e10."""
        return self._llr_words(look_note=True)

    def _llr_words(self, look_note: bool) -> str:
        bounds = f"bounds [{self.lower:+.2f}, {self.upper:+.2f}]"
        if self.constant and abs(self.llr) > 1e6:
            side = f"upper {self.upper:+.2f}" if self.llr > 0 else f"lower {self.lower:+.2f}"
            return f"LLR past the {side} bound at once ({bounds}; no spread, so any gap is decisive)"
        value = f"LLR {self.llr:+.2f} of {bounds}"
        if self.result is not SprtResult.UNDECIDED:
            return f"{value} (past the {self.result.value} bound)"
        if self.deals < self.first_look:
            if look_note:
                return f"{value} (not yet looked at: the test looks from deal {self.first_look} on)"
            return f"{value} (too few deals to look at)"
        toward = self.upper if self.llr >= 0 else self.lower
        what = "H1" if self.llr >= 0 else "H0"
        share = min(round(100 * self.llr / toward), 99) if toward else 0
        return f"{value} ({share}% of the way to {what})"

    def line(self) -> str:
        """One look, in one line under 80 columns: deals, the edge, the LLR against its bounds."""
        verdict = {SprtResult.H1: "H1", SprtResult.H0: "H0", SprtResult.UNDECIDED: "undecided"}[self.result]
        if self.constant and abs(self.llr) > 1e6:
            llr = "past a bound"
        else:
            llr = f"{self.llr:+.2f}"
        return (
            f"deal {self.deals}: edge {self.mean:+.3f} pts/hand; LLR {llr} of "
            f"[{self.lower:+.2f}, {self.upper:+.2f}]; {verdict}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "deals": self.deals,
            "mean": self.mean,
            "sd": self.sd,
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "result": self.result.value,
        }


def llr(diffs: Sequence[float], h0: float, h1: float) -> float:
    """The normal log-likelihood ratio of H1 (mean h1) over H0 (mean h0), variance estimated from diffs."""
    n = len(diffs)
    if n < 2:
        return 0.0
    mean = sum(diffs) / n
    return _llr(n, sum(diffs), sum((x - mean) ** 2 for x in diffs) / (n - 1), h0, h1)


def _llr(n: int, total: float, var: float, h0: float, h1: float) -> float:
    """Identical differences (variance 0) give 0 when they sit midway between the hypotheses, and otherwise
    a ratio as large as the tiny variance floor makes it: a constant gap is overwhelming evidence."""
    excess = total - n * (h0 + h1) / 2
    if var <= 1e-12:
        if abs(excess) < 1e-9:
            return 0.0
        var = 1e-12
    return (h1 - h0) / var * excess


def run_sprt(diffs: Sequence[float], settings: SprtSettings) -> SprtState:
    """Look after every deal, in order, from ``min_deals`` on; stop at the first crossing of a bound.

    Looking deal by deal in schedule order (rather than whenever a batch of games finishes) makes the
    decision independent of concurrency and of interruptions. Sums are kept running (Welford's update for
    the variance), so a long match costs one pass.
    """
    n, total, mean, m2 = 0, 0.0, 0.0, 0.0
    value, result = 0.0, SprtResult.UNDECIDED
    for x in diffs:
        n += 1
        total += x
        delta = x - mean
        mean += delta / n
        m2 += delta * (x - mean)
        if n < settings.min_deals:
            continue
        value = _llr(n, total, m2 / (n - 1), settings.h0, settings.h1)
        if value >= settings.upper or value <= settings.lower:
            result = SprtResult.H1 if value >= settings.upper else SprtResult.H0
            break
    if n and n < settings.min_deals:
        value = _llr(n, total, m2 / (n - 1), settings.h0, settings.h1) if n > 1 else 0.0
    sd = math.sqrt(m2 / (n - 1)) if n > 1 else math.inf
    return SprtState(n, mean, sd, value, settings.lower, settings.upper, result, settings.min_deals)
