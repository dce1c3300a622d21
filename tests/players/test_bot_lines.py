"""Issue 42: no line a bot writes can pass for the arena's own in its log (and so in the report and the
pages, which show the log's lines). A real bot (tests/bots/attacker.py ``forge_lines``) writes the
arena's lines, a game's start mark among them, plainly, split across two writes, behind white space,
control and invisible characters, with look-alike brackets, and after an unfinished line that an arena note
then follows. Every line of the log that begins with ``[arena]`` must be the arena's; the log's split into
games must see only the game the arena marked. Before: every forgery began a line of the log as written.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

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


SAYER = """
import os, sys, threading, time
from arena.bot import run
from sample_bots.random import RandomBot

def say() -> None:
    n = 0
    while True:
        ask = os.path.join(sys.argv[1], f"say{n}")
        if os.path.exists(ask):
            print(open(ask).read(), flush=True)  # in the shim's pipe once print returns
            open(ask + ".done", "w").close()
            n += 1
        time.sleep(0.01)

threading.Thread(target=say, daemon=True).start()
run(RandomBot, sys.argv[2:])
"""


class Sayer:
    """A launched bot (``SAYER``) that writes a line when the test asks, and whose shim the test can stop."""

    def __init__(self, tmp_path: Path) -> None:
        script = tmp_path / "sayer.py"
        script.write_text(SAYER)
        self.dir = tmp_path
        self.log = tmp_path / "sayer.log"
        command = f"{{python}} {script} {tmp_path} --address {{address}}"
        self.bot = ManagedBot("sayer", command, self.log, startup_timeout_s=60)
        self.said = 0

    async def say(self, text: str) -> None:
        """Return once the bot has written ``text`` (it is in the shim's pipe, maybe not yet in the log)."""
        n, self.said = self.said, self.said + 1
        (self.dir / f"say{n}").write_text(text)
        deadline = time.monotonic() + 60
        while not (self.dir / f"say{n}.done").exists():
            assert time.monotonic() < deadline, f"the bot never said {text!r}"
            await asyncio.sleep(0.01)

    def shim(self, sig: int) -> None:
        """Signal the shim alone (SIGSTOP, SIGCONT): its bot runs on."""
        assert self.bot.pid is not None
        os.kill(self.bot.pid, sig)


def test_a_stopped_shim_still_puts_each_line_in_the_game_it_was_written_in(tmp_path: Path) -> None:
    """The case a busy machine makes (CI once starved a shim for a whole game, and that game's lines landed
    in the next one's span): the bot's shim is stopped (SIGSTOP) while the bot writes in two games and the
    arena marks both, then let go. Each line must be in its own game: the shim writes the marks itself, the
    end mark after the output already in its pipe. Before, the arena wrote the marks into the file
    directly, ahead of the lines the stopped shim had not copied: game one had no line."""
    sayer = Sayer(tmp_path)
    bot = sayer.bot

    async def scenario() -> None:
        try:
            await bot.start()
            sayer.shim(signal.SIGSTOP)
            try:
                bot.note(botlog.start_line("g1", 0))
                await sayer.say("LINE OF GAME ONE")
                bot.note(botlog.end_line("g1", 0))
                bot.note(botlog.start_line("g2", 0))
                await sayer.say("LINE OF GAME TWO")
                bot.note(botlog.end_line("g2", 0))
            finally:
                sayer.shim(signal.SIGCONT)
            await asyncio.to_thread(_wait, sayer.log, "[arena] game g2 seat 0: end")
        finally:
            await bot.close()

    asyncio.run(scenario())
    lines = sayer.log.read_bytes().decode(errors="replace").split("\n")
    games = botlog.split_log(lines, "sayer")
    assert [line.text for line in games["g1"]] == ["LINE OF GAME ONE"], lines
    assert [line.text for line in games["g2"]] == ["LINE OF GAME TWO"], lines


def test_settle_returns_once_the_log_holds_what_the_bot_wrote_and_never_waits_past_its_bound(
    tmp_path: Path,
) -> None:
    """The competition server marks a game's span of a bot's log by the file's size as the game ends
    (``arena.server.ladder.gamelogs``), so the size must hold what the bot wrote during the game however
    far behind its shim is. With the shim stopped (SIGSTOP) a settle gives up within its bound and says so;
    let go, the next settle returns once the line the bot wrote is in the file, before it."""
    sayer = Sayer(tmp_path)
    bot = sayer.bot

    async def scenario() -> tuple[bool, bool, bool]:
        try:
            await bot.start()
            sayer.shim(signal.SIGSTOP)
            try:
                await sayer.say("SAID WHILE THE SHIM WAS STOPPED")
                stopped = await bot.settle(timeout_s=0.5)
            finally:
                sayer.shim(signal.SIGCONT)
            settled = await bot.settle(timeout_s=60)
            held = "SAID WHILE THE SHIM WAS STOPPED" in sayer.log.read_text()
            await bot.stop()  # a restart: the stopped shim's answers end, the new one's begin
            await bot.start()
            restarted = await bot.settle(timeout_s=60)
        finally:
            await bot.close()
        return stopped, settled and restarted, held

    stopped, settled, held = asyncio.run(scenario())
    assert not stopped, "a settle answered by a stopped shim"
    assert settled and held, sayer.log.read_text()
    assert "settled" not in sayer.log.read_text(), "the settle's token is no line of the log"
    assert asyncio.run(bot.settle()) is False  # no shim: at once


def test_a_line_for_a_gone_shim_is_written_to_the_file(tmp_path: Path) -> None:
    """Without a live shim (its bot stopped) the arena's line still reaches the log, directly."""
    log = tmp_path / "b.log"
    bot = ManagedBot("b", "{python} -m sample_bots.random --address {address}", log, startup_timeout_s=60)

    async def scenario() -> None:
        await bot.start()
        await bot.close()
        bot.note(botlog.end_line("g9", 1))

    asyncio.run(scenario())
    assert log.read_text().endswith("[arena] game g9 seat 1: end\n")


KEY = "ab" * 16


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(
        st.one_of(
            st.binary(max_size=40).map(lambda b: (False, b)),
            st.lists(st.sampled_from([b"\x1e", b"a", b"b", b" ", b"\n", KEY.encode()[:7]]), max_size=8).map(
                lambda bs: (False, b"".join(bs))
            ),
            st.text(alphabet="[]arenz g0:\x1e", max_size=30).map(lambda t: (True, t.encode())),
        ),
        max_size=12,
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
)
def test_the_shim_tells_framed_arena_lines_from_every_byte_of_the_bot_s(
    parts: list[tuple[bool, bytes]], cuts: list[int]
) -> None:
    """However the pipe's reads cut it, the shim finds each of the arena's framed lines, whole and in order,
    and passes on every byte of the bot's unchanged, the frame byte and pieces of the key included (a bot
    never has the whole key)."""
    from arena.players.shim import FRAME, _Frames, frame

    bot = b"".join(data for arena, data in parts if not arena)
    assume(FRAME + KEY.encode() not in bot)
    stream = b"".join(frame(KEY, data.decode()) if arena else data for arena, data in parts)
    frames = _Frames(KEY)
    got: list[tuple[bool, bytes]] = []
    at = 0
    for cut in [*sorted({min(c, len(stream)) for c in cuts}), len(stream)]:
        got += frames.feed(stream[at:cut])
        at = cut
    got.append((False, frames.rest()))
    assert b"".join(data for arena, data in got if not arena) == bot
    assert [data for arena, data in got if arena] == [data + b"\n" for arena, data in parts if arena]
