"""SPRT settings come from the command line (``arena match``) and from a stored match: a bad one is a
``ConfigError`` (one ``error:`` line, exit 2), and the verdict is stored and printed as the same text as
ever."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena import options
from arena.errors import ConfigError
from arena.stats.sprt import SprtResult, SprtSettings, SprtState, run_sprt

# key -> (a bad value, the message it gives)
CASES: dict[str, tuple[Any, str]] = {
    "h0": ("x", "h0='x': expected a number"),
    "h1": (None, "h1=None: expected a number"),
    "alpha": (0.0, "alpha=0.0: expected a probability in (0, 0.5)"),
    "beta": (0.5, "beta=0.5: expected a probability in (0, 0.5)"),
    "min_deals": (1, "min_deals=1: expected at least 2 (a variance needs two)"),
}


def test_every_declared_setting_has_a_case() -> None:
    assert sorted(options.keys(SprtSettings)) == sorted(CASES)


@pytest.mark.parametrize("key", options.keys(SprtSettings))
def test_a_bad_setting_is_a_config_error_with_its_message(key: str) -> None:
    value, message = CASES[key]
    with pytest.raises(ConfigError) as caught:
        SprtSettings(**{key: value})
    assert str(caught.value) == message


def test_h1_must_exceed_h0() -> None:
    with pytest.raises(ConfigError, match=r"^h1=0\.1 must be greater than h0=0\.1$"):
        SprtSettings(h0=0.1, h1=0.1)


def test_the_stored_settings_come_back() -> None:
    settings = SprtSettings(-0.05, 0.2, alpha=0.01, beta=0.1, min_deals=30)
    stored = json.dumps(settings.to_dict())
    assert stored == '{"h0": -0.05, "h1": 0.2, "alpha": 0.01, "beta": 0.1, "min_deals": 30}'
    assert SprtSettings(**json.loads(stored)) == settings


def test_the_verdicts_keep_their_stored_text() -> None:
    assert [r.value for r in SprtResult] == ["H1", "H0", ""]
    settings = SprtSettings(0.0, 0.1, min_deals=3)
    better = run_sprt([0.5, 0.6, 0.4, 0.5, 0.55], settings)
    worse = run_sprt([-0.5, -0.6, -0.4, -0.5, -0.55], settings)
    undecided = run_sprt([0.05, 0.06], settings)
    for state, text in ((better, "H1"), (worse, "H0"), (undecided, "")):
        assert json.loads(json.dumps(state.to_dict()))["result"] == text
        assert type(state.to_dict()["result"]) is str
    assert better.result is SprtResult.H1 and worse.result is SprtResult.H0
    assert undecided.result is SprtResult.UNDECIDED
    assert "H1 accepted" in " ".join(better.render(settings).split())  # wrapped to 80 columns
    assert "H0 accepted" in " ".join(worse.render(settings).split())
    assert " ".join(undecided.render(settings).split()).endswith("undecided (the test looks from deal 3 on)")


def test_a_state_renders_every_verdict_in_its_own_words() -> None:
    """Each verdict names its own hypothesis and no other, and the heading puts h0 and h1 each after its own
    name: a swapped pair of verdict texts, or of values, fails here (h0 and h1 differ in sign and size)."""
    settings = SprtSettings(-0.05, 0.2, alpha=0.01, beta=0.1, min_deals=3)
    own = {
        SprtResult.H1: "H1 accepted: the candidate's edge over the baseline is nearer h1 (+0.2) than h0 "
        "(-0.05)",
        SprtResult.H0: "H0 accepted: the candidate's edge over the baseline is nearer h0 (-0.05) than h1 "
        "(+0.2): it is not better by h1 (= +0.2 points per hand)",
        SprtResult.UNDECIDED: "undecided",
    }
    heading = "SPRT of H0: edge -0.05 against H1: edge +0.2 points per hand (alpha 0.01, beta 0.1): 12 deals;"
    for result in SprtResult:
        state = SprtState(12, 0.0, 1.0, 0.0, settings.lower, settings.upper, result)
        text = " ".join(state.render(settings).split())  # wrapped to 80 columns
        assert text.startswith(heading), text
        assert own[result] in text, text
        others = [words.split(":")[0] for other, words in own.items() if other is not result]
        assert not any(other in text for other in others), text
    assert " ".join(state.render(settings).split()).endswith(": undecided")


def test_h0_says_not_better_by_h1_and_a_stop_at_the_minimum_says_so() -> None:
    """ "H0 accepted" means the candidate is not better by h1, not that it is no better than h0 (a +0.04
    candidate often ends there under h1 = 0.1); and a decision at the first look is named as such."""
    settings = SprtSettings(0.0, 0.1, min_deals=3)
    worse = run_sprt([-0.5, -0.6, -0.4, -0.5, -0.55], settings)
    text = " ".join(worse.render(settings).split())  # wrapped to 80 columns
    assert "not better by h1 (= +0.1 points per hand)" in text and "not better than" not in text
    assert worse.deals == 3 and "decided at its first look, deal 3: the minimum" in text
    later = SprtState(7, -0.5, 0.1, -5.0, settings.lower, settings.upper, SprtResult.H0)
    assert "first look" not in later.render(settings)
