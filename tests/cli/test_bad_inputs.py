"""Bad input on the command line: every case is one ``error:`` line naming the file and what is wrong, exit
code 2, no traceback, and no stored game changed (the database's bytes are compared).

"Read-only" cases: as root, which writes through file permissions, the command runs in a private mount
namespace where the directory is bind-mounted read-only (``unshare -m``); without root, plain permissions do
the same; as root without ``unshare``, those cases are skipped.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.conductor.tournament import run_event
from arena.event.config import parse_config
from tests.helpers import ROOT

ENTRANTS = [
    {"name": n, "class": c}
    for n, c in (
        ("rules", "sample_bots.rules:RulesBot"),
        ("random", "sample_bots.random:RandomBot"),
        ("rules-b", "sample_bots.rules:RulesBot"),
        ("random-b", "sample_bots.random:RandomBot"),
        ("random-c", "sample_bots.random:RandomBot"),
    )
]


def toml(path: Path, output: Path, command: str | None = None, extra: str = "") -> Path:
    lines = ['name = "bad"', "seed = 3", "rounds = 2", f"output = {json.dumps(str(output))}", extra]
    lines += ["[game]", 'variant = "five-handed"']
    entrants: list[dict[str, Any]] = list(ENTRANTS)
    if command is not None:
        entrants = [*entrants[:4], {"name": "quoted", "command": command}]
    for entrant in entrants:
        lines.append("[[entrant]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in entrant.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished two-game event (in-process bots: quick), copied by each case before it is spoiled."""
    base = tmp_path_factory.mktemp("base")
    config = toml(base / "event.toml", base / "out")
    from arena.event.config import load_config

    asyncio.run(run_event(load_config(config)))
    return base / "out"


def arena(args: list[str], readonly: Path | None = None) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "arena", *args]
    if readonly is not None and os.geteuid() == 0:
        ro = f'"{readonly}"'
        script = f'mount --bind {ro} {ro} && mount -o remount,bind,ro {ro} && exec "$@"'
        argv = ["unshare", "-m", "sh", "-c", script, "sh", *argv]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)


def snapshot(directory: Path) -> dict[str, bytes]:
    """The database and its write-ahead log (what holds games); an empty log and the shared-memory index
    hold none, and SQLite creates and removes them as it opens and closes."""
    files = [directory / "event.sqlite", directory / "event.sqlite-wal"]
    return {p.name: p.read_bytes() for p in files if p.is_file() and p.stat().st_size}


@dataclass
class Case:
    name: str
    command: str  # run | leaderboard | replay
    spoil: Callable[[Path], None]  # spoils the copied output directory
    expect: str  # a fragment of the one-line message (any case)
    code: int = 2
    readonly: bool = False
    output: Callable[[Path], Path] | None = None  # for run: the output path (default: the copy)
    quoted_command: str | None = None
    flags: tuple[str, ...] = ()  # for run: after the config (``--output ""`` ...)
    extra_toml: str = ""  # for run: appended to the config file


def truncate(d: Path) -> None:
    db = d / "event.sqlite"
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])


def garbage(d: Path) -> None:
    (d / "event.sqlite").write_bytes(bytes(range(256)) * 32)


def foreign(d: Path) -> None:
    (d / "event.sqlite").unlink()
    db = sqlite3.connect(d / "event.sqlite")
    db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
    db.execute("INSERT INTO invoices VALUES (1, 9.5)")
    db.commit()
    db.close()


def empty(d: Path) -> None:
    (d / "event.sqlite").write_bytes(b"")


def sql(statement: str) -> Callable[[Path], None]:
    def spoil(d: Path) -> None:
        db = sqlite3.connect(d / "event.sqlite")
        db.execute(statement)
        db.commit()
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()

    return spoil


def nothing(d: Path) -> None:
    return None


def a_file(d: Path) -> Path:
    (d.parent / "plain-file").write_text("not a directory\n")
    return d.parent / "plain-file"


def a_lock_directory(d: Path) -> None:
    (d / ".lock").unlink()
    (d / ".lock").mkdir()


def others_files(d: Path) -> Path:
    (d.parent / "project").mkdir()
    (d.parent / "project" / "notes.txt").write_text("the organiser's\n")
    return d.parent / "project"


DEEP = "deep = " + "[" * 3000 + "]" * 3000  # tomllib parses nesting by recursion
BAD_META = sql("UPDATE meta SET value = '{\"seed\": 3,' WHERE key = 'fingerprint'")
BAD_ROW = sql("UPDATE games SET scores = '[10, 4' WHERE game_id = 'r001-t01'")
CASES = [
    Case("output under a file", "run", nothing, "Not a directory", output=lambda d: a_file(d) / "out"),
    Case("output equal to a file", "run", nothing, "is not a directory", output=a_file),
    Case("output in /proc", "run", nothing, "/proc/", output=lambda d: Path("/proc/euchre-arena-test/out")),
    Case("output /proc itself", "run", nothing, "/proc", output=lambda d: Path("/proc")),
    Case("output not writable", "run", nothing, "read-only", readonly=True, output=lambda d: d.parent / "ro"),
    Case("unbalanced quote in command", "run", nothing, "cannot be split", quoted_command="x 'y {port}"),
    Case("--output empty", "run", nothing, "--output='': expected a directory path", flags=("--output", "")),
    Case("--output spaces", "run", nothing, "--output='  ': expected", flags=("--output", "  ")),
    Case("output with a NUL", "run", nothing, "output='a\\x00b': expected", output=lambda d: Path("a\x00b")),
    Case(
        "--output the working directory", "run", nothing, "is the current directory", flags=("--output", ".")
    ),
    Case("--output the checkout", "run", nothing, "is the current directory", flags=("--output", str(ROOT))),
    Case("--output an existing file", "run", nothing, "is not a directory", flags=("--output", "README.md")),
    Case("output a directory of other files", "run", nothing, "holds other files", output=others_files),
    Case(
        "a directory where OUTPUT/.lock is", "run", a_lock_directory, "is a directory, not the arena's lock"
    ),
    Case(
        "a TOML value nested 3,000 deep", "run", nothing, "nests arrays or tables too deeply", extra_toml=DEEP
    ),
    Case(
        "--workers 0 (as workers = 0)",
        "run",
        nothing,
        "workers=0: expected an integer 1..",
        flags=("--workers", "0"),
    ),
    Case("read-only db: run", "run", nothing, "read-only", readonly=True),
    Case("read-only db: leaderboard reads it", "leaderboard", nothing, "", code=0, readonly=True),
    Case("read-only db: replay reads it", "replay", nothing, "", code=0, readonly=True),
    Case("truncated db: run", "run", truncate, "truncated"),
    Case("truncated db: leaderboard", "leaderboard", truncate, "truncated"),
    Case("garbage db: run", "run", garbage, "not an SQLite database"),
    Case("garbage db: leaderboard", "leaderboard", garbage, "not an SQLite database"),
    Case("garbage db: replay", "replay", garbage, "not an SQLite database"),
    Case("foreign SQLite: run", "run", foreign, "not euchre-arena results"),
    Case("foreign SQLite: leaderboard", "leaderboard", foreign, "not euchre-arena results"),
    Case("empty db: run", "run", empty, "is empty (0 bytes)"),
    Case("empty db: leaderboard", "leaderboard", empty, "is empty (0 bytes)"),
    Case("invalid JSON in meta: run", "run", BAD_META, "meta 'fingerprint' is damaged: not valid JSON"),
    Case("invalid JSON in a games row: leaderboard", "leaderboard", BAD_ROW, "game r001-t01 is damaged"),
    Case("invalid JSON in a games row: replay", "replay", BAD_ROW, "game r001-t01 is damaged"),
    Case("invalid JSON in a games row: run", "run", BAD_ROW, "game r001-t01 is damaged"),
]


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c.name, marks=[pytest.mark.needs_readonly_mount] if c.readonly else [])
        for c in CASES
    ],
)
def test_bad_input_is_one_line_exit_2_and_changes_no_stored_game(
    case: Case, finished: Path, tmp_path: Path
) -> None:
    work = tmp_path / "out"
    shutil.copytree(finished, work)
    case.spoil(work)
    output = case.output(work) if case.output is not None else work
    readonly = None
    if case.readonly:
        readonly = output if case.output is not None else work
        readonly.mkdir(exist_ok=True)
        if os.geteuid() != 0:
            for p in [readonly, *readonly.iterdir()]:
                p.chmod(0o555 if p.is_dir() else 0o444)
    before = snapshot(work)
    checkout = _checkout()
    if case.command == "run":
        config = toml(tmp_path / "event.toml", output, case.quoted_command, case.extra_toml)
        result = arena(["run", "-q", str(config), *case.flags], readonly)
    elif case.command == "leaderboard":
        result = arena(["leaderboard", str(work)], readonly)
    else:
        result = arena(["replay", str(work), "r001-t01"], readonly)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == case.code, result.stderr
    if case.code:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert case.expect.lower() in lines[0].lower(), lines[0]
    assert snapshot(work) == before, "a stored game (or the database file) changed"
    assert _checkout() == checkout, "cwd touched"


TOOL_CACHES = {".ruff_cache", ".mypy_cache", ".pytest_cache", ".hypothesis", ".import_linter_cache"}
"""What the suite's own tools write into the checkout (tests/test_code_quality.py runs ruff and mypy there,
on another worker, at any moment): not the arena's doing."""


def _checkout() -> list[tuple[str, int]]:
    """The checkout's top level as the arena could change it: names and modes, without the tools' caches."""
    return sorted((p.name, p.stat().st_mode) for p in [ROOT, *ROOT.iterdir()] if p.name not in TOOL_CACHES)


def test_damaged_row_check_does_not_reject_a_good_event(finished: Path) -> None:
    """The control: the unspoiled event reads fine."""
    result = arena(["leaderboard", str(finished), "--json"])
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)) == 5
    assert parse_config  # (imported for symmetry with the other tournament tests)
