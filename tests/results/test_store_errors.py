"""The SQLite boundary as an attacker (or a bad disk) meets it: whatever is wrong with an event's database,
the store raises ``StoreError`` naming the file, no ``sqlite3`` exception gets out, and every command that
reads it prints one ``error:`` line and exits 2.

Read-only cases: as root, permissions do not stop a write, so the snippet runs in a private mount namespace
where the directory is bind-mounted read-only (``unshare -m``), as tests/tournament/test_bad_inputs.py does.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.errors import StoreError
from arena.results import database
from arena.results.queries import Queries
from arena.results.store import Store
from arena.stats.leaderboard import compute_leaderboard
from tests.results.stored_events import tiny_event

ROOT = Path(__file__).resolve().parents[2]
DB = "event.sqlite"


def garbage(d: Path) -> None:
    (d / DB).write_bytes(bytes(range(256)) * 32)


def empty(d: Path) -> None:
    (d / DB).write_bytes(b"")


def truncated(d: Path) -> None:
    data = (d / DB).read_bytes()
    (d / DB).write_bytes(data[: len(data) // 2])


def foreign(d: Path) -> None:
    (d / DB).unlink()
    db = sqlite3.connect(d / DB)
    db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
    db.commit()
    db.close()


def sql(statement: str) -> Callable[[Path], None]:
    def spoil(d: Path) -> None:
        db = sqlite3.connect(d / DB)
        db.execute(statement)
        db.commit()
        db.close()

    return spoil


broken_scores = sql("UPDATE games SET scores = '[10, 4' WHERE game_id = 'g1'")
broken_hand = sql("UPDATE hands SET record = '{\"maker\": ' WHERE game_id = 'g2'")
unknown_kind = sql("UPDATE faults SET kind = 'sneeze' WHERE game_id = 'g1'")
broken_latency = sql("UPDATE latency SET histogram = '{1: 2' WHERE game_id = 'g1'")

FILE_CASES = {  # spoil, what the one line says
    "garbage": (garbage, "is not an SQLite database"),
    "empty": (empty, "is empty (0 bytes)"),
    "truncated": (truncated, "is truncated"),
    "foreign": (foreign, "not euchre-arena results"),
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_event(tmp_path_factory.mktemp("pristine") / "out")


@pytest.fixture
def event(pristine: Path, tmp_path: Path) -> Path:
    work = tmp_path / "out"
    shutil.copytree(pristine, work)
    return work


def every_read(q: Queries) -> None:
    """Every read of the model, consumed to the end."""
    compute_leaderboard(q)
    q.games_overview()
    q.all_faults()
    list(q.hand_records())
    q.latency_histograms()
    q.event_info()
    for game_id in q.game_ids():
        q.game(game_id)


@pytest.mark.parametrize("case", list(FILE_CASES))
@pytest.mark.parametrize("opener", ["queries", "store", "store-readonly"])
def test_a_file_that_is_not_our_database_is_refused_naming_it(event: Path, case: str, opener: str) -> None:
    spoil, message = FILE_CASES[case]
    spoil(event)
    before = (event / DB).read_bytes()
    with pytest.raises(StoreError, match=re.escape(message)) as error:
        if opener == "queries":
            Queries.open(event)
        else:
            Store.open(event, create=True, readonly=opener == "store-readonly")
    assert str(event / DB) in str(error.value)
    assert (event / DB).read_bytes() == before, "nothing is written to a file that is not ours"


@pytest.mark.parametrize(
    ("spoil", "where"),
    [
        (broken_scores, "game g1 is damaged: not valid JSON"),
        (broken_hand, "hand 0 of game g2 is damaged: not valid JSON"),
        (unknown_kind, "a fault of game g1 is damaged (unknown kind 'sneeze')"),
        (broken_latency, "latency of game g1 is damaged: not valid JSON"),
    ],
    ids=["games row", "hand record", "fault kind", "latency"],
)
def test_a_damaged_row_is_a_store_error_naming_the_file_and_the_row(
    event: Path, spoil: Callable[[Path], None], where: str
) -> None:
    spoil(event)
    with Queries.open(event) as q, pytest.raises(StoreError) as error:
        every_read(q)
    assert str(error.value).startswith(f"{event / DB}: {where}"), error.value


def test_a_damaged_games_row_refuses_a_resume_before_anything_is_played(event: Path) -> None:
    broken_scores(event)
    with Store.open(event) as store, pytest.raises(StoreError, match="game g1 is damaged"):
        store.begin_event(
            store.meta("fingerprint"),
            store.meta("config"),
            store.schedule(),
            [(e.name, e.kind, e.target, e.house) for e in store.entrants()],
        )


def test_a_page_damaged_inside_the_file_is_a_store_error_mid_read(event: Path) -> None:
    """The header is intact and the size right, so only a query reaching the page finds it."""
    with sqlite3.connect(event / DB) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'hands'").fetchone()[0]
    data = bytearray((event / DB).read_bytes())
    start = (root - 1) * page
    data[start : start + page] = b"\xff" * page
    (event / DB).write_bytes(bytes(data))
    with Queries.open(event) as q, pytest.raises(StoreError) as error:
        every_read(q)
    assert str(event / DB) in str(error.value) and "damaged" in str(error.value)


# ------------------------------------------------------------------ another process holds the lock


@pytest.fixture
def locked(event: Path) -> Iterator[Path]:
    """``event``, with another process holding an exclusive lock on its database until the test ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sqlite3, sys
            db = sqlite3.connect({str(event / DB)!r}, isolation_level=None)
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            db.execute("BEGIN EXCLUSIVE")
            db.execute("DELETE FROM ratings")
            print("locked", flush=True)
            sys.stdin.read()
        """)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    try:
        yield event
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


@pytest.mark.parametrize("opener", ["queries", "store"])
def test_a_database_locked_by_another_process_is_a_store_error(
    locked: Path, opener: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT_S", 0.2)
    opener_of = Queries.open if opener == "queries" else Store.open
    with pytest.raises(StoreError, match="is locked by another process") as error, opener_of(locked) as q:
        every_read(q)
    assert str(locked / DB) in str(error.value)


# ------------------------------------------------------------------ read-only


def can_mount_readonly() -> bool:
    if os.geteuid() != 0:
        return True
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


def under_readonly(directory: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``argv`` run while ``directory`` cannot be written (a read-only bind mount as root, else modes)."""
    if os.geteuid() == 0:
        ro = f'"{directory}"'
        script = f'mount --bind {ro} {ro} && mount -o remount,bind,ro {ro} && exec "$@"'
        argv = ["unshare", "-m", "sh", "-c", script, "sh", *argv]
    else:
        for p in [directory, *directory.iterdir()]:
            p.chmod(0o555 if p.is_dir() else 0o444)
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.mark.skipif(not can_mount_readonly(), reason="root, and no `unshare -m` to mount read-only")
def test_a_read_only_directory_is_a_store_error_for_the_writer_and_no_error_for_readers(event: Path) -> None:
    snippet = textwrap.dedent(f"""
        from arena.errors import StoreError
        from arena.results.queries import Queries
        from arena.results.store import Store
        with Queries.open({str(event)!r}) as q:
            print("read", len(q.games_overview()))
        try:
            Store.open({str(event)!r})
        except StoreError as exc:
            print("StoreError", exc)
    """)
    result = under_readonly(event, [sys.executable, "-c", snippet])
    assert result.returncode == 0, result.stderr
    read, refused = result.stdout.splitlines()
    assert read == "read 2"
    assert refused.startswith(f"StoreError '{event / DB}' is read-only"), refused


# ------------------------------------------------------------------ through the real command line


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


READERS = [["leaderboard"], ["replay", "g1"], ["games"], ["faults"]]
CLI_CASES = {  # spoil, what the line says, the commands that read what is spoiled
    **{name: (spoil, message, READERS) for name, (spoil, message) in FILE_CASES.items()},
    "broken JSON in a games row": (
        broken_scores,
        "game g1 is damaged: not valid JSON",
        [["leaderboard"], ["replay", "g1"], ["games"], ["export"]],
    ),
    "broken JSON in a hand record": (
        broken_hand,
        "game g2 is damaged: not valid JSON",
        [["replay", "g2"], ["export"]],
    ),
    "unknown fault kind": (unknown_kind, "a fault of game g1 is damaged", [["faults"], ["replay", "g1"]]),
}


def one_error_line(process: subprocess.Popen[str]) -> str:
    _, stderr = process.communicate(timeout=120)
    assert "Traceback" not in stderr, stderr
    assert process.returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_every_reading_command_prints_one_line_and_exits_2(event: Path, case: str) -> None:
    spoil, message, readers = CLI_CASES[case]
    spoil(event)
    running = [(command, arena(command[0], str(event), *command[1:])) for command in readers]
    for command, process in running:
        line = one_error_line(process)
        assert message in line and str(event / DB) in line, (command, line)


def test_a_locked_database_is_one_line_and_exit_2_for_every_command(locked: Path) -> None:
    """The commands wait for the lock (30 s, here the 2 s ``ARENA_DB_WAIT_S`` gives) and then give up;
    a bad ``ARENA_DB_WAIT_S`` is one line too."""
    wait = dict(os.environ, ARENA_DB_WAIT_S="2")
    running = [(command, arena(command[0], str(locked), *command[1:], env=wait)) for command in READERS]
    for command, process in running:
        line = one_error_line(process)
        assert "is locked by another process" in line and str(locked / DB) in line, (command, line)
    line = one_error_line(arena("games", str(locked), env=dict(os.environ, ARENA_DB_WAIT_S="soon")))
    assert "ARENA_DB_WAIT_S must be a number of seconds" in line, line
