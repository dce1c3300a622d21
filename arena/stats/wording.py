"""The leaderboard in words a teacher reads: what each column means, the one sentence that says which
places are settled, and every figure as the text people see. One place, so that the terminal
(arena.results.listings), ``arena leaderboard --explain`` and the HTML report say the same thing.

Nothing here computes a statistic: every figure is read from the ``Confidence`` and the standings that
arena.stats.confidence and arena.stats.leaderboard made; this module only rounds and words them. Numbers
are rounded for people here and stay exact (to four places) in ``--json``.

What the report should use: :func:`score_name` (the order's number, in words), :func:`columns` (label and
meaning of each column, in the terminal's order), :func:`cells` (one entrant's row as text),
:func:`verdict_sentence` (which places are settled), :func:`advice` (what to do about the rest),
:func:`rating_note` (where TrueSkill disagrees with the order, said plainly), :func:`pair_line` (one
neighbour pair), and :func:`p_text` / :func:`interval_text` for any other figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.stats.confidence import AdjacentPair, Confidence
from arena.stats.rating import Standing
from arena.stats.sequential import Verdict

SCORE_NAMES = {
    "points": "points per hand",
    "paired": "paired points per hand",
    "centred": "centred points per hand",
}
SCORE_LABELS = {"points": "pts/hand", "paired": "paired", "centred": "centred"}
SCORE_MEANINGS = {
    "points": "points per hand: the points its seat scored, per hand played; the order is by this",
    "paired": "paired points per hand: its points per hand minus what the other plays of the same deals "
    "from the same seat scored, so the luck of the cards cancels; the order is by this",
    "centred": "centred points per hand: its points per hand minus its table's mean; the order is by this",
}


def score_name(method: str) -> str:
    """The order's number in words ("points per hand", "paired points per hand")."""
    return SCORE_NAMES.get(method, "points per hand")


@dataclass(frozen=True, slots=True)
class Column:
    """One column of the leaderboard: its key in :func:`cells`, its short header, and what it means."""

    key: str
    label: str
    meaning: str


def columns(method: str, level: float = 0.95) -> tuple[Column, ...]:
    """Every column the leaderboard can show, in order (``forf`` and ``note`` only matter when some entrant
    has one: the terminal leaves them out otherwise)."""
    share = f"{level:.0%}"
    return (
        Column(
            "place",
            "place",
            "its place in the order; '=' marks places the games so far cannot separate (they share the "
            "first place of their run)",
        ),
        Column("name", "entrant", "the entrant's name in the config"),
        Column(
            "score",
            SCORE_LABELS.get(method, "pts/hand"),
            SCORE_MEANINGS.get(method, SCORE_MEANINGS["points"]),
        ),
        Column(
            "interval",
            f"{share} interval",
            f"where its true {score_name(method)} very probably lies ({share} sure), from resampling the "
            "games",
        ),
        Column(
            "rating",
            "TrueSkill",
            "the TrueSkill rating, from finishing places alone (margins not counted): its skill estimate "
            "± 3 sigma, its uncertainty (it starts at 25 ± 25); shown as the rating, it does not set the "
            "order",
        ),
        Column("games", "games", "games played"),
        Column("wins", "wins", "games it finished first (a shared first place counts)"),
        Column("maker", "maker", "hands in which it named trump, and the share of those its side made"),
        Column("faults", "faults", "faults charged to the bot: too slow, crashed, illegal or garbled moves"),
        Column("forfeits", "forf", "games forfeited after too many faults in one game"),
        Column(
            "note",
            "note",
            "after the name: (DQ) disqualified (forfeited too often; placed last), (house) a house bot",
        ),
    )


def number(value: float | None, digits: int = 2) -> str:
    """A figure for people: ``digits`` places, "-" when there is none (no games)."""
    if value is None or value != value or math.isinf(value):
        return "-"
    text = f"{value:.{digits}f}"
    return "0." + "0" * digits if text == "-0." + "0" * digits else text


def signed(value: float | None, digits: int = 2) -> str:
    if value is None or value != value or math.isinf(value):
        return "-"
    text = f"{value:+.{digits}f}"
    return text.replace("-0." + "0" * digits, "+0." + "0" * digits)


def interval_text(lo: float | None, hi: float | None, digits: int = 2, sign: bool = False) -> str:
    """An interval as "1.10 to 1.43" ("-" when not measured)."""
    show = signed if sign else number
    if show(lo, digits) == "-" or show(hi, digits) == "-":
        return "-"
    return f"{show(lo, digits)} to {show(hi, digits)}"


def p_text(p: float) -> str:
    """A probability to two places, never rounded to a certainty it is not ("over 0.99", "under 0.01")."""
    if p != p:
        return "-"
    if p > 0.995:
        return "over 0.99"
    if p < 0.005:
        return "under 0.01"
    return f"{p:.2f}"


def count(n: int) -> str:
    """A count with thousands separated: 59,510."""
    return f"{n:,}"


def groups(conf: Confidence) -> list[range]:
    """The runs of neighbours the evidence cannot separate (every pair inside is tied or open), as index
    ranges of the order; two runs are separated by a pair settled *above*."""
    out: list[range] = []
    first = 0
    for i, pair in enumerate(conf.adjacent):
        if pair.verdict is Verdict.ABOVE:
            out.append(range(first, i + 1))
            first = i + 1
    if conf.order:
        out.append(range(first, len(conf.order)))
    return out


def _places(run: range) -> str:
    a, b = run.start + 1, run.stop
    return f"place {a}" if a == b else f"places {a}–{b}"


def verdict_sentence(conf: Confidence) -> str:
    """Which places are settled, in one sentence: "Places 1–7 are tied within the evidence; 8–10 are each
    settled below the one before." Read from the pairs' verdicts at ``conf.level``."""
    runs = groups(conf)
    k = len(conf.order)
    if k < 2:
        return "One entrant: nothing to order."
    level = f"{conf.level:g}"
    if len(runs) == 1:
        proven = all(p.verdict is Verdict.TIED for p in conf.adjacent)
        how = (
            f"each within {conf.margin:g} {score_name(conf.method)} of the next"
            if proven
            else "no entrant is shown better than another"
        )
        return f"All {k} places are tied within the evidence ({how}, at {level})."
    if all(len(r) == 1 for r in runs):
        return f"Every place is settled: each entrant is above the next (at {level})."
    parts: list[str] = []
    previous: range | None = None
    for run in runs:
        text = _places(run) if not parts else _places(run).replace("places ", "").replace("place ", "")
        verb = "are tied within the evidence" if len(run) > 1 else "is settled first"
        if previous is not None:
            below = "them" if len(previous) > 1 else f"{previous.start + 1}"
            verb = f"{verb}, settled below {below}" if len(run) > 1 else f"is settled below {below}"
        parts.append(f"{text} {verb}")
        previous = run
    sentence = "; ".join(parts)
    return f"{sentence[0].upper()}{sentence[1:]} (at {level})."


def advice(conf: Confidence, unit_games: float = 1.0) -> str | None:
    """What to do about the places not yet separated: None when every pair is settled."""
    open_pairs = conf.open_pairs()
    if not open_pairs:
        return None
    known = [p.more_games for p in open_pairs if p.more_games is not None]
    rough = f" (about {count(max(known))} more for the slowest pair)" if known else ""
    verb, them = ("is", "it") if len(open_pairs) == 1 else ("are", "them")
    return (
        f"{len(open_pairs)} of {len(conf.adjacent)} neighbour pairs {verb} still open: more games would "
        f"separate {them} or show {them} equal{rough}; arena run EVENT --until-settled adds rounds until "
        "every pair is settled or [ranking] max_games is spent."
    )


def rating_note(standings: Sequence[Standing], conf: Confidence) -> str | None:
    """Where TrueSkill, shown beside the order, ranks an entrant above one the order has settled above it:
    said plainly, so the two columns never silently disagree. Disagreements inside a run of tied places
    are not news (the order does not separate them either)."""
    run_of = {conf.order[i]: n for n, run in enumerate(groups(conf)) for i in run}
    by_name = {s.name: s for s in standings}
    swaps = []
    for i, upper in enumerate(conf.order):
        for lower in conf.order[i + 1 :]:
            a, b = by_name.get(upper), by_name.get(lower)
            if a is None or b is None or run_of[upper] == run_of[lower]:
                continue
            if a.disqualified or b.disqualified:
                continue
            if b.mu > a.mu:
                swaps.append(f"{lower} above {upper}")
    if not swaps:
        return None
    shown = ", ".join(swaps[:3]) + (f" and {len(swaps) - 3} more" if len(swaps) > 3 else "")
    return (
        f"TrueSkill rates {shown}: it counts only finishing places, not margins; the order is by "
        f"{score_name(conf.method)}, which counts both (docs/ranking.md)."
    )


def validity(conf: Confidence) -> str:
    """When the verdicts' level holds: at every look (the confidence sequence), or over the looks planned
    in advance (``[ranking] look_growth`` > 1), which also covers any one look taken on its own."""
    if not conf.planned_looks:
        return "however often the order is looked at"
    looks = ", ".join(count(int(n)) for n in conf.planned_looks)
    return f"over the looks planned at {looks} games (or any one look on its own)"


def pair_line(pair: AdjacentPair, upper_place: int, conf: Confidence) -> str:
    """One pair of neighbours, in words: its verdict, the chance the upper one is truly better, and the
    gap with its range (the range the verdict rests on, valid as ``validity`` says)."""
    if pair.verdict is Verdict.ABOVE:
        state = "settled: the upper is better"
    elif pair.verdict is Verdict.TIED:
        state = f"tied: shown within {conf.margin:g} {score_name(conf.method)}"
    else:
        state = "open: not separated yet"
        if pair.more_games is not None:
            state += f" (about {count(pair.more_games)} more games)"
    gap = "gap -"
    if pair.gap == pair.gap:
        lo, hi = pair.interval
        rng = interval_text(lo, hi, sign=True)
        gap = f"gap {signed(pair.gap)}" + (
            f", range {rng}" if rng != "-" and (lo, hi) != (pair.gap, pair.gap) else ""
        )
    return (
        f"{upper_place} {pair.upper} / {upper_place + 1} {pair.lower}: {state}; "
        f"chance the upper is better {p_text(pair.probability)}; {gap}"
    )


def cells(standing: Standing, conf: Confidence | None, index: int) -> dict[str, str]:
    """One entrant's row as the text people see, keyed as :func:`columns` (no raw value in any cell)."""
    figures = conf.entrants[index] if conf is not None and index < len(conf.entrants) else None
    place = conf.places()[index] if conf is not None else str(standing.rank)
    if figures is not None:
        score, (lo, hi) = figures.score, figures.score_ci
        sign = conf is not None and conf.method != "points"
    else:
        score, (lo, hi), sign = math.nan, (math.nan, math.nan), False
    notes = [n for n, on in (("DQ", standing.disqualified), ("house", standing.house)) if on]
    return {
        "place": place,
        "name": standing.name,
        "score": (signed if sign else number)(score),
        "interval": interval_text(lo, hi, sign=sign),
        "rating": f"{standing.mu:.1f} ±{3 * standing.sigma:.1f}",
        "games": str(standing.games),
        "wins": str(standing.wins),
        "maker": "-" if standing.maker_rate is None else f"{standing.maker_hands} {standing.maker_rate:.0%}",
        "faults": str(standing.faults),
        "forfeits": str(standing.forfeits),
        "note": " ".join(notes),
    }


def explain(method: str, level: float = 0.95) -> str:
    """Every column, and the lines under the table, in words (``arena leaderboard --explain``): a line per
    item, label and meaning two spaces apart, for the caller to wrap to its width."""
    lines = [f"The order is by {score_name(method)}, best first.", "", "Columns:"]
    width = max(len(c.label) for c in columns(method, level))
    for c in columns(method, level):
        lines.append(f"  {c.label:<{width}}  {c.meaning}")
    lines += [
        "",
        "Under the table:",
        "  the verdict   which places are settled: 'tied within the evidence' means the games so far "
        "cannot tell those entrants apart (the test allows for looking as often as you like); 'settled "
        "below' means the one above is better, at the stated level",
        "  neighbours    each pair of neighbours: settled, tied (shown closer than the tie margin) or open "
        "(more games needed); the chance the upper is truly better; the gap in the order's number, upper "
        "minus lower, and the range it very probably lies in",
        "  whole order   the chance that every neighbour pair is in the right order at once",
        "  the matrix    the chance that the row's entrant is truly better than the column's (columns are "
        "numbered by place, as the rows are; >.99 and <.01: nearer certainty than two places show)",
    ]
    return "\n".join(lines)
