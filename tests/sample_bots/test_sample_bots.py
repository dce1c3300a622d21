"""The Python sample bots: full games of every variant without a fault, the Monte-Carlo bot's time budget
and determinism, the rules bot's key heuristics on hand-built deals, and rules beating random."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Mapping

import pytest

from arena.engine import Action, GameConfig, GameState, View, build_view, deal_order
from arena.engine.actions import parse_action_id
from arena.engine.cards import parse_card_id
from arena.engine.config import deck_of
from arena.engine.dealing import deal_positions
from arena.engine.determinize import deal_from_guess, hidden_holdings
from arena.event.faults import FaultPolicy
from arena.event.table import TableResult, TableSpec, play_table
from arena.gameinfo import GameInfo
from arena.players.base import DecisionTiming
from arena.players.connection import BotConnection
from arena.players.inprocess import InProcessPlayer
from arena.players.remote import RemotePlayer
from sample_bots.montecarlo import MonteCarloBot, Sampler
from sample_bots.policy import choose_state
from sample_bots.random import RandomBot
from sample_bots.rules import RulesBot

FastMonteCarlo = MonteCarloBot.configured(samples=3, bid_factor=2)
BOTS = (RulesBot, FastMonteCarlo, RandomBot)


def play(
    config: GameConfig, seed: int, classes: list[type], policy: FaultPolicy | None = None
) -> TableResult:
    players = [InProcessPlayer(cls, f"{cls.name}-{seat}") for seat, cls in enumerate(classes)]
    spec = TableSpec(f"test-{seed}", config, seed, tuple(p.name for p in players), policy or FaultPolicy())
    return asyncio.run(play_table(spec, players))


def seating(n: int, shift: int) -> list[type]:
    return [BOTS[(seat + shift) % len(BOTS)] for seat in range(n)]


# --------------------------------------------------------------------------------------------- full games

CONFIGS = [
    ("call-ace", {"num_players": 4}),
    ("call-ace", {}),
    ("call-ace", {"deck_5p": "32"}),
    ("call-ace", {"num_players": 6}),
    ("call-ace", {"num_players": 7}),
    ("call-ace", {"use_joker": True}),
    ("call-ace", {"num_players": 7, "use_joker": True, "stick_the_dealer": True}),
    ("call-ace", {"allow_no_trump": True}),
    ("call-ace", {"num_players": 4, "allow_no_trump": True, "may_discard_upcard": False}),
    ("five-handed", {}),
    ("five-handed", {"deck": "29", "call_may_be_trump": False, "two_expose_mode": "exposed_suit"}),
    ("classic", {}),
    ("classic", {"stick_the_dealer": True, "may_discard_upcard": False}),
]


@pytest.mark.parametrize(("variant", "options"), CONFIGS, ids=lambda x: str(x))
def test_every_bot_plays_full_games_without_a_fault(variant: str, options: dict) -> None:
    config = GameConfig.create(variant, **options)
    for shift in range(2):
        result = play(config, 7 + shift, seating(config.num_players, shift))
        assert result.faults == ()
        assert result.outcome.winners
        assert len(result.hands) >= 1


def seed_with_up_card(config: GameConfig, card: str) -> int:
    """A deal seed whose first hand turns ``card`` up (the special blind decisions)."""
    wanted = parse_card_id(card)
    n = config.num_players
    return next(s for s in range(10_000) if deal_order(config, s, 0)[5 * n] == wanted)


@pytest.mark.parametrize(
    ("variant", "options", "up", "rules_choice"),
    [
        ("five-handed", {}, "2S", "EXPOSE"),  # FH-3.2: the High Joker up, the rules dealer exposes
        ("five-handed", {}, "2H", "BLIND_NAME(H)"),  # ... the Low Joker up, it names hearts blind
        ("call-ace", {"use_joker": True}, "JKR", "JOKER_NAME"),  # CA-4.2
    ],
)
def test_blind_decisions_of_every_bot(variant: str, options: dict, up: str, rules_choice: str) -> None:
    config = GameConfig.create(variant, **options)
    seed = seed_with_up_card(config, up)
    for dealer_bot in BOTS:  # seat 0 deals the first hand
        others = [b for b in BOTS if b is not dealer_bot]
        classes = [dealer_bot] + [others[s % 2] for s in range(config.num_players - 1)]
        result = play(config, seed, classes)
        assert result.faults == ()
        first = result.hands[0]
        assert first["up_card"] == up
        blind = first["actions"][0]
        assert blind["seat"] == 0
        if dealer_bot is RulesBot:
            assert blind["action"].startswith(rules_choice)


def test_the_bots_run_as_grpc_servers() -> None:
    """Each bot as a user starts it (``python -m sample_bots.rules --port 0``): it says where it listens,
    answers the handshake with its own name, and decides over gRPC: the rules bot plays a whole game
    without a fault, the Monte-Carlo bot (slower) the first decision of one. The deadlines are generous:
    time is not what this tests."""
    for module, bot in (("sample_bots.rules", RulesBot), ("sample_bots.montecarlo", MonteCarloBot)):
        process = subprocess.Popen(
            [sys.executable, "-m", module, "--port", "0"], stdout=subprocess.PIPE, text=True
        )
        try:
            line = process.stdout.readline() if process.stdout else ""
            assert "listening on 127.0.0.1:" in line
            asyncio.run(over_grpc(line.split()[-1], bot, whole_game=bot is RulesBot))
        finally:
            process.terminate()
            process.wait(timeout=10)


async def over_grpc(address: str, bot: type, whole_game: bool) -> None:
    """Seat 0 of a short five-handed game is the bot at ``address``; the other seats are random bots."""
    connection = BotConnection(address)
    try:
        identity = await connection.hello()
        assert identity.name == bot.name
        config = GameConfig.create("five-handed", target=5)
        remote = RemotePlayer(connection, bot.name)
        if whole_game:
            players = [remote] + [InProcessPlayer(RandomBot, f"random-{s}") for s in range(1, 5)]
            spec = TableSpec("g", config, 5, tuple(p.name for p in players), FaultPolicy(decision_ms=5000))
            result = await play_table(spec, players)
            assert result.faults == () and result.outcome is not None
            assert len(result.latencies_ms[0]) > 0, "the bot answered seat 0's decisions"
            return
        state = GameState(config, seed=5)
        seat = state.current_player()
        await remote.start(GameInfo("g", config, seat, tuple("abcde"), 5000, 0), [])
        view = build_view(state, seat)
        try:
            reply = await remote.decide(view, 1, DecisionTiming(5000, 0))
        finally:
            await remote.close()
        assert reply.action in view.legal_actions
    finally:
        await connection.close()


# --------------------------------------------------------------------------------------------- Monte-Carlo


def test_montecarlo_respects_a_small_time_budget() -> None:
    config = GameConfig.create("five-handed", target=5)
    greedy = MonteCarloBot.configured(samples=100_000)
    policy = FaultPolicy(decision_ms=40)
    result = play(config, 3, [greedy, RulesBot, greedy, RulesBot, RulesBot], policy)
    assert result.faults == ()
    slowest = max(max(result.latencies_ms[0]), max(result.latencies_ms[2]))
    assert slowest < 40 + 120, f"slowest Monte-Carlo decision took {slowest:.0f} ms for a 40 ms budget"


def test_montecarlo_stops_at_the_deadline_and_the_sample_cap() -> None:
    config = GameConfig.create("call-ace")
    view = first_view_with_choice(config, seed=5)
    bot = MonteCarloBot(samples=100_000)
    bot._deadline = time.monotonic() + 0.05
    started = time.monotonic()
    assert bot.act(view) in view.legal_actions
    assert time.monotonic() - started < 0.05 + 0.12
    capped = MonteCarloBot(samples=5)
    capped.act(view)
    assert 1 <= capped.stats[-1] <= 5 * capped.bid_factor


class _Recording(MonteCarloBot):
    """Keeps what each search measured: every candidate's utility on every sample drawn."""

    def __init__(self, samples: int, seed: int) -> None:
        super().__init__(samples=samples, seed=seed)
        self.measured: list[dict[int, list[float]] | None] = []

    def evaluate(self, view: View, actions: list[int], default: int) -> dict[int, list[float]] | None:
        results = super().evaluate(view, actions, default)
        self.measured.append(results)
        return results


def test_montecarlo_is_deterministic_given_its_seed_and_its_seed_matters() -> None:
    """The same seed gives the same samples, so the same measurements and moves; another seed draws other
    samples. Without the second half a bot that ignored its seed (one fixed generator) would pass."""
    config = GameConfig.create("five-handed")
    state = GameState(config, seed=11, single_hand=True)
    views = []
    while not state.is_terminal() and len(views) < 6:
        if len(state.legal_actions()) > 1:
            views.append(build_view(state, state.to_act))
        state.apply(state.legal_actions()[0])
    first, second, other = _Recording(12, seed=4), _Recording(12, seed=4), _Recording(12, seed=5)
    for view in views:
        assert first.act(view) == second.act(view)
        other.act(view)
    assert first.stats == second.stats
    assert first.measured == second.measured
    searched = [m for m in first.measured if m is not None]
    assert len(searched) >= 3, "the views chosen make the bot search"
    assert first.measured != other.measured, "seeds 4 and 5 drew the same samples"


@pytest.mark.parametrize("variant", ["five-handed", "call-ace", "classic"])
def test_montecarlo_inference_finds_no_misfit_with_the_true_cards(variant: str) -> None:
    """At a table of rules players, the real hidden cards explain every past decision: the inference
    (``Sampler.replay``) sees the decisions with exactly the knowledge the rules bot had."""
    config = GameConfig.create(variant)
    replays = 0
    for seed in range(40):
        state = GameState(config, seed=seed, single_hand=True)
        while not state.is_terminal():
            if len(state.legal_actions()) > 1:
                view = build_view(state, state.to_act)
                truth = hidden_holdings(state, view)
                sampler = Sampler(view, RulesBot.style, inference=0.1, tries=1)
                replayed = deal_from_guess(view, truth)
                assert sampler.replay(replayed, truth, stop=1) == 0
                assert replayed.hands == state.hands and replayed.to_act == state.to_act
                replays += 1
            state.apply(choose_state(state, state.to_act))
    assert replays > 300


def first_view_with_choice(config: GameConfig, seed: int) -> View:
    state = GameState(config, seed=seed, single_hand=True)
    while len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    return build_view(state, state.to_act)


# --------------------------------------------------------------------------------------------- rules


def deck_with(config: GameConfig, dealer: int, hands: Mapping[int, str], up: str) -> list[int]:
    """A deck order that deals exactly ``hands`` (others get the remaining cards) and turns ``up`` up."""
    n = config.num_players
    named = {seat: [parse_card_id(c) for c in text.split()] for seat, text in hands.items()}
    up_id = parse_card_id(up)
    used = {c for cards in named.values() for c in cards} | {up_id}
    rest = [c for c in deck_of(config) if c not in used]
    deck = [0] * (5 * n)
    for seat, positions in enumerate(deal_positions(n, dealer)):
        cards = named.get(seat) or [rest.pop(0) for _ in range(5)]
        for position, card in zip(positions, cards, strict=True):
            deck[position] = card
    return [*deck, up_id, *rest]


def rules_action(state: GameState) -> Action:
    return RulesBot().act(build_view(state, state.to_act))


def apply(state: GameState, *actions: str) -> None:
    for action in actions:
        state.apply(parse_action_id(action))


def test_rules_orders_up_and_leads_the_right_bower_as_maker() -> None:
    config = GameConfig.create("call-ace")
    deck = deck_with(config, 0, {1: "JH JD AC KS 9S"}, up="9H")
    state = GameState(config, decks=[deck], dealer=0, single_hand=True)
    assert str(rules_action(state)) == "ORDER_UP"  # seat 1: both bowers and an ace
    apply(state, "ORDER_UP")
    apply(state, str(rules_action(state)))  # the dealer discards
    assert str(rules_action(state)) == "CALL(AS)"  # the ace over its own king
    apply(state, "CALL(AS)")
    assert state.to_act == 1
    assert str(rules_action(state)) == "PLAY(JH)"  # draw trumps with the top one


def test_rules_does_not_trump_its_partners_ace_in_classic() -> None:
    config = GameConfig.create("classic")
    hands = {0: "AS 9S JH AD KC", 1: "KS TS QC 9H TD", 2: "JD QH 9C AC 9D"}
    deck = deck_with(config, 3, hands, up="KH")
    state = GameState(config, decks=[deck], dealer=3, single_hand=True)
    apply(state, "ORDER_UP")
    apply(state, str(rules_action(state)), "PARTNER", "PLAY(AS)", "PLAY(KS)")
    assert state.to_act == 2
    play = rules_action(state)
    assert str(play) == "PLAY(9D)", "void in spades, partner's ace wins: throw the singleton diamond"


def test_rules_ruffs_an_opponents_ace() -> None:
    config = GameConfig.create("classic")
    hands = {1: "AS TS QC 9H TD", 2: "JD QH 9C AC 9D"}
    deck = deck_with(config, 0, hands, up="KH")
    state = GameState(config, decks=[deck], dealer=0, single_hand=True)
    apply(state, "ORDER_UP")
    apply(state, str(rules_action(state)), "PARTNER", "PLAY(AS)")
    assert state.to_act == 2
    assert str(rules_action(state)) == "PLAY(QH)", "an opponent's ace: ruff with the lowest trump that wins"


def test_rules_does_not_overtake_as_holder_of_the_called_ace() -> None:
    config = GameConfig.create("call-ace")
    hands = {1: "JH JD AC KS 9D", 2: "9C QS TS KD TD", 3: "AS 8H JS QD 8D"}
    deck = deck_with(config, 0, hands, up="9H")
    state = GameState(config, decks=[deck], dealer=0, single_hand=True)
    apply(state, "ORDER_UP")
    apply(state, str(rules_action(state)), "CALL(AS)", "PLAY(AC)", "PLAY(9C)")
    assert state.to_act == 3  # holds the called ace: the maker is its partner, and his ace is winning
    assert str(rules_action(state)) == "PLAY(8D)", "no ruff: throw the lowest card of a short suit"


def test_rules_discards_to_create_a_void() -> None:
    config = GameConfig.create("five-handed")
    deck = deck_with(config, 0, {0: "JS AS QD 8C 9C"}, up="KS")
    state = GameState(config, decks=[deck], dealer=0, single_hand=True)
    apply(state, "PASS", "PASS", "PASS", "PASS", "TAKE_UP")
    assert str(rules_action(state)) == "DISCARD(QD)"  # not the lower 8C: QD leaves no diamond


def test_rules_names_no_trump_with_many_aces() -> None:
    config = GameConfig.create("call-ace", allow_no_trump=True)
    deck = deck_with(config, 0, {1: "AC AD AH KH 8S"}, up="9S")
    state = GameState(config, decks=[deck], dealer=0, single_hand=True)
    apply(state, *["PASS"] * 5)
    assert str(rules_action(state)) == "NAME(NT)"


# --------------------------------------------------------------------------------------------- strength


def test_rules_beats_random() -> None:
    config = GameConfig.create("five-handed")
    n = config.num_players
    diff = hands = wins = 0.0
    games = 30
    for game in range(games):
        rules_seats = {game % n, (game + 2) % n}
        classes = [RulesBot if s in rules_seats else RandomBot for s in range(n)]
        result = play(config, 100 + game // n, classes)
        assert result.faults == ()
        rules = sum(result.scores[s] for s in rules_seats) / 2
        others = sum(result.scores[s] for s in range(n) if s not in rules_seats) / 3
        diff += rules - others
        hands += len(result.hands)
        wins += sum(1 for w in result.winners if w in rules_seats) / len(result.winners)
    assert diff / hands > 0.2, f"rules beat random by only {diff / hands:.3f} points per hand"
    assert wins / games > 0.6, f"rules won only {wins / games:.0%} of the games (fair share 40%)"
