"""``arena play``'s game without a browser: a scripted person clicks through whole games in every variant,
the stored record replays exactly through a fresh engine, the page is never sent a card the seat could not
know, a person who makes no move is replaced by the autopilot (and can take the seat back), and bad
settings are refused before anything runs."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.engine.config import GameConfig
from arena.engine.records import verify_record
from arena.errors import ConfigError, RuleError
from arena.play.session import PlaySession, PlaySettings, replay_game
from arena.results.queries import Queries

CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|JKR)\b")
VARIANTS = ["classic", "call-ace", "five-handed"]


def settings(tmp_path: Path, variant: str = "five-handed", **more: Any) -> PlaySettings:
    base: dict[str, Any] = {
        "variant": variant,
        "bots": ("rules", "random"),
        "seed": 11,
        "pace_s": 0.0,
        "deadline_s": 30.0,
        "output": tmp_path / "play",
    }
    base["bots"] = ("random",) if variant == "classic" else base["bots"] * 2
    return PlaySettings(**(base | more))


async def click_through(
    session: PlaySession, choose: Callable[[list[str]], str], seen: list[dict[str, Any]] | None = None
) -> None:
    """The person: at every decision of the seat, one legal action from the page's own state."""
    version = -1
    while session.stored is None and session.error is None:
        await session.wait_for(version, 5.0)
        state = session.state()
        version = state["version"]
        if seen is not None:
            seen.append(state)
        if state["decision"]:
            session.seat.submit(choose(state["view"]["legal_actions"]), state["decision"])


def known_to(seat: int, hand: dict[str, Any], k: int) -> set[str]:
    """The cards ``seat`` may have seen after ``k`` actions of ``hand`` (checked against the stored deal):
    its own, the up-card, every card played, called or exposed, and its own discard as dealer."""
    known = set(hand["dealt"][seat]) | {hand["up_card"]}
    for a in hand["actions"][:k]:
        text = a["action"]
        if text.startswith(("PLAY(", "CALL(")):
            known.add(text[5:-1])
        elif text == "EXPOSE":
            known.add(hand["exposed_card"])
        elif text.startswith("DISCARD(") and a["seat"] == seat:
            known.add(text[8:-1])
    return known


def known_at(state: dict[str, Any], hands: list[dict[str, Any]], seat: int) -> set[str]:
    """What the seat may know when the page was sent ``state``: the earlier hands whole, this one so far."""
    view = state["view"]
    if view is None:
        return set()
    now = view["hand_index"]
    known: set[str] = set()
    for hand in hands[:now]:
        known |= known_to(seat, hand, len(hand["actions"]))
    return known | known_to(seat, hands[now], len(view["history"]))


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_by_clicks_is_stored_and_replays_exactly(tmp_path: Path, variant: str) -> None:
    session = PlaySession(settings(tmp_path, variant, seat=1))
    seen: list[dict[str, Any]] = []

    async def main() -> None:
        await asyncio.gather(session.run(), click_through(session, lambda legal: legal[-1], seen))

    asyncio.run(main())
    assert session.stored == tmp_path / "play" / "001"
    with Queries.open(session.stored) as store:
        game = store.game("play")
        meta = store.meta("play")
    assert game is not None and game.seats[1] == "human"
    hands = [dict(h) for h in game.hands]
    config = GameConfig.from_dict(hands[0]["config"])
    assert config.variant.value == variant
    # the same deals from the stored seed, every stored action legal at its turn, the same hands to the end
    assert replay_game(config, game.seed, hands) == hands
    assert all(verify_record(h) == [] for h in hands)
    assert max(game.scores) >= config.target or game.termination != "target_reached"
    assert meta["handovers"] == [] and meta["seat"] == 1
    # the person's moves are in the record: every action of seat 1 was one the page offered and was clicked
    assert sum(1 for h in hands for a in h["actions"] if a["seat"] == 1) >= len(hands)
    # the page was never sent a card seat 1 could not know at that moment
    for state in seen:
        # the calls offered name cards the seat does not hold: they are actions, not cards it has seen
        view = state["view"] and {k: v for k, v in state["view"].items() if k != "legal_actions"}
        shown = set(CARD.findall(json.dumps(state | {"view": view})))
        allowed = known_at(state, hands, 1)
        assert shown <= allowed, (shown - allowed, state["view"] and state["view"]["phase"])
    assert seen[-1]["final"]["scores"] == list(game.scores)


def test_a_stored_game_that_was_tampered_with_does_not_replay(tmp_path: Path) -> None:
    """The replay check can fail: one action changed in a stored hand is caught."""
    session = PlaySession(settings(tmp_path, "classic"))

    async def main() -> None:
        await asyncio.gather(session.run(), click_through(session, lambda legal: legal[0]))

    asyncio.run(main())
    assert session.stored is not None
    with Queries.open(session.stored) as store:
        game = store.game("play")
    assert game is not None
    hands = [json.loads(json.dumps(h)) for h in game.hands]
    config = GameConfig.from_dict(hands[0]["config"])
    plays = [a for a in hands[0]["actions"] if a["action"].startswith("PLAY(")]
    plays[0]["action"], plays[1]["action"] = plays[1]["action"], plays[0]["action"]
    with pytest.raises(RuleError, match="not legal"):
        replay_game(config, game.seed, hands)


def test_the_stored_game_is_an_event_every_reader_reads(tmp_path: Path) -> None:
    """arena replay, arena games and the report read a played game like any other stored game."""
    from arena.report import build_report
    from arena.results.replay import render_game

    session = PlaySession(settings(tmp_path, "call-ace"))

    async def main() -> None:
        await asyncio.gather(session.run(), click_through(session, lambda legal: legal[0]))

    asyncio.run(main())
    assert session.stored is not None
    with Queries.open(session.stored) as store:
        game = store.game("play")
        listed = store.games_overview()
        entrants = store.entrants()
    assert game is not None and [g.game_id for g in listed] == ["play"] and not listed[0].rated
    assert [e.kind for e in entrants].count("person") == 1
    text = render_game(game)
    assert text.startswith("Game play") and "Seats: 0 human" in text and "Final (" in text
    built = build_report(session.stored, tmp_path / "report.html")
    assert built.games == 1


def test_no_move_within_the_deadline_hands_the_seat_to_the_autopilot(tmp_path: Path) -> None:
    """A tiny deadline (an option, not a wall-clock wait of seconds): the person never clicks, the autopilot
    plays every decision from the first one; the person takes the seat back and moves again."""
    session = PlaySession(settings(tmp_path, "five-handed", deadline_s=0.02))
    took_back: list[int] = []

    async def person() -> None:
        version = -1
        while session.stored is None:
            await session.wait_for(version, 5.0)
            state = session.state()
            version = state["version"]
            if state["away"] and not took_back and state["view"]["hand_index"] >= 1:
                session.seat.deadline_s = 30.0
                session.seat.take_back()
                took_back.append(state["view"]["hand_index"])
            elif took_back and state["decision"]:
                session.seat.submit(state["view"]["legal_actions"][0], state["decision"])

    async def main() -> None:
        await asyncio.gather(session.run(), person())

    asyncio.run(main())
    handovers = session.seat.handovers
    assert handovers and handovers[0].hand_index == 0
    assert len(handovers) == 1  # from the first decision on, until the person came back
    assert session.state()["away"] is False
    with Queries.open(session.stored or Path()) as store:
        meta = store.meta("play")
        game = store.game("play")
    assert meta["handovers"] == [{"decision": handovers[0].decision_id, "hand": 0}]
    assert meta["deadline_s"] == 0.02
    assert game is not None and game.faults == ()  # leaving is no fault of a bot's kind
    assert any("autopilot (rules) plays your seat" in line for line in session.seat.log)


def test_an_illegal_or_early_move_is_refused_with_its_reason(tmp_path: Path) -> None:
    from arena.play.seat import MoveRefused

    session = PlaySession(settings(tmp_path, "classic", seat=2))
    reasons: list[tuple[int, str]] = []

    async def person() -> None:
        try:
            session.seat.submit("PASS")
        except MoveRefused as refused:
            reasons.append((refused.status, refused.reason))
        version = -1
        while session.stored is None:
            await session.wait_for(version, 5.0)
            state = session.state()
            version = state["version"]
            if state["decision"]:
                legal = state["view"]["legal_actions"]
                for bad in ("PLAY(9Z)", "PLAY(JKR)" if "PLAY(JKR)" not in legal else "ORDER_UP"):
                    if bad in legal:
                        continue
                    try:
                        session.seat.submit(bad, state["decision"])
                    except MoveRefused as refused:
                        reasons.append((refused.status, refused.reason))
                session.seat.submit(legal[0], state["decision"])

    async def main() -> None:
        await asyncio.gather(session.run(), person())

    asyncio.run(main())
    assert reasons[0][0] == 409 and "not your turn" in reasons[0][1]
    assert {s for s, _ in reasons[1:]} == {400, 422}
    assert any(s == 422 and "legal now:" in r for s, r in reasons)
    assert any(s == 400 and "9Z" in r for s, r in reasons)


@pytest.mark.parametrize(
    ("more", "words"),
    [
        ({"bots": ("rules", "rules")}, "2 given for the 4 other seats"),
        ({"bots": ("nosuch",)}, "bot 'nosuch'"),
        ({"bots": ("no.such.module:Bot",)}, "cannot import"),
        ({"seat": 5}, "seats 0..4"),
        ({"deadline_s": 0}, "--deadline"),
        ({"name": "a b"}, "--name"),
        ({"variant": "six-handed"}, "six-handed"),
        ({"autopilot": "nosuch"}, "bot 'nosuch'"),
    ],
)
def test_bad_settings_are_refused_before_anything_runs(
    tmp_path: Path, more: dict[str, Any], words: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(words)):
        PlaySession(settings(tmp_path, **({"variant": "five-handed"} | more)))
    assert not (tmp_path / "play").exists()


def test_each_game_gets_its_own_directory(tmp_path: Path) -> None:
    first = PlaySession(settings(tmp_path, "classic"))
    (tmp_path / "play" / "001").mkdir(parents=True)
    second = PlaySession(settings(tmp_path, "classic"))
    assert first.directory.name == "001" and second.directory.name == "002"
