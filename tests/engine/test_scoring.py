"""Scoring tables and game end, cell by cell on the pure functions.

RULES.md CA-8, FH-7, CL-2.4/2.5; checklist items 11 and 12.

The same rows are also reached by play on explicit deals in test_call_ace, test_five_handed, test_classic.
"""

from __future__ import annotations

import pytest

from arena.engine import GameConfig
from arena.engine.scoring import HandOutcome, Termination, classify, game_over, hand_points

CA = {n: GameConfig.create("call-ace", num_players=n) for n in (4, 5, 6, 7)}
FH = GameConfig.create("five-handed")
CL = GameConfig.create("classic")


def test_outcome_classes():
    expected = [HandOutcome.EUCHRED] * 3 + [HandOutcome.MADE] * 2 + [HandOutcome.MARCH]
    assert [classify(t) for t in range(6)] == expected


# ----------------------------------------------------------------- CA-8 table, N = 4..7


@pytest.mark.parametrize("n", [4, 5, 6, 7])
@pytest.mark.parametrize("tricks", [3, 4])
def test_CA_8_partnership_made_one_each(n, tricks):
    outcome, points = hand_points(CA[n], maker=1, partner=3, alone=False, making_tricks=tricks)
    assert outcome is HandOutcome.MADE
    assert points == tuple(1 if s in (1, 3) else 0 for s in range(n))


@pytest.mark.parametrize(("n", "value"), [(4, 2), (5, 3), (6, 3), (7, 3)])
def test_CA_8_partnership_march(n, value):
    outcome, points = hand_points(CA[n], maker=0, partner=2, alone=False, making_tricks=5)
    assert outcome is HandOutcome.MARCH
    assert points == tuple(value if s in (0, 2) else 0 for s in range(n))


@pytest.mark.parametrize("n", [4, 5, 6, 7])
@pytest.mark.parametrize("declared", [True, False])
def test_CA_8_alone_made_two(n, declared):
    for tricks in (3, 4):
        _, points = hand_points(CA[n], maker=2, partner=-1, alone=declared, making_tricks=tricks)
        assert points == tuple(2 if s == 2 else 0 for s in range(n))


@pytest.mark.parametrize("n", [4, 5, 6, 7])
@pytest.mark.parametrize("declared", [True, False])
def test_CA_8_alone_march_n_points(n, declared):
    _, points = hand_points(CA[n], maker=n - 1, partner=-1, alone=declared, making_tricks=5)
    assert points == tuple(n if s == n - 1 else 0 for s in range(n))


@pytest.mark.parametrize("n", [4, 5, 6, 7])
@pytest.mark.parametrize("tricks", [0, 1, 2])
def test_CA_8_euchred_with_partner_each_of_n_minus_2_defenders_two(n, tricks):
    outcome, points = hand_points(CA[n], maker=0, partner=1, alone=False, making_tricks=tricks)
    assert outcome is HandOutcome.EUCHRED
    assert points == tuple(0 if s in (0, 1) else 2 for s in range(n))
    assert sum(points) == 2 * (n - 2)


@pytest.mark.parametrize("n", [4, 5, 6, 7])
@pytest.mark.parametrize("declared", [True, False])
def test_CA_8_euchred_alone_each_of_n_minus_1_others_two(n, declared):
    _, points = hand_points(CA[n], maker=1, partner=-1, alone=declared, making_tricks=2)
    assert points == tuple(0 if s == 1 else 2 for s in range(n))
    assert sum(points) == 2 * (n - 1)


def test_CA_8_no_score_is_ever_negative():
    for n, config in CA.items():
        for tricks in range(6):
            for partner in (-1, (1 % n)):
                for alone in (False, True):
                    _, points = hand_points(config, 0, partner, alone and partner < 0, tricks)
                    assert min(points) >= 0 and len(points) == n


def test_CA_6_5_declared_alone_and_alone_by_absence_score_alike():
    for config in CA.values():
        for tricks in range(6):
            assert hand_points(config, 0, -1, True, tricks) == hand_points(config, 0, -1, False, tricks)


# ----------------------------------------------------------------- FH-7 table


@pytest.mark.parametrize(
    ("partner", "alone", "tricks", "expected"),
    [
        (3, False, 3, (0, 1, 0, 1, 0)),  # partner held by another player
        (3, False, 4, (0, 1, 0, 1, 0)),
        (3, False, 5, (0, 2, 0, 2, 0)),
        (3, False, 2, (2, 0, 2, 0, 2)),
        (3, False, 0, (2, 0, 2, 0, 2)),
        (-1, False, 3, (0, 1, 0, 0, 0)),  # card called, but in the kitty
        (-1, False, 4, (0, 1, 0, 0, 0)),
        (-1, False, 5, (0, 2, 0, 0, 0)),
        (-1, False, 1, (2, 0, 2, 2, 2)),
        (-1, True, 3, (0, 1, 0, 0, 0)),  # announced ALONE
        (-1, True, 4, (0, 1, 0, 0, 0)),
        (-1, True, 5, (0, 4, 0, 0, 0)),
        (-1, True, 2, (2, 0, 2, 2, 2)),
    ],
)
def test_FH_7_scoring_table(partner, alone, tricks, expected):
    assert hand_points(FH, maker=1, partner=partner, alone=alone, making_tricks=tricks)[1] == expected


# ----------------------------------------------------------------- CL-2.4 table


@pytest.mark.parametrize(
    ("maker", "alone", "tricks", "expected"),
    [
        (0, False, 3, (1, 0, 1, 0)),
        (1, False, 4, (0, 1, 0, 1)),
        (2, False, 5, (2, 0, 2, 0)),
        (3, True, 5, (0, 4, 0, 4)),
        (3, True, 4, (0, 1, 0, 1)),
        (0, False, 2, (0, 2, 0, 2)),
        (1, True, 0, (2, 0, 2, 0)),
    ],
)
def test_CL_2_4_scoring_table(maker, alone, tricks, expected):
    partner = -1 if alone else (maker + 2) % 4
    assert hand_points(CL, maker=maker, partner=partner, alone=alone, making_tricks=tricks)[1] == expected


# ----------------------------------------------------------------- game end


def test_CA_8_1_no_end_below_target():
    assert game_over(CA[5], [9, 9, 9, 9, 9], [8, 8, 8, 8, 8], 3) is None


def test_CA_8_1_target_reached():
    out = game_over(CA[5], [3, 10, 0, 9, 0], [3, 9, 0, 8, 0], 4)
    assert out.termination is Termination.TARGET_REACHED
    assert out.winners == (1,) and out.hands_played == 4 and out.scores == (3, 10, 0, 9, 0)


def test_CA_8_2_highest_total_wins():
    out = game_over(CA[5], [11, 12, 0, 0, 0], [8, 9, 0, 0, 0], 7)
    assert out.winners == (1,)


@pytest.mark.parametrize("pair", [(0, 1), (1, 3), (0, 2), (2, 4)])
def test_CA_8_2_equal_highest_totals_draw(pair):
    scores = [5] * 5
    for s in pair:
        scores[s] = 10
    out = game_over(CA[5], scores, [8] * 5, 9)
    assert out.winners == pair
    assert out.is_draw
    assert out.to_dict()["draw"] is True


def test_CA_8_2_lowest_start_option():
    config = GameConfig.create("call-ace", tiebreak="lowest_start")
    assert game_over(config, [11, 12, 0, 0, 0], [8, 9, 0, 0, 0], 7).winners == (0,)
    # equal start scores: a draw among them, even with different totals
    assert game_over(config, [10, 12, 0, 0, 0], [9, 9, 0, 0, 0], 7).winners == (0, 1)
    # a single player at target wins whatever the start scores
    assert game_over(config, [10, 9, 0, 0, 0], [9, 2, 0, 0, 0], 7).winners == (0,)


@pytest.mark.parametrize("tiebreak", ["highest_total", "lowest_start"])
def test_CA_8_4_max_hands_highest_total_wins_whatever_tiebreak(tiebreak):
    config = GameConfig.create("call-ace", max_hands=5, tiebreak=tiebreak)
    assert game_over(config, [1, 2, 3, 4, 5], [0] * 5, 4) is None
    out = game_over(config, [1, 2, 7, 4, 5], [0, 0, 5, 0, 0], 5)
    assert out.termination is Termination.MAX_HANDS and out.winners == (2,)
    out = game_over(config, [8, 2, 8, 4, 5], [2, 0, 6, 0, 0], 5)
    assert out.winners == (0, 2)


def test_CA_8_4_target_takes_precedence_over_the_cap():
    config = GameConfig.create("call-ace", max_hands=5)
    out = game_over(config, [10, 2, 0, 0, 0], [9, 2, 0, 0, 0], 5)
    assert out.termination is Termination.TARGET_REACHED and out.winners == (0,)


def test_FH_7_2_lowest_start_among_those_reaching_target():
    assert game_over(FH, [0, 10, 11, 0, 0], [0, 8, 9, 0, 0], 3).winners == (1,)
    assert game_over(FH, [0, 10, 0, 0, 0], [0, 9, 0, 0, 0], 3).winners == (1,)
    # lowest start shared: draw among those, not the highest total
    out = game_over(FH, [10, 0, 11, 0, 10], [8, 0, 9, 0, 8], 3)
    assert out.winners == (0, 4)


def test_FH_7_2_tied_start_is_a_draw():
    out = game_over(FH, [2, 0, 10, 0, 10], [0, 0, 8, 0, 8], 3)
    assert out.winners == (2, 4)
    assert out.is_draw


def test_FH_7_3_max_hands_highest_total_draws():
    config = GameConfig.create("five-handed", max_hands=10)
    out = game_over(config, [3, 9, 9, 0, 0], [3, 7, 8, 0, 0], 10)
    assert out.termination is Termination.MAX_HANDS and out.winners == (1, 2) and out.is_draw


def test_CL_2_5_team_reaching_target_wins_not_a_draw():
    out = game_over(CL, [10, 7, 10, 7], [9, 7, 9, 7], 6)
    assert out.winners == (0, 2) and not out.is_draw
    assert out.ranks == (1, 3, 1, 3)
    assert game_over(CL, [9, 8, 9, 8], [8, 8, 8, 8], 6) is None
