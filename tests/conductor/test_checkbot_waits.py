"""``arena check-bot ADDRESS`` right after ``python bot.py &`` (the README's example, run as written by
tests/test_doc_examples.py): the bot may not listen yet, and check-bot waits for it rather than failing
the handshake at once."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

from arena.conductor.checkbot import check_bot
from tests.helpers import ROOT


def test_check_bot_waits_for_a_bot_that_starts_after_it() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def scenario() -> object:
        check = asyncio.create_task(check_bot(f"127.0.0.1:{port}"))
        # check-bot has tried the address by now (before, its handshake failed here: nothing listened);
        # the bot is only started after that, and needs its import time to listen.
        await asyncio.sleep(0.5)
        assert not check.done()
        bot = subprocess.Popen(
            [sys.executable, "-m", "sample_bots.random", "--port", str(port)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            return await asyncio.wait_for(check, 600)
        finally:
            bot.kill()
            bot.wait()

    report = asyncio.run(scenario())
    assert report.violations == [], report.render()  # type: ignore[attr-defined]
