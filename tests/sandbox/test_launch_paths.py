"""Issue 42 and 45: launch commands that name the wrong thing say so in one line, sandboxed or not.

* A virtual environment reached through a symbolic link: every sandboxed ``{python}`` bot failed with
  "setpriv: failed to execute .../bin/python" (status 127), since the sandbox shows the environment at its
  real path. ``arena check-bot`` run by the linked environment's Python now passes.
* A program file that does not exist is named as such (under the sandbox the arena said only that it
  could not tell the bot's program and to set workdir).
* A ``python3`` that cannot import the SDK (the system's, without gRPC) says so and names ``{python}``.

Real processes (``python -m arena check-bot``); the sandboxed cases are skipped where bubblewrap cannot run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import missing
from tests.helpers import ROOT

SANDBOXES = [
    "none",
    pytest.param("bubblewrap", marks=pytest.mark.needs_bwrap),
]


def _check_bot(python: str, command: str, sandbox: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "arena", "check-bot", "--command", command, "--sandbox", sandbox],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.needs_bwrap
def test_a_venv_reached_through_a_symlink_runs_sandboxed_python_bots(tmp_path: Path) -> None:
    if sys.prefix == sys.base_prefix:
        pytest.skip("the suite does not run in a virtual environment")
    link = tmp_path / "venv"
    link.symlink_to(Path(sys.prefix).resolve())
    python = str(link / "bin" / Path(sys.executable).name)
    done = _check_bot(python, "{python} -m sample_bots.random --address {address}", "bubblewrap", ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "failed to execute" not in done.stdout + done.stderr


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_missing_program_file_is_named(tmp_path: Path, sandbox: str) -> None:
    done = _check_bot(sys.executable, "{python} bots/alice.py --address {address}", sandbox, tmp_path)
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 2, said
    assert f"its program file 'bots/alice.py' does not exist (looked in {tmp_path})" in said, said
    assert "set workdir" not in said, said


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_python_without_the_sdk_is_told_to_use_python(tmp_path: Path, sandbox: str) -> None:
    system = Path("/usr/bin/python3")
    if (
        not system.exists()
        or subprocess.run([system, "-c", "import grpc"], capture_output=True).returncode == 0
    ):
        pytest.skip("needs a system python3 without grpc (as on a fresh Debian or Ubuntu)")
    if sandbox == "bubblewrap" and missing("needs_bwrap") is not None:
        pytest.skip(str(missing("needs_bwrap")))
    done = _check_bot(sys.executable, f"{system} -m sample_bots.random --address {{address}}", sandbox, ROOT)
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 1, said
    assert (
        f"its command runs '{system}', which cannot import the SDK (No module named" in said
        and "write {python} in the command for the arena's own Python" in said
    ), said
