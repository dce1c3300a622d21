"""The Dask cluster speaks only to the arena (issue 23, hole 1): while a ``--workers 2`` event runs, a
process of another user tries every port the arena's cluster listens on, as a Dask client over plain TCP
and over TLS with a certificate of its own, to run code in the workers, and over HTTP for the pages that
show the workers' logs and addresses: refused everywhere, and the event finishes normally. And a cluster
joined over plain TCP is warned about in one line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the dask executor needs distributed (pip install -e '.[test]')")

from arena.executor.dask import open_scheduler_warning
from tests.helpers import BOTS, FOUR_SAMPLE_BOTS, ROOT, children_of, event, rows, write_toml

NOBODY = 65534


def _tree(pid: int) -> set[int]:
    """``pid`` and every process under it."""
    found, todo = {pid}, [pid]
    while todo:
        more = set(children_of(todo.pop())) - found
        found |= more
        todo += more
    return found


def _listening_ports(pids: set[int]) -> set[int]:
    """The TCP ports these processes listen on (what ``/proc/net/tcp`` shows any user on most machines)."""
    inodes: set[str] = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


@pytest.mark.needs_root
def test_another_user_cannot_reach_the_local_cluster_of_a_running_event(tmp_path: Path) -> None:
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to run the intruder as another user")
    gate = tmp_path / "gate"
    gate.mkdir()
    entrants = [{"name": "gate", "class": "tests.bots.inprocess:Gate"}, *FOUR_SAMPLE_BOTS]
    data = event(tmp_path, entrant=entrants, rounds=2, concurrency=2, faults={"decision_ms": 120_000})
    config = write_toml(tmp_path / "event.toml", data)
    arena = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", "-q", str(config), "--workers", "2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"GATE_DIR": str(gate)},
    )
    try:
        deadline = time.monotonic() + 120  # bounds a hang only: the gate holds the event mid-game
        while not (gate / "reached").exists() and arena.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (gate / "reached").exists(), "no game reached the gate"
        ports = sorted(_listening_ports(_tree(arena.pid)))
        assert len(ports) >= 3, ports  # the scheduler, and each worker (and its nanny)
        as_nobody = ["setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups"]
        intruder = subprocess.run(
            [*as_nobody, sys.executable, str(BOTS / "dask_intruder.py"), *map(str, ports)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd="/",
            env={"PATH": os.environ.get("PATH", ""), "HOME": "/tmp", "PYTHONPATH": str(ROOT)},
        )
        tries = [json.loads(line) for line in intruder.stdout.splitlines() if line.startswith("{")]
        assert {t["port"] for t in tries} == set(ports), intruder.stdout + intruder.stderr[-3000:]
        assert all(t["uid"] == NOBODY for t in tries)
        through = [t for t in tries if not t["result"].startswith("refused")]
        assert not through, json.dumps(through, indent=1)
        assert arena.poll() is None, "the event must still be running"
    finally:
        (gate / "open").touch()
        out, err = arena.communicate(timeout=300)
    assert arena.returncode == 0, out + err
    assert "a local cluster of 2 workers (TLS)" in out
    assert rows(tmp_path / "out", "SELECT COUNT(*) FROM games") == [(2,)]


def test_a_cluster_joined_over_plain_tcp_is_warned_about_in_one_line() -> None:
    far = open_scheduler_warning("tcp://10.0.0.1:8786")
    assert far is not None and "anyone who can reach 10.0.0.1" in far and "\n" not in far
    near = open_scheduler_warning("tcp://127.0.0.1:8786")
    assert near is not None and "every user of this machine" in near
    assert open_scheduler_warning("tls://10.0.0.1:8786") is None
