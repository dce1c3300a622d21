"""Issue 42: no shared object a bot can mark. Two real sandboxed bots (tests/bots/attacker.py) try to pass a
12-bit secret through files every sandbox sees (the interpreter's standard library, read-only): the sender
holds locks (``flock``, POSIX record locks, OFD locks) on the files of the secret's 1 bits, or opens them
again and again; the receiver tries the locks, reads ``/proc/locks``, or watches the files with inotify.
Before the seccomp filter refused locks and file notifications, 12 of 12 bits passed each way.

The same pairs run unsandboxed first: there every channel carries the secret, so the probes work.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import time
from pathlib import Path

import pytest

from arena.players.process import ManagedBot
from arena.sandbox import SandboxMode, SandboxSpec
from tests.helpers import ROOT

ATTACKER = ROOT / "tests" / "bots" / "attacker.py"
LOCK_READS = ("read_locks_flock", "read_locks_posix", "read_locks_ofd", "read_proc_locks", "lock_high_bits")


def _bot(tmp_path: Path, name: str, attacks: str, channel: str, sandboxed: bool) -> ManagedBot:
    options = f"--attacks {attacks} --channel {channel} --window-s 8"
    command = f"{{python}} {ATTACKER} {options} --address {{address}}"
    mode = SandboxMode.BUBBLEWRAP if sandboxed else SandboxMode.NONE
    return ManagedBot(
        name, command, tmp_path / f"{name}.log", startup_timeout_s=60, sandbox=SandboxSpec(mode=mode)
    )


def _log(bot: ManagedBot) -> str:
    logs = sorted(bot.log_path.parent.glob(f"{bot.name}.log*"))
    return "".join(p.read_text(errors="replace") for p in logs)


def _bits(log: str) -> dict[str, int]:
    """How many of the 12 bits each probe read right (a probe that failed outright reads none)."""
    return {name: int(count) for name, count in re.findall(r"BITS (\S+) (\d+) of 12", log)}


def _lock_pair(tmp_path: Path, sandboxed: bool) -> tuple[str, str]:
    channel = f"locks-{secrets.token_hex(4)}"
    sender = _bot(tmp_path, "sender", "mark_locks", channel, sandboxed)
    receiver = _bot(tmp_path, "receiver", ",".join(LOCK_READS), channel, sandboxed)

    async def scenario() -> None:
        try:
            await sender.start()  # it holds its locks before it serves, and for as long as it lives
            await receiver.start()  # it reads them before it serves
        finally:
            await receiver.close()
            await sender.close()

    asyncio.run(scenario())
    return _log(sender), _log(receiver)


def _inotify_pair(tmp_path: Path, sandboxed: bool) -> tuple[str, str]:
    channel = f"inotify-{secrets.token_hex(4)}"
    receiver = _bot(tmp_path, "watcher", "watch_opens,fanotify,dnotify", channel, sandboxed)
    sender = _bot(tmp_path, "opener", "signal_opens", channel, sandboxed)

    async def scenario() -> None:
        try:
            await receiver.start()  # it watches (in the background) for 8 s
            await sender.start()  # it opens the files of the 1 bits meanwhile
            deadline = time.monotonic() + 60
            while "watch_opens_result" not in _log(receiver):
                assert time.monotonic() < deadline, _log(receiver)[-2000:]
                await asyncio.sleep(0.2)
        finally:
            await sender.close()
            await receiver.close()

    asyncio.run(scenario())
    return _log(sender), _log(receiver)


def test_unsandboxed_locks_and_inotify_carry_the_secret(tmp_path: Path) -> None:
    """The attack's own check: without a sandbox each kind of lock, ``/proc/locks`` and inotify carry all
    12 bits (so the sandboxed test below would see a channel if there were one)."""
    sent, got = _lock_pair(tmp_path / "locks", sandboxed=False)
    assert "MARKED flock,posix,ofd" in sent, sent[-2000:]
    every = {"locks_flock": 12, "locks_posix": 12, "locks_ofd": 12, "proc_locks": 12}
    assert _bits(got) == every, got[-3000:]
    assert "ATTACK lock_high_bits SUCCEEDED" in got, got[-3000:]
    _, watched = _inotify_pair(tmp_path / "inotify", sandboxed=False)
    assert _bits(watched) == {"inotify": 12}, watched[-3000:]
    assert "ATTACK dnotify SUCCEEDED" in watched, watched[-3000:]


@pytest.mark.needs_bwrap
def test_two_sandboxed_bots_pass_no_bit_through_file_locks(tmp_path: Path) -> None:
    """The sender cannot take any lock, and the receiver's probes fail: 0 bits pass (before: 12 of 12)."""
    sent, got = _lock_pair(tmp_path, sandboxed=True)
    assert "SUCCEEDED" not in got, [x for x in got.splitlines() if "SUCCEEDED" in x]
    assert re.search(r"^MARKED $", sent, re.M), sent[-2000:]
    for kind in ("flock", "posix", "ofd"):
        assert re.search(rf"^MARK {kind} refused: \[Errno 37\] No locks available", sent, re.M), sent[-2000:]
    for name in LOCK_READS:
        assert f"ATTACK {name} FAILED" in got, got[-3000:]
    # The lock probes are refused outright; /proc/locks holds nothing of another sandbox's.
    assert set(_bits(got)) <= {"proc_locks"}, got[-3000:]
    assert _bits(got).get("proc_locks", 0) < 12


@pytest.mark.needs_bwrap
def test_two_sandboxed_bots_pass_no_bit_through_file_notifications(tmp_path: Path) -> None:
    """inotify, fanotify and dnotify are refused: the watcher sees nothing of the opener's opens."""
    _, watched = _inotify_pair(tmp_path, sandboxed=True)
    assert "SUCCEEDED" not in watched, [x for x in watched.splitlines() if "SUCCEEDED" in x]
    refused = r"ATTACK watch_opens FAILED PermissionError: \[Errno 1\] inotify_init1"
    assert re.search(refused, watched), watched[-3000:]
    assert "ATTACK fanotify FAILED" in watched and "ATTACK dnotify FAILED" in watched, watched[-3000:]
    assert "inotify" not in _bits(watched), watched[-3000:]


def test_the_marked_files_are_the_same_for_every_bot() -> None:
    """The channel's premise: the files are the interpreter's, which every sandbox is shown read-only."""
    import tests.bots.attacker as attacker

    files = attacker._marked_files()
    assert len(files) == attacker.MARKED_FILES
    assert all(Path(os.__file__).parent == f.parent for f in files)
