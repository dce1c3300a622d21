"""``View.teammates`` is what a bot means by "my partner", in every variant, and never leaks a secret.

Random games of every variant are played out; at every step, for every seat, the view's ``teammates`` is
compared with the truth (the engine's maker and partner) and with what the seat may know (C-5.4): the
called card's holder is known to everyone once the card is played, to the holder at once, and to nobody
else before.
"""

from __future__ import annotations

import random

import pytest

from arena.engine import GameConfig, GameState, build_view

CONFIGS = {
    "classic": GameConfig.create("classic"),
    "call-ace": GameConfig.create("call-ace"),
    "call-ace-6p": GameConfig.create("call-ace", num_players=6),
    "five-handed": GameConfig.create("five-handed"),
}


def expected(state: GameState, seat: int) -> tuple[int, ...]:
    """The seats on ``seat``'s side that it may know of right now, from the engine's own fields."""
    n = state.n
    if state.config.team_play:
        return ((seat + 2) % n,)
    if state.maker < 0:
        return ()
    known = state.alone or (state.partner >= 0 and (state.partner_revealed or seat == state.partner))
    if not known:
        return ()
    making = {state.maker} | ({state.partner} if state.partner >= 0 else set())
    side = making if seat in making else set(range(n)) - making
    return tuple(sorted(side - {seat}))


@pytest.mark.parametrize("name", list(CONFIGS))
def test_teammates_follow_what_each_seat_may_know(name: str) -> None:
    config = CONFIGS[name]
    seen_nonempty = False
    for seed in range(12):
        state = GameState(config, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not state.is_terminal() and steps < 400:
            for seat in range(state.n):
                view = build_view(state, seat)
                assert view.teammates == expected(state, seat)
                assert seat not in view.teammates
                seen_nonempty = seen_nonempty or bool(view.teammates)
                if config.team_play:
                    # classic: ``partner`` is the *maker's* partner, an opponent for a defender.
                    assert view.partner is None or view.partner == (view.maker + 2) % 4  # type: ignore[operator]
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
    assert seen_nonempty


def test_a_defender_learns_its_teammates_only_when_the_called_card_is_played() -> None:
    config = CONFIGS["five-handed"]
    for seed in range(40):
        state = GameState(config, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal() and state.hand_index == 0:
            if state.maker >= 0 and state.partner >= 0 and not state.alone:
                defenders = [s for s in range(state.n) if s not in (state.maker, state.partner)]
                for seat in defenders:
                    teammates = build_view(state, seat).teammates
                    if state.partner_revealed:
                        assert teammates == tuple(s for s in defenders if s != seat)
                    else:
                        assert teammates == ()
                assert build_view(state, state.partner).teammates == (state.maker,)
                if state.partner_revealed:
                    return
            state.apply(rng.choice(state.legal_actions()))
    pytest.fail("no seed reached a revealed partner")
