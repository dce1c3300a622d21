"""Classic four-player partnership Euchre (RULES.md CL-2; checklist 15, 16)."""

from __future__ import annotations

import pytest

from arena.engine import GameConfig, GameState, Phase, action_to_string, build_view
from arena.engine.scoring import Termination
from tests.engine.helpers import hand_of, legal, make_deck, new_state, play, play_tricks, trick_cards
from tests.helpers import NEEDS_PYSPIEL

CL = GameConfig.create("classic")

# Deal X (example 21): seat 3 deals, up 9♥; seat 2 holds J♥ J♦ A♥ K♥ Q♥;
# seat 0 (dealer's left) is his partner.
X_HANDS = {2: "JH JD AH KH QH", 0: "AC KC QC JC TC", 1: "AS KS QS JS TS", 3: "AD KD QD TD 9C"}
X_UP, X_REST = "9H", "9D TH 9S"
X_ALONE_TRICKS = ["AS QH AD", "JH 9H KS", "JD KD QS", "AH QD JS", "KH TD TS"]  # seat 0 sits out
X_PARTNER_TRICKS = ["TC AS QH AD", "JH 9H JC KS", "JD KD QC QS", "AH QD KC JS", "KH TD AC TS"]

# Deal Z: seat 3 deals, up 9♥; seat 0 holds the three best hearts, and wins exactly three tricks.
Z_HANDS = {0: "JH JD AH 9C 9S", 1: "AC KC QC JC TC", 2: "AD KD QD TD 9D", 3: "AS KS QS JS TS"}
Z_UP, Z_REST = "9H", "KH QH TH"
Z_TRICKS = ["JH TC 9D 9H", "JD JC TD JS", "AH QC QD QS", "9C AC KD KS", "KC AD AS 9S"]
Z_ALONE_TRICKS = ["JH TC 9H", "JD JC JS", "AH QC QS", "9C AC KS", "KC AS 9S"]  # seat 2 sits out


def deal_x(**kw) -> GameState:
    return new_state(CL, dealer=3, hands=X_HANDS, up=X_UP, rest=X_REST, **kw)


def deal_z(config: GameConfig = CL, **kw) -> GameState:
    return new_state(config, dealer=3, hands=Z_HANDS, up=Z_UP, rest=Z_REST, **kw)


def test_CL_2_1_four_players_two_fixed_teams():
    state = deal_z()
    play(state, "ORDER_UP", "DISCARD(TS)", "PARTNER")
    assert state.partner == 2
    play_tricks(state, *Z_TRICKS)
    result = state.results[0]
    assert result.points == (1, 0, 1, 0)  # team 0+2 scores for the maker's partnership
    assert CL.team_play and len(state.results[0].tricks_won) == 4


def test_CL_2_1_partner_of_each_seat_is_two_seats_on():
    for maker, expected in ((0, 2), (1, 3)):
        state = deal_z()
        play(state, *["PASS"] * maker, "ORDER_UP", "DISCARD(TS)", "PARTNER")
        assert state.maker == maker and state.partner == expected
        assert build_view(state, (maker + 1) % 4).partner == expected  # fixed partnerships are public


def test_CL_2_2_bidding_as_call_ace_and_thrown_in_when_all_pass():
    state = deal_z(single_hand=False)
    assert state.current_player() == 0 and legal(state) == ["PASS", "ORDER_UP"]
    play(state, "PASS", "PASS", "PASS")
    assert state.current_player() == 3 and legal(state) == ["PASS", "TAKE_UP"]
    play(state, "PASS")
    assert state.current_phase is Phase.BID_ROUND_2
    assert legal(state) == ["PASS", "NAME(C)", "NAME(D)", "NAME(S)"]
    play(state, *["PASS"] * 4)
    assert state.results[0].outcome.value == "thrown_in" and state.results[0].points == (0, 0, 0, 0)
    assert state.dealer == 0 and state.current_player() == 1


def test_CL_2_2_stick_the_dealer_flag():
    config = GameConfig.create("classic", stick_the_dealer=True)
    state = deal_z(config)
    play(state, *["PASS"] * 7)
    assert state.current_player() == 3
    assert legal(state) == ["NAME(C)", "NAME(D)", "NAME(S)"]


def test_CL_2_2_dealer_picks_up_and_discards():
    state = deal_z()
    play(state, "ORDER_UP")
    assert state.current_phase is Phase.DISCARD and state.current_player() == 3
    assert hand_of(state, 3) == sorted(["AS", "KS", "QS", "JS", "TS", "9H"])
    play(state, "DISCARD(TS)")
    assert state.current_phase is Phase.CALL and state.current_player() == 0


def test_CL_2_3_maker_chooses_alone_or_partner_no_card_called():
    state = deal_z()
    play(state, "ORDER_UP", "DISCARD(TS)")
    assert legal(state) == ["ALONE", "PARTNER"]
    assert state.called == -1


def test_CL_2_3_lone_makers_partner_sits_out_and_tricks_have_three_cards():
    state = deal_z()
    play(state, "ORDER_UP", "DISCARD(TS)", "ALONE")
    assert state.sitting_out == 2 and state.current_player() == 0
    assert play_tricks(state, *Z_ALONE_TRICKS) == [0, 0, 0, 1, 1]
    result = state.results[0]
    assert result.sitting_out == 2
    assert all(len(t.plays) == 3 and 2 not in [s for s, _ in t.plays] for t in result.tricks)
    assert result.points == (1, 0, 1, 0)  # alone, three tricks: +1 for the team
    assert len(state.hands[2]) == 5  # he keeps his cards


def test_CL_2_3_dealers_left_sits_out_and_next_seat_leads():
    state = deal_x()
    play(state, "PASS", "PASS", "ORDER_UP", "DISCARD(9C)", "ALONE")
    assert state.maker == 2 and state.sitting_out == 0
    assert state.current_player() == 1
    trick_seats = []
    for plays in X_ALONE_TRICKS:
        order = []
        for card in plays.split():
            order.append(state.current_player())
            play(state, f"PLAY({card})")
        trick_seats.append(order)
    assert trick_seats == [[1, 2, 3]] + [[2, 3, 1]] * 4  # seat 2 wins every trick; seat 0 never plays
    assert [t.leader for t in state.results[0].tricks] == [1, 2, 2, 2, 2]


def test_CL_2_3_dealer_discards_first_then_sits_out():
    state = new_state(CL, dealer=3, hands=Z_HANDS, up=Z_UP, rest=Z_REST)
    play(state, "PASS", "ORDER_UP")  # seat 1 orders up his partner, the dealer
    assert state.current_phase is Phase.DISCARD and state.current_player() == 3
    play(state, "DISCARD(TS)")
    assert state.current_player() == 1 and legal(state) == ["ALONE", "PARTNER"]
    play(state, "ALONE")
    assert state.sitting_out == 3 and state.current_player() == 0
    assert len(state.hands[3]) == 5 and "9H" in hand_of(state, 3)
    play(state, "PLAY(JH)", "PLAY(TC)")
    assert state.current_player() == 2  # seat 3 is skipped
    play(state, "PLAY(9D)")
    assert state.tricks[-1].winner == 0 and len(state.tricks[-1].plays) == 3


def test_CL_2_4_made_one_march_two_alone_march_four_euchred_two():
    # made (3 tricks), partnership: +1 each of the makers' team
    state = deal_z()
    play(state, "ORDER_UP", "DISCARD(TS)", "PARTNER")
    play_tricks(state, *Z_TRICKS)
    assert (state.results[0].outcome.value, state.results[0].points) == ("made", (1, 0, 1, 0))
    # march with partner: +2
    state = deal_x()
    play(state, "PASS", "PASS", "ORDER_UP", "DISCARD(9C)", "PARTNER")
    assert play_tricks(state, *X_PARTNER_TRICKS) == [2] * 5
    assert (state.results[0].outcome.value, state.results[0].points) == ("march", (2, 0, 2, 0))
    # march alone: +4
    state = deal_x()
    play(state, "PASS", "PASS", "ORDER_UP", "DISCARD(9C)", "ALONE")
    assert play_tricks(state, *X_ALONE_TRICKS) == [2] * 5
    assert (state.results[0].outcome.value, state.results[0].points) == ("march", (4, 0, 4, 0))
    # euchred: seat 1 orders up (partner seat 3) and takes 2 tricks: defenders 0 and 2 +2
    state = deal_z()
    play(state, "PASS", "ORDER_UP", "DISCARD(TS)", "PARTNER")
    assert play_tricks(state, *Z_TRICKS) == [0, 0, 0, 1, 1]
    assert (state.results[0].outcome.value, state.results[0].points) == ("euchred", (2, 0, 2, 0))


def test_CL_2_5_first_team_to_target_wins_and_it_is_no_draw():
    state = deal_z(scores=[9, 0, 9, 0], single_hand=False)
    play(state, "ORDER_UP", "DISCARD(TS)", "PARTNER")
    play_tricks(state, *Z_TRICKS)
    assert state.is_terminal()
    assert state.outcome.termination is Termination.TARGET_REACHED
    assert state.outcome.winners == (0, 2)
    assert not state.outcome.is_draw
    assert state.outcome.ranks == (1, 3, 1, 3)


def test_CL_2_5_below_target_the_game_continues():
    deck2 = make_deck(CL, 0, up="9H")
    state = GameState(
        CL, decks=[make_deck(CL, 3, Z_HANDS, Z_UP, Z_REST), deck2], dealer=3, scores=[8, 0, 8, 0]
    )
    play(state, "ORDER_UP", "DISCARD(TS)", "PARTNER")
    play_tricks(state, *Z_TRICKS)
    assert not state.is_terminal() and state.scores == [9, 0, 9, 0]
    assert state.dealer == 0 and state.current_player() == 1


# ----------------------------------------------------------------- checklist 16: OpenSpiel on explicit deals

OS_SUITS, OS_RANKS = "CDHS", "9TJQKA"


def _os_card(text: str) -> int:
    return OS_RANKS.index(text[0]) * 4 + OS_SUITS.index(text[1])


def _our_card(os_card: int) -> str:
    return OS_RANKS[os_card // 4] + OS_SUITS[os_card % 4]


def _os_action(text: str, up: str) -> int:
    if text == "PASS":
        return 24
    if text in ("ORDER_UP", "TAKE_UP"):
        return 25 + OS_SUITS.index(up[1])
    if text.startswith("NAME("):
        return 25 + OS_SUITS.index(text[5])
    if text == "ALONE":
        return 29
    if text == "PARTNER":
        return 30
    return _os_card(text[text.index("(") + 1 : -1])  # PLAY / DISCARD


def _script(bids: list[str], tricks: list[str]) -> list[str]:
    return bids + [f"PLAY({c})" for t in tricks for c in t.split()]


@pytest.mark.parametrize(
    ("hands", "up", "rest", "bids", "tricks"),
    [
        (Z_HANDS, Z_UP, Z_REST, ["ORDER_UP", "DISCARD(QS)", "PARTNER"], None),
        (X_HANDS, X_UP, X_REST, ["PASS", "PASS", "ORDER_UP", "DISCARD(9C)", "ALONE"], X_ALONE_TRICKS),
        (X_HANDS, X_UP, X_REST, ["PASS", "PASS", "ORDER_UP", "DISCARD(9C)", "PARTNER"], X_PARTNER_TRICKS),
        (Z_HANDS, Z_UP, Z_REST, ["PASS", "ORDER_UP", "DISCARD(TS)", "ALONE"], None),
        (Z_HANDS, Z_UP, Z_REST, ["PASS"] * 5 + ["NAME(S)", "PARTNER"], None),
    ],
)
def test_CL_openspiel_agrees_on_explicit_deals(hands, up, rest, bids, tricks):
    pyspiel = pytest.importorskip("pyspiel", reason=NEEDS_PYSPIEL)
    config = GameConfig.create("classic", may_discard_upcard=False)  # OpenSpiel never discards the up-card
    ours = new_state(config, dealer=3, hands=hands, up=up, rest=rest)
    game = pyspiel.load_game("euchre", {"stick_the_dealer": False, "allow_lone_defender": False})
    theirs = game.new_initial_state()
    theirs.apply_action(3)  # dealer
    queues = {seat: [_os_card(c) for c in hand.split()] for seat, hand in hands.items()}
    for k in range(20):  # OpenSpiel deals card k to seat (dealer + k) % 4
        theirs.apply_action(queues[(3 + k) % 4].pop(0))
    theirs.apply_action(_os_card(up))
    script = _script(bids, tricks) if tricks else list(bids)
    step = 0
    while not ours.is_terminal():
        assert theirs.current_player() == ours.current_player()
        our_legal = sorted(_os_action(a, up) for a in legal(ours))
        assert sorted(theirs.legal_actions()) == our_legal, legal(ours)
        action = script[step] if step < len(script) else legal(ours)[0]
        step += 1
        play(ours, action)
        theirs.apply_action(_os_action(action, up))
    assert theirs.is_terminal()
    result = ours.results[0]
    their_tricks = [(t.leader(), [_our_card(c) for c in t.cards()], t.winner()) for t in theirs.tricks()]
    assert [(t.leader, [c for _, c in trick_cards(t)], t.winner) for t in result.tricks] == their_tricks
    returns = theirs.returns()
    team = [max(0, int(r)) for r in returns]
    assert list(result.points) == team
    assert [action_to_string(a) for _, a in result.actions][: len(bids)] == bids
