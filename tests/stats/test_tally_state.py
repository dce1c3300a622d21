"""A Tally kept and read back (``Tally.state`` / ``Tally.restore``, what the competition server's board keeps
across a restart) goes on exactly as the Tally it was taken from: the same sums, to the last bit."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.stats.rating import RatedGame
from arena.stats.tally import Tally

NAMES = ("a", "b", "c", "d", "e", "f")


def _games(rng: random.Random, first: int, count: int) -> list[RatedGame]:
    games = []
    for seq in range(first, first + count):
        seats = tuple(rng.sample(NAMES, 5))
        scores = tuple(rng.randint(0, 10) for _ in seats)
        ranks = tuple(1 + sorted(scores, reverse=True).index(s) for s in scores)
        forfeited = (seats[0],) if rng.random() < 0.1 else ()
        games.append(
            RatedGame(seq, f"g{seq}", seats, ranks, scores, forfeited, rng.random() > 0.05, (), f"g{seq}",
                      rng.randint(3, 12))
        )  # fmt: skip
    return games


def _same(a: Tally, b: Tally) -> None:
    assert a.names == b.names and a.n_games == b.n_games and a.duplicate == b.duplicate
    assert a.last_seq == b.last_seq and a.count == b.count
    for x, y in ((a.rank_sum, b.rank_sum), (a.game_sum, b.game_sum), (a.unit_sum, b.unit_sum)):
        assert np.array_equal(x, y)
    for method, t in a.totals.items():
        u = b.totals[method]
        for field in ("num", "den", "nn", "nd", "dd"):
            assert np.array_equal(getattr(t, field), getattr(u, field)), (method, field)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), before=st.integers(0, 40), after=st.integers(0, 40))
def test_a_restored_tally_goes_on_as_the_one_never_stopped(seed: int, before: int, after: int) -> None:
    rng = random.Random(seed)
    first, then = _games(rng, 1, before), _games(rng, before + 1, after)
    kept = Tally(NAMES).add(first).close()
    restored = Tally.restore(json.loads(json.dumps(kept.state())))  # through JSON, as board.json keeps it
    _same(restored, kept)
    _same(restored.add(then).close(), Tally(NAMES).add([*first, *then]).close())


def test_a_state_of_another_field_is_refused() -> None:
    state = Tally(NAMES).add(_games(random.Random(1), 1, 5)).close().state()
    state["names"] = ["a", "b"]
    with pytest.raises(ValueError):
        Tally.restore(state)
