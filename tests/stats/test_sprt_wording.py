"""What ``arena match`` (and the server's match pages) say of an SPRT, compared as text: the verdict states
the measured edge rather than h1, the two sides are named, and no undecided test is shown more than all of
the way to a bound (issue 40)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.stats.sprt import SprtResult, SprtSettings, SprtState, run_sprt

SHARE = re.compile(r"(\d+)% of the way")


def one_line(text: str) -> str:
    return " ".join(text.split())


def shares(text: str) -> list[int]:
    return [int(m) for m in SHARE.findall(one_line(text))]


@settings(max_examples=300, deadline=None)
@given(
    diffs=st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=1, max_size=25),
    min_deals=st.integers(2, 12),
    h1=st.sampled_from([0.05, 0.1, 0.15]),
)
def test_an_undecided_test_is_never_shown_past_all_of_the_way(
    diffs: list[float], min_deals: int, h1: float
) -> None:
    """Every prefix of a match, as the server's page shows it while the deals come in: before the first look
    the LLR may lie far past a bound (six deals gave -44.72, printed "999% of the way to H0: undecided")."""
    sprt = SprtSettings(0.0, h1, min_deals=min_deals)
    for n in range(1, len(diffs) + 1):
        state = run_sprt(diffs[:n], sprt)
        if state.result is SprtResult.UNDECIDED:
            for text in (state.llr_text(), state.render(sprt)):
                assert all(share < 100 for share in shares(text)), text
        else:
            assert not shares(state.llr_text()), state.llr_text()  # decided: past its bound, said so
            break


def test_before_the_first_look_the_llr_is_said_to_be_no_look() -> None:
    sprt = SprtSettings(0.0, 0.1)
    early = run_sprt([-0.12, -0.16, -0.09, -0.13, -0.11, -0.14], sprt)
    assert early.result is SprtResult.UNDECIDED and early.llr < sprt.lower
    assert early.llr_text() == (
        f"LLR {early.llr:+.2f} of bounds [-2.94, +2.94] (not yet looked at: the test looks from deal 10 on)"
    )
    text = one_line(early.render(sprt))
    assert text.endswith(
        f"LLR {early.llr:+.2f} of bounds [-2.94, +2.94] (too few deals to look at): undecided (the test "
        "looks from deal 10 on)"
    ), text


def test_an_open_test_is_shown_at_most_99_percent_of_the_way() -> None:
    """A share that rounds to 100% would read as a bound reached; it is said as 99%."""
    sprt = SprtSettings()
    near = SprtState(20, 0.05, 0.1, 2.935, sprt.lower, sprt.upper, SprtResult.UNDECIDED, 10)
    assert near.llr_text() == "LLR +2.94 of bounds [-2.94, +2.94] (99% of the way to H1)"


H1_TEXT = (
    "SPRT of the candidate pkg.bots:New against the baseline pkg.bots:Old, H0: edge +0 against H1: edge "
    "+0.1 points per hand (alpha 0.05, beta 0.05): 30 deals; candidate minus baseline +0.065 points per "
    "hand (95% interval +0.026 to +0.104); LLR +3.79 of bounds [-2.94, +2.94] (past the H1 bound): H1 "
    "accepted: pkg.bots:New's edge over pkg.bots:Old is nearer h1 (+0.1) than h0 (+0); as measured it is "
    "+0.065 points per hand, which does not show that it reaches h1"
)


def test_h1_states_the_measured_edge_and_names_both_sides() -> None:
    """The case the issue saw: H1 accepted at +0.065 (+0.026 to +0.104) must not say "better by about 0.1
    points per hand or more"."""
    sprt = SprtSettings(0.0, 0.1)
    state = SprtState(30, 0.065, 0.109, 3.79, sprt.lower, sprt.upper, SprtResult.H1, 10)
    text = state.render(sprt, candidate="pkg.bots:New", baseline="pkg.bots:Old")
    assert one_line(text) == H1_TEXT
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "or more" not in text


def test_h1_with_its_whole_interval_above_h1_says_so() -> None:
    sprt = SprtSettings(0.0, 0.1)
    state = SprtState(40, 0.3, 0.1, 40.0, sprt.lower, sprt.upper, SprtResult.H1, 10)
    assert one_line(state.render(sprt)).endswith(
        "H1 accepted: the candidate's edge over the baseline is nearer h1 (+0.1) than h0 (+0); as measured "
        "it is +0.300 points per hand, and its 95% interval lies above h1"
    )


def test_h0_states_the_measured_edge_and_what_it_does_not_rule_out() -> None:
    sprt = SprtSettings(0.0, 0.1)
    state = SprtState(25, 0.02, 0.1, -3.0, sprt.lower, sprt.upper, SprtResult.H0, 10)
    assert one_line(state.render(sprt, candidate="a:New", baseline="b:Old")).endswith(
        "(past the H0 bound): H0 accepted: a:New's edge over b:Old is nearer h0 (+0) than h1 (+0.1): it is "
        "not better by h1 (= +0.1 points per hand); as measured it is +0.020 points per hand, and an edge "
        "between h0 and h1 is not ruled out"
    )
    below = SprtState(25, -0.2, 0.1, -30.0, sprt.lower, sprt.upper, SprtResult.H0, 10)
    assert one_line(below.render(sprt)).endswith(
        "as measured it is -0.200 points per hand, and its 95% interval lies below h0"
    )


def test_two_bots_that_play_alike_are_said_so_without_an_interval_claim() -> None:
    """No spread: the edge is the same on every deal, and a bot against itself is named by its roles (its
    name twice, "X's edge over X", says nothing)."""
    sprt = SprtSettings(0.0, 0.1)
    same = SprtState(10, 0.0, 0.0, -5e10, sprt.lower, sprt.upper, SprtResult.H0, 10)
    text = one_line(same.render(sprt, candidate="a:Bot", baseline="a:Bot"))
    assert text.startswith("SPRT of the candidate a:Bot against the baseline a:Bot, H0: "), text
    assert (
        "H0 accepted: the candidate's edge over the baseline is nearer h0 (+0) than h1 (+0.1): it is not "
        "better by h1 (= +0.1 points per hand); as measured it is +0.000 points per hand on every deal "
        "(decided at its first look"
    ) in text
    ahead = SprtState(12, 0.2, 0.0, 5e10, sprt.lower, sprt.upper, SprtResult.H1, 10)
    assert one_line(ahead.render(sprt)).endswith(
        "H1 accepted: the candidate's edge over the baseline is nearer h1 (+0.1) than h0 (+0); as measured "
        "it is +0.200 points per hand on every deal"
    )
