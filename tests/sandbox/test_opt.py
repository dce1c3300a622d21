"""Issue 42: a bot read an organiser's notes kept under ``/opt``, which every sandbox showed whole. Now
``/opt`` is not shown, but for the directory a bot's runtime lives in (``/opt/NAME`` holding the real path
of its program: a JDK, a Node build). A real sandboxed bot (tests/bots/attacker.py ``read_neighbours``)
tries a planted file and a planted directory in ``/opt``; a bot whose interpreter lives in ``/opt`` still
starts, and is shown that directory only. Root only (it plants files in ``/opt``).
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.players.process import ManagedBot, arena_python
from arena.sandbox import SandboxMode, SandboxSpec
from tests.helpers import ROOT

ATTACKER = ROOT / "tests" / "bots" / "attacker.py"


@pytest.fixture
def planted() -> Iterator[tuple[Path, Path, Path]]:
    """A note file, a directory with a note, and a runtime directory, all in /opt."""
    opt = Path("/opt")
    tag = secrets.token_hex(4)
    note, folder, runtime = (
        opt / f"euchre-notes-{tag}.txt",
        opt / f"euchre-notes-{tag}",
        opt / f"euchre-rt-{tag}",
    )
    try:
        opt.mkdir(exist_ok=True)
        note.write_text("alice bids too much")
        folder.mkdir()
        (folder / "notes.txt").write_text("bob never calls alone")
        (runtime / "bin").mkdir(parents=True)
    except OSError as exc:
        pytest.skip(f"cannot plant files in /opt here: {exc}")
    try:
        for path in (note, folder / "notes.txt"):
            path.chmod(0o644)
        (runtime / "bin" / "run").write_text(f'#!/bin/sh\nexec {arena_python()} "$@"\n')
        (runtime / "bin" / "run").chmod(0o755)
        (runtime / "README").write_text("the runtime's own file")
        (runtime / "README").chmod(0o644)
        yield note, folder / "notes.txt", runtime
    finally:
        note.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)


def _run(tmp_path: Path, command: str) -> str:
    bot = ManagedBot(
        "reader",
        command,
        tmp_path / "reader.log",
        startup_timeout_s=60,
        sandbox=SandboxSpec(mode=SandboxMode.BUBBLEWRAP),
    )

    async def scenario() -> None:
        try:
            await bot.start()
        finally:
            await bot.close()

    asyncio.run(scenario())
    return (tmp_path / "reader.log").read_text(errors="replace")


@pytest.mark.needs_bwrap
def test_a_bot_cannot_read_the_organiser_s_files_in_opt(
    tmp_path: Path, planted: tuple[Path, Path, Path]
) -> None:
    note, folder_note, _ = planted
    neighbours = f"{note},{folder_note}"
    log = _run(
        tmp_path,
        f"{{python}} {ATTACKER} --attacks read_neighbours --neighbours {neighbours} --address {{address}}",
    )
    assert "ATTACK read_neighbours FAILED" in log, log[-3000:]


@pytest.mark.needs_bwrap
def test_a_runtime_in_opt_is_shown_and_nothing_else_of_opt(
    tmp_path: Path, planted: tuple[Path, Path, Path]
) -> None:
    note, folder_note, runtime = planted
    program = runtime / "bin" / "run"
    attacks = f"--attacks read_neighbours --neighbours {note},{folder_note}"
    log = _run(tmp_path, f"{program} {ATTACKER} {attacks} --address {{address}}")
    assert "ATTACK read_neighbours FAILED" in log, log[-3000:]  # it started (from /opt) and read nothing
    log = _run(
        tmp_path,
        f"{program} {ATTACKER} --attacks read_neighbours --neighbours {runtime / 'README'} "
        "--address {address}",
    )
    assert "ATTACK read_neighbours SUCCEEDED" in log, log[-3000:]  # its own runtime's files it sees
