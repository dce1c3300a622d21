"""The champion's learned bidding (``sample_bots.learned``, ``bench/train_bidding.py``): the shipped weights
load and cover the three trained variants, and make the decisions recorded when they were shipped; a tiny
training run goes end to end, resumes, and is a function of its seed; the champion with
``bidding="learned"`` plays legal hands in every variant, falls back where the weights do not reach, and
passes check-bot; ``bidding="blend"`` is the model at an overwhelming prior and the rollouts at none, and
plays legal hands; ``bidding_weights`` picks the weights file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena.engine import ACTIONS, Action, GameConfig, GameState, View
from arena.engine.actions import encode
from arena.engine.state import P_BID1, P_BID2, P_CALL, P_PLAY
from bench.hands import play_hand
from bench.strength import VARIANTS
from bench.train_bidding import chunk_path, deal_rows, main
from sample_bots.champion import ChampionBot
from sample_bots.learned import WEIGHTS, Bidder, Model, config_key, shipped
from sample_bots.learned.features import NUM_INPUTS, inputs
from sample_bots.policy import choose, seen_from_state, seen_from_view
from tests.helpers import check_launched, configured_bot

TRAINED = ("five-handed", "call-ace", "classic")


def config_of(variant: str) -> GameConfig:
    return GameConfig.from_dict(VARIANTS[variant])


def learned_decisions(variant: str, deals: range) -> list[tuple[int, int, int]]:
    """(deal, decision number, learned action) at every bidding decision the shipped model makes, on
    hands bid by rules players."""
    bidder = shipped()
    out = []
    for deal in deals:
        state = GameState(config_of(variant), seed=deal, single_hand=True)
        step = 0
        while state.phase != P_PLAY and not state.is_terminal():
            legal = state.legal_actions()
            k = seen_from_state(state, state.to_act)
            if len(legal) > 1 and state.phase in (P_BID1, P_BID2, P_CALL):
                learned = bidder.decide(k)
                if learned is not None:
                    assert learned in legal
                    out.append((deal, step, learned))
            step += 1
            state.apply_unchecked(legal[0] if len(legal) == 1 else choose(k))
    return out


def test_the_shipped_weights_cover_the_trained_variants_and_no_other() -> None:
    bidder = Bidder.load(WEIGHTS)
    for variant in TRAINED:
        assert bidder.covers(config_of(variant)), variant
    assert WEIGHTS.stat().st_size < 20_000_000
    for other in ("call-ace-7", "call-ace-joker", "call-ace-nt"):
        config = config_of(other)
        assert not bidder.covers(config)
        state = GameState(config, seed=3, single_hand=True)
        while state.phase not in (P_BID1, P_BID2):
            state.apply_unchecked(state.legal_actions()[0])
        assert bidder.decide(seen_from_state(state, state.to_act)) is None  # the caller's search decides


RECORDED: dict[str, list[tuple[int, int, str]]] = {
    # variant: the learned action at the first bidding decisions of deals 1..12 where it differs from the
    # rules player's, recorded from the shipped weights (bidding.md). A change of the features, of the
    # weights or of how they are read changes these.
    "five-handed": [
        (2, 4, "PASS"),
        (3, 2, "PASS"),
        (8, 4, "TAKE_UP"),
        (8, 5, "NAME(D)"),
        (9, 4, "PASS"),
        (10, 4, "PASS"),
        (11, 4, "TAKE_UP"),
        (12, 4, "TAKE_UP"),
    ],
    "call-ace": [
        (2, 6, "ALONE"),
        (3, 2, "ALONE"),
        (4, 3, "PASS"),
        (5, 4, "PASS"),
        (8, 0, "PASS"),
        (9, 2, "PASS"),
    ],
    "classic": [
        (1, 3, "TAKE_UP"),
        (1, 4, "NAME(D)"),
        (2, 1, "ORDER_UP"),
        (3, 0, "ORDER_UP"),
        (3, 1, "ORDER_UP"),
        (3, 4, "NAME(S)"),
        (4, 5, "ALONE"),
        (7, 1, "ORDER_UP"),
        (7, 2, "PASS"),
        (8, 3, "TAKE_UP"),
        (9, 4, "NAME(D)"),
        (9, 7, "ALONE"),
        (11, 1, "ORDER_UP"),
        (11, 3, "TAKE_UP"),
    ],
}


@pytest.mark.parametrize("variant", TRAINED)
def test_the_shipped_weights_make_the_recorded_decisions(variant: str) -> None:
    got = learned_decisions(variant, range(1, 13))
    assert len(got) >= 20
    rules_differ = []
    for deal, step, action in got:
        state = GameState(config_of(variant), seed=deal, single_hand=True)
        for _ in range(step):
            legal = state.legal_actions()
            state.apply_unchecked(
                legal[0] if len(legal) == 1 else choose(seen_from_state(state, state.to_act))
            )
        if choose(seen_from_state(state, state.to_act)) != action:
            rules_differ.append((deal, step, str(ACTIONS[action])))
    assert rules_differ == RECORDED[variant]


def test_a_tiny_training_run_goes_end_to_end_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--variants", "five-handed", "--deals", "8", "--chunk", "4", "--out", str(tmp_path), "--quiet"]
    assert main([*argv, "--evaluate", "3"]) == 0
    first = capsys.readouterr().out
    assert "0 chunks found, 2 made" in first
    assert "learned bids - rules bids" in first
    bidder = Bidder.load(tmp_path / "bidding.npz")
    assert bidder.covers(config_of("five-handed")) and not bidder.covers(config_of("classic"))
    model = bidder.models[(config_key(config_of("five-handed")), "bid1")]
    assert model.w.shape == (NUM_INPUTS,) and np.isfinite(model.w).all()
    assert main(argv) == 0
    assert "2 chunks found, 0 made" in capsys.readouterr().out


def test_the_data_are_a_function_of_the_seed(tmp_path: Path) -> None:
    for out in ("a", "b"):
        assert (
            main(
                [
                    "--variants",
                    "classic",
                    "--deals",
                    "3",
                    "--out",
                    str(tmp_path / out),
                    "--quiet",
                    "--seed",
                    "5",
                ]
            )
            == 0
        )
    a = np.load(chunk_path(tmp_path / "a", "classic", 5, 0, 3))
    b = np.load(chunk_path(tmp_path / "b", "classic", 5, 0, 3))
    assert a.files == b.files
    for name in a.files:
        assert np.array_equal(a[name], b[name]), name


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    assert main(["--variants", "six-handed", "--out", str(tmp_path)]) == 2
    assert main(["--deals", "0", "--out", str(tmp_path)]) == 2
    assert main(["--deals", "3,x", "--out", str(tmp_path)]) == 2
    assert main(["--variants", "classic", "--deals", "4,4", "--out", str(tmp_path)]) == 2
    assert not (tmp_path / "data").exists()  # refused before any deal was played


def test_a_row_prices_each_option_on_the_real_deal() -> None:
    # Round 1 rows: ordering up against passing; the advantage is what the two options scored, which for
    # a hand where the rules player orders up and makes it is usually positive: at least one such row.
    rows = deal_rows(config_of("classic"), 1)
    for kind, found in rows.items():
        for x, gain, rules, gain_rules in found:
            assert len(x) == NUM_INPUTS and rules in (0.0, 1.0), kind
            assert gain == gain_rules  # the rules continuation: one advantage, kept twice
    assert rows["bid1"], "every deal has round 1 decisions"


def test_the_champion_continuation_goes_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One classic deal with the champion's card play after each option: its rows carry both advantages,
    # no model is fitted from them alone, and bench/bidding_continuation.py reads them, writes the shipped
    # weights plus the correction, and plays a held-out deal with them.
    from bench import train_bidding
    from bench.bidding_continuation import main as continuation

    cheap = {"budget_s": 10.0, "play_samples": 4, "min_samples": 2, "play_work": 3000}
    monkeypatch.setattr(train_bidding, "CHAMPION_SETTINGS", cheap)
    out = str(tmp_path)
    argv = ["--variants", "classic", "--deals", "1", "--chunk", "1", "--out", out, "--quiet"]
    assert main([*argv, "--continuation", "champion"]) == 0
    assert "no model fitted here" in capsys.readouterr().out
    with np.load(chunk_path(tmp_path, "classic", 1, 0, 1, "champion")) as data:
        assert data["bid1_y"].shape == data["bid1_y_rules"].shape and len(data["bid1_y"])
    assert not (tmp_path / "bidding.npz").exists()
    written = tmp_path / "delta.npz"
    args = ["--variant", "classic", "--data", out, "--deals", "1", "--chunk", "1", "--write", str(written)]
    assert continuation([*args, "--evaluate", "1", "--eval-seed", "7"]) == 0
    report = capsys.readouterr().out
    assert "bid1: 4 rows of 1 deals, too few" in report and "1 deals from 7" in report
    assert Bidder.load(written).covers(config_of("five-handed"))  # the other variants' weights kept


@pytest.mark.parametrize(
    ("bidding", "variant"),
    [*(("learned", v) for v in [*TRAINED, "call-ace-7"]), ("cfr", "five-handed"), ("cfr", "call-ace")],
)
def test_the_learned_champion_plays_legal_hands(bidding: str, variant: str) -> None:
    """The ridge model's bids (every variant it covers, and one it does not) and the CFR table's (which
    covers Five-handed only, sample_bots/learned/cfr.py)."""
    bot_class = ChampionBot.configured(
        bidding=bidding, samples=4, play_samples=4, min_samples=2, play_work=3000, bid_work=3000
    )
    config = config_of(variant)
    for deal in range(3):
        for seat in range(config.num_players):
            play_hand(config, deal, bot_class(seed=deal), seat)  # the engine's apply refuses an illegal move


def test_a_misspelt_bidding_setting_is_refused() -> None:
    with pytest.raises(TypeError, match="bidding"):
        ChampionBot.configured(bidding="learnt")


def test_check_bot_passes_the_learned_champion(tmp_path: Path) -> None:
    settings = 'bidding="learned", samples=6, play_samples=6, min_samples=2, play_work=4000, bid_work=4000'
    report = check_launched(configured_bot("champion", "champion", "ChampionBot", settings, tmp_path))
    assert report.passed, report.render()
    assert {"BID_ROUND_1", "BID_ROUND_2", "CALL", "PLAY"} <= report.kinds_seen


def test_inputs_have_the_declared_width() -> None:
    state = GameState(config_of("five-handed"), seed=2, single_hand=True)
    while state.phase != P_BID1:
        state.apply_unchecked(state.legal_actions()[0])
    k = seen_from_state(state, state.to_act)
    assert len(inputs(k, k.proposed)) == NUM_INPUTS


def blend_records(prior_samples: float, variant: str = "five-handed") -> list[tuple[int, int, int | None]]:
    """(blend's action, the model's action, the rollouts' best mean) at every decision the blend made in
    a few hands of ``variant``; the rollouts' best is ``None`` where no guess was drawn."""
    records: list[tuple[int, int, int | None]] = []

    class Recording(
        ChampionBot.configured(  # type: ignore[misc]
            bidding="blend",
            prior_samples=prior_samples,
            samples=3,
            bid_factor=2,
            play_samples=3,
            min_samples=2,
            play_work=3000,
            deviate=0.0,
            budget_s=30.0,
        )
    ):
        last: dict[int, list[float]] | None = None

        def evaluate(self, view: View, actions: list[int], default: int) -> dict[int, list[float]] | None:
            results = super().evaluate(view, actions, default)
            self.last = results
            return results

        def blend_choice(self, view: View) -> Action | None:
            self.last = None
            action = super().blend_choice(view)
            if action is not None:
                learned = shipped().decide(seen_from_view(view))
                best = None
                if self.last:
                    got = self.last
                    best = max(got, key=lambda a: (sum(got[a]), a == learned))  # ties: the model's
                records.append((encode(action), learned, best))
            return action

    config = config_of(variant)
    for deal in range(4):
        for seat in range(config.num_players):
            play_hand(config, deal, Recording(seed=deal), seat)
    return records


def test_the_blend_follows_the_model_when_its_prior_outweighs_any_guesses() -> None:
    records = blend_records(1e9)
    assert len(records) >= 10
    assert all(blend == learned for blend, learned, _ in records)


def test_the_blend_follows_the_rollouts_when_the_prior_weighs_nothing() -> None:
    records = blend_records(0.0)
    searched = [(blend, best) for blend, _, best in records if best is not None]
    assert searched
    assert all(blend == best for blend, best in searched)
    # and the two ends differ somewhere, or the test above could not tell them apart
    assert any(best != learned for _, learned, best in records if best is not None)


@pytest.mark.parametrize("variant", [*TRAINED, "call-ace-7"])
def test_the_blended_champion_plays_legal_hands(variant: str) -> None:
    bot_class = ChampionBot.configured(
        bidding="blend", samples=4, play_samples=4, min_samples=2, play_work=3000, bid_work=3000
    )
    config = config_of(variant)
    for deal in range(2):
        for seat in range(config.num_players):
            play_hand(config, deal, bot_class(seed=deal), seat)


def test_bidding_weights_names_the_file_the_champion_bids_by(tmp_path: Path) -> None:
    # Weights with every advantage negated bid the other way wherever the shipped ones decide.
    flipped = Bidder({key: Model(-m.w, m.mean, m.scale) for key, m in shipped().models.items()})
    flipped.save(tmp_path / "flipped.npz")
    default = ChampionBot.configured(bidding="learned")()
    other = ChampionBot.configured(bidding="learned", bidding_weights=str(tmp_path / "flipped.npz"))()
    state = GameState(config_of("five-handed"), seed=3, single_hand=True)
    k = seen_from_state(state, state.to_act)
    assert default.bidder().decide(k) == shipped().decide(k) is not None
    assert other.bidder().decide(k) != shipped().decide(k)
