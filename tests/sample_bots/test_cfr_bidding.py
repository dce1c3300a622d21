"""The champion's CFR bidding (``sample_bots.learned.cfr``, ``bench/cfr_bidding.py``): a tiny training run
goes through the whole pipeline in both fields, resumes, and is a function of its seed; the information
sets stay in range; the bidder returns legal actions (argmax and sampled), the rules player's where its
table was seldom visited, and nothing outside Five-handed; the champion with ``bidding="cfr"`` plays legal
hands and falls back to its rollouts where the table does not reach."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena.engine import GameConfig, GameState
from arena.engine.state import P_BID1, P_BID2, P_CALL, P_PLAY
from bench.cfr_bidding import Tables, main
from bench.strength import VARIANTS
from sample_bots.learned import config_key
from sample_bots.learned.cfr import CFR_WEIGHTS, NUM_INFOSETS, CfrBidder, describe, infoset, layout
from sample_bots.policy import choose, seen_from_state


def config_of(variant: str) -> GameConfig:
    return GameConfig.from_dict(VARIANTS[variant])


def test_the_abstractions_have_the_declared_sizes() -> None:
    assert layout("coarse")[1] == NUM_INFOSETS == 625 and layout("fine")[1] == 2625


@pytest.mark.parametrize(
    ("field", "abstraction"), [("self", "coarse"), ("rules", "coarse"), ("self", "fine")]
)
def test_a_tiny_training_run_goes_end_to_end_and_resumes(
    field: str, abstraction: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--deals", "6", "--every", "3", "--field", field, "--min-visits", "1", "--out", str(tmp_path)]
    argv += ["--abstraction", abstraction]
    assert main([*argv, "--evaluate", "2", "--top", "3"]) == 0
    first = capsys.readouterr().out
    assert "3 deals (" in first and "6 deals (" in first and "CFR bids - rules bids" in first
    run = tmp_path / f"{field}-seed1{'' if abstraction == 'coarse' else '-fine'}"
    bidder = CfrBidder.load(run / "cfr.npz")
    assert bidder.covers(config_of("five-handed")) and not bidder.covers(config_of("call-ace"))
    assert bidder.visits.sum() > 0 and ((bidder.act >= 0) & (bidder.act <= 1)).all()
    assert (run / "avg-00000003.npz").exists()
    assert main([*argv[:1], "9", *argv[2:]]) == 0
    assert "resumed at 6 deals" in capsys.readouterr().out
    resumed = Tables.load(run / "checkpoint.npz", abstraction)
    again_argv = ["--deals", "9", "--every", "9", "--field", field, "--abstraction", abstraction]
    assert main([*again_argv, "--out", str(tmp_path / "again")]) == 0
    again = Tables.load(tmp_path / "again" / run.name / "checkpoint.npz", abstraction)
    assert resumed.done == again.done == 9
    np.testing.assert_allclose(resumed.strategy_sum, again.strategy_sum)  # a function of seed and count
    assert main(["--compare", str(run / "cfr.npz"), "--evaluate", "2"]) == 0
    assert "- ridge:" in capsys.readouterr().out


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    assert main(["--variant", "classic", "--out", str(tmp_path)]) == 2
    assert main(["--deals", "0", "--out", str(tmp_path)]) == 2


def decisions(variant: str, deals: range) -> list[tuple[GameState, int]]:
    """Every bidding decision with a choice of hands bid by rules players: (state, seat)."""
    out = []
    for deal in deals:
        state = GameState(config_of(variant), seed=deal, single_hand=True)
        while state.phase != P_PLAY and not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) > 1 and state.phase in (P_BID1, P_BID2, P_CALL):
                out.append((state.clone(), state.to_act))
            state.apply_unchecked(
                legal[0] if len(legal) == 1 else choose(seen_from_state(state, state.to_act))
            )
    return out


def random_bidder(min_visits: int, mode: str = "argmax", abstraction: str = "coarse") -> CfrBidder:
    rng = np.random.default_rng(5)
    size = layout(abstraction)[1]
    act = rng.random(size)
    visits = rng.integers(0, 3, size)
    key = config_key(config_of("five-handed"))
    return CfrBidder(key, act, visits, min_visits, mode, seed=1, abstraction=abstraction)


@pytest.mark.parametrize(
    ("mode", "abstraction"), [("argmax", "coarse"), ("sample", "coarse"), ("argmax", "fine")]
)
def test_the_bidder_returns_legal_actions(mode: str, abstraction: str, tmp_path: Path) -> None:
    bidder = random_bidder(1, mode, abstraction)
    bidder.save(tmp_path / "t.npz")
    assert CfrBidder.load(tmp_path / "t.npz").abstraction == abstraction
    found = 0
    for state, seat in decisions("five-handed", range(1, 40)):
        k = seen_from_state(state, seat)
        action = bidder.decide(k)
        assert action is not None and action in state.legal_actions()
        spec = infoset(k, abstraction)
        if spec is not None:
            index, actions = spec
            assert 0 <= index < layout(abstraction)[1] and describe(index, abstraction)
            assert set(actions) <= set(state.legal_actions()) and actions[0] != actions[1]
            found += 1
    assert found > 60


def test_seldom_visited_information_sets_bid_like_the_rules_player() -> None:
    bidder = random_bidder(10**6)
    for state, seat in decisions("five-handed", range(1, 15)):
        k = seen_from_state(state, seat)
        assert bidder.decide(k) == choose(k)


def test_other_variants_get_no_decision() -> None:
    bidder = random_bidder(0)
    for state, seat in decisions("call-ace", range(1, 6)):
        assert bidder.decide(seen_from_state(state, seat)) is None


# The CFR champion's legal hands: tests/sample_bots/test_learned_bidding.py, beside the ridge model's.


def test_the_shipped_table_covers_five_handed() -> None:
    bidder = CfrBidder.load(CFR_WEIGHTS)
    assert bidder.covers(config_of("five-handed"))
    assert CFR_WEIGHTS.stat().st_size < 1_000_000
