"""Issue 9: the sandbox's parts, each checked on its own (the hostile-entrant runs are in test_attacks.py)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import grpc
import pytest

from arena.bot import create_server
from arena.conductor.tournament import run_event
from arena.errors import BotCrashed, BotTimeout, ConfigError
from arena.event.config import parse_config
from arena.players import process
from arena.players.process import ManagedBot, free_port
from arena.sandbox import SandboxSpec, bwrap_argv
from arena.sandbox.bubblewrap import bot_view
from sample_bots.random import RandomBot
from tests.helpers import ROOT

RANDOM = "{python} -m sample_bots.random --address {address}"


def _event(tmp_path: Path, **top: object) -> dict[str, object]:
    return {
        "name": "s",
        "rounds": 1,
        "output": str(tmp_path / "out"),
        "game": {"variant": "five-handed"},
        "entrant": [{"name": f"r{i}", "command": RANDOM} for i in range(5)],
        **top,
    }


def test_the_bot_s_own_program_is_found_from_the_command(tmp_path: Path) -> None:
    """The program file alone (issue 23 hole 6), the package of a -m module, or the workdir."""
    script = tmp_path / "bots" / "mine.py"
    script.parent.mkdir()
    script.write_text("print()")
    assert bot_view([sys.executable, "-m", "sample_bots.rules"], None) == ROOT / "sample_bots"
    assert bot_view([sys.executable, str(script), "--port", "1"], None) == script
    assert bot_view(["node", str(script)], None) == script
    assert bot_view([str(script)], None) == script
    assert bot_view(["anything"], tmp_path) == tmp_path
    with pytest.raises(ConfigError, match="set workdir"):
        bot_view(["mystery-binary", "--port", "1"], None)
    with pytest.raises(ConfigError, match="is not a directory"):
        bot_view(["x"], tmp_path / "missing")


def test_output_config_and_other_bots_are_hidden_inside_a_bound_directory(tmp_path: Path) -> None:
    """A bot whose directory holds the results, the config or a rival's code still sees none of them."""
    (tmp_path / "results").mkdir()
    (tmp_path / "rival").mkdir()
    config = tmp_path / "cup.toml"
    config.write_text("")
    spec = SandboxSpec(hide=(tmp_path / "results", config, tmp_path / "rival"))
    argv = bwrap_argv(["bot"], spec, bot_path=tmp_path)
    text = " ".join(argv)
    assert f"--ro-bind {tmp_path} {tmp_path}" in text
    assert f"--tmpfs {tmp_path / 'results'}" in text and f"--tmpfs {tmp_path / 'rival'}" in text
    assert f"--ro-bind /dev/null {config}" in text
    assert text.index(f"--ro-bind {tmp_path} {tmp_path}") < text.index(f"--tmpfs {tmp_path / 'results'}")
    assert "--unshare-pid" in argv and "--unshare-net" in argv and "--clearenv" in argv


def test_launched_bots_are_refused_where_bubblewrap_cannot_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No silent downgrade: the organiser is told why and how, and nothing starts."""
    for where in ("arena.executor.local", "arena.sandbox"):  # the executor's check, and the one before it
        monkeypatch.setattr(f"{where}.bubblewrap_problem", lambda: "bwrap is not on PATH: install it")
    config = parse_config(_event(tmp_path))
    with pytest.raises(ConfigError, match=r"cannot sandbox r0, r1.*bwrap is not on PATH"):
        asyncio.run(run_event(config))
    summary = asyncio.run(run_event(config.with_overrides(sandbox="none")))
    assert summary.games_played_now == 1


def test_demo_runs_unsandboxed_and_says_so_where_bubblewrap_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    monkeypatch.setattr("arena.sandbox.bubblewrap_problem", lambda: "bwrap is not on PATH")
    result = CliRunner().invoke(app, ["demo", "--rounds", "1", "--output", str(tmp_path / "d"), "-q"])
    assert result.exit_code == 0, result.output
    assert "running the sample bots without a sandbox: bwrap is not on PATH" in result.output
    assert "sandbox: none for" in result.output


@pytest.mark.needs_bwrap
def test_the_environment_is_cleared_to_the_allow_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORGANISER_TOKEN", "s3cret")
    tmp_path.chmod(0o755)  # the bot's directory: readable by nobody, whom the sandbox runs it as under root
    show = "{python} -c 'import os; print(\"ENV\", sorted(os.environ.items()))' {address}"
    bot = ManagedBot(
        "env",
        show,
        tmp_path / "env.log",
        startup_timeout_s=3,
        sandbox=SandboxSpec(workdir=tmp_path, env={"BOT_MODE": "fast"}),
    )
    with pytest.raises((BotCrashed, BotTimeout)):
        asyncio.run(bot.start())
    asyncio.run(bot.close())
    line = next(x for x in (tmp_path / "env.log").read_text().splitlines() if x.startswith("ENV"))
    names = {k for k, _ in eval(line[4:])}  # our own bot's printout of a list of pairs
    assert "ORGANISER_TOKEN" not in names and "s3cret" not in line
    assert {"PATH", "LANG", "HOME", "BOT_MODE"} <= names
    assert ("HOME", "/tmp") in eval(line[4:])


def test_the_sdk_refuses_a_port_another_bot_holds() -> None:
    """SO_REUSEPORT is off: a second bot on a busy port fails instead of sharing it."""

    async def scenario() -> None:
        server, port, _ = await create_server(RandomBot, "127.0.0.1:0")
        try:
            with pytest.raises(OSError, match="cannot listen"):
                await create_server(RandomBot, f"127.0.0.1:{port}")
        finally:
            await server.stop(None)

    asyncio.run(scenario())


def test_a_port_answered_by_somebody_else_is_noticed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unsandboxed: a squatter serving health on the bot's port must not pass for the bot."""

    async def scenario() -> None:
        port = free_port()
        squatter = grpc.aio.server(options=[("grpc.so_reuseport", 1)])
        from grpc_health.v1 import health, health_pb2, health_pb2_grpc

        servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(servicer, squatter)
        squatter.add_insecure_port(f"127.0.0.1:{port}")
        await squatter.start()
        await servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        monkeypatch.setattr(process, "free_port", lambda host="127.0.0.1": port)
        bot = ManagedBot("honest", "{python} -c 'import time; time.sleep(60)' {port}", tmp_path / "h.log")
        try:
            with pytest.raises(BotCrashed, match="answered by another process"):
                await bot.start()
        finally:
            await bot.close()
            await squatter.stop(None)

    asyncio.run(scenario())


def test_a_bot_that_binds_late_is_seen_soon_after_it_serves(tmp_path: Path) -> None:
    """Issue 11 item 4: gRPC's growing reconnect back-off made a bot serving after 8 s miss a 10 s limit."""
    late = (
        "{python} -c 'import time; time.sleep(6); from arena.bot import run; "
        'from sample_bots.random import RandomBot; run(RandomBot, ["--port", "{port}"])\''
    )
    bot = ManagedBot("late", late, tmp_path / "late.log", startup_timeout_s=8.5)

    async def scenario() -> float:
        began = time.monotonic()
        try:
            await bot.start()
            return time.monotonic() - began
        finally:
            await bot.close()

    assert asyncio.run(scenario()) >= 6.0


@pytest.mark.needs_bwrap
def test_a_tcp_only_bot_is_reached_through_the_relay(tmp_path: Path) -> None:
    """A bot that only takes {port} still plays inside its own network namespace."""
    bot = ManagedBot(
        "tcp", "{python} -m sample_bots.random --port {port}", tmp_path / "t.log", sandbox=SandboxSpec()
    )

    async def scenario() -> str:
        try:
            address = await bot.start()
            from arena.players.connection import BotConnection

            connection = BotConnection(address)
            identity = await connection.hello()
            await connection.close()
            return f"{address} {identity.name}"
        finally:
            await bot.close()

    got = asyncio.run(scenario())
    assert got.startswith("unix:") and got.endswith(" random")
    assert "arena.sandbox.relay" in (tmp_path / "t.log").read_text()


@pytest.mark.needs_bwrap
@pytest.mark.needs_root  # only root hands the bot to a user of its own
def test_a_bot_program_its_user_cannot_read_is_refused_with_the_fix(tmp_path: Path) -> None:
    private = tmp_path / "bot"
    private.mkdir(mode=0o700)  # the folder does not matter: the sandbox shows the program file alone
    (private / "bot.py").write_text("print()")
    (private / "bot.py").chmod(0o600)
    with pytest.raises(ConfigError, match=r"cannot read .*chmod o\+r"):
        command = f"{{python}} {private / 'bot.py'} {{address}}"
        ManagedBot("p", command, tmp_path / "p.log", sandbox=SandboxSpec())
    with pytest.raises(ConfigError, match=r"cannot read .*chmod -R o\+rX"):
        ManagedBot("p", command, tmp_path / "p.log", sandbox=SandboxSpec(workdir=private))
