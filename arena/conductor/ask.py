"""``arena ask``: a stored decision sent again to a bot, and its export; where check-bot keeps its games.

The requests come from ``arena.conductor.requests`` (rebuilt from the stored deal through the table's own
view, event and encoding functions). Here they are taken out of an event's store or an export file, written
as an export (JSON: each message as protobuf's JSON mapping to read, and as the exact bytes to send), and
sent to a bot on one ``PlayGame`` stream, as the table sent them: a ``GameStart`` first (the game's own one
for a seat's first decision, else a resumed one, which tells the bot that it joins mid-game), then each
request, waiting for each reply. Nothing here judges the bot: the answers are reported with their time
and compared with what the game played.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format

from arena.conductor.requests import Decision, FaultLike, Timing, game_decisions
from arena.errors import ConfigError, FaultKind, NotationError, StoreError
from arena.players.connection import BotConnection, BotIdentity, error_from_status
from arena.players.process import ManagedBot, expand_command
from arena.protocol import convert
from arena.protocol.v1 import player_pb2 as pb
from arena.results.queries import Queries
from arena.results.record import Fault, GameRecord, ScheduledGame
from arena.results.store import Store
from arena.sandbox import SandboxMode, SandboxSpec, bubblewrap_problem
from arena.sandbox.bubblewrap import bot_view

EXPORT_FORMAT = "euchre-arena/decisions/v1"


# ------------------------------------------------------------------------------------------ choosing


def stored_decisions(directory: Path, game: str) -> tuple[str, list[Decision]]:
    """Every decision of one stored game of the event in ``directory`` (``game``: its id or its number in
    schedule order, as ``arena replay`` takes it).

    :raises ConfigError: no such game (the message lists some that were played).
    :raises StoreError: the event or the game's record is damaged.
    """
    with Queries.open(directory) as store:
        game_id = game
        if game.isdigit():
            ids = [g.game_id for g in store.schedule()]
            if not 0 <= int(game) < len(ids):
                raise ConfigError(f"game number {game} is out of range 0..{len(ids) - 1}")
            game_id = ids[int(game)]
        data = store.game(game_id)
        if data is None:
            played = store.game_ids()
            raise ConfigError(
                f"no finished game {game_id!r} in {str(directory)!r}; played: "
                f"{', '.join(played[:10]) or 'none'}{' ...' if len(played) > 10 else ''}"
            )
        timing = Timing.from_config(store.meta("config"))
        times = store.decision_times().get(game_id)
    return game_id, _counted(
        game_decisions(game_id, data.seats, data.hands, data.faults, timing, times), data.decisions
    )


def _counted(decisions: list[Decision], stored: int) -> list[Decision]:
    """``decisions``, once their number is the one the table counted (else the replay went astray)."""
    if len(decisions) != stored:
        game = decisions[0].game_id if decisions else "?"
        raise StoreError(
            f"game {game} replays to {len(decisions)} decisions, but {stored} were stored: the record is "
            "damaged"
        )
    return decisions


def choose(
    decisions: Sequence[Decision],
    game_id: str,
    decision_id: int | None,
    hand: int | None,
    whole_hand: bool,
) -> list[Decision]:
    """The decision asked for (or its seat's decisions of its hand, in order, with ``whole_hand``).
    ``hand`` counts from 1, as the listings and the replay show hands.

    :raises ConfigError: no decision given, or none of that number, or not in ``hand``.
    """
    if decision_id is None:
        faulted = [d for d in decisions if d.fault is not None]
        shown = ", ".join(
            f"{d.decision_id} ({d.fault.kind.value}, {d.entrant}, hand {d.hand_index + 1})"
            for d in faulted[:8]
            if d.fault is not None
        )
        raise ConfigError(
            f"give --decision N (game {game_id} has decisions 1..{len(decisions)}"
            + (f"; its faults were at {shown}{' ...' if len(faulted) > 8 else ''})" if faulted else ")")
        )
    found = [d for d in decisions if d.decision_id == decision_id]
    if not found:
        raise ConfigError(f"game {game_id} has no decision {decision_id} (it has 1..{len(decisions)})")
    asked = found[0]
    if hand is not None and asked.hand_index + 1 != hand:
        raise ConfigError(
            f"decision {decision_id} of game {game_id} is in hand {asked.hand_index + 1}, not {hand}"
        )
    if not whole_hand:
        return [asked]
    return [d for d in decisions if d.seat == asked.seat and d.hand_index == asked.hand_index]


# ------------------------------------------------------------------------------------------ the export


def _message_json(data: bytes) -> Any:
    """An ``ArenaMessage``'s bytes as protobuf's JSON mapping (field names as in the .proto)."""
    message = pb.ArenaMessage.FromString(data)
    return json.loads(json_format.MessageToJson(message, preserving_proto_field_name=True))


def export(decisions: Sequence[Decision]) -> dict[str, Any]:
    """The decisions as one JSON document (``docs/bot-authors.md`` describes it): what was asked and what
    was played; each message as protobuf's JSON mapping and as the exact bytes (base64)."""
    out = []
    for d in decisions:
        start = d.opening if d.opening is not None else d.game_start
        fault = d.fault
        out.append(
            {
                "game_id": d.game_id,
                "seat": d.seat,
                "entrant": d.entrant,
                "hand_index": d.hand_index,
                "decision_id": d.decision_id,
                "action_index": d.action_index,
                "kind": d.kind,
                "legal": list(d.legal),
                "played": d.played,
                "fault": None
                if fault is None
                else {"kind": fault.kind.value, "detail": fault.detail, "elapsed_ms": fault.elapsed_ms},
                "elapsed_ms": d.elapsed_ms,
                "exact": d.exact,
                "stream_opened": d.opening is not None,
                "game_start": _message_json(start),
                "game_start_base64": base64.b64encode(start).decode(),
                "request": _message_json(d.request),
                "request_base64": base64.b64encode(d.request).decode(),
            }
        )
    return {"format": EXPORT_FORMAT, "decisions": out}


@dataclass(frozen=True, slots=True)
class _ExportedFault:
    seat: int
    decision_id: int
    kind: FaultKind
    detail: str
    elapsed_ms: float
    substitute: str


def load_export(path: Path) -> list[Decision]:
    """The decisions of an export file (``export``'s form).

    :raises ConfigError: not readable, not JSON, or not an export of this format.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{str(path)!r} is not an export of arena ask (not JSON: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ConfigError(f"{str(path)!r} is not an export of arena ask (format {EXPORT_FORMAT!r})")
    out = []
    try:
        for e in data["decisions"]:
            f = e["fault"]
            fault = (
                None
                if f is None
                else _ExportedFault(
                    e["seat"],
                    e["decision_id"],
                    FaultKind(f["kind"]),
                    f["detail"],
                    f["elapsed_ms"],
                    e["played"],
                )
            )
            start = base64.b64decode(e["game_start_base64"], validate=True)
            request = base64.b64decode(e["request_base64"], validate=True)
            pb.ArenaMessage.FromString(start)
            pb.ArenaMessage.FromString(request)
            out.append(
                Decision(
                    game_id=str(e["game_id"]),
                    seat=int(e["seat"]),
                    entrant=str(e["entrant"]),
                    hand_index=int(e["hand_index"]),
                    decision_id=int(e["decision_id"]),
                    kind=str(e["kind"]),
                    legal=tuple(str(a) for a in e["legal"]),
                    played=str(e["played"]),
                    fault=fault,
                    elapsed_ms=e["elapsed_ms"],
                    time_ms=0,
                    bank_ms=0,
                    request=request,
                    opening=start if e["stream_opened"] else None,
                    game_start=start,
                    exact=bool(e["exact"]),
                    action_index=int(e.get("action_index", -1)),
                )
            )
    except Exception as exc:  # any damage to the file: say what, never a traceback
        raise ConfigError(f"{str(path)!r} is a damaged export of arena ask ({exc!r})") from None
    if not out:
        raise ConfigError(f"{str(path)!r} holds no decision")
    return out


def request_text(d: Decision) -> str:
    """The request in protobuf's text format (what a person reads)."""
    from google.protobuf import text_format

    return str(text_format.MessageToString(pb.ArenaMessage.FromString(d.request), as_one_line=False))


# ------------------------------------------------------------------------------------------ asking


@dataclass(frozen=True, slots=True)
class Answer:
    """A bot's reply to one request sent again: its action (as text) or what went wrong, and its time."""

    decision: Decision
    action: str | None
    elapsed_ms: float
    problem: str | None = None

    @property
    def legal(self) -> bool:
        return self.action is not None and self.action in self.decision.legal


async def ask_bot(
    address: str, decisions: Sequence[Decision], wait_s: float
) -> tuple[BotIdentity, list[Answer]]:
    """Say ``Hello`` to the bot at ``address``, then send ``decisions`` on one stream (a new one where the
    game opened a new one) and read each reply, waiting at most ``wait_s`` for each (0: for ever).

    :raises BotError: the handshake failed (the bot is not there, or answers with an error).
    """
    connection = BotConnection(address)
    try:
        identity = await connection.hello(timeout_s=wait_s or 3600.0)
        answers: list[Answer] = []
        call: grpc.aio.StreamStreamCall | None = None
        try:
            for i, d in enumerate(decisions):
                if call is None or (i and d.opening is not None):
                    if call is not None:
                        call.cancel()
                    call = connection.play_game()
                    await call.write(d.opening if d.opening is not None else d.game_start)
                answers.append(await _one(call, d, wait_s))
                if answers[-1].problem is not None and answers[-1].action is None:
                    call.cancel()
                    call = None  # a broken stream: the next request gets a new one, as the table does
            if call is not None:
                await call.done_writing()
        finally:
            if call is not None:
                call.cancel()
        return identity, answers
    finally:
        await connection.close()


async def _one(call: grpc.aio.StreamStreamCall, d: Decision, wait_s: float) -> Answer:
    sent = time.monotonic()
    try:
        await call.write(d.request)
        message = await asyncio.wait_for(call.read(), timeout=wait_s or None)
    except TimeoutError:
        return Answer(d, None, (time.monotonic() - sent) * 1000, f"no reply within {wait_s:g} s")
    except grpc.aio.AioRpcError as exc:
        error = error_from_status(exc, "the stream")
        return Answer(d, None, (time.monotonic() - sent) * 1000, f"{error.kind.value}: {error}")
    except (grpc.aio.UsageError, asyncio.InvalidStateError) as exc:
        return Answer(d, None, (time.monotonic() - sent) * 1000, f"the stream is closed: {exc!r}")
    elapsed = (time.monotonic() - sent) * 1000
    if message is grpc.aio.EOF:
        return Answer(d, None, elapsed, "the bot closed its stream")
    if message.WhichOneof("body") != "decision":
        return Answer(d, None, elapsed, f"the bot sent {message.WhichOneof('body')!r}, not a decision")
    try:
        action = str(convert.action_from_pb(message.decision.action))
    except NotationError as exc:
        return Answer(d, None, elapsed, f"a malformed action: {exc}")
    got = message.decision.decision_id
    problem = None if got == d.decision_id else f"it answered decision {got}, not {d.decision_id}"
    if problem is None and action not in d.legal:
        problem = f"{action} is not legal here"
    return Answer(d, action, elapsed, problem)


# ------------------------------------------------------------------------------------------ check-bot


def keep_games(
    directory: Path, games: Sequence[tuple[ScheduledGame, GameRecord]], timing: Timing, bot: str
) -> None:
    """Store check-bot's games as a small event in ``directory`` (``arena faults``, ``replay`` and ``ask``
    read it like any event's).

    :raises StoreError: the database cannot be written.
    """
    config = {
        "name": f"check-bot of {bot}",
        "faults": {
            "decision_ms": timing.decision_ms,
            "time_bank_ms": timing.time_bank_ms,
            "max_faults_per_game": timing.max_faults_per_game,
        },
    }
    names = sorted({name for game, _ in games for name in game.seats})
    with Store.open(directory) as store:
        store.begin_event(
            {"check-bot": bot}, config, [g for g, _ in games], [(n, "check", "", False) for n in names]
        )
        for game, record in games:
            store.save_record(game, record, rated=False, excluded=())


def decisions_of_record(record: GameRecord, timing: Timing) -> list[Decision]:
    """Every decision of a game in the form an executor returns it (check-bot's, a server's)."""
    hands = [json.loads(text) for _, text in record.hands]
    seats = tuple(record.result["seats"])
    faults: Sequence[FaultLike] = record.faults
    try:
        times = json.loads(record.decision_times)
    except ValueError:
        raise StoreError(f"game {record.game_id}: its decision times are damaged") from None
    return _counted(game_decisions(record.game_id, seats, hands, faults, timing, times), record.decisions)


def kept_record(record: GameRecord) -> dict[str, Any]:
    """A game in the form a server keeps a failed check's game (plain JSON): what ``decisions_of_kept``
    rebuilds its decisions from."""
    return {
        "game_id": record.game_id,
        "seats": list(record.result["seats"]),
        "hands": [text for _, text in record.hands],
        "faults": [f.to_dict() for f in record.faults],
        "decision_times": record.decision_times,
        "decisions": record.decisions,
    }


def decisions_of_kept(data: dict[str, Any], timing: Timing) -> list[Decision]:
    """Every decision of a game kept by ``kept_record``.

    :raises StoreError: the kept game is damaged (it does not replay, or not to its decisions' count).
    """
    try:
        game_id = str(data["game_id"])
        faults = [
            Fault(**{k: v for k, v in f.items() if k != "kind"}, kind=FaultKind(f["kind"]))
            for f in data["faults"]
        ]
        hands = [json.loads(text) for text in data["hands"]]
        times = json.loads(data["decision_times"])
        seats, stored = list(data["seats"]), int(data["decisions"])
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"a kept game of the check is damaged ({exc!r})") from None
    return _counted(game_decisions(game_id, seats, hands, faults, timing, times), stored)


def launch_spec(command: str, sandbox: SandboxMode, workdir: Path | None, where: Path) -> SandboxSpec:
    """How a bot given as a command is confined when check-bot or ``arena ask`` starts it from ``where``:
    the one rule for both, so that a decision asked again meets the bot exactly as its check did.

    :raises ConfigError: the sandbox cannot run here.
    """
    spec = SandboxSpec(mode=sandbox)
    if not spec.sandboxed:
        return spec
    if (problem := bubblewrap_problem()) is not None:
        raise ConfigError(f"cannot sandbox the bot: {problem}")
    view = bot_view(expand_command(command, 0), workdir, where)
    return SandboxSpec(mode=sandbox, workdir=workdir.resolve() if workdir else None, view=view)


@contextlib.asynccontextmanager
async def launched(
    command: str, sandbox: SandboxMode, workdir: Path | None, logs: Path
) -> AsyncIterator[ManagedBot]:
    """The bot of ``command`` started as check-bot and an event start it (its sandbox, ``{address}``, a
    log under ``logs``), stopped on the way out.

    :raises ConfigError: the sandbox cannot run here.
    :raises BotError: the bot did not start (the message has its log's last lines).
    """
    where = Path.cwd()
    spec = launch_spec(command, sandbox, workdir, where)
    bot = ManagedBot("ask", command, logs / "bot.log", startup_timeout_s=20.0, sandbox=spec, cwd=where)
    try:
        await bot.start()
        yield bot
    finally:
        await bot.close()
