"""Issue 42: the files the server keeps for itself are read as files a person hands the arena are.

A session key, a final's state, a ratings snapshot or a bot's log in the server's directory is the server's
own, but the directory is the organiser's (and an unsandboxed bot's, with ``sandbox = "none"``): each read
goes through ``arena.userfiles``, so a FIFO or a device there is refused at once instead of hanging a page or
the start, and a log is read from its newest bytes, never whole.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.executor.logspan import Mark, read
from arena.server.finals.service import STATE, Finals
from arena.server.wiring import SESSION_KEY, _session_key
from arena.userfiles import read_user_tail


def test_a_log_tail_is_its_newest_bytes_of_a_regular_file(tmp_path: Path) -> None:
    log = tmp_path / "v1.log"
    log.write_bytes(b"".join(b"line %d\n" % k for k in range(1000)))
    assert read_user_tail(log, "bot log", 8) == b"ine 999\n"
    assert read_user_tail(log, "bot log", 1 << 20) == log.read_bytes()
    os.mkfifo(tmp_path / "v2.log")
    with pytest.raises(ConfigError, match=r"bot log '.*v2.log' is a FIFO"):
        read_user_tail(tmp_path / "v2.log", "bot log", 8)


def test_a_game_s_span_of_a_log_replaced_by_a_fifo_is_gone_not_waited_for(tmp_path: Path) -> None:
    log = tmp_path / "v1.log"
    log.write_bytes(b"before\ngame\nafter\n")
    inode = log.stat().st_ino
    span = read(log, Mark(inode, 7), Mark(inode, 12), limit=3)
    assert (span.data, span.after) == (b"me\n", b"after\n")
    assert span.notes == ("the first 2 bytes are left out: the last 3 are shown",)
    log.unlink()
    os.mkfifo(log)  # no writer: an open for reading that blocked would hang the page for good
    assert read(log, Mark(inode, 7), Mark(inode, 12)).notes == (
        "this game's log has since been rotated away (the log is capped)",
    )


def test_a_rotated_span_reads_only_the_newest_bytes_of_both_files(tmp_path: Path) -> None:
    log = tmp_path / "v1.log"
    log.write_bytes(b"x" * 100 + b"old end\n")
    old = log.stat().st_ino
    log.rename(tmp_path / "v1.log.1")
    log.write_bytes(b"new start\n")
    new = log.stat().st_ino
    span = read(log, Mark(old, 10), Mark(new, 10), limit=12)
    assert span.data == b"d\nnew start\n"
    assert "the first 96 bytes are left out: the last 12 are shown" in span.notes


def test_the_session_key_and_a_final_s_state_must_be_regular_files(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / SESSION_KEY)
    with pytest.raises(ConfigError, match=r"session key '.*session.key' is a FIFO .*sessions restart"):
        _session_key(tmp_path)
    (tmp_path / SESSION_KEY).unlink()
    assert len(_session_key(tmp_path)) == 32 and _session_key(tmp_path) == _session_key(tmp_path)
    os.symlink("/dev/zero", tmp_path / STATE)
    with pytest.raises(ConfigError, match=r"final's state '.*final.json' is a character device"):
        Finals.state(tmp_path)
    (tmp_path / STATE).unlink()
    (tmp_path / STATE).write_text("{not json")
    with pytest.raises(ConfigError, match="is not JSON"):
        Finals.state(tmp_path)
