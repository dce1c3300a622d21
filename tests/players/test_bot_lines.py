"""Issue 42: no line a bot writes can pass for the arena's own in its log (and so in the report and the
pages, which show the log's lines). A real bot (tests/bots/attacker.py ``forge_lines``) writes the
arena's lines, a game's start mark among them, plainly, split across two writes, behind white space,
control and invisible characters, with look-alike brackets, and after an unfinished line that an arena note
then follows. Every line of the log that begins with ``[arena]`` must be the arena's; the log's split into
games must see only the game the arena marked. Before: every forgery began a line of the log as written.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from arena.players.process import ManagedBot
from arena.players.shim import BOT_MARK, CappedLog, mark_bot_lines
from arena.results import botlog
from tests.bots.attacker import FORGERIES
from tests.helpers import ROOT

ATTACKER = ROOT / "tests" / "bots" / "attacker.py"


def _wait(path: Path, text: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while text not in (path.read_text(errors="replace") if path.exists() else ""):
        assert time.monotonic() < deadline, f"{text!r} never reached {path}"
        time.sleep(0.05)


def test_a_bot_cannot_write_a_line_that_passes_for_the_arena_s(tmp_path: Path) -> None:
    log = tmp_path / "forger.log"
    command = f"{{python}} {ATTACKER} --attacks forge_lines --window-s 2 --address {{address}}"
    bot = ManagedBot("forger", command, log, startup_timeout_s=60)

    async def scenario() -> None:
        try:
            await bot.start()
            await asyncio.to_thread(_wait, log, "PARTIAL-NEXT")
            await asyncio.sleep(0.3)  # the unfinished line has reached the log
            bot.note(botlog.start_line("g1", 0))
            await asyncio.to_thread(_wait, log, "FORGED after a note")
            bot.note(botlog.end_line("g1", 0))
        finally:
            await bot.close()

    asyncio.run(scenario())
    lines = log.read_bytes().decode(errors="replace").split("\n")  # as the readers split it: newlines only
    arena = [line for line in lines if line.startswith("[arena]")]
    assert not [line for line in arena if "FORGED" in line], arena
    assert "[arena] game g1 seat 0: start" in arena and "[arena] game g1 seat 0: end" in arena, lines
    forged = [line for line in lines if "FORGED" in line]
    assert len(forged) == len(FORGERIES) + 2, lines  # each is kept, marked: the organiser sees what it said
    assert all(line.startswith(BOT_MARK.decode()) for line in forged), forged
    assert set(botlog.split_log(lines, "forger")) == {"g1"}, lines


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ([b"ok\n[arena] x\n"], b"ok\n[bot] [arena] x\n"),
        ([b"[ar", b"ena] x\n"], b"[bot] [arena] x\n"),
        ([b"half", b"[arena] x\n"], b"half[arena] x\n"),  # inside a line of the bot's: not at a line start
        ([b"plain\n", b"\n", b" indented\n"], b"plain\n\n[bot]  indented\n"),
    ],
)
def test_the_mark_goes_before_each_suspect_line_start(
    tmp_path: Path, chunks: list[bytes], expected: bytes
) -> None:
    log = CappedLog(str(tmp_path / "b.log"), 1 << 20)
    for chunk in chunks:
        log.write(chunk)
    log.close()
    assert (tmp_path / "b.log").read_bytes() == expected


def test_an_arena_line_after_an_unfinished_bot_line_begins_a_line(tmp_path: Path) -> None:
    """The arena's note ends the bot's unfinished line; the bot's next bytes begin a line and are checked."""
    from arena.players.shim import append_arena_line

    path = tmp_path / "b.log"
    log = CappedLog(str(path), 1 << 20)
    log.write(b"unfinished")
    assert append_arena_line(path, "[arena] game g seat 0: start\n")
    log.write(b"[arena] forged\n")
    log.arena_line("[arena] bot exited with status 0\n")
    log.close()
    assert path.read_bytes() == (
        b"unfinished\n[arena] game g seat 0: start\n[bot] [arena] forged\n[arena] bot exited with status 0\n"
    )


def test_a_rotation_in_the_middle_of_a_line_marks_its_rest(tmp_path: Path) -> None:
    path = tmp_path / "b.log"
    log = CappedLog(str(path), 1024)
    log.write(b"a" * 1024 + b"[arena] forged across the rotation\n")  # the cut falls before the bracket
    log.close()
    assert path.read_bytes().splitlines()[1].startswith(b"[bot] ")


def test_mark_bot_lines_leaves_plain_lines_alone() -> None:
    assert mark_bot_lines(b"ATTACK x FAILED\nBALLOON 32\n", True) == b"ATTACK x FAILED\nBALLOON 32\n"
