"""What many test files share: the repository's paths, the arena run as a real process, a small event of
in-process sample bots, and read-only looks into what an event stored.

Imported as ``tests.helpers`` (``tests`` is a package, so test files of the same name in two folders do
not clash); the skip markers for missing system tools are in ``tests/conftest.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
from grpc_reflection.v1alpha import reflection_pb2 as rpb

from arena.conductor.observer import EventObserver
from arena.players.process import ManagedBot
from arena.players.shim import group_members
from arena.results.store import Store

LEGALITY_DECISION_MS = 10_000
"""check-bot's deadline where a test checks what a sample bot plays, not how fast (the chaos bots check the
timeout verdict): every sample bot answers within about 100 ms on a quiet machine, so a long deadline costs
nothing there, and on a machine loaded past its cores (the suite beside two burners) a bot process starved
of CPU is not failed for the machine's load."""

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "tests" / "bots"
CHAOS = BOTS / "chaos.py"
KEY = "5eed" * 16
"""A fixed deal key, where two output directories must deal the same cards."""

NEEDS_PYSPIEL = "needs OpenSpiel's pyspiel (the open-spiel wheel of the [test] extra): pip install -e .[test]"
"""Why the OpenSpiel cross-checks skip. They are the only independent check of the classic rules, so
``.ci/run`` fails when a run skips them for this reason (pip installs the wheel there, no system tool)."""

SAMPLE_ENTRANTS: list[dict[str, str]] = [
    {"name": "rules", "class": "sample_bots.rules:RulesBot"},
    {"name": "random", "class": "sample_bots.random:RandomBot"},
    {"name": "random-b", "class": "sample_bots.random:RandomBot"},
    {"name": "rules-b", "class": "sample_bots.rules:RulesBot"},
    {"name": "random-c", "class": "sample_bots.random:RandomBot"},
    {"name": "random-d", "class": "sample_bots.random:RandomBot"},
]


def arena_cli(*args: str, timeout: float = 300, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``python -m arena ARGS`` from the repository's root, as a user types it; ``timeout`` only bounds a
    hang."""
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=kwargs.pop("cwd", ROOT),
        **kwargs,
    )


def event(tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    """A five-handed event of six in-process sample bots (quick, and no sandbox involved)."""
    data: dict[str, Any] = {
        "name": "t",
        "seed": 7,
        "rounds": 6,
        "concurrency": 1,
        "output": str(tmp_path / "out"),
        "game": {"variant": "five-handed"},
        "entrant": [dict(e) for e in SAMPLE_ENTRANTS],
    }
    data.update(overrides)
    return data


def write_toml(path: Path, data: dict[str, Any]) -> Path:
    """``data`` (top-level keys, tables, and the ``entrant`` list) as a TOML event file."""
    lines = [
        f"{key} = {json.dumps(value)}" for key, value in data.items() if not isinstance(value, dict | list)
    ]
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append(f"[{key}]")
            lines += [f"{k} = {json.dumps(v)}" for k, v in value.items()]
    for entrant in data.get("entrant", []):
        lines.append("[[entrant]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in entrant.items()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def board(directory: Path) -> list[dict[str, Any]]:
    """``arena leaderboard DIR --json``."""
    result = arena_cli("leaderboard", str(directory), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def stored_hands(directory: Path) -> list[tuple[str, int, str]]:
    """Every stored hand record, in a fixed order: two events are the same event when these are equal."""
    with Store.open(directory, create=False) as store:
        query = "SELECT game_id, hand_index, record FROM hands ORDER BY game_id, hand_index"
        return store.database.all(query)


def rows(directory: Path, sql: str) -> list[tuple[Any, ...]]:
    """``sql`` on ``DIR/event.sqlite``, read-only (a running arena may hold it)."""
    db = sqlite3.connect(f"file:{directory / 'event.sqlite'}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def stored_games(directory: Path) -> int:
    """Games stored so far, 0 while the database does not exist yet or is being created."""
    try:
        with Store.open(directory, create=False) as store:
            return len(store.finished())
    except Exception:
        return 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def children_of(pid: int) -> list[int]:
    """The live (not zombie) child processes of ``pid``."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid and stat[0] not in ("Z", "X"):
                out.append(int(entry))
    return out


def processes_mentioning(marker: str) -> list[int]:
    """Pids whose command line mentions ``marker`` (a test's own directory, say)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


# ---------------------------------------------------------------------- an event around one chaos bot

FOUR_SAMPLE_BOTS: list[dict[str, str]] = [
    {"name": "rules", "class": "sample_bots.rules:RulesBot"},
    {"name": "random", "class": "sample_bots.random:RandomBot"},
    {"name": "rules-b", "class": "sample_bots.rules:RulesBot"},
    {"name": "random-b", "class": "sample_bots.random:RandomBot"},
]


def chaos_entrant(mode: str, *extra: str, name: str = "chaos") -> dict[str, Any]:
    """A launched ``tests/bots/chaos.py`` in ``mode``: the misbehaviour under test."""
    return {"name": name, "command": f"{{python}} {CHAOS} --mode {mode} {' '.join(extra)} --port {{port}}"}


def chaos_event(tmp_path: Path, bot: dict[str, Any], **settings: Any) -> Path:
    """A five-handed event of ``bot`` and four in-process sample bots, written as ``tmp_path/event.toml``:
    every fault in its results is ``bot``'s."""
    data: dict[str, Any] = {
        "name": "h",
        "seed": 1,
        "rounds": 4,
        "concurrency": 4,
        "output": str(tmp_path / "out"),
        "sandbox": "none",  # the sandbox is not what these test (tests/sandbox/ does); a restart costs less
    } | settings
    faults = {"decision_ms": 300, "restart_backoff_s": 0.05, "restart_backoff_max_s": 0.2}
    faults |= data.pop("faults", {})
    data |= {"game": {"variant": "five-handed"}, "faults": faults, "entrant": [bot, *FOUR_SAMPLE_BOTS]}
    return write_toml(tmp_path / "event.toml", data)


# ---------------------------------------------------------------------- a Call-Ace event of noisy bots

LADDER: list[dict[str, str]] = [  # ε-noisy rules bots: known order, about 0.15 points per hand apart
    {"name": "eps00", "class": "sample_bots.noisy:Noisy00"},
    {"name": "eps40", "class": "sample_bots.noisy:Noisy40"},
    {"name": "eps100", "class": "sample_bots.noisy:Noisy100"},
]


def call_ace_event(tmp_path: Path, entrants: list[dict[str, Any]], **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "r",
        "seed": 11,
        "rounds": 4,
        "concurrency": 1,
        "output": str(tmp_path / "out"),
        "game": {"variant": "call-ace"},
        "entrant": entrants,
        # A fixed deal key: with the default random key every run deals other cards, and a test that
        # judges how the figures move with games must see the same games each time.
        "deal_key": "5e" * 32,
    }
    data.update(overrides)
    return data


# ---------------------------------------------------------------------- launched bots, always stopped


@contextlib.asynccontextmanager
async def launched(bot: ManagedBot) -> AsyncIterator[str]:
    """Start a managed bot process, yield its address, and always stop it (and check nothing is left)."""
    pgid: int | None = None
    try:
        address = await bot.start()
        pgid = bot.pid
        yield address
    finally:
        await bot.stop()
        if pgid is not None:
            assert group_members(pgid) == [], f"{bot.name} left processes behind"


def sample_bot(module: str, log_dir: Path) -> ManagedBot:
    """``python -m sample_bots.MODULE`` as a managed bot process, its log in ``log_dir``."""
    return ManagedBot(
        module, f"{{python}} -m sample_bots.{module} --port {{port}}", log_dir / f"{module}.log"
    )


def configured_bot(name: str, module: str, cls: str, settings: str, log_dir: Path) -> ManagedBot:
    """``sample_bots.MODULE``'s ``CLS.configured(SETTINGS)`` under the SDK's entry point, as a managed bot
    process: the real process and code path with a smaller search, so a check-bot run takes seconds."""
    code = f"from arena.bot import run; from sample_bots.{module} import {cls}; "
    code += f"run({cls}.configured({settings}))"
    return ManagedBot(name, ["{python}", "-c", code, "--port", "{port}"], log_dir / f"{name}.log")


def check_launched(bot: ManagedBot) -> Any:
    """``check_bot``'s report on ``bot``, launched and always stopped: one game per configuration at
    ``LEGALITY_DECISION_MS``, for tests of what a bot plays (not how fast)."""
    from arena.conductor.checkbot import check_bot

    async def main() -> Any:
        async with launched(bot) as address:
            return await check_bot(address, games_per_config=1, decision_ms=LEGALITY_DECISION_MS)

    return asyncio.run(main())


def played(tmp_path: Path, name: str, **overrides: Any) -> Path:
    """A finished two-round ``event`` in ``tmp_path/name`` (in-process bots: a second or two)."""
    from arena.conductor.tournament import run_event
    from arena.event.config import parse_config

    config = parse_config(event(tmp_path, rounds=2, output=str(tmp_path / name), **overrides))
    asyncio.run(run_event(config))
    return config.output


def file_mode(path: Path) -> int:
    """The permission bits of ``path``."""
    return stat.S_IMODE(path.stat().st_mode)


# ---------------------------------------------------------------------- a gRPC reflection client

V1_METHOD = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
V1ALPHA_METHOD = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"


async def ask(address: str, requests: list[rpb.ServerReflectionRequest], method: str = V1_METHOD) -> list:
    """Send ``requests`` on one reflection stream of ``method``; the responses, in order."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(
            method,
            request_serializer=rpb.ServerReflectionRequest.SerializeToString,
            response_deserializer=rpb.ServerReflectionResponse.FromString,
        )
        stream = call(iter(requests), timeout=10)
        return [response async for response in stream]


def list_services(address: str, method: str = V1_METHOD) -> set[str]:
    """The service names a reflection client of ``method``'s version gets from the server at ``address``."""
    (reply,) = asyncio.run(ask(address, [rpb.ServerReflectionRequest(list_services="")], method))
    assert reply.WhichOneof("message_response") == "list_services_response", reply
    return {s.name for s in reply.list_services_response.service}


class Watch(EventObserver):
    """An event's watcher for tests: keeps the notices, and calls ``on_game(game, record)`` for each stored
    game and ``on_extend(total, board)`` at each ``--until-settled`` extension, when given."""

    def __init__(self, on_game: Any = None, on_extend: Any = None) -> None:
        self.on_game = on_game
        self.on_extend = on_extend
        self.notices: list[str] = []

    def notice(self, line: str) -> None:
        self.notices.append(line)

    def game_finished(self, game: Any, record: Any) -> None:
        if self.on_game is not None:
            self.on_game(game, record)

    def extended(self, total: int, board: Any) -> None:
        if self.on_extend is not None:
            self.on_extend(total, board)


def poll(what: Callable[[], Any], timeout_s: float = 120) -> Any:
    """``what()`` once it is not None, asked every 0.2 s (a server process's state, read from outside)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if (found := what()) is not None:
            return found
        time.sleep(0.2)
    raise AssertionError(f"nothing after {timeout_s} s")
