"""The dask executor (arena.executor.dask, dask_worker): tables on Dask workers give the same event as the
local executor, survive a dead worker, stop in one line when the scheduler vanishes, and pin each worker
to its share of the CPUs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed", reason="the dask executor needs distributed (pip install -e '.[test]')")

import json

from arena.executor.dask import cpu_groups
from arena.executor.dask_worker import pin_process
from arena.players.process import free_port
from arena.players.shim import group_members
from arena.results.store import Store
from tests.helpers import (
    FOUR_SAMPLE_BOTS,
    ROOT,
    arena_cli,
    board,
    children_of,
    event,
    rows,
    stored_hands,
    write_toml,
)

KEY = "ab" * 32
# What these test is the executor; a worker's sandbox is the local one (tests/sandbox tests it).
NO_SANDBOX = "none"
STEADY = f"{{python}} {ROOT / 'tests' / 'bots' / 'steady.py'} --address {{address}}"


def _mixed(tmp_path: Path, output: str, remote_port: int, **overrides: Any) -> Path:
    """An event with launched, address and in-process entrants, dealt with a fixed key."""
    entrants = [
        {
            "name": "launched",
            "command": f"{{python}} {ROOT / 'tests' / 'bots' / 'where.py'} --address {{address}}",
        },
        {"name": "remote", "address": f"127.0.0.1:{remote_port}"},
        {"name": "rules", "class": "sample_bots.rules:RulesBot"},
        {"name": "random", "class": "sample_bots.random:RandomBot"},
        {"name": "rules-b", "class": "sample_bots.rules:RulesBot"},
    ]
    data = event(
        tmp_path,
        entrant=entrants,
        output=str(tmp_path / output),
        deal_key=KEY,
        sandbox=NO_SANDBOX,
        **overrides,
    )
    return write_toml(tmp_path / f"{output}.toml", data)


@pytest.fixture
def remote_port() -> Any:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sample_bots.random", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    yield port
    proc.kill()
    proc.wait()


ROUNDS = 6
"""Games of the steady event: enough that each interruption below (at two stored games, four in flight at
most) leaves games to finish, and no more."""


def _steady_event(tmp_path: Path, output: str, **overrides: Any) -> Path:
    """The one event of launched steady bots that each interrupted run below must end equal to, written to
    ``tmp_path/OUTPUT.toml`` storing into ``tmp_path/OUTPUT``; ``overrides`` change how it runs (concurrency,
    the executor), never what is played. A generous deadline: a timeout on a loaded machine would be a fault
    (a substitute action) in one run and not the other, and the runs must be equal (CI saw exactly that
    once)."""
    entrants = [{"name": f"s{i}", "command": STEADY} for i in range(4)]
    entrants += [{"name": "rules", "class": "sample_bots.rules:RulesBot"}]
    data = event(
        tmp_path,
        entrant=entrants,
        rounds=ROUNDS,
        deal_key=KEY,
        sandbox=NO_SANDBOX,
        faults={"decision_ms": 30_000},
        output=str(tmp_path / output),
        **overrides,
    )
    return write_toml(tmp_path / f"{output}.toml", data)


@pytest.fixture(scope="module")
def reference(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[tuple[str, int, str]], list[dict[str, Any]]]:
    """The steady event played uninterrupted by the local executor, once for the module: its stored hands
    and its leaderboard, which every interrupted run of it must end with."""
    directory = tmp_path_factory.mktemp("reference")
    whole = _steady_event(directory, "whole", concurrency=4)
    result = arena_cli("run", "-q", str(whole), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return stored_hands(directory / "whole"), board(directory / "whole")


def _stored(directory: Path) -> int:
    try:
        with Store.open(directory, create=False) as store:
            return len(store.finished())
    except Exception:
        return 0


def test_one_and_two_local_workers_give_the_local_executor_s_records_and_leaderboard(
    tmp_path: Path, remote_port: int
) -> None:
    local = _mixed(tmp_path, "local", remote_port, concurrency=3)
    dask = _mixed(tmp_path, "dask", remote_port, concurrency=3)
    single = _mixed(tmp_path, "single", remote_port, concurrency=3)
    assert arena_cli("run", "-q", str(local), timeout=300).returncode == 0
    result = arena_cli("run", str(dask), "--workers", "2", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "executor: dask, a local cluster of 2 workers" in result.stdout
    assert stored_hands(tmp_path / "dask") == stored_hands(tmp_path / "local")
    assert board(tmp_path / "dask") == board(tmp_path / "local")
    result = arena_cli("run", str(single), "--workers", "1", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "executor: dask, a local cluster of 1 worker" in result.stdout
    assert stored_hands(tmp_path / "single") == stored_hands(tmp_path / "local")
    assert board(tmp_path / "single") == board(tmp_path / "local")
    logs = sorted(p.name for p in (tmp_path / "dask" / "logs").iterdir())
    assert logs == ["worker-0", "worker-1"], logs
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) >= 2:  # each worker's launched bot runs on its worker's share of the CPUs (pin_cpus)
        groups = cpu_groups(2, cpus)
        assert f"CPUs: worker 0 on {','.join(map(str, groups['0']))}" in result.stdout, result.stdout
        for name in ("0", "1"):
            log = (tmp_path / "dask" / "logs" / f"worker-{name}" / "launched.log").read_text()
            assert f"cpus: {','.join(map(str, groups[name]))}" in log, log


def test_cpu_groups_cut_the_cpus_into_contiguous_shares_one_per_worker() -> None:
    assert cpu_groups(2, [0, 1]) == {"0": (0,), "1": (1,)}
    assert cpu_groups(1, [0, 1]) == {"0": (0, 1)}
    assert cpu_groups(3, [0, 1]) == {"0": (0,), "1": (1,), "2": (0,)}  # more workers than CPUs: in turn
    groups = cpu_groups(3, list(range(16)))
    assert [len(g) for g in groups.values()] == [5, 6, 5]
    assert sorted(c for g in groups.values() for c in g) == list(range(16))
    assert cpu_groups(2, [3, 7, 5, 9]) == {"0": (3, 5), "1": (7, 9)}


def test_pin_process_moves_every_thread_and_what_they_start_later() -> None:
    """A real process with a thread already running: after pinning, every thread of it and a child
    process started afterwards are on the one CPU (Linux keeps an affinity per thread)."""
    cpu = max(os.sched_getaffinity(0))
    code = f"""
import os, subprocess, threading, time
from arena.executor.dask_worker import pin_process
stop = threading.Event()
threading.Thread(target=stop.wait, daemon=True).start()
pin_process({{{cpu}}})
tasks = [os.sched_getaffinity(int(t)) == {{{cpu}}} for t in os.listdir("/proc/self/task")]
child = subprocess.run(["grep", "Cpus_allowed_list", "/proc/self/status"], capture_output=True, text=True)
print(len(tasks), all(tasks), child.stdout.split()[-1])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    threads, pinned, child = out.stdout.split()
    assert int(threads) >= 2 and pinned == "True" and child == str(cpu), out.stdout + out.stderr
    pin_process(os.sched_getaffinity(0))  # a no-op here: this process keeps all its CPUs


def test_an_event_interrupted_locally_and_finished_on_dask_equals_an_uninterrupted_one(
    tmp_path: Path, reference: tuple[list[tuple[str, int, str]], list[dict[str, Any]]]
) -> None:
    broken = _steady_event(tmp_path, "broken", concurrency=2)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", "-q", str(broken)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while _stored(tmp_path / "broken") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert 2 <= _stored(tmp_path / "broken") < ROUNDS, "killed mid-event"
    assert arena_cli("run", "-q", str(broken), "--workers", "2", timeout=300).returncode == 0
    assert (stored_hands(tmp_path / "broken"), board(tmp_path / "broken")) == reference


def _group_alive(pgid: int) -> bool:
    return bool(group_members(pgid))


def _start(
    procs: list[subprocess.Popen[bytes]], *args: str, log: Path | None = None
) -> subprocess.Popen[bytes]:
    with open(log or os.devnull, "wb") as out:  # a file, not a pipe: nobody must have to keep reading it
        proc = subprocess.Popen([*args], cwd=ROOT, stdout=out, stderr=out, start_new_session=True)
    procs.append(proc)
    return proc


def _certificates(directory: Path) -> dict[str, str]:
    """A CA certificate, and a certificate and key it signs, as files: the same self-signed pair for
    every role (what ``Security.temporary()`` makes), as an organiser would make with openssl."""
    from distributed import Security

    made = Security.temporary()
    files = {"tls_ca_file": made.tls_ca_file, "tls_cert": made.tls_scheduler_cert}
    files["tls_key"] = made.tls_scheduler_key
    for key, pem in files.items():
        (directory / f"{key}.pem").write_text(str(pem))
    return {key: str(directory / f"{key}.pem") for key in files}


def _tls_flags(tls: dict[str, str] | None) -> list[str]:
    if tls is None:
        return []
    return ["--tls-ca-file", tls["tls_ca_file"], "--tls-cert", tls["tls_cert"], "--tls-key", tls["tls_key"]]


def _cluster(
    procs: list[subprocess.Popen[bytes]],
    scheduler_file: Path,
    workers: int,
    tls: dict[str, str] | None = None,
) -> tuple[subprocess.Popen[bytes], list[subprocess.Popen[bytes]]]:
    """A real ``dask scheduler`` and ``workers`` real ``dask worker`` processes on loopback, found through
    a scheduler file (as on a cluster of machines), each in a process group of its own; with ``tls``
    (``_certificates``), speaking TLS only, as docs/scale-out.md says to start one."""
    scheduler = _start(
        procs,
        sys.executable,
        "-m",
        "distributed.cli.dask_scheduler",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--no-dashboard",
        "--scheduler-file",
        str(scheduler_file),
        *(["--protocol", "tls", *_tls_flags(tls)] if tls else []),
        log=scheduler_file.with_name("scheduler.log"),
    )
    deadline = time.monotonic() + 60
    while not scheduler_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    started = [
        _start(
            procs,
            sys.executable,
            "-m",
            "distributed.cli.dask_worker",
            "--scheduler-file",
            str(scheduler_file),
            "--nthreads",
            "2",
            "--no-nanny",
            "--no-dashboard",
            "--host",
            "127.0.0.1",
            "--name",
            f"w{i}",
            *_tls_flags(tls),
            log=scheduler_file.with_name(f"w{i}.log"),
        )
        for i in range(workers)
    ]
    # The arena refuses a cluster without workers: it starts once the scheduler has every one of them.
    logs = [scheduler_file.with_name(f"w{i}.log") for i in range(workers)]
    deadline = time.monotonic() + 60
    while not all("Registered to:" in log.read_text() for log in logs):
        assert time.monotonic() < deadline, "a worker did not join: " + logs[-1].read_text()[-2000:]
        time.sleep(0.1)
    return scheduler, started


def _arena_midway(config: Path, scheduler_file: Path, output: Path) -> subprocess.Popen[str]:
    """``arena run CONFIG`` on the cluster of ``scheduler_file``, once it has stored two games; with
    Python's fault handler on, so that a SIGABRT prints every thread's stack (where a hang is)."""
    arena = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", "-q", str(config), "--scheduler", str(scheduler_file)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONFAULTHANDLER": "1"},
    )
    deadline = time.monotonic() + 120
    while _stored(output) < 2 and time.monotonic() < deadline and arena.poll() is None:
        time.sleep(0.05)
    return arena


def _kill_all(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_a_worker_killed_mid_event_loses_only_its_games_which_are_played_again(
    tmp_path: Path, reference: tuple[list[tuple[str, int, str]], list[dict[str, Any]]]
) -> None:
    """A real ``dask scheduler`` and two ``dask worker`` processes on loopback, secured with TLS (the
    arena given its certificate in ``[executor]``, kept with ``--scheduler``); one worker is SIGKILLed."""
    scheduler_file = tmp_path / "scheduler.json"
    procs: list[subprocess.Popen[bytes]] = []
    tls = _certificates(tmp_path)
    try:
        _, workers = _cluster(procs, scheduler_file, 2, tls)
        # four games in flight, two on each worker's two threads: the victim has games to lose
        executor = {"scheduler": "tls://127.0.0.1:1"} | tls  # --scheduler names the real one
        config = _steady_event(tmp_path, "out", concurrency=4, executor=executor)
        # Without the certificate, the cluster refuses the arena: one line.
        plain = write_toml(tmp_path / "plain.toml", event(tmp_path, output=str(tmp_path / "plain")))
        refused = arena_cli("run", "-q", str(plain), "--scheduler", str(scheduler_file), timeout=120)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr[-3000:]
        assert refused.stderr.startswith("error: cannot reach the Dask cluster"), refused.stderr[-3000:]
        assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr[-3000:]
        arena = _arena_midway(config, scheduler_file, tmp_path / "out")
        victim = workers[1]
        shims = children_of(victim.pid)  # the launchers of that worker's bots, each its bot's process group
        assert shims, "the worker launched no bots"
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        try:
            out, err = arena.communicate(timeout=300)
        except subprocess.TimeoutExpired:  # seen twice beside two burners: keep what tells where it hung
            arena.send_signal(signal.SIGABRT)  # the fault handler prints every thread's stack
            try:
                out, err = arena.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                arena.kill()
                out, err = arena.communicate()
            logs = "".join(
                f"\n--- {p.name}\n" + p.read_text()[-3000:]
                for p in sorted(tmp_path.glob("*.log"))  # the workers' and the scheduler's
            )
            with Store.open(tmp_path / "out", create=False) as store:
                stored = store.database.all("SELECT COUNT(*) FROM games")[0][0]
            pytest.fail(f"the arena hung after the worker died ({stored} games stored)\n{out}{err}{logs}")
        assert arena.returncode == 0, out + err
        with Store.open(tmp_path / "out", create=False) as store:
            ids = [r[0] for r in store.database.all("SELECT game_id FROM games")]
            scheduled = store.database.all("SELECT COUNT(*) FROM schedule")[0][0]
        assert len(ids) == len(set(ids)) == scheduled == ROUNDS
        deadline = time.monotonic() + 15
        while any(_group_alive(s) for s in shims) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_group_alive(s) for s in shims), "a bot of the dead worker survived it"
    finally:
        _kill_all(procs)
    # The games lost with the worker were played again from their start: every stored hand is the one the
    # local executor deals and plays for the same event (a game resumed half-way would differ).
    assert (stored_hands(tmp_path / "out"), board(tmp_path / "out")) == reference


def test_a_scheduler_that_vanishes_stops_the_event_in_one_line_and_it_resumes_locally(
    tmp_path: Path, reference: tuple[list[tuple[str, int, str]], list[dict[str, Any]]]
) -> None:
    """The scheduler of a running cluster is SIGKILLed mid-event: the arena stops with one line that says
    so (exit 1, no traceback), keeps what it stored, and the same event finished with ``--executor local``
    equals an uninterrupted one."""
    scheduler_file = tmp_path / "scheduler.json"
    procs: list[subprocess.Popen[bytes]] = []
    broken = _steady_event(tmp_path, "broken", concurrency=2)
    try:
        scheduler, _ = _cluster(procs, scheduler_file, 1)
        arena = _arena_midway(broken, scheduler_file, tmp_path / "broken")
        os.killpg(scheduler.pid, signal.SIGKILL)
        scheduler.wait(10)
        out, err = arena.communicate(timeout=120)
    finally:
        _kill_all(procs)
    assert arena.returncode == 1, out + err
    assert "Traceback" not in out + err
    lines = [line for line in err.splitlines() if line and not line.startswith("warning: deal_key is fixed")]
    assert len(lines) == 1 and lines[0].startswith("error: lost the Dask scheduler"), err  # nothing of Dask's
    assert 2 <= _stored(tmp_path / "broken") < ROUNDS, "stopped mid-event"
    # The worker stops its bots as soon as it loses the scheduler: no game it was playing may come back
    # finished with their crashes (tests/executor/test_dask_worker.py).
    assert rows(tmp_path / "broken", "SELECT * FROM faults") == []
    assert arena_cli("run", "-q", str(broken), "--executor", "local", timeout=300).returncode == 0
    assert (stored_hands(tmp_path / "broken"), board(tmp_path / "broken")) == reference


def test_on_dask_an_address_that_does_not_answer_is_played_by_the_autopilot_and_marked(
    tmp_path: Path,
) -> None:
    """The same as locally, with two Dask workers: each worker tries the entrant, the conductor seats it
    nowhere while any worker has it down, and marks it at the end."""
    pytest.importorskip("distributed")
    path = write_toml(
        tmp_path / "event.toml",
        {
            "name": "d",
            "seed": 3,
            "rounds": 3,
            "concurrency": 2,
            "output": str(tmp_path / "out"),
            "game": {"variant": "five-handed"},
            "faults": {"restart_backoff_s": 0.1, "restart_backoff_max_s": 0.4},
            "entrant": [{"name": "ghost", "address": f"127.0.0.1:{free_port()}"}, *FOUR_SAMPLE_BOTS],
        },
    )
    result = arena_cli("run", "-q", str(path), "--workers", "2")
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert any(line.startswith("warning: ghost: ") for line in out.splitlines()), out[-3000:]
    reasons = dict(rows(tmp_path / "out", "SELECT entrant, reason FROM disqualified"))
    assert list(reasons) == ["ghost"] and reasons["ghost"].startswith("never came up: ")
    for seats, excluded in rows(tmp_path / "out", "SELECT seats, excluded FROM games"):
        assert json.loads(excluded) == (["ghost"] if "ghost" in json.loads(seats) else [])
