"""The collusion check's test on the sides of each hand (arena.stats.collusion_sides): on hands made to
measure, it recovers a pair's gain whatever the sides, and finds none where the sides alone explain a gain
the games' scores show (an honest pair of weak bots: one a bad maker that feeds its opponents, the other
more often its opponent when they share a table)."""

from __future__ import annotations

from random import Random

import numpy as np

from arena.stats.collusion import collusion
from arena.stats.collusion_sides import HandSides, Sides
from arena.stats.rating import RatedGame

NAMES = ("a", "b", "c", "d", "e", "f")
FEED = 1.0
"""What ``b`` gives each opponent per hand it makes trump (a bad maker, euchred)."""


def event(
    gain: float, opposite: bool, games: int = 400, seed: int = 3
) -> tuple[list[RatedGame], dict[str, list[HandSides]]]:
    """Six entrants at five seats; ten hands a game, one point of noise per seat and hand. ``b`` makes trump
    in half the hands it plays and then gives each opponent ``FEED``; with ``opposite``, when ``a`` shares
    the table ``b`` never calls ``a`` as its partner (``a`` is always on the other side). ``gain``: ``a`` and
    ``b`` each gain that much in every hand they share, whatever the sides."""
    rng = Random(seed)
    out: list[RatedGame] = []
    hands: dict[str, list[HandSides]] = {}
    for g in range(games):
        seats = tuple(rng.sample(NAMES, 5))
        record: list[HandSides] = []
        totals = [0.0] * 5
        for _ in range(10):
            maker = seats.index("b") if "b" in seats and rng.random() < 0.5 else rng.randrange(5)
            choices = [s for s in range(5) if s != maker]
            if opposite and seats[maker] == "b" and "a" in seats:
                choices.remove(seats.index("a"))
            partner = rng.choice(choices)
            side = {maker, partner}
            points = []
            for s, name in enumerate(seats):
                value = rng.gauss(0.0, 1.0)
                if seats[maker] == "b" and s not in side:
                    value += FEED
                if name in ("a", "b") and "a" in seats and "b" in seats:
                    value += gain
                points.append(value)
                totals[s] += value
            record.append((maker, partner, -1, tuple(points)))
        game_id = f"g{g:04d}"
        ranks = tuple(1 + sorted(totals, reverse=True).index(t) for t in totals)
        out.append(RatedGame(g, game_id, seats, ranks, tuple(totals), (), True, (), game_id, 10))
        hands[game_id] = record
    return out, hands


def sides_of(games: list[RatedGame], hands: dict[str, list[HandSides]]) -> Sides:
    index = {name: k for k, name in enumerate(NAMES)}
    seated = [(k, [(s, index[n]) for s, n in enumerate(g.seats)], k) for k, g in enumerate(games)]
    made = Sides.of(seated, {k: hands[g.game_id] for k, g in enumerate(games)}, len(NAMES))
    assert made is not None
    return made


def test_a_pair_that_gains_on_either_side_is_found_with_its_gain() -> None:
    games, hands = event(gain=0.5, opposite=False)
    test = sides_of(games, hands).test(0, 1)
    assert test is not None
    assert all(abs(g - 0.5) < 3 * se for g, se in zip(test.gain, test.se, strict=True)), test
    assert test.z[2] > 8


def test_a_gain_the_sides_explain_is_no_gain() -> None:
    """The games' scores show ``a`` gaining with ``b`` (it is always on the other side of a bad maker);
    given the sides of each hand, nothing is left."""
    games, hands = event(gain=0.0, opposite=True)
    scored = {p.a + p.b: p for p in collusion(games, NAMES, interaction=False).pairs}["ab"]
    assert scored.z is not None and scored.z[0] > 3  # the games alone: a gains with b
    test = sides_of(games, hands).test(0, 1)
    assert test is not None and max(test.z) < 3 and abs(test.gain[0]) < 3 * test.se[0], test
    for value in test.se:
        assert np.isfinite(value) and value > 0
