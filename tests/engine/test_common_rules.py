"""Common rules: scope, definitions, trick play, information model.

RULES.md C-0, C-1, C-3, C-5; checklist items 3, 4, 10, 14, 15.
"""

from __future__ import annotations

import random

import pytest

from arena.engine import GameConfig, GameState, Phase, UpCardFate, action_to_string, build_view
from arena.engine.actions import NUM_ACTIONS
from arena.errors import IllegalActionError
from tests.engine.helpers import (
    CA5_EUCHRE,
    CA5_EUCHRE_TRICKS,
    CA5_EUCHRE_WINNERS,
    hand_of,
    legal,
    legal_cards,
    new_state,
    play,
    play_trick,
    play_tricks,
    texts,
    trick_cards,
)

CA5 = GameConfig.create("call-ace")

# Deal P: see helpers.CA5_EUCHRE. Seat 1 orders hearts up, the dealer discards A♣.
P_HANDS, P_UP, P_REST = CA5_EUCHRE["hands"], CA5_EUCHRE["up"], CA5_EUCHRE["rest"]
P_TRICKS = list(zip(CA5_EUCHRE_TRICKS, CA5_EUCHRE_WINNERS, strict=True))


def deal_p(call: str = "CALL(AS)") -> GameState:
    state = new_state(CA5, hands=P_HANDS, up=P_UP, rest=P_REST)
    play(state, "ORDER_UP", "DISCARD(AC)", call)
    return state


# ----------------------------------------------------------------- C-0 scope


def test_C_0_1_each_variant_plays_a_whole_game():
    for config in (CA5, GameConfig.create("five-handed"), GameConfig.create("classic")):
        state = GameState(config, seed=1)
        rng = random.Random(1)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        assert state.outcome is not None
        assert max(state.scores) >= config.target or state.outcome.termination.value == "max_hands"


def test_C_0_2_engine_only_offers_legal_actions_and_rejects_all_others():
    # reneges and misdeals cannot occur: every offered action applies, anything else raises
    rng = random.Random(2)
    configs = [
        CA5,
        GameConfig.create("call-ace", num_players=7, use_joker=True),
        GameConfig.create("call-ace", num_players=4, allow_no_trump=True),
        GameConfig.create("five-handed"),
        GameConfig.create("classic"),
    ]
    for config in configs:
        for seed in range(4):
            state = GameState(config, seed=seed, single_hand=True)
            while not state.is_terminal():
                offered = list(state.legal_actions())
                assert offered and len(set(offered)) == len(offered)
                for a in offered:
                    state.clone().apply(a)  # never raises
                others = [a for a in range(NUM_ACTIONS) if a not in offered]
                for a in rng.sample(others, 4):
                    with pytest.raises(IllegalActionError):
                        state.clone().apply(a)
                state.apply(rng.choice(offered))


def test_C_0_2_no_defending_alone_decision():
    # after a lone call, play starts at once: nobody is asked whether to defend alone
    config = GameConfig.create("classic")
    state = GameState(config, seed=3)
    play(state, "ORDER_UP")
    play(state, legal(state)[0])  # dealer's discard
    assert legal(state) == ["ALONE", "PARTNER"]
    play(state, "ALONE")
    assert state.current_phase is Phase.PLAY
    assert all(a.startswith("PLAY(") for a in legal(state))


def test_C_0_3_a_hand_is_deal_bid_discard_call_five_tricks_score():
    state = new_state(CA5, hands=P_HANDS, up=P_UP, rest=P_REST)
    phases = []
    while not state.is_terminal():
        phases.append(state.current_phase)
        if state.current_phase is Phase.BID_ROUND_1:
            play(state, "ORDER_UP")
        elif state.current_phase is Phase.DISCARD:
            play(state, "DISCARD(AC)")
        elif state.current_phase is Phase.CALL:
            play(state, "CALL(AS)")
        else:
            state.apply(state.legal_actions()[0])
    assert phases == [Phase.BID_ROUND_1, Phase.DISCARD, Phase.CALL] + [Phase.PLAY] * 25
    (result,) = state.results
    assert len(result.tricks) == 5
    assert sum(result.points) > 0


def test_C_0_3_a_hand_may_be_thrown_in_only_in_call_ace():
    state = new_state(CA5, up="9H")
    play(state, *["PASS"] * 10)
    assert state.results[0].outcome.value == "thrown_in"
    fh = new_state(GameConfig.create("five-handed"), up="9H")
    play(fh, *["PASS"] * 9)
    assert "PASS" not in legal(fh)


# ----------------------------------------------------------------- C-1 definitions


def test_C_1_1_turn_order_is_clockwise_from_the_dealers_left():
    state = new_state(CA5, dealer=3, up="9H")
    seen = []
    for _ in range(10):
        seen.append(state.current_player())
        play(state, "PASS")
    assert seen == [4, 0, 1, 2, 3, 4, 0, 1, 2, 3]


def test_C_1_1_play_order_is_clockwise_from_the_leader():
    state = deal_p()
    play_trick(state, P_TRICKS[0][0])
    assert state.current_player() == 4  # the winner leads
    order = []
    for card in P_TRICKS[1][0].split():
        order.append(state.current_player())
        play(state, f"PLAY({card})")
    assert order == [4, 0, 1, 2, 3]


def test_C_1_6_maker_partner_making_side_and_defenders():
    state = deal_p("CALL(AS)")
    assert state.maker == 1
    assert state.partner == 2  # holder of the called A♠
    play_tricks(state, *(t for t, _ in P_TRICKS))
    (result,) = state.results
    assert (result.maker, result.partner, result.alone) == (1, 2, False)
    assert result.making_tricks == result.tricks_won[1] + result.tricks_won[2] == 1
    # defenders = everybody else: 0, 3, 4 score the euchre
    assert result.points == (2, 0, 0, 2, 2)


def test_C_1_7_kitty_is_stock_plus_unpicked_up_card_plus_discard_and_takes_no_part_in_play():
    state = deal_p()
    assert sorted(texts(state.kitty)) == ["AC", "JS", "TS"]  # stock J♠ 10♠ + the dealer's discard
    play_tricks(state, *(t for t, _ in P_TRICKS))
    played = {c for t in state.results[0].tricks for _, c in t.plays}
    assert not played & set(state.kitty)
    assert len(played) == 25
    # turned down: the up-card stays in the kitty
    down = new_state(CA5, hands=P_HANDS, up=P_UP, rest=P_REST)
    play(down, *["PASS"] * 5, "NAME(S)")
    assert sorted(texts(down.kitty)) == ["8H", "JS", "TS"]


# ----------------------------------------------------------------- C-3 trick play (checklist 3, 4, 15)


def test_C_3_1_dealers_left_leads_first_when_maker_sits_elsewhere():
    state = deal_p()
    assert state.maker == 1 and state.current_player() == 1 and state.current_phase is Phase.PLAY
    state = new_state(CA5, dealer=2, up="9H")
    play(state, "PASS", "PASS", "ORDER_UP")  # seats 3, 4 pass; seat 0 orders up
    play(state, f"DISCARD({hand_of(state, 2)[0]})", "ALONE")
    assert state.maker == 0 and state.current_player() == 3


def test_C_3_1_dealers_left_leads_even_when_maker_alone_is_elsewhere():
    state = new_state(CA5, dealer=4, up="9H")
    play(state, "PASS", "PASS", "PASS", "PASS", "TAKE_UP")  # dealer 4 takes up
    play(state, f"DISCARD({hand_of(state, 4)[0]})", "ALONE")
    assert state.maker == 4 and state.alone
    assert state.current_player() == 0


def test_C_3_2_every_player_plays_one_card_per_trick_and_a_hand_has_five_tricks():
    state = deal_p()
    play_tricks(state, *(t for t, _ in P_TRICKS))
    tricks = state.results[0].tricks
    assert len(tricks) == 5
    for trick in tricks:
        seats = [s for s, _ in trick.plays]
        assert seats == [(trick.leader + k) % 5 for k in range(5)]


def test_C_3_3_leader_may_lead_any_card_in_hand():
    state = deal_p()
    assert legal_cards(state) == sorted(["AD", "KD", "JC", "9H", "TH"])
    play_trick(state, P_TRICKS[0][0])
    assert state.current_player() == 4
    assert legal_cards(state) == sorted(["8C", "TC", "QC", "KC"])


def test_C_3_3_led_left_bower_makes_trump_the_led_suit():
    # hearts trump; seat 1 leads J♦ (a heart): seat 2 holding A♥ and K♦ must play the heart
    state = new_state(
        CA5,
        hands={
            1: "JD 8C 9C TC QC",
            2: "AH KD 8S 9S TS",
            3: "QD TD 9D 8D AD",
            4: "JC KC AC JS QS",
            0: "KS AS KH QH TH",
        },
        up="9H",
        rest="8H JH",
    )
    play(state, "ORDER_UP", "DISCARD(KS)", "CALL(AS)", "PLAY(JD)")
    assert legal_cards(state) == ["AH"]
    play(state, "PLAY(AH)")
    assert legal_cards(state) == sorted(["QD", "TD", "9D", "8D", "AD"])  # void in hearts: any card


def test_C_3_4_must_follow_effective_suit_and_void_may_play_anything():
    state = deal_p()
    play(state, "PLAY(AD)")
    assert legal_cards(state) == sorted(["JD", "9C", "QS", "KS", "AS"])  # J♦ is a heart: void in ♦
    play(state, "PLAY(JD)")
    assert legal_cards(state) == ["QD", "TD"]
    play(state, "PLAY(TD)")
    assert legal_cards(state) == sorted(["JH", "8C", "TC", "QC", "KC"])
    play(state, "PLAY(JH)")
    assert legal_cards(state) == ["8D", "9D"]  # dealer kept K♥ Q♥ 8♥ but must follow ♦
    with pytest.raises(IllegalActionError):
        play(state, "PLAY(KH)")


def test_C_3_4_left_bower_must_follow_trump_and_cannot_follow_its_printed_suit():
    state = deal_p()
    play_trick(state, P_TRICKS[0][0])
    play(state, "PLAY(8C)", "PLAY(9D)")
    # seat 1 holds K♦ J♣ 9♥ 10♥: J♣ is a plain club here (hearts trump), so it must be played
    assert legal_cards(state) == ["JC"]


def test_C_3_5_trick_winners_of_deal_p():
    state = deal_p()
    for plays, winner in P_TRICKS:
        trick = play_trick(state, plays)
        assert trick.winner == winner, plays
    assert state.results[0].tricks_won == (2, 1, 0, 1, 1)


def test_C_3_5_no_trump_played_highest_of_led_suit_wins():
    # a trick without trumps: the highest card of the led suit wins, higher off-suit cards cannot
    state = new_state(
        CA5,
        hands={
            1: "KS 8C 9C TC QC",
            2: "AD KD TH 9S TS",
            3: "QD TD 9D 8D AS",
            4: "JC KC AC JS QS",
            0: "AH JH KH QH 8S",
        },
        up="9H",
        rest="8H JD",
    )
    play(state, "ORDER_UP", "DISCARD(9H)", "CALL(AS)")
    trick = play_trick(state, "QC AD 8D KC 8S")  # ♣ led; A♦ and 8♠ are off-suit, J♣ is a plain club
    assert trick.winner == 4
    assert trick_cards(trick) == [(1, "QC"), (2, "AD"), (3, "8D"), (4, "KC"), (0, "8S")]


def test_C_3_6_trick_winner_leads_next_and_tricks_are_credited_to_seats():
    state = deal_p()
    leaders = []
    for plays, winner in P_TRICKS:
        leaders.append(state.current_player())
        play_trick(state, plays)
        if len(state.results) == 0:
            assert state.current_player() == winner
    assert leaders == [1, 4, 3, 1, 0]
    tricks = state.results[0].tricks
    assert [t.leader for t in tricks] == leaders
    assert [t.winner for t in tricks] == [w for _, w in P_TRICKS]
    assert state.results[0].tricks_won == (2, 1, 0, 1, 1)


# ----------------------------------------------------------------- C-5 information model (checklist 10, 14)


def test_C_5_1_nobody_sits_out_in_call_ace_when_maker_goes_alone():
    state = deal_p("ALONE")
    assert state.alone and state.sitting_out == -1
    play_tricks(state, *(t for t, _ in P_TRICKS))
    result = state.results[0]
    assert result.sitting_out == -1
    assert all(len(t.plays) == 5 for t in result.tricks)


def test_C_5_1_nobody_sits_out_in_five_handed_when_bidder_goes_alone():
    config = GameConfig.create("five-handed")
    state = GameState(config, seed=4, single_hand=True)
    while state.current_phase is not Phase.CALL:
        acts = legal(state)
        pick = next((a for a in ("ORDER_UP", "TAKE_UP", "EXPOSE") if a in acts), acts[-1])
        play(state, pick)
    play(state, "ALONE")
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert all(len(t.plays) == 5 for t in state.results[0].tricks)
    assert state.results[0].sitting_out == -1


def test_C_5_2_public_information_in_every_view():
    state = deal_p()
    play_trick(state, P_TRICKS[0][0])
    for seat in range(5):
        view = build_view(state, seat)
        assert view.dealer == 0
        assert str(view.up_card) == "8H" and view.up_card_fate is UpCardFate.TAKEN
        assert view.trump is not None and view.trump.letter == "H"
        assert view.maker == 1 and str(view.called_card) == "AS" and not view.alone
        assert [(s, str(a)) for s, a in view.history[:1]] == [(1, "ORDER_UP")]
        assert [(s, str(a)) for s, a in view.history[2:]] == [
            (1, "CALL(AS)"),
            (1, "PLAY(AD)"),
            (2, "PLAY(JD)"),
            (3, "PLAY(TD)"),
            (4, "PLAY(JH)"),
            (0, "PLAY(8D)"),
        ]
        assert len(view.tricks) == 1 and view.tricks[0].winner == 4
        assert [(p.seat, str(p.card)) for p in view.tricks[0].plays] == trick_cards(state.tricks[0])
        assert view.tricks_won == (0, 0, 0, 0, 1)
        assert view.scores == (0, 0, 0, 0, 0)


def test_C_5_3_own_hand_private_and_discard_known_only_to_dealer():
    state = deal_p()
    for seat in range(5):
        view = build_view(state, seat)
        assert sorted(str(c) for c in view.hand) == hand_of(state, seat)
        discard_entry = view.history[1]
        assert discard_entry[0] == 0
        if seat == 0:
            assert str(view.discard) == "AC" and str(discard_entry[1]) == "DISCARD(AC)"
        else:
            assert view.discard is None and discard_entry[1] is None
    # no view field carries the face-down kitty (J♠ 10♠)
    for seat in range(5):
        view = build_view(state, seat)
        seen = {str(c) for c in view.hand} | {str(view.up_card), str(view.called_card)}
        seen |= {str(a.card) for _, a in view.history if a is not None and a.card is not None}
        seen |= {str(view.discard)} if view.discard is not None else set()
        assert not seen & {"JS", "TS"}


def test_C_5_3_turned_down_up_card_stays_public():
    state = new_state(CA5, hands=P_HANDS, up=P_UP, rest=P_REST)
    play(state, *["PASS"] * 5)
    for seat in range(5):
        view = build_view(state, seat)
        assert str(view.up_card) == "8H" and view.up_card_fate is UpCardFate.TURNED_DOWN


def test_C_5_4_partner_secret_until_the_called_card_is_played():
    state = deal_p("CALL(AS)")
    assert state.partner == 2 and not state.partner_revealed
    assert build_view(state, 2).partner == 2  # the holder knows
    for seat in (0, 1, 3, 4):
        assert build_view(state, seat).partner is None
    play_tricks(state, P_TRICKS[0][0], P_TRICKS[1][0])
    assert not state.partner_revealed
    assert build_view(state, 1).partner is None
    play(state, "PLAY(8S)", "PLAY(KC)", "PLAY(8H)", "PLAY(TH)")
    assert not state.partner_revealed and build_view(state, 4).partner is None
    play(state, "PLAY(AS)")  # seat 2 plays the called ace: public from this moment
    assert state.partner_revealed
    for seat in range(5):
        assert build_view(state, seat).partner == 2


def test_C_5_4_hand_result_publishes_partner_or_none():
    state = deal_p("CALL(AS)")
    play_tricks(state, *(t for t, _ in P_TRICKS))
    assert state.results[0].partner == 2
    state = deal_p("CALL(AC)")  # A♣ is the dealer's discard: no partner
    play_tricks(state, *(t for t, _ in P_TRICKS))
    assert state.results[0].partner == -1
    assert state.results[0].called == deal_p().kitty[-1]


def test_C_5_5_blind_joker_name_hides_dealers_hand():
    config = GameConfig.create("call-ace", use_joker=True)
    state = new_state(config, dealer=2, up="JKR")
    assert state.current_phase is Phase.JOKER_NAME and state.current_player() == 2
    view = build_view(state, 2)
    assert view.hand is None and view.blind
    assert [str(a) for a in view.legal_actions] == [
        "JOKER_NAME(C)",
        "JOKER_NAME(D)",
        "JOKER_NAME(H)",
        "JOKER_NAME(S)",
    ]
    assert build_view(state, 3).hand is not None  # only the dealer is blind
    play(state, "JOKER_NAME(S)")
    assert build_view(state, 2).hand is not None and len(build_view(state, 2).hand) == 6


def test_C_5_5_blind_two_choice_and_expose_name_hide_dealers_hand():
    config = GameConfig.create("five-handed")
    state = new_state(config, dealer=1, up="2S")
    assert state.current_phase is Phase.TWO_CHOICE and state.current_player() == 1
    assert build_view(state, 1).hand is None
    play(state, "EXPOSE")
    assert state.current_phase is Phase.EXPOSE_NAME and state.current_player() == 1
    view = build_view(state, 1)
    assert view.hand is None and view.exposed_card is not None
    play(state, "EXPOSE_NAME(D)")
    assert state.current_phase is Phase.DISCARD
    assert build_view(state, 1).hand is not None


def test_C_5_5_after_blind_name_the_dealer_sees_his_hand():
    config = GameConfig.create("five-handed")
    state = new_state(config, dealer=1, up="2H")
    play(state, "BLIND_NAME(C)")
    assert state.current_phase is Phase.BID_ROUND_1 and state.current_player() == 2
    assert build_view(state, 1).hand is not None


def test_C_5_2_history_is_the_same_for_everybody_apart_from_the_discard():
    state = deal_p()
    histories = [
        [(s, None if a is None else str(a)) for s, a in build_view(state, seat).history] for seat in range(5)
    ]
    assert all(h == histories[1] for h in histories[1:])
    assert [a for _, a in histories[1]] == ["ORDER_UP", None, "CALL(AS)"]
    assert [action_to_string(a) for _, a in state.actions] == ["ORDER_UP", "DISCARD(AC)", "CALL(AS)"]


def _events_of_each_action(state: GameState, actions: list[str]) -> list[list[list[object]]]:
    """Apply ``actions``; for each one, the events every seat is told."""
    from arena.engine.news import mark, news_since

    out = []
    for text in actions:
        before = mark(state)
        play(state, text)
        out.append([news_since(state, before, seat) for seat in range(state.n)])
    return out


def test_C_5_4_partner_revealed_event_when_and_only_when_the_called_card_is_played():
    from arena.engine.news import HandEnded, PartnerRevealed

    state = deal_p("CALL(AS)")
    plays = [f"PLAY({c})" for t, _ in P_TRICKS for c in t.split()]
    per_action = _events_of_each_action(state, plays)
    revealed_at = [
        i for i, per_seat in enumerate(per_action) if any(isinstance(e, PartnerRevealed) for e in per_seat[0])
    ]
    assert [plays[i] for i in revealed_at] == ["PLAY(AS)"]
    for per_seat in (per_action[i] for i in revealed_at):
        for events in per_seat:  # public: every seat is told, with the partner's seat
            assert [e.seat for e in events if isinstance(e, PartnerRevealed)] == [2]
    ended = [e for e in per_action[-1][3] if isinstance(e, HandEnded)]
    assert len(ended) == 1 and ended[0].partner == 2


def test_C_5_4_no_partner_revealed_event_for_a_called_card_in_the_kitty():
    from arena.engine.news import HandEnded, PartnerRevealed

    state = deal_p("CALL(AC)")
    plays = [f"PLAY({c})" for t, _ in P_TRICKS for c in t.split()]
    per_action = _events_of_each_action(state, plays)
    assert not any(isinstance(e, PartnerRevealed) for per_seat in per_action for ev in per_seat for e in ev)
    ended = [e for e in per_action[-1][0] if isinstance(e, HandEnded)]
    assert ended[0].partner is None and ended[0].called_card is not None and str(ended[0].called_card) == "AC"


def test_C_5_3_discard_event_hidden_from_everybody_but_the_dealer():
    from arena.engine.news import ActionTaken

    state = new_state(CA5, hands=P_HANDS, up=P_UP, rest=P_REST)
    (_, per_seat) = _events_of_each_action(state, ["ORDER_UP", "DISCARD(AC)"])
    for seat, events in enumerate(per_seat):
        taken = [e for e in events if isinstance(e, ActionTaken)]
        assert len(taken) == 1 and taken[0].seat == 0
        assert (str(taken[0].action) if taken[0].action else None) == ("DISCARD(AC)" if seat == 0 else None)


def test_C_5_5_blind_dealer_is_dealt_no_visible_hand_until_his_choice():
    from arena.engine.news import HandShown, HandStarted, opening_news

    config = GameConfig.create("five-handed")
    state = new_state(config, dealer=0, up="2H")
    assert opening_news(state, 0)[0].hand is None
    assert isinstance(opening_news(state, 1)[0], HandStarted) and len(opening_news(state, 1)[0].hand) == 5
    (expose, name) = _events_of_each_action(state, ["EXPOSE", "EXPOSE_NAME(S)"])
    assert all(str(ev[0].exposed_card) == texts([state.exposed])[0] for ev in expose)  # public to all
    assert not any(isinstance(e, HandShown) for e in expose[0])
    shown = [e for e in name[0] if isinstance(e, HandShown)]
    assert len(shown) == 1 and len(shown[0].hand) == 6
    assert not any(isinstance(e, HandShown) for seat in range(1, 5) for e in name[seat])


def test_C_3_3_led_joker_makes_trump_the_led_suit():
    config = GameConfig.create("call-ace", use_joker=True)
    hands = {
        1: "JKR AC KC QC JC",
        2: "AS KS QS JS 9D",  # diamonds trump: 9♦ must follow the Joker
        3: "AH KH QH JH TH",  # J♥ is the left bower: must follow too
        4: "9C 8C TC 9S 8S",  # no trump: any card
        0: "TS 9H 8H AD KD",
    }
    state = new_state(config, hands=hands, up="8D", rest="QD TD JD")
    play(state, "ORDER_UP", "DISCARD(TS)", "CALL(AH)", "PLAY(JKR)")
    assert legal_cards(state) == ["9D"]
    play(state, "PLAY(9D)")
    assert legal_cards(state) == ["JH"]
    play(state, "PLAY(JH)")
    assert legal_cards(state) == sorted(["9C", "8C", "TC", "9S", "8S"])


def test_C_3_3_led_two_makes_trump_the_led_suit():
    config = GameConfig.create("five-handed")
    hands = {
        1: "2H AS KS QS JS",  # clubs trump: 2♥ is a club
        2: "AH KH QH 9C 8D",  # holds hearts and one club: must play the club
        3: "AD KD QD TD 9D",  # no club: any card
        4: "JH TH 9H 8H 8S",
        0: "TS 9S AC KC QC",
    }
    state = new_state(config, hands=hands, up="TC", rest="JD 2S JC 8C")
    play(state, "ORDER_UP", "DISCARD(TS)", "CALL(AH)", "PLAY(2H)")
    assert legal_cards(state) == ["9C"]
    play(state, "PLAY(9C)")
    assert legal_cards(state) == sorted(["AD", "KD", "QD", "TD", "9D"])
