"""``arena ask`` (arena.conductor.requests, arena.conductor.ask, arena.cli.ask): every decision of a stored
game rebuilt as the exact bytes its seat was sent, holding nothing of another seat's, and sent again to the
bot, which answers it as it did in the game.

The bytes are compared with what a recording bot received over gRPC from a real table (a stream broken by
the bot, the resumed one after it, a forfeit); the hidden cards are checked against the stored deal over
many games of every variant; a violation taken from a stored event and from check-bot's kept games is sent
to the same (deterministic) bot, launched and running, and gets the same reply.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.conductor import ask as asking
from arena.conductor import requests
from arena.conductor.checkbot import check_bot, check_command
from arena.engine.config import GameConfig
from arena.errors import ConfigError, StoreError
from arena.event.faults import FaultPolicy
from arena.event.table import TableSpec, play_table, record_of
from arena.players.connection import BotConnection
from arena.players.inprocess import InProcessPlayer
from arena.players.process import ManagedBot
from arena.players.remote import RemotePlayer
from arena.protocol.v1 import player_pb2 as pb
from arena.sandbox import SandboxMode
from sample_bots.random import RandomBot
from tests.helpers import CHAOS, arena_cli, chaos_entrant, chaos_event, launched

# ---------------------------------------------------------------------- a bot that records the raw bytes


class Recorder:
    """A bot served from raw bytes: it keeps every message of every stream exactly as it arrived, plays the
    first legal action, and breaks its stream (an error status) at the decisions counted in ``abort_at``
    (its own decisions, from 1, over the game)."""

    def __init__(self, abort_at: set[int]) -> None:
        self.streams: list[list[bytes]] = []
        self.abort_at = abort_at
        self.asked = 0

    def handler(self) -> grpc.GenericRpcHandler:
        async def hello(_raw: bytes, _context: Any) -> bytes:
            reply = pb.HelloResponse(
                protocol_version=1, name="recorder", variants=[pb.VARIANT_FIVE_HANDED, pb.VARIANT_CALL_ACE]
            )
            return reply.SerializeToString()

        async def play(messages: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
            stream: list[bytes] = []
            self.streams.append(stream)
            async for raw in messages:
                stream.append(raw)
                message = pb.ArenaMessage.FromString(raw)
                if message.WhichOneof("body") != "decision_request":
                    continue
                self.asked += 1
                if self.asked in self.abort_at:
                    await context.abort(grpc.StatusCode.INTERNAL, "the recorder breaks its stream")
                request = message.decision_request
                decision = pb.Decision(decision_id=request.decision_id, action=request.legal_actions[0])
                yield pb.BotMessage(decision=decision).SerializeToString()

        return grpc.method_handlers_generic_handler(
            "euchre.arena.v1.Player",
            {
                "Hello": grpc.unary_unary_rpc_method_handler(hello),
                "PlayGame": grpc.stream_stream_rpc_method_handler(play),
            },
        )


async def recorded_game(
    config: GameConfig, seat: int, abort_at: set[int], policy: FaultPolicy
) -> tuple[Recorder, Any]:
    """One game at a real table, ``seat`` played over gRPC by a ``Recorder``, the others in process."""
    recorder = Recorder(abort_at)
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((recorder.handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    connection = BotConnection(f"127.0.0.1:{port}")
    try:
        n = config.num_players
        names = tuple("recorder" if s == seat else f"random-{s}" for s in range(n))
        players = [
            RemotePlayer(connection, names[s]) if s == seat else InProcessPlayer(RandomBot, names[s])
            for s in range(n)
        ]
        result = await play_table(TableSpec("g1", config, 11, names, policy), players)
    finally:
        await connection.close()
        await server.stop(None)
    return recorder, result


@pytest.mark.parametrize(
    ("abort_at", "max_faults", "bank_ms"),
    [
        (set(), 3, 0),  # every message on one stream
        ({2}, 3, 0),  # a broken stream: the next decision comes on a resumed one, with the events since
        ({2, 4}, 1, 0),  # two broken streams forfeit the seat (max 1 fault): nothing more is asked of it
        ({3}, 3, 700),  # a time bank (never drawn on: every reply is in time), in the game start and requests
    ],
)
def test_the_rebuilt_messages_are_the_bytes_the_table_sent(
    abort_at: set[int], max_faults: int, bank_ms: int
) -> None:
    config = GameConfig.create("five-handed", target=5)
    policy = FaultPolicy(decision_ms=5000, max_faults_per_game=max_faults, time_bank_ms=bank_ms)
    recorder, result = asyncio.run(recorded_game(config, 2, abort_at, policy))
    assert [f.kind.value for f in result.faults] == ["error_status"] * len(abort_at)
    assert (2 in result.forfeited) == (len(abort_at) > max_faults)
    sent = [
        raw
        for stream in recorder.streams
        for raw in stream
        if pb.ArenaMessage.FromString(raw).WhichOneof("body") != "game_over"
    ]
    timing = requests.Timing(policy.decision_ms, policy.time_bank_ms, policy.max_faults_per_game)
    decisions = asking.decisions_of_record(record_of(result), timing)
    ours = [d for d in decisions if d.seat == 2]
    rebuilt = [part for d in ours for part in (d.opening, d.request) if part is not None]
    assert len(rebuilt) == len(sent) == len(ours) + len(recorder.streams)
    for i, (mine, theirs) in enumerate(zip(rebuilt, sent, strict=True)):
        assert mine == theirs, f"message {i} differs"
    assert [d.decision_id for d in decisions] == list(range(1, result.decisions + 1))


def test_a_damaged_record_is_refused_naming_the_game() -> None:
    config = GameConfig.create("call-ace")
    _, result = asyncio.run(recorded_game(config, 1, set(), FaultPolicy()))
    record = record_of(result)
    hands = [json.loads(text) for _, text in record.hands]
    hands[0]["actions"][3], hands[0]["actions"][4] = hands[0]["actions"][4], hands[0]["actions"][3]
    with pytest.raises(StoreError, match=r"game g1 cannot be replayed .*action 3 is seat"):
        requests.game_decisions("g1", record.result["seats"], hands, record.faults, requests.Timing())


# ---------------------------------------------------------------------- nothing of another seat's


def secrets_of(hand: dict[str, Any], seat: int, actions_before: int) -> set[str]:
    """The cards of this hand that ``seat`` could not know after the hand's first ``actions_before``
    actions: the deck but its own cards, the up-card and every card played, called or exposed so far."""
    known = set(hand["dealt"][seat]) | {hand["up_card"]}
    for entry in hand["actions"][:actions_before]:
        found = re.fullmatch(r"(?:PLAY|CALL)\((\w+)\)", entry["action"])
        if found:
            known.add(found.group(1))
        if entry["action"].startswith("EXPOSE") and hand["exposed_card"]:
            known.add(hand["exposed_card"])
    return set(hand["deck"]) - known


def cards_in(message: Any) -> set[str]:
    """Every string field anywhere in ``message`` (cards are strings; nothing else a view holds is)."""
    found: set[str] = set()
    for _, value in message.ListFields():
        repeated = not isinstance(value, str | bytes | int) and not hasattr(value, "ListFields")
        for v in value if repeated else [value]:
            if isinstance(v, str):
                found.add(v)
            elif hasattr(v, "ListFields"):
                found |= cards_in(v)
    return found


def leaks(decisions: list[requests.Decision], hands: list[dict[str, Any]]) -> list[str]:
    """Each decision whose request holds a card its seat could not see (checked against the stored deal)."""
    found = []
    offsets, at = [], 0
    for hand in hands:
        offsets.append(at)
        at += len(hand["actions"])
    previous_hand: dict[int, int] = {}
    for d in decisions:
        hand = hands[d.hand_index]
        secret = secrets_of(hand, d.seat, d.decision_id - 1 - offsets[d.hand_index])
        message = pb.ArenaMessage.FromString(d.request)
        seen = cards_in(message.decision_request.view)
        if previous_hand.get(d.seat) == d.hand_index:  # events of this hand only (cards repeat each hand)
            for event in message.events:
                seen |= cards_in(event)
        previous_hand[d.seat] = d.hand_index
        hand_cards = set(message.decision_request.view.hand)
        if seen & secret or not hand_cards <= set(hand["dealt"][d.seat]) | {hand["up_card"]}:
            found.append(f"decision {d.decision_id} (seat {d.seat}): {sorted(seen & secret)}")
    return found


def played_decisions(variant: str, options: dict[str, Any], seed: int) -> tuple[list[Any], list[Any]]:
    config = GameConfig.create(variant, **options)
    names = tuple(f"random-{s}" for s in range(config.num_players))

    async def game() -> Any:
        players = [InProcessPlayer(RandomBot, n) for n in names]
        return await play_table(TableSpec(f"p{seed}", config, seed, names), players)

    result = asyncio.run(game())
    assert not result.faults
    record = record_of(result)
    return asking.decisions_of_record(record, requests.Timing()), [json.loads(t) for _, t in record.hands]


VARIANTS = [
    ("five-handed", {"target": 5}),
    ("call-ace", {"num_players": 7, "use_joker": True, "target": 5}),
    ("call-ace", {"num_players": 4, "allow_no_trump": True, "stick_the_dealer": True}),
    ("classic", {"target": 5}),
]


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VARIANTS), st.integers(min_value=0, max_value=2**31))
def test_no_request_holds_a_card_its_seat_could_not_see(variant: Any, seed: int) -> None:
    name, options = variant
    decisions, hands = played_decisions(name, options, seed)
    assert decisions
    assert leaks(decisions, hands) == []


def test_the_leak_check_bites(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request built from another seat's view is caught (what the property above looks for exists)."""
    real = requests.build_view
    monkeypatch.setattr(requests, "build_view", lambda state, seat: real(state, (seat + 1) % state.n))
    decisions, hands = played_decisions("five-handed", {"target": 5}, 3)
    assert leaks(decisions, hands)


# ---------------------------------------------------------------------- a violation, asked again


def chaos(mode: str, log_dir: Path) -> ManagedBot:
    return ManagedBot(
        f"chaos-{mode}", f"{{python}} {CHAOS} --mode {mode} --port {{port}}", log_dir / "bot.log"
    )


def illegal_faults(text: str) -> list[dict[str, Any]]:
    faults = json.loads(text)
    assert faults and all(f["kind"] == "illegal_action" for f in faults)
    return faults


def played_by_bot(fault: dict[str, Any]) -> str:
    """What the bot played in the game (the detail names it; the stored action is the substitute)."""
    found = re.search(r"played (PLAY\(\w+\))", fault["detail"])
    assert found is not None, fault
    return found.group(1)


@pytest.fixture(scope="module")
def event_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A stored event where the chaos bot in ``illegal`` mode (its reply a function of the request alone)
    broke the rules."""
    tmp = tmp_path_factory.mktemp("ask-event")
    config = chaos_event(tmp, chaos_entrant("illegal"), rounds=1, faults={"decision_ms": 2000})
    run = arena_cli("run", str(config), timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    yield tmp / "out"


def test_a_stored_violation_sent_again_gets_the_same_reply(event_dir: Path, tmp_path: Path) -> None:
    faults = illegal_faults(arena_cli("faults", str(event_dir), "--json").stdout)
    fault = faults[0]
    command = f"{sys.executable} {CHAOS} --mode illegal --port {{port}}"
    done = arena_cli(
        "ask", str(event_dir), fault["game_id"], "--decision", str(fault["decision_id"]),
        "--hand", str(fault["hand_index"] + 1), "--command", command, "--sandbox", "none",
        "--output", str(tmp_path / "asked.json"),
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr  # the bot's reply is illegal, again
    text = " ".join(done.stdout.split())
    assert f"now: {played_by_bot(fault)} in " in text and "is not legal here" in text, text
    assert f"decision {fault['decision_id']}: seat {fault['seat']} (chaos)" in text

    # The export, sent to the same bot running on its own, gets the same reply too.
    async def again() -> Any:
        async with launched(chaos("illegal", tmp_path)) as address:
            return await asyncio.to_thread(
                arena_cli, "ask", str(tmp_path / "asked.json"), "--address", address, "--json"
            )

    done = asyncio.run(again())
    assert done.returncode == 1, done.stdout + done.stderr
    exported = json.loads(done.stdout)["decisions"]
    assert [e["decision_id"] for e in exported] == [fault["decision_id"]]
    assert exported[0]["answer"]["action"] == played_by_bot(fault)
    assert exported[0]["fault"]["kind"] == "illegal_action"


def test_check_bot_keeps_its_games_and_a_violation_there_gets_the_same_reply(tmp_path: Path) -> None:
    async def main() -> Any:
        async with launched(chaos("illegal", tmp_path)) as address:
            report = await check_bot(address, decision_ms=2000, keep=True)
            assert report.kept, report.render()
            violation = report.violations[0]
            found = re.search(r"in game (\S+), hand (\d+), decision (\d+) .* played (PLAY\(\w+\))", violation)
            assert found is not None, violation
            game, hand, decision, played = found.groups()
            _, decisions = asking.stored_decisions(Path(report.kept), game)
            # the hand as check-bot prints it is the hand `arena ask --hand` takes (both count from 1)
            chosen = asking.choose(decisions, game, int(decision), int(hand), whole_hand=False)
            _, answers = await asking.ask_bot(address, chosen, wait_s=30)
            return report, played, answers

    report, played, answers = asyncio.run(main())
    assert [a.action for a in answers] == [played]
    assert "is not legal" in (answers[0].problem or "")
    assert f"the games are kept in {report.kept}" in " ".join(" ".join(report.tail()).split())
    # `arena games` lists them as check games, never rated: not as void games (a forfeit's word)
    listed = arena_cli("games", report.kept)
    assert listed.returncode == 0 and "not rated" in listed.stdout, listed.stdout + listed.stderr
    assert "void" not in listed.stdout, listed.stdout


def test_a_whole_hand_goes_on_one_stream_in_order(event_dir: Path, tmp_path: Path) -> None:
    fault = illegal_faults(arena_cli("faults", str(event_dir), "--json").stdout)[0]
    game, decision = fault["game_id"], fault["decision_id"]

    async def main() -> Any:
        async with launched(chaos("fine", tmp_path)) as address:
            _, decisions = asking.stored_decisions(event_dir, game)
            chosen = asking.choose(decisions, game, decision, None, whole_hand=True)
            return chosen, await asking.ask_bot(address, chosen, wait_s=30)

    chosen, (identity, answers) = asyncio.run(main())
    assert identity.name == "chaos"
    assert len(chosen) > 1 and {d.seat for d in chosen} == {fault["seat"]}
    assert {d.hand_index for d in chosen} == {fault["hand_index"]}
    assert [a.decision.decision_id for a in answers] == sorted(d.decision_id for d in chosen)
    assert all(a.problem is None and a.legal for a in answers), answers


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuch", "-d", "3"], "error: no finished game 'nosuch' in"),
        (["0", "-d", "99999"], "error: game r001-t01 has no decision 99999 (it has 1.."),
        (["0"], "error: give --decision N (game r001-t01 has decisions 1.."),
        (["0", "-d", "1", "--hand", "9"], "error: decision 1 of game r001-t01 is in hand 1, not 9"),
        (["7"], "error: game number 7 is out of range 0..0"),
        ([], "error: give the game (its id or number"),
        (["0", "-d", "1", "--address", "x:1", "--command", "y"], "error: give --address or --command"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(event_dir: Path, args: list[str], message: str) -> None:
    done = arena_cli("ask", str(event_dir), *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "content", ["not json", '{"format": "other"}', '{"format": "%s", "decisions": [{}]}']
)
def test_a_bad_export_file_is_one_line_and_exit_2(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content.replace("%s", asking.EXPORT_FORMAT))
    done = arena_cli("ask", str(path))
    assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, (
        done.stderr
    )


def test_no_such_directory_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = arena_cli("ask", str(tmp_path / "none"), "0", "-d", "1")
    assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, (
        done.stderr
    )


def test_the_replay_marks_the_play_a_fault_happened_at(event_dir: Path) -> None:
    faults = illegal_faults(arena_cli("faults", str(event_dir), "--json").stdout)
    replay = arena_cli("replay", str(event_dir), faults[0]["game_id"])
    assert replay.returncode == 0, replay.stderr
    text = " ".join(replay.stdout.split())
    for fault in faults:
        card = fault["substitute"][len("PLAY(") : -1]
        assert f"chaos {card} (fault at decision {fault['decision_id']})" in text, text


def test_check_bot_and_ask_refuse_to_launch_unsandboxed_where_bubblewrap_cannot_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No silent downgrade for either command: one line that says why, and --sandbox none still launches."""
    monkeypatch.setattr("arena.conductor.ask.bubblewrap_problem", lambda: "bwrap is not on PATH")
    with pytest.raises(ConfigError, match=r"^cannot sandbox the bot: bwrap is not on PATH$"):
        asking.launch_spec("python bot.py --address {address}", SandboxMode.BUBBLEWRAP, None, tmp_path)
    spec = asking.launch_spec("python bot.py --address {address}", SandboxMode.NONE, None, tmp_path)
    assert not spec.sandboxed
    with pytest.raises(ConfigError, match="cannot sandbox the bot"):
        asyncio.run(check_command("python bot.py --address {address}"))
