"""Issue 42 and 45: what ``arena run`` says when its launched entrants cannot be started.

* a ``workdir`` that is missing or not a directory is refused with the config: exit 2, before anything is
  written (before: the entrant was disqualified at start and the event ran);
* where bubblewrap cannot run, the refusal comes before anything is written (before: ``deal.key`` and
  ``event.sqlite`` were already in the output directory);
* an event in which no launched entrant ever came up is no plain success: exit 1 and a last ``error:`` line
  naming them, and each such entrant's line mentions ``--strict`` (before: exit 0, no hint).

Real processes (``python -m arena run``); the bots are unsandboxed where the case does not need the sandbox.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers import ROOT

CLASSES = [
    {"name": "rules", "class": "sample_bots.rules:RulesBot"},
    {"name": "random", "class": "sample_bots.random:RandomBot"},
    {"name": "rules-b", "class": "sample_bots.rules:RulesBot"},
    {"name": "random-b", "class": "sample_bots.random:RandomBot"},
]


def _config(tmp: Path, launched: dict[str, Any], extra: str = "") -> Path:
    lines = ['name = "launch"', "seed = 3", "rounds = 1", f"output = {json.dumps(str(tmp / 'out'))}", extra]
    lines += ["[game]", 'variant = "five-handed"']
    for entrant in [*CLASSES, launched]:
        lines.append("[[entrant]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in entrant.items()]
    path = tmp / "event.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _arena(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


def test_a_missing_workdir_is_refused_with_the_config(tmp_path: Path) -> None:
    bot = {"name": "lost", "command": "{python} -m sample_bots.random --address {address}", "workdir": "nope"}
    done = _arena(["run", str(_config(tmp_path, bot)), "-q"])
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == (
        f"error: entrant[4] (lost).workdir='nope': {str(tmp_path / 'nope')!r} does not exist\n"
    ), done.stderr
    assert not (tmp_path / "out").exists()
    (tmp_path / "file").write_text("")
    bot["workdir"] = "file"
    done = _arena(["run", str(_config(tmp_path, bot)), "-q"])
    assert done.returncode == 2 and "is not a directory" in done.stderr, done.stderr


def test_without_bubblewrap_nothing_is_written_before_the_refusal(tmp_path: Path) -> None:
    """``bwrap`` not on PATH: the arena refuses to run launched bots unsandboxed, and writes nothing."""
    bot = {"name": "boxed", "command": "{python} -m sample_bots.random --address {address}"}
    done = _arena(["run", str(_config(tmp_path, bot)), "-q"], env={"PATH": str(tmp_path / "empty")})
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: cannot sandbox boxed: the bubblewrap sandbox needs the bwrap"), (
        done.stderr
    )
    assert not (tmp_path / "out").exists(), sorted(p.name for p in (tmp_path / "out").iterdir())


def test_an_event_whose_launched_entrants_never_came_up_is_no_success(tmp_path: Path) -> None:
    broken = {
        "name": "broken",
        "command": "{python} -c 'raise SystemExit(3)' {address}",
        "sandbox": "none",
        "startup_timeout_s": 30,
    }
    done = _arena(["run", str(_config(tmp_path, broken)), "-q"])
    assert done.returncode == 1, done.stdout + done.stderr
    said = " ".join((done.stdout + done.stderr).split())  # the terminal's wrapping undone
    assert said.endswith(
        "error: no launched entrant came up (broken): their seats were played by the autopilot; see the "
        "warnings above (arena run --strict refuses such an event at once)"
    ), done.stderr
    assert "warning: broken never came up: marked disqualified (arena run --strict refuses" in said, said
    assert "retrying in the background (--strict refuses the event instead)" in said, said
    # with --strict, as before: refused at start
    strict = _arena(
        ["run", str(_config(tmp_path, broken)), "-q", "--strict", "--output", str(tmp_path / "s")]
    )
    assert strict.returncode == 2, strict.stdout + strict.stderr
