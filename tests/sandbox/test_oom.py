"""Issue 42: a bot cannot undo "bots die first". The shim gives the bot's processes an out-of-memory score
adjustment of 500 (:data:`arena.players.shim.BOT_OOM_SCORE_ADJ`); a real sandboxed bot tries to write 0
to its ``oom_score_adj`` (and the legacy ``oom_adj``), with the arena run as this test runs and as an
unprivileged user (nobody in a user namespace, when run as root). Before: lowered from 500 to 0.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.players.shim import BOT_OOM_SCORE_ADJ
from tests.helpers import ROOT

ATTACKER = ROOT / "tests" / "bots" / "attacker.py"
LOWER = """
import asyncio, sys
from pathlib import Path
from arena.players.process import ManagedBot
from arena.sandbox import SandboxMode, SandboxSpec
out = Path(sys.argv[1])
mode = SandboxMode(sys.argv[3])
command = f"{{python}} {sys.argv[2]} --attacks lower_oom --address {{address}}"
bot = ManagedBot("lower", command, out / "lower.log", startup_timeout_s=60, sandbox=SandboxSpec(mode=mode))
async def scenario() -> None:
    try:
        await bot.start()
    finally:
        await bot.close()
asyncio.run(scenario())
"""


def _lower(arena_user: str, mode: str) -> tuple[str, str]:
    prefix: list[str] = []
    if arena_user == "unprivileged" and os.geteuid() == 0:
        prefix = ["unshare", "--user", "--map-user=65534", "--map-group=65534"]
        if subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
            pytest.skip("unshare cannot map this user to nobody in a user namespace here")
    with tempfile.TemporaryDirectory() as where:  # pytest's own tmp_path is its user's only
        out = Path(where)
        out.chmod(0o777)
        done = subprocess.run(
            [*prefix, sys.executable, "-c", LOWER, str(out), str(ATTACKER), mode],
            cwd=ROOT,
            env={**os.environ, "HOME": str(out), "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        log = "".join(p.read_text(errors="replace") for p in sorted(out.glob("lower.log*")))
    assert done.returncode == 0, done.stderr[-2000:] + log[-2000:]
    return log, done.stderr


@pytest.mark.needs_bwrap
@pytest.mark.parametrize("arena_user", ["as-run", "unprivileged"])
def test_a_sandboxed_bot_cannot_lower_its_oom_score_adj(arena_user: str) -> None:
    log, _ = _lower(arena_user, "bubblewrap")
    oom = re.search(r"^OOM (-?\d+) (-?\d+)$", log, re.M)
    assert oom is not None, log[-3000:]
    assert int(oom[1]) == BOT_OOM_SCORE_ADJ, log[-3000:]
    assert int(oom[2]) >= BOT_OOM_SCORE_ADJ, f"lowered from {oom[1]} to {oom[2]}"
    assert "ATTACK lower_oom FAILED" in log, log[-3000:]
