"""The learned inference (``sample_bots.learned.inference``, ``bench/train_inference.py``): every guess it
draws fits the view (the checked replay accepts it), all-zero weights draw uniformly, the shipped weights
load, cover the trained variants and give the recorded chances, a tiny training run goes end to end,
resumes, is a function of its seed and fits better than the uniform guess, and the bots with
``guesses="learned"`` play legal hands in every variant and pass check-bot."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from arena.engine import GameConfig, GameState, build_view
from arena.engine.cards import card_text
from arena.engine.determinize import hidden_facts, state_from_guess
from arena.engine.state import P_OVER
from arena.engine.views import View
from bench.hands import play_hand
from bench.strength import VARIANTS
from bench.train_inference import chunk_path, main
from sample_bots.champion import ChampionBot
from sample_bots.learned.inference import (
    NUM_CLASSES,
    NUM_FEATURES,
    REST,
    WEIGHTS,
    Inference,
    InferenceSet,
    draw,
    shipped,
    table,
)
from sample_bots.montecarlo import MonteCarloBot
from sample_bots.policy import choose, seen_from_state
from tests.helpers import check_launched, configured_bot

TRAINED = ("five-handed", "call-ace", "classic")


def config_of(variant: str) -> GameConfig:
    return GameConfig.from_dict(VARIANTS[variant])


def views(variant: str, deals: range) -> list[tuple[GameState, View]]:
    """(true state, the deciding seat's view) at every decision with a choice of rules-played hands."""
    out = []
    for deal in deals:
        state = GameState(config_of(variant), seed=deal, single_hand=True)
        while state.phase != P_OVER:
            legal = state.legal_actions()
            if len(legal) > 1:
                out.append((state.clone(), build_view(state, state.to_act)))
            state.apply_unchecked(
                legal[0] if len(legal) == 1 else choose(seen_from_state(state, state.to_act))
            )
    return out


@pytest.mark.parametrize("variant", [*TRAINED, "call-ace-7", "call-ace-joker"])
def test_every_learned_guess_fits_the_view(variant: str) -> None:
    # Random weights (so the draw is far from uniform): the checked replay (state_from_guess) must accept
    # every guess, in every phase, with voids, the called card, a hidden discard and blind decisions.
    rng = random.Random(3)
    model = Inference(np.random.default_rng(4).normal(0, 2, (NUM_CLASSES, NUM_FEATURES)))
    drawn = 0
    for _state, view in views(variant, range(1, 5)):
        facts = hidden_facts(view)
        t = table(view, facts)
        weights = model.weights(t)
        for _ in range(3):
            guess = draw(view, facts, t, weights, rng)
            if guess is not None:
                state_from_guess(view, guess)  # raises RuleError on a guess that does not fit
                drawn += 1
    assert drawn > 100


def test_zero_weights_draw_every_card_uniformly_over_the_room() -> None:
    # With all weights equal a card lands at each place in proportion to its room: the uniform guess.
    _state, view = next((s, v) for s, v in views("five-handed", range(1, 3)) if v.trump is not None)
    facts = hidden_facts(view)
    t = table(view, facts)
    zero = Inference(np.zeros((NUM_CLASSES, NUM_FEATURES)))
    weights = zero.weights(t)
    rng = random.Random(1)
    counts = np.zeros((len(t.cards), len(t.places)))
    n = 4000
    for _ in range(n):
        guess = draw(view, facts, t, weights, rng)
        assert guess is not None
        where = {c: s for s, held in guess.holdings.items() for c in held}
        for i, c in enumerate(t.cards):
            counts[i, t.places.index(where.get(c, REST))] += 1
    expected = zero.marginals(t)
    assert np.abs(counts / n - expected).max() < 0.05
    assert np.allclose(expected.sum(axis=1), 1.0)


def test_the_shipped_weights_cover_the_trained_variants_and_no_other() -> None:
    models = InferenceSet.load(WEIGHTS)
    assert WEIGHTS.stat().st_size < 20_000_000
    for variant in TRAINED:
        _, view = views(variant, range(1, 2))[0]
        assert models.get(view) is not None, variant
    for other in ("call-ace-7", "call-ace-joker"):
        _, view = views(other, range(1, 2))[0]
        assert models.get(view) is None, other


RECORDED = {
    # variant: for every hidden card of the 10th decision of deal 2 (rules players), the place the shipped
    # model finds likeliest (a seat, -1 the rest) and its chance (3 decimals), recorded when the weights
    # were shipped (inference.md). A change of the features, of the weights or of how they are read
    # changes these.
    "five-handed": [
        ("8C", 2, 0.221),
        ("9C", 2, 0.207),
        ("TC", 2, 0.207),
        ("JC", 1, 0.226),
        ("QC", 1, 0.244),
        ("KC", 1, 0.222),
        ("AC", 4, 0.227),
        ("8D", 2, 0.219),
        ("9D", 1, 0.235),
        ("JD", 1, 0.226),
        ("QD", 4, 0.222),
        ("KD", 1, 0.215),
        ("8H", 3, 0.211),
        ("9H", -1, 0.222),
        ("TH", 2, 0.209),
        ("JH", 1, 0.242),
        ("KH", 1, 0.23),
        ("AH", 4, 0.241),
        ("KS", 4, 0.273),
        ("2H", -1, 0.265),
    ],
    "call-ace": [
        ("9C", 2, 0.326),
        ("JC", 4, 0.239),
        ("8D", 4, 0.25),
        ("9D", 3, 0.233),
        ("TD", 1, 0.245),
        ("JD", 1, 0.245),
        ("QD", 1, 0.274),
        ("KD", 1, 0.251),
        ("AD", 2, 0.247),
        ("8H", 4, 0.25),
        ("9H", 3, 0.233),
        ("TH", 1, 0.245),
        ("JH", 1, 0.245),
        ("QH", 1, 0.274),
        ("AH", 4, 0.3),
        ("QS", 1, 0.28),
        ("KS", 2, 0.232),
        ("AS", 1, 0.262),
    ],
    "classic": [
        ("9C", 1, 0.332),
        ("TC", 1, 0.298),
        ("JC", 1, 0.355),
        ("QC", 1, 0.307),
        ("KC", 1, 0.34),
        ("9D", 1, 0.417),
        ("KD", 1, 0.318),
        ("9H", 2, 0.353),
        ("JH", 1, 0.344),
        ("KH", 3, 0.364),
        ("9S", 1, 0.332),
        ("TS", 1, 0.298),
        ("JS", 1, 0.355),
    ],
}


@pytest.mark.parametrize("variant", TRAINED)
def test_the_shipped_weights_give_the_recorded_chances(variant: str) -> None:
    _, view = views(variant, range(2, 3))[9]
    t = table(view, hidden_facts(view))
    model = shipped().get(view)
    assert model is not None
    p = model.marginals(t)
    got = [
        (card_text(c), t.places[int(p[i].argmax())], round(float(p[i].max()), 3))
        for i, c in enumerate(t.cards)
    ]
    assert got == RECORDED[variant]


def test_a_tiny_training_run_goes_end_to_end_resumes_and_beats_the_uniform_guess(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--variants", "five-handed", "--deals", "80", "--chunk", "40", "--out", str(tmp_path), "--quiet"]
    assert main([*argv, "--compare", "2", "--samples", "5"]) == 0
    first = capsys.readouterr().out
    assert "0 chunks found, 2 made" in first
    assert "hand-written" in first
    line = next(x for x in first.splitlines() if "log-loss uniform" in x)
    uniform = float(line.split("log-loss uniform ")[1].split(",")[0])
    model = float(line.split("model ")[1].split(" ")[0])
    assert model < uniform  # fitted on 72 deals, scored on the other 8: the fit must have learnt something
    models = InferenceSet.load(tmp_path / "inference.npz")
    assert len(models.models) == 1
    assert main(argv) == 0
    assert "2 chunks found, 0 made" in capsys.readouterr().out


def test_the_data_are_a_function_of_the_seed(tmp_path: Path) -> None:
    for out in ("a", "b"):
        argv = [
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
        assert main([*argv, "--epochs", "1"]) == 0
    a = np.load(chunk_path(tmp_path / "a", "classic", 5, 0, 3))
    b = np.load(chunk_path(tmp_path / "b", "classic", 5, 0, 3))
    assert a.files == b.files
    for name in a.files:
        assert np.array_equal(a[name], b[name]), name
    wa, wb = (InferenceSet.load(tmp_path / out / "inference.npz") for out in ("a", "b"))
    assert all(np.array_equal(wa.models[k].w, wb.models[k].w) for k in wa.models)


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    assert main(["--variants", "six-handed", "--out", str(tmp_path)]) == 2
    assert main(["--deals", "1", "--out", str(tmp_path)]) == 2
    assert main(["--deals", "3,x", "--out", str(tmp_path)]) == 2
    assert main(["--epochs", "0", "--out", str(tmp_path)]) == 2
    assert not (tmp_path / "data").exists()  # refused before any deal was played


@pytest.mark.parametrize("variant", [*TRAINED, "call-ace-7"])
def test_the_bots_with_learned_guesses_play_legal_hands(variant: str) -> None:
    champion = ChampionBot.configured(
        guesses="learned", samples=4, play_samples=4, min_samples=2, play_work=3000, bid_work=3000
    )
    montecarlo = MonteCarloBot.configured(guesses="learned", samples=4)
    config = config_of(variant)
    for deal in range(2):
        for seat in range(config.num_players):
            for cls in (champion, montecarlo):
                play_hand(config, deal, cls(seed=deal), seat)  # the engine's apply refuses an illegal move


def test_a_misspelt_guesses_setting_is_refused() -> None:
    with pytest.raises(TypeError, match="guesses"):
        ChampionBot.configured(guesses="learnt")
    with pytest.raises(TypeError, match="guesses"):
        MonteCarloBot.configured(guesses="model")


def test_check_bot_passes_the_champion_with_learned_guesses(tmp_path: Path) -> None:
    settings = 'guesses="learned", samples=6, play_samples=6, min_samples=2, play_work=4000, bid_work=4000'
    report = check_launched(configured_bot("champion", "champion", "ChampionBot", settings, tmp_path))
    assert report.passed, report.render()
    assert {"BID_ROUND_1", "BID_ROUND_2", "CALL", "PLAY"} <= report.kinds_seen
