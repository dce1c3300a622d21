"""``buf lint`` and ``buf breaking`` hold for the player protocol (configuration and reasons: buf.yaml).

``buf breaking`` against ``tools/buf/released-v1`` is what keeps the .proto's promise that v1 only ever adds:
a removed or renumbered field, a changed type, a renamed message or oneof all fail it. buf comes from npm
(``@bufbuild/buf``, whose package carries the binary): ``npm ci`` in ``tools/`` installs it, and ``.ci/run``
does that. Skipped when it is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import ROOT

BUF = ROOT / "tools" / "node_modules" / ".bin" / "buf"
PROTO = ROOT / "proto" / "arena" / "protocol" / "v1" / "player.proto"
BASELINE = ROOT / "tools" / "buf" / "released-v1"

pytestmark = pytest.mark.needs_buf


def buf(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BUF), *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def test_buf_lint_is_clean() -> None:
    done = buf("lint")
    assert done.returncode == 0, done.stdout + done.stderr


def test_buf_breaking_against_the_released_v1_is_clean() -> None:
    done = buf("breaking", "--against", str(BASELINE.relative_to(ROOT)))
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_baseline_is_a_released_proto_not_a_copy_of_today() -> None:
    """The baseline must stay the released file: refreshing it from today's .proto would hide a break."""
    released = (BASELINE / "arena" / "protocol" / "v1" / "player.proto").read_text()
    assert "uint32 decision_id = 1;" in released and "package euchre.arena.v1;" in released


@pytest.mark.parametrize(
    ("change", "old", "new"),
    [
        ("a field's type", "uint32 decision_id = 1;", "uint64 decision_id = 1;"),
        ("a removed field", "  bool resumed = 7;\n", "  reserved 7;\n"),
        (
            "a renamed oneof",
            "  oneof body {\n    Decision decision = 1;",
            "  oneof reply {\n    Decision decision = 1;",
        ),
    ],
)
def test_buf_breaking_catches_a_break(tmp_path: Path, change: str, old: str, new: str) -> None:
    """The check bites: each of these edits to a copy of the .proto fails ``buf breaking``."""
    module = tmp_path / "proto"
    target = module / PROTO.relative_to(ROOT / "proto")
    target.parent.mkdir(parents=True)
    text = PROTO.read_text()
    assert old in text, change
    target.write_text(text.replace(old, new, 1))
    (module / "buf.yaml").write_text("version: v2\nbreaking:\n  use:\n    - FILE\n")
    shutil.copytree(BASELINE, tmp_path / "baseline")
    done = buf("breaking", "proto", "--against", "baseline", cwd=tmp_path)
    assert done.returncode != 0, f"{change} passed buf breaking: {done.stdout}{done.stderr}"
