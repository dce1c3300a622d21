"""A disk that fills mid-event: the arena stops with one line, and once space is freed the same command
resumes the event to the end, equal to an uninterrupted one (issue 23, hole 10).

The disk is a small tmpfs mounted for the test (root only; skipped where mounting is refused), most of it
taken by a filler file that the test deletes to free the space. The event is in-process bots with a fixed
deal key, so the interrupted and the uninterrupted event deal and play the same cards.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import KEY, arena_cli, board, event, stored_games, stored_hands, write_toml

SIZE_MB = 8
ROUNDS = 30
"""Games of the event: several times what fits in the room left beside the filler, so the disk fills
mid-event, and few enough that the event played twice (filled and resumed, and uninterrupted) stays short."""
FREE_KB = 600
"""Room left beside the filler: a few games' worth."""


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE_MB}m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(mount: Path, leave_kb: int) -> Path:
    """A file taking all of ``mount`` but ``leave_kb``."""
    filler = mount / "filler"
    free = os.statvfs(mount)
    size = free.f_bavail * free.f_frsize - leave_kb * 1024
    with filler.open("wb") as f:
        for _ in range(size // (1 << 20)):
            f.write(b"\0" * (1 << 20))
        f.write(b"\0" * (size % (1 << 20)))
    return filler


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stdout + result.stderr, result.stderr[-3000:]
    assert result.returncode != 0, result.stdout[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-3000:]
    return lines[0]


@pytest.mark.needs_root
def test_a_disk_full_event_stops_in_one_line_and_resumes_once_space_is_freed(
    tmp_path: Path, small_disk: Path
) -> None:
    data = event(tmp_path, rounds=ROUNDS, concurrency=4, deal_key=KEY)
    whole = write_toml(tmp_path / "whole.toml", data | {"output": str(tmp_path / "whole")})
    full = write_toml(tmp_path / "full.toml", data | {"output": str(small_disk / "out")})
    filler = _fill(small_disk, FREE_KB)

    line = _one_error_line(arena_cli("run", "-q", str(full)))
    assert "the disk is full" in line and "run the same command to resume" in line, line
    stored = stored_games(small_disk / "out")
    assert 0 < stored < ROUNDS, f"{stored} games stored: the disk did not fill mid-event"
    # Resumed while the disk is still full: the same one line, nothing lost.
    assert "the disk is full" in _one_error_line(arena_cli("run", "-q", str(full)))
    assert stored_games(small_disk / "out") >= stored

    filler.unlink()
    resumed = arena_cli("run", "-q", str(full))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert arena_cli("run", "-q", str(whole)).returncode == 0
    assert stored_hands(small_disk / "out") == stored_hands(tmp_path / "whole")
    assert board(small_disk / "out") == board(tmp_path / "whole")
