"""Property-based tests of the rules engine: random legal games over every variant and the main options.

Each test plays whole games whose every choice comes from a ``random.Random`` seeded by a hypothesis-drawn
seed, and checks the engine against RULES.md with code written here, independently of the engine: an
own referee (``Referee``) that re-derives from card and action strings alone every legal set, trick winner
(C-3.5), partner and score (CA-8, FH-7, CL-2.4); an own card-location ledger; and own rules for what a seat
may know (C-5). The same referee re-checks every hand record from the record alone, as docs/hand-record.md
tells a human to, next to the engine's own ``verify_record`` and the JSON Schema.

Reproducible in CI: ``derandomize=True`` (the examples depend only on the test code), no example database,
and explicit ``@example`` games for the option combinations that must always run. Set
``ENGINE_PROPERTY_SCALE=10`` for a ten times longer local run.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arena.engine import (
    ACTIONS,
    CARDS,
    Action,
    ActionKind,
    Card,
    GameConfig,
    GameState,
    HandResult,
    Outcome,
    Phase,
    Termination,
    Trump,
    View,
    action_to_string,
    build_view,
    deal_order,
    deck_of,
    determinize,
    hand_record,
    state_from_guess,
    verify_record,
)
from arena.engine.determinize import hidden_holdings
from arena.engine.news import mark, news_since, opening_news
from arena.engine.scoring import game_over, hand_points

DOCS = Path(__file__).resolve().parents[2] / "docs"
SCHEMA_PATH = DOCS / "hand-record.schema.json"
RECORD_DOC_PATH = DOCS / "hand-record.md"

_SCALE = float(os.environ.get("ENGINE_PROPERTY_SCALE", "1"))
PROPS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def budget(n: int) -> settings:
    return settings(PROPS, max_examples=max(1, int(n * _SCALE)))


# ======================================================================================================
# Independent rules over card and action strings (RULES.md C-1 .. C-4, CA, FH, CL). Nothing below uses
# the engine's tables; the engine is only asked for its answers, which are compared with these.
# ======================================================================================================

SUITS = "CDHS"
SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}  # C-1.2
PLAIN_HIGH_TO_LOW = "AKQJT9876"  # C-2.3 (natural order)
TWOS = ("2S", "2H")
BLIND_PHASES = {Phase.TWO_CHOICE, Phase.JOKER_NAME, Phase.EXPOSE_NAME}  # C-5.5

# CA-8, per player count: (partnership 3-4, partnership march, alone 3-4, alone march, euchre award each).
CA_POINTS = {4: (1, 2, 2, 4, 2), 5: (1, 3, 2, 5, 2), 6: (1, 3, 2, 6, 2), 7: (1, 3, 2, 7, 2)}
# CA-2: deck size without the Joker and kitty size incl. the up-card, by (N, deck_5p).
CA_DECK = {(4, "28"): (24, 4), (5, "28"): (28, 3), (5, "32"): (32, 7), (6, "28"): (32, 2), (7, "28"): (36, 1)}

_ACTION_FORM = re.compile(r"^([A-Z_]+)(?:\((.+)\))?$")


def parse_action_text(text: str) -> tuple[str, str | None]:
    match = _ACTION_FORM.match(text)
    assert match is not None, f"malformed action text {text!r}"
    return match.group(1), match.group(2)


def eff(card: str, trump: str) -> str:
    """Effective suit (C-2.1, CA-4.7): ``trump`` is a suit letter or ``"NT"``."""
    if trump == "NT":
        return card[1]
    if card == "JKR" or card in TWOS:
        return trump
    if card[0] == "J" and card[1] == SAME_COLOUR[trump]:
        return trump
    return card[1]


def trump_strength(card: str, trump: str) -> int:
    """Position in the trump order of C-2.2, higher = stronger (cards absent from a deck never occur)."""
    order = ["JKR", "2S", "2H", "J" + trump, "J" + SAME_COLOUR[trump], *(r + trump for r in "AKQT9876")]
    return len(order) - order.index(card)


def trick_winner(plays: Sequence[tuple[int, str]], trump: str) -> int:
    """C-3.5: highest trump if any trump was played, else highest card of the led suit (C-2.3)."""
    led = eff(plays[0][1], trump)
    if trump != "NT":
        trumps = [(seat, card) for seat, card in plays if eff(card, trump) == trump]
        if trumps:
            return max(trumps, key=lambda p: trump_strength(p[1], trump))[0]
    followers = [(seat, card) for seat, card in plays if eff(card, trump) == led]
    return min(followers, key=lambda p: PLAIN_HIGH_TO_LOW.index(p[1][0]))[0]


def expected_deck(cfg: Mapping[str, Any]) -> list[str]:
    """The deck of a configuration (CA-2, FH-2.1, CL-2.1)."""
    variant = cfg["variant"]
    extra: list[str] = []
    if variant == "classic":
        low = "9"
    elif variant == "five-handed":
        low, extra = "8", list(TWOS)
    else:
        n = cfg["num_players"]
        low = {4: "9", 5: "8" if cfg["deck_5p"] == "28" else "7", 6: "7", 7: "6"}[n]
        extra = ["JKR"] if cfg["use_joker"] else []
    ranks = PLAIN_HIGH_TO_LOW[: PLAIN_HIGH_TO_LOW.index(low) + 1]
    cards = [r + s for s in SUITS for r in ranks] + extra
    if variant == "five-handed" and cfg["deck"] == "29":
        cards.remove("8C")
    return cards


def deal_c44(deck: Sequence[str], n: int, dealer: int) -> list[list[str]]:
    """C-4.4: two cards each from dealer+1 round to the dealer, then three each; deck index 0 is the top."""
    dealt: list[list[str]] = [[] for _ in range(n)]
    pos = 0
    for batch in (2, 3):
        for k in range(1, n + 1):
            seat = (dealer + k) % n
            dealt[seat].extend(deck[pos : pos + batch])
            pos += batch
    return dealt


def expected_points(
    variant: str, n: int, maker: int, partner: int | None, alone: bool, making: int
) -> list[int]:
    """Hand points per seat from the tables CA-8, FH-7 and CL-2.4 (CL team points go to both seats)."""
    points = [0] * n
    if variant == "classic":
        team = {maker, (maker + 2) % 4}
        if making <= 2:
            for seat in set(range(4)) - team:
                points[seat] = 2
        else:
            value = 1 if making < 5 else (4 if alone else 2)
            for seat in team:
                points[seat] = value
        return points
    side = {maker} if partner is None else {maker, partner}
    if making <= 2:  # euchred: every player outside the making side +2
        for seat in set(range(n)) - side:
            points[seat] = 2
        return points
    march = making == 5
    if variant == "call-ace":
        made, made_march, alone_made, alone_march, _ = CA_POINTS[n]
        if partner is not None:
            value = made_march if march else made
        else:  # declared alone or alone by absence (CA-6.5)
            value = alone_march if march else alone_made
    elif alone:  # FH announced ALONE
        value = 4 if march else 1
    else:  # FH partner held by another player, or called card in the kitty
        value = 2 if march else 1
    for seat in side:
        points[seat] = value
    return points


class Referee:
    """One hand, refereed from the configuration, the dealer and the deck order alone (strings only).

    ``legal()`` is the set of legal action texts at the current decision (RULES.md section 8), ``apply``
    takes one and asserts it was legal and that the right seat took it; once ``done`` the derived fields
    (``expected_fields``) are those a hand record must carry.
    """

    def __init__(self, cfg: Mapping[str, Any], dealer: int, deck: Sequence[str]) -> None:
        self.cfg = cfg
        self.variant = cfg["variant"]
        self.n = n = cfg["num_players"]
        self.dealer = dealer
        self.deck = list(deck)
        assert sorted(self.deck) == sorted(expected_deck(cfg)), "deck is not the configuration's deck"
        self.dealt = deal_c44(self.deck, n, dealer)
        self.hands = [list(h) for h in self.dealt]
        self.up = self.deck[5 * n]  # C-4.5
        self.proposed: str | None = None
        self.turned_down: str | None = None
        self.passes = 0
        self.maker: int | None = None
        self.trump: str | None = None
        self.exposed: str | None = None
        self.discard: str | None = None
        self.called: str | None = None
        self.alone = False
        self.partner: int | None = None
        self.sitting_out: int | None = None
        self.tricks: list[tuple[int, list[tuple[int, str]], int]] = []
        self.current: list[tuple[int, str]] = []
        self.leader: int | None = None
        self.done = False
        self.thrown_in = False
        if self.up == "JKR":  # CA-4.2
            self.stage, self.to_act = "joker", dealer
        elif self.variant == "five-handed" and self.up in TWOS:  # FH-3.1
            self.stage, self.to_act = "two", dealer
        else:
            self.stage, self.to_act, self.proposed = "bid1", (dealer + 1) % n, self.up[1]

    # ---------------------------------------------------------------- decisions

    def legal(self) -> set[str]:
        stage, seat = self.stage, self.to_act
        if self.done:
            return set()
        if stage == "joker":
            return {f"JOKER_NAME({s})" for s in SUITS}
        if stage == "two":
            return {f"BLIND_NAME({s})" for s in SUITS} | {"EXPOSE"}
        if stage == "expose_name":
            assert self.exposed is not None
            if self.cfg["two_expose_mode"] == "exposed_suit" and self.exposed not in TWOS:
                return {f"EXPOSE_NAME({self.exposed[1]})"}
            return {f"EXPOSE_NAME({s})" for s in SUITS}
        if stage == "bid1":  # CA-4.3, FH-4.1
            return {"PASS", "TAKE_UP" if seat == self.dealer else "ORDER_UP"}
        if stage == "bid2":  # CA-4.5..4.7, FH-4.2/4.3
            out = {f"NAME({s})" for s in SUITS if s != self.turned_down}
            if self.variant == "call-ace" and self.cfg["allow_no_trump"]:
                out.add("NAME(NT)")
            stick = self.variant == "five-handed" or self.cfg["stick_the_dealer"]
            if not (stick and seat == self.dealer):
                out.add("PASS")
            return out
        if stage == "discard":  # CA-5.1, FH-5.1
            return {
                f"DISCARD({c})"
                for c in self.hands[self.dealer]
                if self.cfg["may_discard_upcard"] or c != self.up
            }
        if stage == "call":
            return self._legal_call()
        assert stage == "play"
        hand = self.hands[seat]
        if self.current:  # C-3.4
            assert self.trump is not None
            led = eff(self.current[0][1], self.trump)
            follow = [c for c in hand if eff(c, self.trump) == led]
            if follow:
                return {f"PLAY({c})" for c in follow}
        return {f"PLAY({c})" for c in hand}

    def _legal_call(self) -> set[str]:
        assert self.maker is not None and self.trump is not None
        if self.variant == "classic":  # CL-2.3
            return {"ALONE", "PARTNER"}
        hand = self.hands[self.maker]
        if self.variant == "call-ace":  # CA-6.1, CA-6.3, CA-4.7
            calls = {"A" + s for s in SUITS if s != self.trump} - set(hand)
        else:  # FH-6.1, FH-6.3
            calls = {
                c
                for c in self.deck
                if c not in hand and (self.cfg["call_may_be_trump"] or eff(c, self.trump) != self.trump)
            }
        return {f"CALL({c})" for c in calls} | {"ALONE"}

    def apply(self, seat: int, text: str) -> None:
        assert not self.done, f"action {text} after the hand ended"
        assert seat == self.to_act, f"{text} by seat {seat}, but seat {self.to_act} is to act ({self.stage})"
        legal = self.legal()
        assert text in legal, f"{text} by seat {seat} at {self.stage} is not legal; legal: {sorted(legal)}"
        kind, arg = parse_action_text(text)
        n, dealer = self.n, self.dealer
        stage = self.stage
        if stage in ("joker", "expose_name"):
            assert arg is not None
            self._make_trump(dealer, arg, pick_up=True)
        elif stage == "two":
            if kind == "EXPOSE":  # FH-3.2: the dealer's first card received is shown
                self.exposed = self.dealt[dealer][0]
                self.stage = "expose_name"
            else:
                self.proposed = arg
                self.stage, self.to_act = "bid1", (dealer + 1) % n
        elif stage == "bid1":
            if kind == "PASS":
                self.passes += 1
                if self.passes == n:  # CA-4.4
                    self.turned_down, self.passes, self.stage = self.proposed, 0, "bid2"
                self.to_act = (seat + 1) % n
            else:
                assert self.proposed is not None
                self._make_trump(seat, self.proposed, pick_up=True)
        elif stage == "bid2":
            if kind == "PASS":
                self.passes += 1
                if self.passes == n:  # CA-4.6: thrown in
                    self.done = self.thrown_in = True
                self.to_act = (seat + 1) % n
            else:
                assert arg is not None
                self._make_trump(seat, arg, pick_up=False)
        elif stage == "discard":
            assert arg is not None
            self.hands[dealer].remove(arg)
            self.discard = arg
            assert self.maker is not None
            self.stage, self.to_act = "call", self.maker
        elif stage == "call":
            self._apply_call(kind, arg)
        else:
            assert arg is not None
            self._apply_play(seat, arg)

    def _make_trump(self, maker: int, trump: str, *, pick_up: bool) -> None:
        self.maker, self.trump = maker, trump
        if pick_up:  # CA-5.1: the dealer takes the up-card and discards before the call (CA-5.2)
            self.hands[self.dealer].append(self.up)
            self.stage, self.to_act = "discard", self.dealer
        else:
            self.stage, self.to_act = "call", maker

    def _apply_call(self, kind: str, arg: str | None) -> None:
        maker = self.maker
        assert maker is not None
        if kind == "ALONE":
            self.alone = True
            if self.variant == "classic":
                self.sitting_out = (maker + 2) % 4  # CL-2.3
        elif kind == "PARTNER":
            self.partner = (maker + 2) % 4
        else:
            self.called = arg
            holders = [s for s in range(self.n) if arg in self.hands[s]]
            assert maker not in holders
            self.partner = holders[0] if holders else None  # CA-6.4, FH-6.2
        leader = (self.dealer + 1) % self.n  # C-3.1
        if leader == self.sitting_out:
            leader = (leader + 1) % self.n
        self.leader = self.to_act = leader
        self.stage = "play"

    def active_seats(self) -> int:
        return self.n - (1 if self.sitting_out is not None else 0)

    def _apply_play(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        self.current.append((seat, card))
        if len(self.current) < self.active_seats():  # C-3.2
            nxt = (seat + 1) % self.n
            self.to_act = nxt if nxt != self.sitting_out else (nxt + 1) % self.n
            return
        assert self.trump is not None and self.leader is not None
        winner = trick_winner(self.current, self.trump)
        self.tricks.append((self.leader, self.current, winner))
        self.current = []
        if len(self.tricks) == 5:  # C-3.2: always five tricks
            self.done = True
        else:
            self.leader = self.to_act = winner  # C-3.6

    # ---------------------------------------------------------------- the hand's derived facts

    def expected_fields(self) -> dict[str, Any]:
        """What a hand record must say about this hand, derived here from the rules."""
        assert self.done
        n = self.n
        tricks_won = [0] * n
        for _, _, winner in self.tricks:
            tricks_won[winner] += 1
        if self.thrown_in:
            making, outcome, points = 0, "thrown_in", [0] * n
        else:
            assert self.maker is not None
            making = tricks_won[self.maker] + (tricks_won[self.partner] if self.partner is not None else 0)
            outcome = "march" if making == 5 else ("made" if making >= 3 else "euchred")
            points = expected_points(self.variant, n, self.maker, self.partner, self.alone, making)
        return {
            "num_players": n,
            "dealer": self.dealer,
            "deck": self.deck,
            "dealt": self.dealt,
            "up_card": self.up,
            "trump": self.trump,
            "maker": self.maker,
            "exposed_card": self.exposed,
            "discard": self.discard,
            "called_card": self.called,
            "alone": self.alone,
            "partner": self.partner,
            "sitting_out": self.sitting_out,
            "tricks": [
                {"leader": leader, "plays": [{"seat": s, "card": c} for s, c in plays], "winner": winner}
                for leader, plays, winner in self.tricks
            ],
            "tricks_won": tricks_won,
            "making_tricks": making,
            "outcome": outcome,
            "points": points,
        }


def recheck_record(record: Mapping[str, Any]) -> None:
    """Re-check a hand record from the record alone, as docs/hand-record.md describes (AssertionError)."""
    assert record["format"] == "euchre-arena/hand-record/v1"
    cfg = record["config"]
    assert record["num_players"] == cfg["num_players"]
    referee = Referee(cfg, record["dealer"], record["deck"])
    for entry in record["actions"]:
        referee.apply(entry["seat"], entry["action"])
    assert referee.done, "the actions stop before the hand ends"
    for key, value in referee.expected_fields().items():
        assert record[key] == value, f"{key}: record says {record[key]!r}, the rules give {value!r}"
    before, after, points = record["scores_before"], record["scores_after"], record["points"]
    assert len(before) == len(after) == len(points) == referee.n
    assert after == [b + p for b, p in zip(before, points, strict=True)], "scores_after != before + points"


# ======================================================================================================
# Games: configurations, policies, and a driver with hooks.
# ======================================================================================================

PASS_ID = Action.parse("PASS").id


@dataclass(frozen=True)
class Policy:
    """How random legal play chooses. ``by_kind`` picks a kind of action first (so ALONE, EXPOSE and
    NAME are as likely as their alternatives); ``pass_bias`` passes that often whenever PASS is legal, to
    reach round 2, No-Trumps and thrown-in hands."""

    style: str = "uniform"
    pass_bias: float | None = None

    def choose(self, rng: random.Random, legal: Sequence[int]) -> int:
        options = list(legal)
        if self.pass_bias is not None and PASS_ID in options and len(options) > 1:
            if rng.random() < self.pass_bias:
                return PASS_ID
            options.remove(PASS_ID)
        if self.style == "uniform":
            return rng.choice(options)
        kinds: dict[str, list[int]] = {}
        for a in options:
            kinds.setdefault(ACTIONS[a].kind.value, []).append(a)
        return rng.choice(kinds[rng.choice(sorted(kinds))])


@dataclass(frozen=True)
class GameSpec:
    """One random game: rules, deal seed, policy, and optionally a forced first up-card (JKR, 2S, 2H)."""

    config: GameConfig
    seed: int
    policy: Policy = Policy()
    special_up: str | None = None

    def decks(self) -> list[list[int]] | None:
        if self.special_up is None:
            return None
        deck = list(deal_order(self.config, self.seed, 0))
        i, j = deck.index(Card.parse(self.special_up).id), 5 * self.config.num_players
        deck[i], deck[j] = deck[j], deck[i]
        return [deck]


def max_actions_per_hand(n: int) -> int:
    """2 blind decisions + 2 bidding rounds + discard + call + 5 tricks of n cards."""
    return 2 + 2 * n + 1 + 1 + 5 * n


Hook = Callable[[GameState], None]


def play_game(spec: GameSpec, *, on_decision: Hook | None = None, on_action: Hook | None = None) -> GameState:
    """Play ``spec`` to the end. ``on_decision`` sees the state before every action and once at the end."""
    state = GameState(spec.config, seed=spec.seed, decks=spec.decks())
    rng = random.Random(f"policy:{spec.seed}")
    bound = spec.config.max_hands * max_actions_per_hand(spec.config.num_players)
    steps = 0
    while not state.is_terminal():
        assert steps < bound, f"no end after {steps} actions (max_hands={spec.config.max_hands})"
        if on_decision is not None:
            on_decision(state)
        legal = state.legal_actions()
        assert legal, f"no legal action at {Phase(state.phase).name}"
        state.apply(spec.policy.choose(rng, legal))
        steps += 1
        if on_action is not None:
            on_action(state)
    if on_decision is not None:
        on_decision(state)
    assert state.current_player() == -1 and state.legal_actions() == []
    return state


@st.composite
def game_specs(draw: st.DrawFn, variants: Sequence[str] = ("call-ace", "five-handed", "classic")) -> GameSpec:
    variant = draw(st.sampled_from(variants))
    opts: dict[str, Any] = {
        "target": draw(st.sampled_from([10, 11, 10, 7, 5, 3, 1])),
        "max_hands": draw(st.sampled_from([1000, 1000, 12, 5, 2, 1])),
        "may_discard_upcard": draw(st.booleans()),
    }
    specials: list[str] = []
    if variant == "call-ace":
        n = opts["num_players"] = draw(st.integers(4, 7))
        opts["use_joker"] = draw(st.booleans())
        opts["allow_no_trump"] = False if opts["use_joker"] else draw(st.booleans())
        if n == 5:
            opts["deck_5p"] = draw(st.sampled_from(["28", "32"]))
        opts["stick_the_dealer"] = draw(st.booleans())
        opts["tiebreak"] = draw(st.sampled_from(["highest_total", "lowest_start"]))
        specials = ["JKR"] if opts["use_joker"] else []
    elif variant == "five-handed":
        n = 5
        opts["deck"] = draw(st.sampled_from(["30", "29"]))
        opts["call_may_be_trump"] = draw(st.booleans())
        opts["two_expose_mode"] = draw(st.sampled_from(["free_choice", "exposed_suit"]))
        opts["joker_names"] = draw(st.booleans())
        specials = list(TWOS)
    else:
        n = 4
        opts["stick_the_dealer"] = draw(st.booleans())
    opts["first_dealer"] = draw(st.integers(0, n - 1))
    config = GameConfig.create(variant, **opts)
    policy = Policy(
        style=draw(st.sampled_from(["uniform", "by_kind"])),
        pass_bias=draw(st.sampled_from([None, 0.8, 0.95])),
    )
    special = draw(st.sampled_from([None, *specials])) if specials else None
    return GameSpec(config, draw(st.integers(0, 2**32 - 1)), policy, special)


def _spec(
    variant: str, seed: int, policy: Policy = Policy(), special: str | None = None, **opts: Any
) -> GameSpec:
    return GameSpec(GameConfig.create(variant, **opts), seed, policy, special)


KIND = Policy("by_kind")
PASSY = Policy("by_kind", 0.95)
KEY_SPECS = [
    _spec("call-ace", 1, KIND, "JKR", num_players=4, use_joker=True, may_discard_upcard=False, target=6),
    _spec("call-ace", 2, PASSY, num_players=4, stick_the_dealer=True, target=4),
    _spec("call-ace", 3, PASSY, num_players=5, deck_5p="32", allow_no_trump=True, tiebreak="lowest_start"),
    _spec("call-ace", 4, KIND, "JKR", num_players=5, use_joker=True, target=5, first_dealer=3),
    _spec("call-ace", 5, KIND, "JKR", num_players=6, use_joker=True, deck_5p="28", target=4),
    _spec("call-ace", 6, PASSY, num_players=7, allow_no_trump=True, max_hands=3),
    _spec("call-ace", 7, Policy(), num_players=7, use_joker=True, may_discard_upcard=False, target=3),
    _spec("five-handed", 8, KIND, "2S", deck="29", call_may_be_trump=False, two_expose_mode="exposed_suit"),
    _spec("five-handed", 9, PASSY, "2H", may_discard_upcard=False, joker_names=True, target=5),
    _spec("five-handed", 10, KIND, "2H", two_expose_mode="exposed_suit", max_hands=2, first_dealer=4),
    _spec("classic", 11, KIND, stick_the_dealer=True, target=5),
    _spec("classic", 12, PASSY, may_discard_upcard=False, max_hands=4, first_dealer=2),
]


def with_key_examples(test: Callable[..., None]) -> Callable[..., None]:
    for spec in reversed(KEY_SPECS):
        test = example(spec=spec)(test)
    return test


def card_text(card: int) -> str:
    return str(CARDS[card])


def state_cards(state: GameState) -> list[int]:
    """Every card at its place: hands, kitty (incl. up-card and discard), current trick, completed tricks."""
    out = [c for hand in state.hands for c in hand]
    out += state.kitty
    out += state.trick
    out += [c for t in state.tricks for _, c in t.plays]
    return out


def played_cards(state: GameState) -> set[int]:
    return {c for t in state.tricks for _, c in t.plays} | set(state.trick)


def check_card_places(state: GameState) -> None:
    """Every card of the deck is in exactly one place, and the places hold what C-4/CA-2/CA-5 say."""
    cfg = state.config.to_dict()
    deck = expected_deck(cfg)
    where = [card_text(c) for c in state_cards(state)]
    dupes = [c for c, k in Counter(where).items() if k > 1]
    assert not dupes, f"cards in two places: {dupes}"
    assert sorted(where) == sorted(deck), (
        f"missing {set(deck) - set(where)}, foreign {set(where) - set(deck)}"
    )
    n, phase, dealer = state.n, Phase(state.phase), state.dealer
    if phase is Phase.GAME_OVER:
        return
    # CA-2.2: the kitty keeps its size through pick-up and discard; the dealer holds six only meanwhile.
    in_discard = phase is Phase.DISCARD
    assert len(state.kitty) == len(deck) - 5 * n - (1 if in_discard else 0)
    plays = Counter(seat for t in state.tricks for seat, _ in t.plays) + Counter(state.trick_seats)
    for seat in range(n):
        expected = 5 - plays[seat] + (1 if in_discard and seat == dealer else 0)
        assert len(state.hands[seat]) == expected, (
            f"seat {seat} holds {len(state.hands[seat])}, not {expected}"
        )
    up = state.up_card
    assert up in state.kitty or up in state.hands[dealer] or up in played_cards(state)
    if state.discard >= 0:
        assert state.discard in state.kitty
    if state.exposed >= 0 and state.exposed not in played_cards(state):
        assert state.exposed in state.hands[dealer] or state.exposed == state.discard


# ======================================================================================================
# 1. Random legal games end, follow the rules at every decision, and score and end as RULES.md says.
# ======================================================================================================


def expected_end(
    config: GameConfig, scores: Sequence[int], start: Sequence[int], hands_played: int
) -> tuple[Termination, list[int], list[int]] | None:
    """(termination, winners, ranks) if the game ends after a hand, else None: CA-8.1..8.4, FH-7.2/7.3,
    CL-2.5, and the rank rule of ``scoring.Outcome`` (winners 1, then 1 + seats ranked strictly ahead)."""
    n, target = config.num_players, config.target
    reached = [s for s in range(n) if scores[s] >= target]
    if reached:
        termination = Termination.TARGET_REACHED
        if config.variant == "five-handed" or config.tiebreak == "lowest_start":  # FH-7.2
            low = min(start[s] for s in reached)
            winners = [s for s in reached if start[s] == low]
        else:  # CA-8.2: highest total, equal highest totals draw (CL: the team's two seats)
            winners = [s for s in range(n) if scores[s] == max(scores)]
    elif hands_played >= config.max_hands:  # CA-8.4, FH-7.3
        termination = Termination.MAX_HANDS
        winners = [s for s in range(n) if scores[s] == max(scores)]
    else:
        return None
    ranks = [
        1
        if s in winners
        else len(winners) + 1 + sum(1 for t in range(n) if t not in winners and scores[t] > scores[s])
        for s in range(n)
    ]
    return termination, winners, ranks


def check_outcome(state: GameState) -> None:
    """The game ended at the first hand that allowed it, with the winners and ranks the rules give."""
    config, results, outcome = state.config, state.results, state.outcome
    assert outcome is not None and results
    assert outcome.hands_played == len(results)
    final = list(results[-1].scores_after)
    assert list(outcome.scores) == final == state.scores
    for k, result in enumerate(results[:-1]):
        assert expected_end(config, result.scores_after, result.scores_before, k + 1) is None, (
            f"the game should have ended after hand {k}"
        )
    last = results[-1]
    expected = expected_end(config, final, last.scores_before, len(results))
    assert expected is not None, "the game ended although nobody reached the target before max_hands"
    termination, winners, ranks = expected
    assert outcome.termination is termination
    if termination is Termination.TARGET_REACHED:
        assert last.outcome.value != "thrown_in", "a thrown-in hand ended the game (CA-8.3)"
        if config.variant == "classic":
            reached = {s % 2 for s in range(4) if final[s] >= config.target}
            assert len(reached) == 1, "both CL teams reached the target at once (CL-2.5)"
    assert list(outcome.winners) == winners
    assert list(outcome.ranks) == ranks


def check_results_sequence(state: GameState) -> None:
    """Dealer rotation (C-4.2), hand numbering, scores as the running sum of the hand points."""
    config = state.config
    scores = [0] * config.num_players
    for k, result in enumerate(state.results):
        assert result.hand_index == k
        assert result.dealer == (config.first_dealer + k) % config.num_players
        assert list(result.scores_before) == scores
        scores = [s + p for s, p in zip(scores, result.points, strict=True)]
        assert list(result.scores_after) == scores
        assert min(result.points) >= 0
        assert len(result.actions) <= max_actions_per_hand(config.num_players)
    assert scores == state.scores


def check_hand_result(result: HandResult, referee: Referee) -> None:
    """The engine's result of a hand against the referee that watched the same actions."""
    fields = referee.expected_fields()
    record = hand_record(result)
    for key, value in fields.items():
        assert record[key] == value, (
            f"hand {result.hand_index} {key}: engine {record[key]!r}, rules {value!r}"
        )
    # Scoring recomputed from the HandResult's own maker/partner/alone/tricks_won (CA-8, FH-7, CL-2.4).
    if result.maker >= 0:
        partner = result.partner if result.partner >= 0 else None
        making = result.tricks_won[result.maker] + (result.tricks_won[partner] if partner is not None else 0)
        assert result.making_tricks == making
        want = expected_points(
            result.config.variant.value,
            result.config.num_players,
            result.maker,
            partner,
            result.alone,
            making,
        )
        assert list(result.points) == want
    # Each trick: one card per active seat, clockwise from its leader (C-3.2, CL-2.3).
    active = [s for s in range(referee.n) if s != result.sitting_out]
    for trick in result.tricks:
        seats = [s for s, _ in trick.plays]
        assert sorted(seats) == active
        start = active.index(trick.leader)
        assert seats == active[start:] + active[:start]


@budget(300)
@given(spec=game_specs())
@with_key_examples
def test_random_games_follow_the_rules(spec: GameSpec) -> None:
    """Lock-step with the referee: same player to act and same legal set at every decision; every card in
    exactly one place; every hand's tricks, partner and points as the rules give them; a proper ending."""
    cfg = spec.config.to_dict()
    box: dict[str, Any] = {"hand": None, "results": 0}

    def on_decision(state: GameState) -> None:
        check_card_places(state)
        if state.is_terminal():
            return
        if box["hand"] != state.hand_index:
            box["referee"] = Referee(cfg, state.dealer, [card_text(c) for c in state.deck])
            box["hand"] = state.hand_index
        box["results"] = len(state.results)
        referee: Referee = box["referee"]
        assert state.current_player() == referee.to_act
        assert {action_to_string(a) for a in state.legal_actions()} == referee.legal()
        assert list(state.legal_actions()) == sorted(state.legal_actions())
        assert state.scores == list(state.scores_before), "scores moved inside a hand (CA-8.1)"

    def on_action(state: GameState) -> None:
        referee: Referee = box["referee"]
        if len(state.results) > box["results"]:  # this action ended the hand
            result = state.results[-1]
            seat, action = result.actions[-1]
            referee.apply(seat, action_to_string(action))
            assert referee.done, "the engine ended a hand the rules do not end"
            check_hand_result(result, referee)
        else:
            seat, action = state.actions[-1]
            referee.apply(seat, action_to_string(action))
            assert not referee.done, "the rules end the hand here, the engine does not"

    state = play_game(spec, on_decision=on_decision, on_action=on_action)
    check_results_sequence(state)
    check_outcome(state)


@budget(60)
@given(spec=game_specs())
@with_key_examples
def test_outcome_draw_flag_matches_the_winners(spec: GameSpec) -> None:
    """CA-8.2/FH-7.2/CA-8.4: several winners are a draw among them, except the two seats of one CL team."""
    outcome = play_game(spec).outcome
    assert outcome is not None
    check_draw_flag(spec.config, outcome)


def check_draw_flag(config: GameConfig, outcome: Outcome) -> None:
    if config.variant == "classic":
        draw = len({s % 2 for s in outcome.winners}) > 1
    else:
        draw = len(outcome.winners) > 1
    assert outcome.is_draw == draw, (
        f"winners {outcome.winners} in {config.variant}: is_draw={outcome.is_draw}"
    )
    assert outcome.to_dict()["draw"] == draw


@pytest.mark.parametrize(
    ("variant", "winners"), [("call-ace", (0, 2)), ("call-ace", (1, 3)), ("five-handed", (0, 4))]
)
def test_two_winners_of_equal_parity_are_a_draw(variant: str, winners: tuple[int, int]) -> None:
    """CA-8.2 (and FH-7.2): a tie between two players is a draw, whatever their seat numbers."""
    config = GameConfig.create(variant, num_players=5)
    scores = [10 if s in winners else 3 for s in range(5)]
    outcome = game_over(config, scores, [8 if s in winners else 3 for s in range(5)], 4)
    assert outcome is not None and outcome.winners == winners
    check_draw_flag(config, outcome)


def _scoring_cases() -> Iterator[tuple[GameConfig, int, int, bool]]:
    """Every (config, maker, partner, alone) the tables distinguish, for every player count."""
    for n in range(4, 8):
        config = GameConfig.create("call-ace", num_players=n)
        for maker in range(n):
            yield config, maker, -1, True  # declared alone
            yield config, maker, -1, False  # alone by absence (CA-6.5)
            for partner in set(range(n)) - {maker}:
                yield config, maker, partner, False
    fh = GameConfig.create("five-handed")
    for maker in range(5):
        yield fh, maker, -1, True  # announced ALONE
        yield fh, maker, -1, False  # called card in the kitty
        for partner in set(range(5)) - {maker}:
            yield fh, maker, partner, False
    cl = GameConfig.create("classic")
    for maker in range(4):
        yield cl, maker, (maker + 2) % 4, False
        yield cl, maker, -1, True


def test_hand_points_match_the_tables() -> None:
    """Every cell of CA-8 (N = 4..7), FH-7 and CL-2.4, for every maker seat and trick count."""
    for config, maker, partner, alone in _scoring_cases():
        for making in range(6):
            outcome, points = hand_points(config, maker, partner, alone, making)
            want = expected_points(
                config.variant.value,
                config.num_players,
                maker,
                None if partner < 0 else partner,
                alone,
                making,
            )
            assert list(points) == want, (
                config.variant.value,
                config.num_players,
                maker,
                partner,
                alone,
                making,
            )
            assert outcome.value == ("march" if making == 5 else "made" if making >= 3 else "euchred")


@st.composite
def end_cases(draw: st.DrawFn) -> tuple[GameConfig, list[int], list[int], int]:
    """A configuration and the scores before and after some hand: as real hands make them, only the
    making side or the defenders score (CL: one team, both seats alike)."""
    variant = draw(st.sampled_from(["call-ace", "five-handed", "classic"]))
    opts: dict[str, Any] = {"target": draw(st.integers(1, 12)), "max_hands": draw(st.integers(1, 6))}
    if variant == "call-ace":
        opts["num_players"] = draw(st.integers(4, 7))
        opts["tiebreak"] = draw(st.sampled_from(["highest_total", "lowest_start"]))
    config = GameConfig.create(variant, **opts)
    n = config.num_players
    if variant == "classic":
        team = draw(st.lists(st.integers(0, opts["target"] - 1), min_size=2, max_size=2))
        start = [team[s % 2] for s in range(4)]
        scorer, gain = draw(st.integers(0, 1)), draw(st.sampled_from([0, 1, 2, 4]))
        after = [v + (gain if s % 2 == scorer else 0) for s, v in enumerate(start)]
    else:
        start = draw(st.lists(st.integers(0, opts["target"] - 1), min_size=n, max_size=n))
        points = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3]), min_size=n, max_size=n))
        after = [a + b for a, b in zip(start, points, strict=True)]
    return config, start, after, draw(st.integers(1, opts["max_hands"]))


@budget(400)
@given(case=end_cases())
def test_game_over_follows_the_end_rules(case: tuple[GameConfig, list[int], list[int], int]) -> None:
    """CA-8.1..8.4, FH-7.2 (lowest start score among those who reached the target), FH-7.3, CL-2.5."""
    config, start, after, hands = case
    outcome = game_over(config, after, start, hands)
    expected = expected_end(config, after, start, hands)
    if expected is None:
        assert outcome is None
        return
    assert outcome is not None
    termination, winners, ranks = expected
    assert (outcome.termination, list(outcome.winners), list(outcome.ranks)) == (termination, winners, ranks)
    assert list(outcome.scores) == after and outcome.hands_played == hands


@pytest.mark.parametrize(
    "cfg",
    [
        *(
            {"variant": "call-ace", "num_players": n, "use_joker": j}
            for n in (4, 6, 7)
            for j in (False, True)
        ),
        *(
            {"variant": "call-ace", "num_players": 5, "deck_5p": d, "use_joker": j}
            for d in ("28", "32")
            for j in (False, True)
        ),
        {"variant": "five-handed", "deck": "30"},
        {"variant": "five-handed", "deck": "29"},
        {"variant": "classic"},
    ],
)
def test_deck_and_kitty_sizes(cfg: dict[str, Any]) -> None:
    """CA-2 table, FH-2.1/2.2, CL-2.1: the deck's cards and the kitty size after the deal."""
    config = GameConfig.from_dict(cfg)
    full = config.to_dict()
    deck = [card_text(c) for c in deck_of(config)]
    assert sorted(deck) == sorted(expected_deck(full))
    n = config.num_players
    if config.variant == "call-ace":
        size, kitty = CA_DECK[(n, full["deck_5p"] if n == 5 else "28")]
        size, kitty = size + config.use_joker, kitty + config.use_joker
    elif config.variant == "five-handed":
        size = 30 if config.deck == "30" else 29
        kitty = size - 25
    else:
        size, kitty = 24, 4
    assert len(deck) == size and len(deck) - 5 * n == kitty
    state = GameState(config, seed=1)
    assert len(state.kitty) == kitty and state.kitty[0] == state.up_card


# ======================================================================================================
# 2. Views: nothing a seat may not know (C-5).
# ======================================================================================================


_LEAVES = (int, str, float, bytes, type(None), GameConfig)  # enums are int/str subclasses
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(kind)
    if names is None:
        if dataclasses.is_dataclass(kind):
            names = tuple(f.name for f in dataclasses.fields(kind))
        else:
            names = ()
        _FIELD_NAMES[kind] = names
    return names


def iter_cards(obj: Any, path: str) -> Iterator[tuple[Any, Card]]:
    """Every ``Card`` reachable from ``obj`` (dataclasses, tuples incl. NamedTuples, lists, dicts, sets)
    with its path (``_render(path)`` spells it out). Anything else that is not a plain scalar is reported,
    so no new container type can hide a card from the walk."""
    stack: list[tuple[Any, Any]] = [(obj, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, Card):
            yield where, item
        elif isinstance(item, _LEAVES):
            continue
        elif isinstance(item, (tuple, list)):
            labels = getattr(item, "_fields", None) or range(len(item))
            stack.extend((x, (where, label)) for label, x in zip(labels, item, strict=True))
        elif isinstance(item, dict):
            stack.extend((k, (where, "<key>")) for k in item)
            stack.extend((v, (where, k)) for k, v in item.items())
        elif isinstance(item, (set, frozenset)):
            stack.extend((x, (where, "<member>")) for x in item)
        else:
            names = _field_names(type(item))
            assert names, f"cannot walk {type(item).__name__} at {_render(where)}"
            stack.extend((getattr(item, name), (where, name)) for name in names)


def _render(where: Any) -> str:
    parts: list[str] = []
    while isinstance(where, tuple):
        where, label = where
        parts.append(f"[{label}]" if isinstance(label, int) else f".{label}")
    return str(where) + "".join(reversed(parts))


def allowed_cards(state: GameState, seat: int) -> set[int]:
    """The cards ``seat`` may know now (C-5.2/C-5.3): its own hand (not at a blind decision, C-5.5), every
    played card, the up-card, the FH exposed card, the called card, and the dealer's own discard."""
    blind = seat == state.dealer and Phase(state.phase) in BLIND_PHASES
    allowed = (set() if blind else set(state.hands[seat])) | played_cards(state) | {state.up_card}
    allowed |= {c for c in (state.exposed, state.called) if c >= 0}
    if seat == state.dealer and state.discard >= 0:
        allowed.add(state.discard)
    return allowed


def check_view(state: GameState, seat: int) -> None:
    view = build_view(state, seat)
    phase, dealer = Phase(state.phase), state.dealer
    blind = seat == dealer and phase in BLIND_PHASES
    own = set() if blind else set(state.hands[seat])
    played = played_cards(state)
    allowed = allowed_cards(state, seat)
    # Walk everything but the legal actions, whose CALL cards are the complement of the own hand.
    for f in dataclasses.fields(view):
        if f.name == "legal_actions":
            continue
        for path, card in iter_cards(getattr(view, f.name), f"view.{f.name}"):
            assert card.id in allowed, f"seat {seat} at {phase.name} sees {card} via {_render(path)}"
    # C-5.5: the dealer's hand is hidden exactly at the blind decisions; everybody else always sees his.
    if blind:
        assert view.hand is None, f"dealer sees his hand at blind {phase.name}"
    else:
        assert view.hand is not None and [c.id for c in view.hand] == state.hands[seat]
    # Legal actions: only to the seat to act, and only cards it holds (PLAY, DISCARD) or lacks (CALL).
    if state.current_player() == seat:
        assert [a.id for a in view.legal_actions] == state.legal_actions()
    else:
        assert view.legal_actions == ()
    for action in view.legal_actions:
        if action.kind in (ActionKind.PLAY, ActionKind.DISCARD):
            assert action.card is not None and action.card.id in own
        elif action.kind is ActionKind.CALL:
            assert action.card is not None and action.card.id not in own
    # C-5.3: the discard is the dealer's secret, in the history and in the discard field.
    assert len(view.history) == len(state.actions)
    for (vseat, vaction), (sseat, saction) in zip(view.history, state.actions, strict=True):
        assert vseat == sseat
        if ACTIONS[saction].kind is ActionKind.DISCARD and seat != dealer:
            assert vaction is None, f"seat {seat} sees the dealer's {ACTIONS[saction]}"
        else:
            assert vaction == ACTIONS[saction]
    assert view.discard == (CARDS[state.discard] if seat == dealer and state.discard >= 0 else None)
    # C-5.4: the partner is known to its holder only, and to everybody once the called card is played.
    true_partner = state.partner if state.partner >= 0 else None
    revealed = state.called >= 0 and state.called in played
    if state.config.variant == "classic" or revealed:  # CL partners are fixed, hence public
        assert view.partner == true_partner
    else:
        assert view.partner == (seat if true_partner == seat else None), (
            f"seat {seat} learns partner {view.partner} before {CARDS[state.called]} is played"
        )
    assert state.partner_revealed == (state.called >= 0 and state.called in played)
    # C-5.2: the public facts are all there.
    assert view.dealer == dealer and view.to_act == state.current_player() and view.phase == phase
    assert view.up_card == CARDS[state.up_card]
    assert view.trump == (Trump(state.trump) if state.trump >= 0 else None)
    assert view.called_card == (CARDS[state.called] if state.called >= 0 else None)
    assert view.exposed_card == (CARDS[state.exposed] if state.exposed >= 0 else None)
    assert [[(p.seat, p.card.id) for p in t.plays] for t in view.tricks] == [
        list(t.plays) for t in state.tricks
    ]
    assert [t.winner for t in view.tricks] == [t.winner for t in state.tricks]


@budget(50)
@given(spec=game_specs())
@with_key_examples
def test_views_hide_what_a_seat_may_not_know(spec: GameSpec) -> None:
    """Every seat's view at every decision (and at the end), and every event told to it after each action
    (``arena.engine.news``), hold only cards that seat may know (C-5)."""

    box: dict[str, Any] = {}

    def on_decision(state: GameState) -> None:
        for seat in range(state.n):
            check_view(state, seat)
        if not state.is_terminal():
            box["mark"] = mark(state)
            box["allowed"] = [allowed_cards(state, seat) for seat in range(state.n)]
            box["results"] = len(state.results)
            if not state.actions and not state.results:
                for seat in range(state.n):
                    check_events(state, seat, opening_news(state, seat), box["allowed"][seat])

    def on_action(state: GameState) -> None:
        ended = len(state.results) > box["results"]
        for seat in range(state.n):
            allowed = box["allowed"][seat] | allowed_cards(state, seat)
            if ended:
                result = state.results[-1]
                allowed |= {c for t in result.tricks for _, c in t.plays} | {result.called, result.exposed}
            called = state.results[-1].called if ended else state.called
            check_events(state, seat, news_since(state, box["mark"], seat), allowed, called)

    play_game(spec, on_decision=on_decision, on_action=on_action)


def check_events(
    state: GameState, seat: int, events: Sequence[Any], allowed: set[int], called: int = -1
) -> None:
    """The events told to ``seat`` about one action name only cards it may know (C-5.2..C-5.5), and the
    partner is revealed exactly when the called card is played by another player than the maker (C-5.4)."""
    taken = [e for e in events if type(e).__name__ == "ActionTaken"]
    revealed = [e for e in events if type(e).__name__ == "PartnerRevealed"]
    if taken:
        action = taken[0].action
        plays_called = action is not None and action.kind is ActionKind.PLAY and action.card.id == called
        assert len(revealed) == (1 if plays_called else 0), f"seat {seat}: {events}"
        assert all(r.seat == taken[0].seat for r in revealed)
    for i, event in enumerate(events):
        for path, card in iter_cards(event, f"event[{i}]:{type(event).__name__}"):
            assert card.id in allowed, f"seat {seat} is told {card} via {_render(path)}"
        name = type(event).__name__
        if name == "ActionTaken" and event.action is not None and event.action.kind is ActionKind.DISCARD:
            # The discard's actor is the dealer; nobody else may see which card it was, not even the
            # publicly known up-card (C-5.3).
            assert seat == event.seat, f"seat {seat} is told the dealer's {event.action}"
        if name == "HandStarted":
            blind = seat == state.dealer and Phase(state.phase) in BLIND_PHASES
            assert (event.hand is None) == blind


# ======================================================================================================
# 3. Determinization: the true hidden cards rebuild the state; sampled ones respect the view.
# ======================================================================================================


def view_voids(view: View) -> dict[int, set[str]]:
    """Effective suits each seat has shown it lacks, worked out from the view's tricks (C-3.4)."""
    voids: dict[int, set[str]] = {s: set() for s in range(view.num_players)}
    if view.trump is None:
        return voids
    trump = view.trump.letter
    tricks = [*view.tricks, *([view.current_trick] if view.current_trick is not None else [])]
    for trick in tricks:
        if not trick.plays:
            continue
        led = eff(str(trick.plays[0].card), trump)
        for play in trick.plays[1:]:
            if eff(str(play.card), trump) != led:
                voids[play.seat].add(led)
    return voids


def public_actions(state: GameState, viewer: int) -> list[tuple[int, int | None]]:
    return [
        (s, None if ACTIONS[a].kind is ActionKind.DISCARD and viewer != state.dealer else a)
        for s, a in state.actions
    ]


def same_decision(a: GameState, b: GameState) -> None:
    assert Phase(a.phase) == Phase(b.phase)
    assert a.current_player() == b.current_player()
    assert (a.hand_index, a.dealer, a.scores, a.up_card) == (b.hand_index, b.dealer, b.scores, b.up_card)
    assert (a.trump, a.maker, a.called, a.exposed, a.alone, a.sitting_out) == (
        b.trump,
        b.maker,
        b.called,
        b.exposed,
        b.alone,
        b.sitting_out,
    )
    assert (a.trick, a.trick_seats, a.tricks) == (b.trick, b.trick_seats, b.tricks)


def check_determinization(state: GameState, seat: int, rng: random.Random) -> None:
    view = build_view(state, seat)
    # The true placement of the hidden cards gives back the true state.
    rebuilt = state_from_guess(view, hidden_holdings(state, view))
    same_decision(rebuilt, state)
    assert rebuilt.hands == state.hands
    assert sorted(rebuilt.kitty) == sorted(state.kitty)
    assert (rebuilt.discard, rebuilt.partner, rebuilt.actions) == (
        state.discard,
        state.partner,
        state.actions,
    )
    assert rebuilt.legal_actions() == state.legal_actions()
    # A sampled placement: same decision, same public history, the viewer's own cards, the view's voids.
    sampled = determinize(view, rng)
    same_decision(sampled, state)
    check_card_places(sampled)
    assert public_actions(sampled, seat) == public_actions(state, seat)
    blind = seat == state.dealer and Phase(state.phase) in BLIND_PHASES
    if not blind:
        assert sampled.hands[seat] == state.hands[seat]
        if state.current_player() == seat:
            assert sampled.legal_actions() == state.legal_actions()
    if seat == state.dealer:
        assert sampled.discard == state.discard
    assert [len(h) for h in sampled.hands] == [len(h) for h in state.hands]
    if view.partner is not None:
        assert sampled.partner == view.partner
    if state.maker >= 0 and state.called >= 0:
        assert state.called not in sampled.hands[state.maker]
    voids = view_voids(view)
    if view.trump is not None:
        trump = view.trump.letter
        for other in range(state.n):
            if other == seat and not blind:
                continue
            for card in sampled.hands[other]:
                assert eff(card_text(card), trump) not in voids[other], (
                    f"determinized seat {other} holds {card_text(card)} after showing void in {voids[other]}"
                )


@budget(45)
@given(spec=game_specs())
@with_key_examples
def test_determinization_is_consistent_with_the_view(spec: GameSpec) -> None:
    """At every decision, for the seat to act and one other seat: rebuild and sample (determinize.py)."""
    rng = random.Random(f"determinize:{spec.seed}")

    def on_decision(state: GameState) -> None:
        if state.is_terminal():
            return
        to_act = state.current_player()
        check_determinization(state, to_act, rng)
        other = rng.randrange(state.n)
        if other != to_act:
            check_determinization(state, other, rng)

    play_game(spec, on_decision=on_decision)


@budget(15)
@given(spec=game_specs(variants=("call-ace", "five-handed")), check_seed=st.integers(0, 2**32 - 1))
def test_determinization_from_every_seat_in_short_games(spec: GameSpec, check_seed: int) -> None:
    """Every seat at every decision of the first hand or two."""
    rng = random.Random(check_seed)
    spec = dataclasses.replace(
        spec, config=dataclasses.replace(spec.config, max_hands=min(2, spec.config.max_hands))
    )

    def on_decision(state: GameState) -> None:
        if not state.is_terminal():
            for seat in range(state.n):
                check_determinization(state, seat, rng)

    play_game(spec, on_decision=on_decision)


# ======================================================================================================
# 4. Hand records: JSON round trip, verify_record, JSON Schema, the referee; tampering is caught.
# ======================================================================================================


def load_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


_VALIDATOR: list[jsonschema.protocols.Validator] = []


def validator() -> jsonschema.protocols.Validator:
    if not _VALIDATOR:
        schema = load_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        _VALIDATOR.append(jsonschema.Draft202012Validator(schema))
    return _VALIDATOR[0]


def schema_errors(record: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator().iter_errors(record)]


def _other_seat(seat: int | None, n: int, rng: random.Random) -> int:
    return rng.choice([s for s in range(n) if s != seat])


def _tampers(record: dict[str, Any], rng: random.Random) -> Iterator[tuple[str, dict[str, Any]]]:
    """Copies of ``record`` with one field changed so that the hand no longer adds up."""
    n = record["num_players"]

    def changed(name: str, edit: Callable[[dict[str, Any]], None]) -> tuple[str, dict[str, Any]]:
        copy_ = copy.deepcopy(record)
        edit(copy_)
        assert copy_ != record, name
        return name, copy_

    seat = rng.randrange(n)
    yield changed("points", lambda r: r["points"].__setitem__(seat, r["points"][seat] + 1))
    yield changed("scores_after", lambda r: r["scores_after"].__setitem__(seat, r["scores_after"][seat] + 2))
    yield changed(
        "scores_before", lambda r: r["scores_before"].__setitem__(seat, r["scores_before"][seat] + 1)
    )
    yield changed("format", lambda r: r.__setitem__("format", "euchre-arena/hand-record/v0"))
    yield changed("num_players", lambda r: r.__setitem__("num_players", n + 1))
    yield changed("dealer", lambda r: r.__setitem__("dealer", (r["dealer"] + 1) % n))
    yield changed("up_card", lambda r: r.__setitem__("up_card", r["deck"][0]))

    def swap_deal(r: dict[str, Any]) -> None:  # deck positions 0-1 go to dealer+1, 2-3 to dealer+2 (C-4.4)
        r["deck"][0], r["deck"][2] = r["deck"][2], r["deck"][0]

    yield changed("deck", swap_deal)
    yield changed("dealt", lambda r: r["dealt"].__setitem__(0, list(reversed(r["dealt"][0]))))
    yield changed("actions(drop last)", lambda r: r["actions"].pop())
    yield changed(
        "actions(seat)", lambda r: r["actions"][0].__setitem__("seat", (r["actions"][0]["seat"] + 1) % n)
    )
    yield changed("maker", lambda r: r.__setitem__("maker", _other_seat(r["maker"], n, rng)))
    yield changed("partner", lambda r: r.__setitem__("partner", _other_seat(r["partner"], n, rng)))
    yield changed("alone", lambda r: r.__setitem__("alone", not r["alone"]))
    yield changed("making_tricks", lambda r: r.__setitem__("making_tricks", (r["making_tricks"] + 1) % 6))
    yield changed(
        "outcome", lambda r: r.__setitem__("outcome", "made" if r["outcome"] != "made" else "march")
    )
    yield changed("tricks_won", lambda r: r["tricks_won"].__setitem__(seat, r["tricks_won"][seat] + 1))
    if record["trump"] is not None:
        other_trump = rng.choice([t for t in ("C", "D", "H", "S") if t != record["trump"]])
        yield changed("trump", lambda r: r.__setitem__("trump", other_trump))
        k = rng.randrange(len(record["tricks"]))
        trick = record["tricks"][k]
        new_winner = rng.choice([p["seat"] for p in trick["plays"] if p["seat"] != trick["winner"]])
        yield changed("trick winner", lambda r: r["tricks"][k].__setitem__("winner", new_winner))
        new_leader = rng.choice([p["seat"] for p in trick["plays"] if p["seat"] != trick["leader"]])
        yield changed("trick leader", lambda r: r["tricks"][k].__setitem__("leader", new_leader))
        a, b = rng.sample(range(len(trick["plays"])), 2)

        def swap_cards(r: dict[str, Any]) -> None:
            plays = r["tricks"][k]["plays"]
            plays[a]["card"], plays[b]["card"] = plays[b]["card"], plays[a]["card"]

        yield changed("trick cards", swap_cards)
        yield changed(
            "called_card", lambda r: r.__setitem__("called_card", None if r["called_card"] else "AS")
        )
        yield changed(
            "sitting_out", lambda r: r.__setitem__("sitting_out", _other_seat(r["sitting_out"], n, rng))
        )
    if record["discard"] is not None:
        others = [c for c in record["deck"] if c != record["discard"]]
        yield changed("discard", lambda r: r.__setitem__("discard", rng.choice(others)))


def check_record(result: HandResult, rng: random.Random) -> None:
    record = hand_record(result)
    text = json.dumps(record)
    loaded = json.loads(text)
    assert loaded == record, "hand record does not survive JSON"
    assert verify_record(loaded) == []
    assert schema_errors(loaded) == []
    recheck_record(loaded)
    for name, tampered in _tampers(loaded, rng):
        assert verify_record(tampered) != [], f"verify_record misses a tampered {name}"
        with pytest.raises(AssertionError):
            recheck_record(tampered)


@budget(60)
@given(spec=game_specs())
@with_key_examples
def test_hand_records_verify_validate_and_catch_tampering(spec: GameSpec) -> None:
    state = play_game(spec)
    rng = random.Random(f"tamper:{spec.seed}")
    for result in state.results:
        check_record(result, rng)


def test_schema_is_strict() -> None:
    """The schema is a valid draft 2020-12 schema and rejects what ``hand_record`` never produces."""
    state = play_game(KEY_SPECS[0])
    record = json.loads(json.dumps(hand_record(state.results[0])))
    assert load_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema_errors(record) == []
    bad: list[Callable[[dict[str, Any]], None]] = [
        lambda r: r.__setitem__("extra", 1),
        lambda r: r.pop("partner"),
        lambda r: r.__setitem__("dealer", str(r["dealer"])),
        lambda r: r["deck"].__setitem__(0, "1S"),
        lambda r: r["deck"].__setitem__(1, r["deck"][0]),
        lambda r: r["actions"][0].__setitem__("action", "PLAY(ZZ)"),
        lambda r: r["actions"][0].__setitem__("action", "BID"),
        lambda r: r["actions"][0].__setitem__("seat", None),
        lambda r: r["config"].__setitem__("use_joker", "yes"),
        lambda r: r["config"].__setitem__("deck", "30"),
        lambda r: r.__setitem__("trump", "X"),
        lambda r: r.__setitem__("outcome", "won"),
        lambda r: r["tricks"][0].__setitem__("note", ""),
        lambda r: r.__setitem__("called_card", "AX"),
    ]
    for i, edit in enumerate(bad):
        tampered = copy.deepcopy(record)
        edit(tampered)
        assert schema_errors(tampered), f"schema accepts bad record #{i}"


def _doc_example() -> dict[str, Any]:
    text = RECORD_DOC_PATH.read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)
    assert blocks, "docs/hand-record.md has no ```json example"
    return json.loads(blocks[0])


def test_documented_example_record_is_sound() -> None:
    """The example in docs/hand-record.md is a real record: schema-valid, verified, and re-checkable."""
    record = _doc_example()
    assert schema_errors(record) == []
    assert verify_record(record) == []
    recheck_record(record)


# ======================================================================================================
# 5. The random games above do reach the situations the properties are about.
# ======================================================================================================


def test_key_games_reach_every_situation() -> None:
    """Guard against vacuous properties: the explicit examples cover the special paths of section 8."""
    seen: set[str] = set()
    for spec in (dataclasses.replace(key, seed=key.seed + 1000 * k) for key in KEY_SPECS for k in range(4)):
        state = play_game(spec)
        assert state.outcome is not None
        seen.add(f"end:{state.outcome.termination.value}")
        if len(state.outcome.winners) > 1:
            seen.add("several winners")
        for result in state.results:
            texts = [action_to_string(a) for _, a in result.actions]
            seen.add(f"outcome:{result.outcome.value}")
            seen.update(t.split("(")[0] for t in texts)
            if "NAME(NT)" in texts:
                seen.add("no-trumps")
            if result.called >= 0 and result.partner < 0:
                seen.add(f"{result.config.variant.value}:called card in kitty")
            if result.sitting_out >= 0:
                seen.add("CL sit-out")
    wanted = {
        "end:target_reached",
        "end:max_hands",
        "several winners",
        "outcome:thrown_in",
        "outcome:euchred",
        "outcome:made",
        "outcome:march",
        "JOKER_NAME",
        "BLIND_NAME",
        "EXPOSE",
        "EXPOSE_NAME",
        "NAME",
        "ORDER_UP",
        "TAKE_UP",
        "DISCARD",
        "ALONE",
        "CALL",
        "PARTNER",
        "no-trumps",
        "call-ace:called card in kitty",
        "five-handed:called card in kitty",
        "CL sit-out",
    }
    assert wanted <= seen, f"never reached: {sorted(wanted - seen)}"
