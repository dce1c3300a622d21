"""The leaderboard's order and how sure it is: per-entrant scores and intervals, P(A above B), and a verdict
on each adjacent pair (above, tied or open).

Pure: stored games in, figures out. Why these statistics (the numbers are in docs/ranking.md):

* **The order** is by points per hand (``points``); in a duplicate event by *paired* points per hand
  (``paired``): each score minus the mean score of the same seat on the same deals (the other rotations of
  the block), so the luck of the cards cancels and what is left is the play. TrueSkill stays on the board
  as a rating, but a ranked-only, game-by-game update wastes the margins that points keep, and in duplicate
  mode it cannot pair the plays of one deal at all. ``centred`` (score minus the table's mean) is offered
  for comparison.
* **Each pair's gap and its standard error** come from running sums over the units (arena.stats.tally),
  so a look costs the same at any length of event.
* **The verdict** on an adjacent pair (above / tied / open, arena.stats.sequential) rests on a confidence
  sequence of its gap: valid however many times the order is looked at, so ``--until-settled`` may stop at
  the first look where every adjacent pair is decided and the verdicts still hold at ``level``.
* **P(A above B)** is the posterior probability that A's true score is higher, an exact tie counting
  half (as a coin would split it; so P(A above B) + P(B above A) = 1), under a prior on the gaps estimated
  from the field itself, with mass on "exactly equal" (arena.stats.ebayes): a ladder's P sharpen, a field
  of copies' stay near 0.5. It is the best estimate of the chance; the verdict is the guarantee.
* **The whole-order figure** joins the adjacent pairs' P through the correlation of their gaps (neighbours
  share an entrant, so their errors are not independent; ``whole_order_probability``).
* **Intervals per entrant** (points per hand, mean rank) are from the bootstrap over the units (games, or
  duplicate blocks, whose games share deals), seeded from the event seed: the same stored games always
  print the same figures.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Any

import numpy as np

from arena.stats.ebayes import FLAT, fit_strengths, pair_probabilities, posterior
from arena.stats.ranks import Ranks, rank_ranges, step_down, t_boundary
from arena.stats.sequential import (
    MIN_UNITS,
    LookPlan,
    Verdict,
    decide,
    mixture_boundary,
    mixture_units,
    more_games,
)
from arena.stats.tally import Tally, Units, collect, tally_of

__all__ = ["Units", "collect"]  # collected units are made here for every caller of the confidence

METHODS = ("points", "paired", "centred")
TIE_MARGIN = 0.08
"""``[ranking] tie_margin``: two entrants whose gap is shown to be within this many points per hand are
*tied*. The smallest margin at which ``--until-settled`` calls a true tie tied within its default budget
(1,000 games) in at least 80% of the benchmark's events, in both modes (docs/ranking.md); half of it needs
about four times the games."""
MIN_FIELD = 3
"""Rated entrants needed to fit the prior on strengths from the field; fewer (two) get the flat prior."""
REPLICATES = 1000
WHOLE_DRAWS = 4000
"""Normal draws for the whole-order figure."""
BOOTSTRAP_DOMAIN = "euchre-arena/bootstrap/v1"
WHOLE_DOMAIN = "euchre-arena/whole-order/v1"
_NORMAL = NormalDist()


def resolve_method(method: str, duplicate: bool) -> str:
    """ "auto" → "paired" in a duplicate event, else "points"; "paired" outside duplicate → "points";
    "trueskill" → "points": an event orders by points per hand whatever the method (docs/config.md; the
    TrueSkill columns are shown anyway), and only the server's open ladder orders by TrueSkill
    (arena.stats.skill), so an event's figures are never labelled as TrueSkill's."""
    if method == "trueskill":
        return "points"
    if method == "auto":
        return "paired" if duplicate else "points"
    if method == "paired" and not duplicate:
        return "points"
    return method


def _scores(units: Units, weights: np.ndarray, method: str) -> np.ndarray:
    """Per-entrant ranking scores for unit weights ``weights`` (rows: replicates); NaN without games."""
    if method == "paired":
        num, den = weights @ units.paired, weights @ units.paired_hands
    elif method == "centred":
        num, den = weights @ units.centred, weights @ units.hands
    else:
        num, den = weights @ units.points, weights @ units.hands
    return _ratio(num, den)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def scores(units: Units, method: str) -> dict[str, float]:
    """The point estimate of each entrant's ranking score (NaN for an entrant with no rated game)."""
    values = _scores(units, np.ones(units.count), method)
    return dict(zip(units.names, (float(v) for v in values), strict=True))


def ranking_order(values: dict[str, float], demoted: Iterable[str] = ()) -> list[str]:
    """Best first; ``demoted`` (disqualified) entrants, then those without a score, last; ties by name, so
    the order is always the same."""
    last = set(demoted)

    def key(name: str) -> tuple[bool, bool, float, str]:
        value = values[name]
        missing = math.isnan(value)
        return (name in last, missing, 0.0 if missing else -round(value, 9), name)

    return sorted(values, key=key)


def _seed(domain: str, event_seed: int) -> int:
    digest = hashlib.blake2b(f"{domain}:{event_seed}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True, slots=True)
class EntrantFigures:
    name: str
    games: int
    score: float
    score_ci: tuple[float, float]
    points_per_hand: float
    points_ci: tuple[float, float]
    mean_rank: float
    rank_ci: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "score": _round(self.score),
            "score_ci": [_round(v) for v in self.score_ci],
            "points_per_hand": _round(self.points_per_hand),
            "points_per_hand_ci": [_round(v) for v in self.points_ci],
            "mean_rank": _round(self.mean_rank),
            "mean_rank_ci": [_round(v) for v in self.rank_ci],
        }


@dataclass(frozen=True, slots=True)
class AdjacentPair:
    """Two neighbours of the printed order: the verdict on them, and the figures it rests on."""

    upper: str
    lower: str
    probability: float  # P(upper finishes above lower), empirical Bayes (an exact tie counts half)
    verdict: Verdict
    gap: float  # upper minus lower, in the ranking's score (points per hand)
    interval: tuple[float, float]  # the gap's confidence sequence at the event's level, at this look
    p_tied: float  # P(|true gap| < margin), empirical Bayes
    more_games: int | None  # rough extra games to decide it; None when decided or not foreseeable

    @property
    def settled(self) -> bool:
        """Decided: ordered or tied."""
        return self.verdict is not Verdict.OPEN

    def to_dict(self) -> dict[str, Any]:
        return {
            "upper": self.upper,
            "lower": self.lower,
            "probability": _round(self.probability),
            "verdict": self.verdict.value,
            "gap": _round(self.gap),
            "interval": [_round(v) for v in self.interval],
            "p_tied": _round(self.p_tied),
            "settled": self.settled,
            "more_games": self.more_games,
        }


@dataclass(frozen=True, slots=True)
class Confidence:
    """Everything the leaderboard says about how sure its order is; ``order`` is the printed order."""

    method: str
    level: float
    margin: float
    unit: str  # "game" | "deal block"
    units: int
    games: int
    replicates: int  # of the bootstrap intervals (0 at a look of --until-settled: no intervals)
    seed: int
    order: tuple[str, ...]
    entrants: tuple[EntrantFigures, ...]
    pairwise: tuple[tuple[float, ...], ...]  # pairwise[i][j] = P(order[i] above order[j])
    adjacent: tuple[AdjacentPair, ...]
    whole: float
    boundary: float  # half-width of the pairs' intervals in standard errors, at this many units
    prior_null: float  # the weight of the prior's heaviest atom of strength (1: one strength for all)
    planned_looks: tuple[float, ...] = ()  # the looks (games) the verdicts hold over; () = any look
    ranks: Ranks | None = None  # the simultaneous rank ranges and tiers of the order (arena.stats.ranks)

    @property
    def settled(self) -> bool:
        return all(p.settled for p in self.adjacent)

    def open_pairs(self) -> list[AdjacentPair]:
        return [p for p in self.adjacent if not p.settled]

    def rank_ranges(self) -> list[tuple[int, int]]:
        """Each entrant's rank range [lo, hi] (1-based, inclusive), holding for every entrant at once."""
        if self.ranks is None:
            return [(1, len(self.order)) for _ in self.order]
        return list(self.ranks.ranges)

    def tiers(self) -> list[int]:
        """Each entrant's tier (1 the best): every entrant of a tier is shown better than every entrant
        of the tiers below it."""
        if self.ranks is None:
            return [1 for _ in self.order]
        return list(self.ranks.tiers)

    def places(self) -> list[str]:
        """Each entrant's place as printed: its rank range, "1" when it is surely first, "2–5" when its true
        rank lies somewhere from 2 to 5 (a confident "3" would claim an order the games have not shown)."""
        return [str(lo) if lo == hi else f"{lo}–{hi}" for lo, hi in self.rank_ranges()]

    def may_be_first(self) -> list[str]:
        """The entrants whose range starts at 1: one of them is the winner."""
        return [name for name, (lo, _) in zip(self.order, self.rank_ranges(), strict=True) if lo == 1]

    def winner(self) -> str | None:
        """The winner, when one entrant alone may be first."""
        first = self.may_be_first()
        return first[0] if len(first) == 1 else None

    def shown_above(self, upper: str, lower: str) -> bool:
        """``upper`` is shown better than ``lower`` over all pairs at the level (the rank ranges' test), or
        placed above it by rule (disqualified, or without a game)."""
        if self.ranks is None:
            return False
        i, j = self.order.index(upper), self.order.index(lower)
        return (i, j) in self.ranks.shown or i < self.ranks.rated <= j

    def summary(self) -> str:
        """One line for the organiser: the places joined by what is known between neighbours, e.g.
        "Settled at 0.95: 1 > 2 > 3 = 4 > 5" or "Not settled at 0.95 (1 of 4 pairs open): 1 > 2 ? 3 = 4 > 5"
        ('>' settled above, '=' tied within the margin, '?' open)."""
        symbol = {Verdict.ABOVE: ">", Verdict.TIED: "=", Verdict.OPEN: "?"}
        chain = "1" + "".join(f" {symbol[p.verdict]} {i + 2}" for i, p in enumerate(self.adjacent))
        still = len(self.open_pairs())
        head = (
            f"Settled at {self.level:g}"
            if not still
            else f"Not settled at {self.level:g} ({still} of {len(self.adjacent)} pairs open)"
        )
        key = ["> settled above"]
        if any(p.verdict is Verdict.TIED for p in self.adjacent):
            key.append(f"= tied within {self.margin:g} points per hand")
        if still:
            key.append("? open")
        return f"{head}: {chain}  ({'; '.join(key)})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "level": self.level,
            "tie_margin": self.margin,
            "unit": self.unit,
            "units": self.units,
            "games": self.games,
            "replicates": self.replicates,
            "order": list(self.order),
            "places": self.places(),
            "entrants": [e.to_dict() for e in self.entrants],
            "p_above": {
                a: {b: _round(p) for b, p in zip(self.order, row, strict=True) if b != a}
                for a, row in zip(self.order, self.pairwise, strict=True)
            },
            "adjacent": [p.to_dict() for p in self.adjacent],
            "whole_order": _round(self.whole),
            "boundary": _round(self.boundary),
            "prior_null": _round(self.prior_null),
            "planned_looks": list(self.planned_looks),
            "settled": self.settled,
            "summary": self.summary(),
        }


def _round(value: float) -> float | None:
    return None if value != value else round(value, 4)


def look(
    tally: Tally,
    method: str,
    level: float,
    event_seed: int,
    margin: float = TIE_MARGIN,
    demoted: Iterable[str] = (),
    plan: LookPlan | None = None,
    round_games: int | None = None,
) -> Confidence:
    """The order, every pair's P, every adjacent pair's verdict and every entrant's rank range, from the
    running sums alone (no intervals per entrant: ``replicates`` 0). This is what ``--until-settled`` looks
    at; the leaderboard is this plus the bootstrap intervals, so the two state the same figures. ``plan``:
    the verdicts and ranges are judged by the planned looks' boundary (arena.stats.sequential.LookPlan),
    else by the confidence sequence; ``round_games``: the games of one round, so that the looks it states
    are those actually taken (each planned look rounded up to whole rounds)."""
    method = resolve_method(method, tally.duplicate)
    totals = tally.totals[method]
    s = totals.scores()
    cov = totals.covariance()
    names = tally.names
    estimate = dict(zip(names, (float(v) for v in s), strict=True))
    order = ranking_order(estimate, demoted)
    col = [names.index(n) for n in order]
    k = len(order)
    n = tally.count
    last = set(demoted)
    gaps = np.array([[s[col[i]] - s[col[j]] for j in range(k)] for i in range(k)]).reshape(k, k)
    var = np.array([[cov[a, a] + cov[b, b] - 2 * cov[a, b] for b in col] for a in col]).reshape(k, k)
    ses = np.sqrt(np.maximum(var, 0.0))
    rated = [i for i in range(k) if order[i] not in last and math.isfinite(estimate[order[i]])]
    alpha = 1 - level
    rho = mixture_units(tally.n_games / n if n else 1.0)
    df = n - 1

    def critical(two_sided: float) -> float:
        """The normal boundary, in standard errors, of one pair's test at this two-sided level, over the
        looks."""
        if n < 1:
            return math.inf
        two_sided = min(two_sided, 0.5)
        if plan is not None:
            return plan.boundary_at(tally.n_games, two_sided)
        return mixture_boundary(n, 1 - two_sided, rho)

    # The units each pair's variance rests on: those in which both played (a 30-entrant duplicate event's
    # 10 blocks hold each entrant about twice). Under planned looks each boundary is moved to Student's t
    # with that many less one degrees of freedom; the confidence sequence estimates its variance as it goes.
    both = np.array(
        [[min(tally.unit_sum[col[i]], tally.unit_sum[col[j]]) for j in range(k)] for i in range(k)]
    )
    pair_df = (both - 1).reshape(k, k)
    z_bound = critical(alpha)
    bound = t_boundary(z_bound, df) if plan is not None else z_bound
    shown = (
        step_down(
            gaps, ses, rated, lambda share: critical(2 * alpha * share), pair_df if plan is not None else None
        )
        if n >= MIN_UNITS
        else set()
    )
    if plan is None:  # the confidence sequence: no pair decided on fewer than MIN_UNITS of its own units
        shown = {(i, j) for i, j in shown if both[i, j] >= MIN_UNITS}
    ranks = rank_ranges(k, rated, shown)
    sub = np.ix_([col[i] for i in rated], [col[i] for i in rated])
    good = n >= 2 and len(rated) >= 2 and bool(np.all(np.isfinite(cov[sub])))
    strengths = fit_strengths(
        [s[col[i]] for i in rated], [math.sqrt(max(cov[col[i], col[i]], 0)) for i in rated]
    )
    prob = np.full((k, k), 0.5)
    within = np.zeros((k, k))
    if good and len(rated) >= MIN_FIELD:
        p_rated, w_rated = pair_probabilities(
            strengths, s[[col[i] for i in rated]], cov[sub], margin, pair_df[np.ix_(rated, rated)]
        )
        prob[np.ix_(rated, rated)] = p_rated
        within[np.ix_(rated, rated)] = w_rated
    elif good:  # too few entrants to learn a field from: the flat prior, Φ(gap / se)
        for i in rated:
            for j in rated:
                if i != j:
                    post = posterior(FLAT, float(gaps[i, j]), float(ses[i, j]), margin)
                    prob[i, j], within[i, j] = post.finishes_above, post.within
    for i in range(k):
        for j in range(k):
            if i != j and (i in rated) != (j in rated):  # placed by rule, not by luck
                prob[i, j] = 1.0 if i in rated else 0.0
    pairwise = tuple(tuple(float(prob[i, j]) for j in range(k)) for i in range(k))
    adjacent = []
    for i in range(k - 1):
        gap, se = float(gaps[i, i + 1]), float(ses[i, i + 1])
        fixed = (i in rated) != (i + 1 in rated)
        if fixed:
            verdict = Verdict.ABOVE if n >= 1 else Verdict.OPEN
            interval, p_tied = (gap, gap), 0.0
        else:
            own = int(both[i, i + 1])
            pair_bound = t_boundary(z_bound, own - 1) if plan is not None else bound
            verdict, lo, hi = decide(gap, se, own, level, margin, rho, pair_bound)
            interval = (lo, hi)
            p_tied = float(within[i, i + 1])
        more = None
        if verdict is Verdict.OPEN:
            more = more_games(gap, se, n, tally.n_games, level, margin, rho, bound)
        adjacent.append(
            AdjacentPair(order[i], order[i + 1], pairwise[i][i + 1], verdict, gap, interval, p_tied, more)
        )
    whole = whole_order_probability(cov[np.ix_(col, col)], adjacent, last, event_seed)
    ppp = tally.totals["points"].scores()
    ranks_ = np.full(len(names), np.nan)
    np.divide(tally.rank_sum, tally.game_sum, out=ranks_, where=tally.game_sum > 0)
    none = (math.nan, math.nan)
    figures = tuple(
        EntrantFigures(
            name, int(tally.game_sum[c]), estimate[name], none, float(ppp[c]), none, float(ranks_[c]), none
        )
        for name, c in zip(order, col, strict=True)
    )
    looks: tuple[float, ...] = ()
    if plan is not None:
        looks = tuple(float(p) for p in plan.points(round_games)) if round_games else plan.looks()
    return Confidence(
        method,
        level,
        margin,
        "deal block" if tally.duplicate else "game",
        n,
        tally.n_games,
        0,
        event_seed,
        tuple(order),
        figures,
        pairwise,
        tuple(adjacent),
        whole,
        bound,
        max(strengths.weights),
        looks,
        ranks,
    )


def confidence(
    units: Units,
    method: str,
    level: float,
    event_seed: int,
    replicates: int = REPLICATES,
    margin: float = TIE_MARGIN,
    demoted: Iterable[str] = (),
    tally: Tally | None = None,
    plan: LookPlan | None = None,
    round_games: int | None = None,
) -> Confidence:
    """``look`` with each entrant's bootstrap intervals (points per hand, mean rank, the ranking score).

    Replicates draw ``units.count`` units with replacement (as multinomial counts, in chunks, so memory
    stays small for long events) from a PCG64 stream seeded by ``bootstrap_seed(event_seed)``. ``tally``:
    the running sums of the same units, when the caller has them (else they are summed here).
    """
    seen = look(tally or tally_of(units), method, level, event_seed, margin, demoted, plan, round_games)
    method = seen.method
    col = [units.names.index(n) for n in seen.order]
    rng = np.random.Generator(np.random.PCG64(bootstrap_seed(event_seed)))
    n = units.count
    rows: dict[str, list[np.ndarray]] = {"score": [], "points": [], "rank": []}
    done = 0
    while done < replicates and n:
        size = min(200, replicates - done)
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(float)
        rows["score"].append(_scores(units, weights, method)[:, col])
        rows["points"].append(_ratio(weights @ units.points, weights @ units.hands)[:, col])
        rows["rank"].append(_ratio(weights @ units.ranks, weights @ units.games)[:, col])
        done += size
    boot = {k: np.vstack(v) if v else np.full((0, len(col)), np.nan) for k, v in rows.items()}
    figures = tuple(
        EntrantFigures(
            f.name,
            f.games,
            f.score,
            _interval(boot["score"][:, i]),
            f.points_per_hand,
            _interval(boot["points"][:, i]),
            f.mean_rank,
            _interval(boot["rank"][:, i]),
        )
        for i, f in enumerate(seen.entrants)
    )
    return replace(seen, entrants=figures, replicates=done)


def bootstrap_seed(event_seed: int) -> int:
    """The bootstrap's seed: a digest of the event seed, so no two events share resamples by accident."""
    return _seed(BOOTSTRAP_DOMAIN, event_seed)


def whole_order_probability(
    cov: np.ndarray, adjacent: Sequence[AdjacentPair], demoted: Iterable[str], event_seed: int
) -> float:
    """P(every adjacent pair of the printed order is right), joining the pairs' P through the correlation
    of their gaps, not multiplying them.

    Why not the product: two neighbours share an entrant, so when that entrant's score is lucky one gap
    widens as the other shrinks; the errors are not independent. Here pair ``i`` is right in a draw ``u`` of
    the adjacent gaps' correlation (a normal copula, ``WHOLE_DRAWS`` draws seeded from the event) when
    ``u_i`` clears Φ⁻¹(P_i), so each pair keeps its own P and the joint follows the gaps' correlation.
    An entrant whose spread is not measured is taken as spread like the others (``_spread_or_alike``); a
    disqualified entrant's fixed place, and a gap that never varies, enter as the factor their own P gives.
    The result never exceeds the weakest pair's P: the whole cannot be surer than a part.
    """
    if not adjacent:
        return 1.0
    last = set(demoted)
    k = len(adjacent) + 1
    cov = _spread_or_alike(np.asarray(cov, dtype=float))
    diff = np.zeros((k - 1, k))
    for i in range(k - 1):
        diff[i, i], diff[i, i + 1] = 1.0, -1.0
    factor = 1.0
    joint: list[int] = []
    for i, pair in enumerate(adjacent):
        spread = cov[i, i] + cov[i + 1, i + 1] - 2 * cov[i, i + 1]
        if (pair.upper in last) != (pair.lower in last) or not spread > 0:
            factor *= pair.probability
        else:
            joint.append(i)
    if joint:
        sub = diff[joint] @ cov @ diff[joint].T
        sd = np.sqrt(np.diag(sub))
        corr = sub / np.outer(sd, sd)
        rng = np.random.Generator(np.random.PCG64(_seed(WHOLE_DOMAIN, event_seed)))
        root = _root(corr)
        noise = rng.standard_normal((WHOLE_DRAWS, len(joint)))
        cut = np.array([_NORMAL.inv_cdf(min(max(adjacent[i].probability, 1e-12), 1 - 1e-12)) for i in joint])
        alive = np.arange(WHOLE_DRAWS)
        for c in range(len(joint)):  # pair by pair, on the draws still all right: most fail within a few
            alive = alive[noise[alive] @ root[c] < cut[c]]
            if not alive.size:
                break
        right = alive.size
        factor *= right / WHOLE_DRAWS
    return min(factor, min(pair.probability for pair in adjacent))


def _spread_or_alike(cov: np.ndarray) -> np.ndarray:
    """``cov`` with each entrant whose spread is not measured (no games yet, one game, or scores that
    never vary: five copies of a deterministic bot in duplicate) given the median measured variance and no
    covariance, i.e. scores alike in spread. Their gaps to both neighbours then correlate as any
    neighbours' do (−½), and with no evidence (every P ½) the whole order comes out 1/k!, the chance of
    one order of k exchangeable entrants; multiplying the neighbours' P said 1/2^(k−1), 0.06 for five
    entrants after one game where the truth is 1/120."""
    var = np.diag(cov)
    measured = np.isfinite(var) & (var > 0)
    fill = float(np.median(var[measured])) if measured.any() else 1.0
    cov = np.where(np.isfinite(cov), cov, 0.0)
    cov[~measured, :] = 0.0
    cov[:, ~measured] = 0.0
    alike = np.flatnonzero(~measured)
    cov[alike, alike] = fill
    return cov


def _root(corr: np.ndarray) -> np.ndarray:
    """A matrix R with R Rᵀ = ``corr``: Cholesky's, or from the eigenvalues (negative ones, rounding's, at
    zero) when the correlation is singular (two neighbours' gaps that always move together)."""
    try:
        return np.linalg.cholesky(corr)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(corr)
        return vectors * np.sqrt(np.clip(values, 0.0, None))


def _sd(values: np.ndarray) -> float:
    values = values[~np.isnan(values)]
    if values.size < 2:
        return math.nan
    return float(np.std(values, ddof=1))


def _interval(values: np.ndarray, mass: float = 0.95) -> tuple[float, float]:
    """The percentile interval holding ``mass`` of the bootstrap values (NaN when there are none)."""
    values = values[~np.isnan(values)]
    if not values.size:
        return (math.nan, math.nan)
    tail = (1 - mass) / 2
    lo, hi = np.quantile(values, [tail, 1 - tail])
    return (float(lo), float(hi))
