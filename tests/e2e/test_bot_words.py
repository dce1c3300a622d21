"""A bot's words are data (issue 23, hole 5): a real bot process puts terminal commands (clear screen,
window title, OSC 52 clipboard writes, C1 controls, a carriage return, a bidi override) in its log, in the
details of the status it aborts with, and in its handshake; none of them reaches what the arena prints
(``arena run``, ``faults``, ``replay``, ``check-bot``) or writes (the HTML report). They are shown escaped
(``\\x1b``), so the organiser still sees what the bot said.

``sandbox = "none"``: what is tested is the arena's printing, not the confinement, so it runs everywhere.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from arena.report.encode import unpack
from tests.helpers import BOTS, FOUR_SAMPLE_BOTS, ROOT, arena_cli, event, free_port, write_toml

LOUD = f"{{python}} {BOTS / 'escapes.py'} --mode play --address {{address}}"
MUTE = f"{{python}} {BOTS / 'escapes.py'} --mode die --address {{address}}"
COMMANDS = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What a terminal could obey: C0 but newline and tab, DEL, C1, bidirectional controls."""


def _inert(text: str, where: str) -> None:
    found = COMMANDS.search(text)
    assert found is None, (
        f"{where}: {found.group()!r} at {found.start()}: {text[max(0, found.start() - 80) :][:200]!r}"
    )


def _shown(result: subprocess.CompletedProcess[str], where: str) -> str:
    out = result.stdout + result.stderr
    assert "Traceback" not in out, out[-3000:]
    _inert(out, where)
    return out


def test_a_bot_s_escape_sequences_reach_no_output_of_the_arena(tmp_path: Path) -> None:
    entrants = [
        {"name": "loud", "command": LOUD},
        {"name": "mute", "command": MUTE},
        *FOUR_SAMPLE_BOTS[:3],
    ]
    data = event(
        tmp_path,
        entrant=entrants,
        rounds=2,
        sandbox="none",
        faults={"restart_backoff_s": 0.1, "restart_backoff_max_s": 0.2},
    )
    config = write_toml(tmp_path / "event.toml", data)
    out = tmp_path / "out"

    run = _shown(arena_cli("run", "-q", str(config)), "arena run")
    assert "warning: mute: " in run and "line 2\\x1b[2J" in run, run[-3000:]  # its log tail, escaped

    faults = _shown(arena_cli("faults", str(out)), "arena faults")
    assert "mywords\\x1b[2J" in re.sub(r"\s+", "", faults), faults[-3000:]  # the table folds long cells
    listed = arena_cli("faults", str(out), "--json")
    _inert(listed.stdout, "arena faults --json")  # JSON escapes them itself, and keeps the stored words
    game = next(f for f in json.loads(listed.stdout) if f["detail"].endswith("\u202c"))["game_id"]
    assert "my words\x1b[2J" in next(f["detail"] for f in json.loads(listed.stdout))
    replay = _shown(arena_cli("replay", str(out), game), "arena replay")
    assert "my words\\x1b[2J" in replay

    page = (out / "report.html").read_text(encoding="utf-8")
    _inert(page, "report.html")
    assert "my words\\x1b[2J" in page
    blob = re.search(r'<script type="application/octet-stream" id="replay-data">([^<]*)</script>', page)
    assert blob is not None
    _inert(json.dumps(unpack(blob.group(1)), ensure_ascii=False), "the report's replays")

    port = free_port()
    bot = subprocess.Popen(
        [sys.executable, str(BOTS / "escapes.py"), "--address", f"127.0.0.1:{port}"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        check = _shown(arena_cli("check-bot", f"127.0.0.1:{port}", "--decision-ms", "500"), "check-bot")
    finally:
        bot.kill()
        bot.wait()
    assert "by an author\\x1b[2J" in check, check[-3000:]  # its handshake, escaped
