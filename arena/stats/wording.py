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
    "trueskill": "TrueSkill skill",
}
SCORE_LABELS = {"points": "pts/hand", "paired": "paired", "centred": "centred", "trueskill": "mu − 3σ"}
SCORE_MEANINGS = {
    "points": "points per hand: the points its seat scored, per hand played; the order is by this",
    "paired": "paired points per hand: its points per hand minus what the other plays of the same deals "
    "from the same seat scored, so the luck of the cards cancels; the order is by this",
    "centred": "centred points per hand: its points per hand minus its table's mean; the order is by this",
    "trueskill": "TrueSkill's conservative skill, mu − 3σ: a skill it has very probably reached, so a new "
    "version starts low and climbs as its games show its level; the order is by this",
}


def score_name(method: str) -> str:
    """The order's number in words ("points per hand", "paired points per hand")."""
    return SCORE_NAMES.get(method, "points per hand")


@dataclass(frozen=True, slots=True)
class Column:
    """One column of the leaderboard: its key in :func:`cells`, its short header, what it means, whether
    only the report shows it (the terminal's 80 columns are few), and whether only the server's open
    ladder has it (a version, points per hand beside its TrueSkill order)."""

    key: str
    label: str
    meaning: str
    report_only: bool = False
    ladder_only: bool = False


RATING_FORM = "mu ± sigma"
"""TrueSkill's one form everywhere: the skill estimate and one standard deviation of it."""


def columns(method: str, level: float = 0.95, ladder: bool = False) -> tuple[Column, ...]:
    """Every column of the leaderboard, in order, defined once for the terminal, ``--explain``, the report
    and the server (``report_only`` ones are the report's, ``forfeits`` and ``note`` only matter when some
    entrant has one: the terminal leaves them out otherwise). ``ladder``: with the columns only the
    server's open ladder has (``method`` "trueskill": its order is by mu − 3σ, arena.stats.skill)."""
    share = f"{level:.0%}"
    name = score_name(method)
    rating = (
        f"the TrueSkill rating, from finishing places alone (margins not counted): {RATING_FORM}, its skill "
        "estimate and uncertainty (it starts at 25 ± 8.3)"
    )
    if method == "trueskill":
        rating += "; with drift, so it follows a bot that changes; the order is by its mu − 3σ"
    else:
        rating += "; shown as the rating, it does not set the order"
    every = (
        Column(
            "place",
            "place",
            f"its rank range ({share} sure, for every entrant at once): '1' when it is surely first, '2–5' "
            "when its true place lies somewhere from 2 to 5",
        ),
        Column(
            "tier",
            "tier",
            "its tier: every entrant of a tier is shown better than every entrant of the tiers below",
        ),
        Column("name", "entrant", "the entrant's name in the config"),
        Column(
            "version",
            "version",
            "the entrant's version on the ladder (its active one: v1, v2, ...)",
            ladder_only=True,
        ),
        Column(
            "score",
            SCORE_LABELS.get(method, "pts/hand"),
            SCORE_MEANINGS.get(method, SCORE_MEANINGS["points"]),
        ),
        Column(
            "interval",
            f"{share} interval",
            f"where its true {name} very probably lies ({share} sure), from resampling the games",
        ),
        Column(
            "verdict",
            "vs next",
            "the verdict on it and the next one down: 'above' (shown better), 'tied' (shown within the tie "
            "margin) or 'open' (not told apart yet)",
            report_only=True,
        ),
        Column(
            "p_next",
            "P(better)",
            f"the chance that it is truly better than the next one down (in {name}); a best estimate, "
            "not a guarantee",
            report_only=True,
        ),
        Column(
            "wld",
            "W-L-D vs next",
            "games shared with the next one down: finished above it, below it, level",
            report_only=True,
        ),
        Column(
            "elo",
            "Elo vs next",
            "those wins, losses and draws as an Elo difference ± its 95% margin (as cutechess prints it)",
            report_only=True,
        ),
        Column(
            "los",
            "LOS",
            "likelihood of superiority over the next one down, from its wins and losses alone",
            report_only=True,
        ),
        Column("rating", "TrueSkill", rating),
        Column("games", "games", "games played"),
        Column(
            "points_per_hand",
            "pts/hand",
            "points per hand over its ladder games, against whoever it met there: beside the order, not "
            "setting it (an event, whose entrants all meet, is ordered by it)",
            ladder_only=True,
        ),
        Column("wins", "wins", "games it finished first (a shared first place counts)"),
        Column("avg_points", "pts/game", "points scored per game", report_only=True),
        Column("maker", "maker", "hands in which it named trump, and the share of those its side made"),
        Column("faults", "faults", "faults charged to the bot: too slow, crashed, illegal or garbled moves"),
        Column("forfeits", "forf", "games forfeited after too many faults in one game"),
        Column(
            "note",
            "note",
            "after the name: (DQ) disqualified (forfeited too often or never started; placed last), "
            "(house) a house bot",
        ),
    )
    return tuple(c for c in every if ladder or not c.ladder_only)


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


def plural(n: int, word: str) -> str:
    """ "1 game", "2 games", "1,000 deal blocks"."""
    return f"{count(n)} {word}" + ("" if n == 1 else "s")


def groups(conf: Confidence) -> list[range]:
    """The tiers, as index ranges of the order."""
    tiers = conf.tiers()
    out: list[range] = []
    first = 0
    for i in range(1, len(tiers) + 1):
        if i == len(tiers) or tiers[i] != tiers[i - 1]:
            out.append(range(first, i))
            first = i
    return out


def _places(run: range) -> str:
    a, b = run.start + 1, run.stop
    return f"{a}" if a == b else f"{a}–{b}"


def _names(names: list[str], most: int = 4) -> str:
    if len(names) <= most:
        return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    return f"{', '.join(names[:most])} and {len(names) - most} more"


def ruled(conf: Confidence) -> list[str]:
    """The entrants placed after the rated ones by rule (disqualified, or without a game)."""
    rated = conf.ranks.rated if conf.ranks is not None else len(conf.order)
    return list(conf.order[rated:])


def verdict_sentence(conf: Confidence) -> str:
    """Who won and which places are settled, in a few sentences read from the rank ranges (every entrant's
    range holds at once, at ``conf.level``) and the neighbours' tie verdicts: "eps000a is first. 3 tiers:
    places 1–2, 3–4, 5–12 (each entrant of a tier is shown better than every entrant of a lower tier).
    Tied (shown within 0.08 points per hand): 3 X and 4 Y." Nothing here is claimed that the ranges or the
    verdicts do not hold."""
    k = len(conf.order)
    level = f"{conf.level:g}"
    if k < 2:
        return "One entrant: nothing to order."
    rated = conf.ranks.rated if conf.ranks is not None else k
    if conf.units < 1 or rated == 0:
        return "No games yet: nothing is known of the order."
    parts: list[str] = []
    winner = conf.winner()
    first = conf.may_be_first()
    if rated < 2:
        parts.append(f"Only {conf.order[0]} has rated games: it is first by rule.")
    elif winner is not None:
        parts.append(f"{winner} is first (every other entrant is shown below someone, at {level}).")
    elif len(first) == rated:
        parts.append(f"No winner yet: any of the {rated} ranked entrants may be first (at {level}).")
    else:
        parts.append(f"No winner yet: {_names(first)} may be first (at {level}).")
    runs = [r for r in groups(conf) if r.start < rated]
    shown = len(conf.ranks.shown) if conf.ranks is not None else 0
    if rated >= 2 and len(runs) == 1:
        tail = (
            f"; {plural(shown, 'pair')} of entrants {'is' if shown == 1 else 'are'} shown in order (see "
            "the rank ranges)"
            if shown
            else ""
        )
        parts.append(f"One tier: no group of entrants is yet shown better than the rest{tail}.")
    elif len(runs) > 1:
        if all(len(r) == 1 for r in runs):
            parts.append(
                f"Every place is settled: each entrant is shown better than every one below it (at {level})."
            )
        else:
            places = ", ".join(_places(r) for r in runs)
            parts.append(
                f"{len(runs)} tiers: places {places} (each entrant of a tier is shown better than every "
                "entrant of a lower tier)."
            )
    tied = [
        f"{i + 1} {p.upper} and {i + 2} {p.lower}"
        for i, p in enumerate(conf.adjacent)
        if p.verdict is Verdict.TIED
    ]
    if tied:
        parts.append(f"Tied (shown within {conf.margin:g} {score_name(conf.method)}): {'; '.join(tied)}.")
    after = ruled(conf)
    if after and rated >= 1:
        verb = "is" if len(after) == 1 else "are"
        parts.append(f"{_names(after)} {verb} placed last by rule (disqualified, or without a rated game).")
    return " ".join(parts)


def advice(
    conf: Confidence,
    unit_games: float = 1.0,
    max_games: int | None = None,
    config: str | None = None,
) -> str | None:
    """What to do about the neighbours not yet told apart: None when every pair is decided. The rough
    count of games is said against the budget ``max_games`` (``[ranking]``), and the command names the
    event's config when it is known (``config``)."""
    open_pairs = conf.open_pairs()
    if not open_pairs:
        return None
    known = [p.more_games for p in open_pairs if p.more_games is not None]
    left = None if max_games is None else max(max_games - conf.games, 0)
    rough = ""
    if known and left is not None and max(known) > left:
        rough = (
            f" (the slowest pair would need about {count(max(known))} more games, more than the "
            f"{count(left)} left of [ranking] max_games = {count(max_games or 0)}: raise it to settle it)"
        )
    elif known:
        rough = f" (about {count(max(known))} more games for the slowest pair)"
    verb, them = ("is", "it") if len(open_pairs) == 1 else ("are", "them")
    command = (
        f"arena run {config} --until-settled"
        if config
        else "arena run with the event's config and --until-settled"
    )
    return (
        f"{len(open_pairs)} of {len(conf.adjacent)} neighbour pairs {verb} still open: more games would "
        f"separate {them} or show {them} tied{rough}; {command} adds rounds until every pair is settled or "
        "[ranking] max_games is spent."
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


def heading(conf: Confidence) -> str:
    """The line over the table: what the order is by, and what a place is."""
    return (
        f"Ordered by {score_name(conf.method)}, best first; each place is a rank range holding for every "
        f"entrant at once ({conf.level:.0%} sure)."
    )


def how_sure(conf: Confidence) -> str:
    """The line over the neighbour pairs: after how many units, over which looks their verdicts hold, and
    what tied means."""
    score = score_name(conf.method)
    return (
        f"How sure the order is, after {plural(conf.units, conf.unit)}: each verdict holds at "
        f"{conf.level:g} {validity(conf)}; tied means shown within {conf.margin:g} {score}. Gaps are upper "
        f"minus lower, in {score}."
    )


def pair_line(pair: AdjacentPair, upper_place: int, conf: Confidence) -> str:
    """One pair of neighbours, in words: its verdict, the chance the upper one is truly better, and the
    gap with its range (the range the verdict rests on, valid as ``validity`` says). A pair placed by rule
    (the lower one disqualified or without a game) says so instead."""
    head = f"{upper_place} {pair.upper} / {upper_place + 1} {pair.lower}: "
    after = ruled(conf)
    if pair.lower in after and pair.upper not in after:
        why = "has no rated game" if pair.gap != pair.gap else "is disqualified"
        return f"{head}placed by rule: {pair.lower} {why}, so it is placed after every ranked entrant"
    if pair.lower in after:
        return f"{head}both placed last by rule (disqualified, or without a rated game)"
    if pair.verdict is Verdict.ABOVE:
        state = "settled: the upper is better"
    elif pair.verdict is Verdict.TIED:
        state = f"tied: shown within {conf.margin:g} {score_name(conf.method)}"
    else:
        state = "open: not separated yet"
        if pair.more_games is not None:
            state += f" (about {plural(pair.more_games, 'more game')})"
    gap = "gap not measured yet"
    if pair.gap == pair.gap:
        lo, hi = pair.interval
        rng = interval_text(lo, hi, sign=True)
        gap = f"gap {signed(pair.gap)}" + (
            f", range {rng}" if rng != "-" and (lo, hi) != (pair.gap, pair.gap) else ""
        )
    return f"{head}{state}; chance the upper is better {p_text(pair.probability)}; {gap}"


def cells(standing: Standing, conf: Confidence | None, index: int) -> dict[str, str]:
    """One entrant's row as the text people see, keyed as :func:`columns` (no raw value in any cell)."""
    figures = conf.entrants[index] if conf is not None and index < len(conf.entrants) else None
    place = conf.places()[index] if conf is not None else str(standing.rank)
    if figures is not None:
        score, (lo, hi) = figures.score, figures.score_ci
        sign = conf is not None and conf.method in ("paired", "centred")  # a difference: signed
    else:
        score, (lo, hi), sign = math.nan, (math.nan, math.nan), False
    if conf is None or conf.units < 2:  # one unit has no spread to resample: no interval to state
        lo = hi = math.nan
    notes = [n for n, on in (("DQ", standing.disqualified), ("house", standing.house)) if on]
    pair = conf.adjacent[index] if conf is not None and index < len(conf.adjacent) else None
    verdict = "-" if pair is None else pair.verdict.value
    return {
        "place": place,
        "tier": str(conf.tiers()[index]) if conf is not None else "-",
        "verdict": verdict,
        "p_next": "-" if pair is None else p_text(pair.probability),
        "name": standing.name,
        "score": (signed if sign else number)(score),
        "interval": interval_text(lo, hi, sign=sign),
        "rating": f"{standing.mu:.1f} ±{standing.sigma:.1f}",
        "games": str(standing.games),
        "version": str(standing.extra.get("version", "-")),
        "points_per_hand": number(figures.points_per_hand if figures is not None else None),
        "wins": str(standing.wins),
        "maker": "-" if standing.maker_rate is None else f"{standing.maker_hands} {standing.maker_rate:.0%}",
        "avg_points": number(standing.avg_points, 1),
        "faults": str(standing.faults),
        "forfeits": str(standing.forfeits),
        "note": " ".join(notes),
    }


def explain(method: str, level: float = 0.95, conf: Confidence | None = None) -> str:
    """Every column, and the lines under the table, in words (``arena leaderboard --explain``): a line per
    item, label and meaning two spaces apart, for the caller to wrap to its width. ``conf``: the board it
    explains, so that what it says of the looks is what that board's verdicts hold over."""
    looks = validity(conf) if conf is not None else "over the looks planned in [ranking]"
    lines = [f"The order is by {score_name(method)}, best first.", "", "Columns:"]
    shown = [c for c in columns(method, level) if not c.report_only]
    width = max(len(c.label) for c in shown)
    for c in shown:
        lines.append(f"  {c.label:<{width}}  {c.meaning}")
    lines += [
        "",
        "Under the table:",
        "  the verdict   who is first, or which entrants may be; the tiers; the pairs tied within the "
        f"margin; all read from the rank ranges and the neighbours' verdicts, each holding at {level:g} "
        f"{looks}",
        "  neighbours    each pair of neighbours: settled (the upper is better), tied (shown closer than the "
        "tie margin) or open (more games needed); the chance the upper is truly better; the gap in the "
        "order's number, upper minus lower, and the range it very probably lies in",
        "  whole order   the chance that every neighbour pair is in the right order at once",
        "  the matrix    the chance that the row's entrant is truly better than the column's (columns are "
        "numbered by place, as the rows are; >.99 and <.01: nearer certainty than two places show)",
    ]
    return "\n".join(lines)
