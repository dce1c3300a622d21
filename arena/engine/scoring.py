"""Hand scoring and the end of a game (RULES.md CA-8, FH-7, CL-2.4/2.5, CA-8.4).

Pure functions over plain numbers so that the scoring tables can be tested cell by cell, apart from the
state machine that feeds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from arena.engine.config import GameConfig, Variant


class HandOutcome(StrEnum):
    """How a hand ended for the making side: ``THROWN_IN`` (everybody passed twice, nobody scores),
    ``EUCHRED`` (0-2 tricks), ``MADE`` (3 or 4), ``MARCH`` (all 5)."""

    THROWN_IN = "thrown_in"  # everybody passed twice (CA-4.6, CL): nobody scores
    EUCHRED = "euchred"  # 0-2 making-side tricks
    MADE = "made"  # 3 or 4
    MARCH = "march"  # all 5


class Termination(StrEnum):
    TARGET_REACHED = "target_reached"
    MAX_HANDS = "max_hands"  # CA-8.4 / FH-7.3 safety cap


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished game: why it ended, who won (several = a draw among them), and everybody's rank.

    ``ranks[seat]`` is 1 for the winners; the others follow by final score, equal scores sharing a rank
    (``1 + number of seats ranked strictly ahead``). A CL team's two seats always share a rank.
    """

    termination: Termination
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    hands_played: int
    teams: bool = False  # classic: two winners of one partnership are one winner, not a draw

    @property
    def is_draw(self) -> bool:
        return len(self.winners) > 1 and not (self.teams and _one_team(self.winners))

    def to_dict(self) -> dict[str, object]:
        return {
            "termination": self.termination.value,
            "winners": list(self.winners),
            "draw": self.is_draw,
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "hands_played": self.hands_played,
        }


def _one_team(winners: tuple[int, ...]) -> bool:
    return len(winners) == 2 and winners[0] % 2 == winners[1] % 2


def classify(making_tricks: int) -> HandOutcome:
    if making_tricks == 5:
        return HandOutcome.MARCH
    return HandOutcome.MADE if making_tricks >= 3 else HandOutcome.EUCHRED


def hand_points(
    config: GameConfig, maker: int, partner: int, alone: bool, making_tricks: int
) -> tuple[HandOutcome, tuple[int, ...]]:
    """Points each seat scores for a played hand.

    :param partner: the partner's seat, or -1 when nobody else held the called card (or none was called).
    :param alone: whether the maker *announced* ``ALONE`` (FH scores announced and absent partners apart).
    """
    n = config.num_players
    outcome = classify(making_tricks)
    points = [0] * n
    if config.variant is Variant.CLASSIC:
        team = (maker, (maker + 2) % 4)
        if outcome is HandOutcome.EUCHRED:
            for seat in ((maker + 1) % 4, (maker + 3) % 4):
                points[seat] = 2
        else:
            value = 1 if outcome is HandOutcome.MADE else (4 if alone else 2)
            for seat in team:
                points[seat] = value
        return outcome, tuple(points)
    side = (maker,) if partner < 0 else (maker, partner)
    if outcome is HandOutcome.EUCHRED:
        for seat in range(n):
            if seat not in side:
                points[seat] = 2
        return outcome, tuple(points)
    march = outcome is HandOutcome.MARCH
    if config.variant is Variant.CALL_ACE:
        if partner >= 0:
            value = (2 if n == 4 else 3) if march else 1
        else:  # alone, declared or by absence: scored alike (CA-6.5)
            value = n if march else 2
    else:  # five-handed: an announced lone march is worth 4, a card called into the kitty only 2 (FH-7)
        value = (4 if alone else 2) if march else 1
    for seat in side:
        points[seat] = value
    return outcome, tuple(points)


def game_over(
    config: GameConfig,
    scores: Sequence[int],
    start_scores: Sequence[int],
    hands_played: int,
    *,
    scored: bool = True,
) -> Outcome | None:
    """The outcome if the game ends after this hand, else ``None`` (CA-8.1..8.4, FH-7.2/7.3, CL-2.5).

    :param scored: ``False`` after a thrown-in hand, which never ends a game by target (CA-8.3); only the
        ``max_hands`` cap can end it then.
    """
    target = config.target
    reached = [s for s, v in enumerate(scores) if v >= target] if scored else []
    if reached:
        lowest_start = config.variant is Variant.FIVE_HANDED or config.tiebreak == "lowest_start"
        if lowest_start and len(reached) > 1:
            low = min(start_scores[s] for s in reached)
            winners = tuple(s for s in reached if start_scores[s] == low)
        else:
            top = max(scores[s] for s in reached)
            winners = tuple(s for s in reached if scores[s] == top)
        return _outcome(Termination.TARGET_REACHED, winners, scores, hands_played, config.team_play)
    if hands_played >= config.max_hands:
        top = max(scores)
        winners = tuple(s for s, v in enumerate(scores) if v == top)
        return _outcome(Termination.MAX_HANDS, winners, scores, hands_played, config.team_play)
    return None


def _outcome(
    termination: Termination, winners: tuple[int, ...], scores: Sequence[int], hands: int, teams: bool
) -> Outcome:
    ranks = []
    for seat, score in enumerate(scores):
        if seat in winners:
            ranks.append(1)
        else:
            ahead = sum(1 for s, v in enumerate(scores) if s not in winners and v > score)
            ranks.append(len(winners) + 1 + ahead)
    return Outcome(termination, winners, tuple(scores), tuple(ranks), hands, teams)
