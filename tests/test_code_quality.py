"""The quality bar of the developers' guide, checked with the suite: ruff-clean, mypy-clean, and the import
contract of the layers (import-linter; docs/architecture.md) kept.

The tools come with the ``test`` extra; their settings are in ``pyproject.toml`` (mypy checks ``arena`` and
``sample_bots``; the generated protocol code is exempt).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = [
    sys.executable,
    "-c",
    "import sys; from importlinter.cli import lint_imports_command as c; c()",
]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_finds_nothing() -> None:
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_import_contract_is_kept() -> None:
    result = subprocess.run(LINT_IMPORTS, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_import_contract_catches_an_upward_import_a_cycle_and_grpc_in_the_engine(tmp_path: Path) -> None:
    """The contract can fail: a copy of the package with three violations breaks the three contracts."""
    shutil.copytree(
        ROOT / "arena", tmp_path / "arena", ignore=shutil.ignore_patterns("__pycache__", "vendor")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    engine = tmp_path / "arena" / "engine" / "cards.py"
    engine.write_text(engine.read_text() + "\nimport grpc  # noqa\n")
    stats = tmp_path / "arena" / "stats" / "sprt.py"
    stats.write_text(stats.read_text() + "\nimport arena.conductor.match  # noqa\n")
    record = tmp_path / "arena" / "results" / "record.py"
    record.write_text(record.read_text() + "\nimport arena.results.store  # noqa\n")
    result = subprocess.run(
        LINT_IMPORTS,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONPATH": str(tmp_path)},
    )
    assert result.returncode != 0
    broken = {line.rsplit(" ", 1)[0] for line in result.stdout.splitlines() if line.endswith(" BROKEN")}
    assert {"layers", "no import cycles between sibling modules"} <= broken, result.stdout
    assert any(name.startswith("the engine is pure") for name in broken), result.stdout
