"""Issue 9: hostile entrants launched through ``arena run`` under the bubblewrap sandbox.

Each attacker (tests/bots/attacker.py) tries what a cheating contestant would, reports in its log, and the
test fails if any attack got through, if an attack never ran, if an honest bot lost anything, or if a
process of any bot survives the event or ``kill -9`` of the arena. Skipped, with the reason, where
bubblewrap cannot run (``.ci/run`` installs it).
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.players.process import free_port
from arena.sandbox import cgroup_problem
from arena.sandbox.cgroups import _layout
from tests.helpers import ROOT

ATTACKER = ROOT / "tests" / "bots" / "attacker.py"
MARKER = "euchre-arena-attacker-survivor"
SECRET = "organiser-secret-6b1f0c"

pytestmark = pytest.mark.needs_bwrap

SPY_ATTACKS = (
    "proc_cmdline",
    "proc_environ",
    "proc_mem",
    "read_config",
    "read_db",
    "read_key",
    "read_victim_log",
    "write_db",
    "write_outside",
    "kill_rivals",
    "connect_rival",
    "read_shadow",
    "fill_tmp",
    "grandchildren",
)


def _survivors(marker: str = MARKER) -> list[int]:
    """Live processes whose command line holds ``marker`` (the attackers' grandchildren, or the attackers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
                stat = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if marker.encode() in cmd and stat[0] not in (b"Z", b"X") and int(entry) != os.getpid():
                found.append(int(entry))
    return found


def _cgroups_of(pid: int) -> list[Path]:
    """Cgroups the arena with ``pid`` created and left behind."""
    layout = _layout()
    if isinstance(layout, str):
        return []
    return [p for d in layout.parents.values() for p in d.glob(f"euchre-arena-{pid}-*")]


def _wait_no_survivors(timeout_s: float = 15.0) -> list[int]:
    """Wait for every attacker, grandchild and sandbox of this test to be gone; what is left."""
    deadline = time.monotonic() + timeout_s
    while (left := _survivors() + _survivors(str(ATTACKER))) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.fixture
def remote_bot() -> Iterator[int]:
    """An honest entrant on the host's loopback (an ``address`` entrant): the target of connect_rival."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sample_bots.random", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    yield port
    proc.kill()
    proc.wait()


def _attacker(name: str, attacks: str, extra: str = "", **keys: object) -> str:
    lines = [
        "[[entrant]]",
        f'name = "{name}"',
        f'command = "{{python}} {ATTACKER} --attacks {attacks} {extra} --address {{address}}"',
        "startup_timeout_s = 60",
    ]
    lines += [f"{k} = {v}" for k, v in keys.items()]
    return "\n".join(lines) + "\n"


def _write_config(tmp_path: Path, remote_port: int, rounds: int = 3) -> tuple[Path, Path]:
    out = tmp_path / "out"
    config = tmp_path / "cup.toml"
    targets = (
        f"--config {config} --db {out / 'event.sqlite'} --victim-log {out / 'logs' / 'victim.log'} "
        f"--victim-port {remote_port} --host-pid {os.getpid()} --secret {SECRET} --seed 77"
    )
    config.write_text(
        f"# {SECRET}\n"
        f'name = "sealed"\nseed = 77\nrounds = {rounds}\nconcurrency = 3\noutput = "{out}"\n'
        '[game]\nvariant = "call-ace"\nnum_players = 6\n'
        "[faults]\ndecision_ms = 3000\n"
        + _attacker("spy", ",".join(SPY_ATTACKS), targets)
        + _attacker("rebuilder", "rebuild_deal", "--seed 77")
        + _attacker("hog", "memory_children", "--memory-mb 400", memory_mb=400)
        + _attacker("burner", "cpu_children", "", cpu_s=3)
        + _attacker("bomber", "fork_bomb", "--max-processes 256")
        + '[[entrant]]\nname = "victim"\ncommand = "{python} -m sample_bots.rules --address {address}"\n'
        + f'[[entrant]]\nname = "remote"\naddress = "127.0.0.1:{remote_port}"\n'
    )
    return config, out


UNPRIVILEGED = ["unshare", "--user", "--map-user=65534", "--map-group=65534"]
"""Run as root, the arena is started as nobody in a user namespace of its own: it takes its unprivileged
path (bubblewrap without root, the bots of its own user, no cgroups) and can still read an interpreter kept
under /root. Outside that namespace it is still root's user, so the kernel lets it read root's files and
exempts it from ``RLIMIT_NPROC``: those two attacks (and the memory limit, per process without cgroups, as
docs/security.md says) are not judged there; tests/sandbox/test_sealed.py caps a fork bomb as a real
nobody."""
NOT_JUDGED_UNPRIVILEGED = ("read_shadow", "fork_bomb", "memory_children")


def _run(config: Path, prefix: list[str] | None = None, **kwargs: object) -> subprocess.Popen[str]:
    env = dict(os.environ, ARENA_TEST_SECRET=SECRET)
    return subprocess.Popen(
        [*(prefix or []), sys.executable, "-m", "arena", "run", str(config), "-q"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **kwargs,  # type: ignore[call-overload]
    )


def _logs(out: Path, name: str) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted((out / "logs").glob(f"{name}.log*")))


@pytest.mark.parametrize("arena_user", ["as-run", "unprivileged"])
def test_every_attack_fails_and_the_event_completes(tmp_path: Path, remote_bot: int, arena_user: str) -> None:
    prefix: list[str] = []
    not_judged: tuple[str, ...] = ()
    if arena_user == "unprivileged" and os.geteuid() == 0:
        if subprocess.run([*UNPRIVILEGED, "true"], capture_output=True).returncode != 0:
            pytest.skip("unshare cannot map this user to nobody in a user namespace here")
        prefix, not_judged = UNPRIVILEGED, NOT_JUDGED_UNPRIVILEGED
    config, out = _write_config(tmp_path, remote_bot)
    arena = _run(config, prefix)
    output, _ = arena.communicate(timeout=400)
    assert arena.returncode == 0, output
    assert "sandbox: bubblewrap for" in output

    spy = _logs(out, "spy")
    hog = _logs(out, "hog")
    bomber = _logs(out, "bomber")
    rebuilder = _logs(out, "rebuilder")
    everything = spy + hog + bomber + rebuilder + _logs(out, "burner")
    got_through = [
        line
        for line in everything.splitlines()
        if "SUCCEEDED" in line and not any(f"ATTACK {name} " in line for name in not_judged)
    ]
    assert got_through == []
    for attack in SPY_ATTACKS:
        if attack != "grandchildren" and attack not in not_judged:
            assert f"ATTACK {attack} FAILED" in spy, f"{attack} never ran:\n{spy[-3000:]}"
    assert "ATTACK grandchildren STARTED" in spy
    assert "ATTACK memory_children FAILED" in hog or "memory_children" in not_judged
    assert "ATTACK fork_bomb FAILED" in bomber or "fork_bomb" in not_judged
    assert "ATTACK rebuild_deal FAILED" in rebuilder

    # CPU: everything the burner's processes used together, across restarts, stays within its budget.
    used: dict[str, float] = {}
    for pid, seconds in re.findall(r"^CPU (\d+) ([\d.]+)$", _logs(out, "burner"), re.M):
        used[pid] = max(used.get(pid, 0.0), float(seconds))
    assert used, "the burner never burned"
    with_cgroups = cgroup_problem() is None and not prefix
    limit = 3 if with_cgroups else 3 * 3  # per process only without cgroups
    assert sum(used.values()) <= limit + 1.5, used

    # The event is whole, untouched, and the honest entrants lost nothing.
    with sqlite3.connect(out / "event.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        scheduled = db.execute("SELECT count(*) FROM schedule").fetchone()[0]
        played = db.execute("SELECT count(*) FROM games").fetchone()[0]
        honest_faults = db.execute(
            "SELECT count(*) FROM faults WHERE entrant IN ('victim', 'remote') AND kind != 'harness'"
        ).fetchone()[0]
    assert played == scheduled > 0
    assert honest_faults == 0
    assert not list(ROOT.rglob("planted*")) and not Path("/etc/planted").exists()

    # Nothing of any bot is left: not the daemonised grandchildren, not a cgroup.
    assert _wait_no_survivors() == []
    assert _cgroups_of(arena.pid) == []


def test_no_process_survives_kill_9_of_the_arena(tmp_path: Path) -> None:
    config = tmp_path / "k.toml"
    config.write_text(
        f'name = "k"\nrounds = 50\noutput = "{tmp_path / "out"}"\n[game]\nvariant = "five-handed"\n'
        "[faults]\ndecision_ms = 3000\n"
        + _attacker("spy", "grandchildren")
        + "".join(
            f'[[entrant]]\nname = "r{i}"\ncommand = "{{python}} -m sample_bots.rules --address {{address}}"\n'
            for i in range(4)
        )
    )
    arena = _run(config, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(_survivors()) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_survivors()) >= 3, "the grandchildren never started"
        arena.send_signal(signal.SIGKILL)
        arena.wait(10)
        assert _wait_no_survivors() == []
    finally:
        if arena.poll() is None:
            arena.kill()
        if arena.stdout:
            arena.stdout.close()
