"""Issue 23: what got through around the sandbox, tried again by real hostile bots (tests/bots/attacker.py).

Two bots pass a secret through kernel objects (keyring, System V and POSIX IPC, abstract sockets); a bot
fills the directory of its socket; swaps its socket for a link to a socket of the host; reads the files
beside its program; balloons under the default config; floods its output. Each test fails if the attack
gets through. Skipped, with the reason, where bubblewrap (or cgroups) cannot be used here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

from arena.errors import BotCrashed, BotTimeout
from arena.event.config import parse_config
from arena.executor.local import LocalExecutor
from arena.players.connection import BotConnection
from arena.players.process import ManagedBot
from arena.sandbox import SandboxMode, SandboxSpec, bubblewrap
from tests.conftest import missing
from tests.helpers import ROOT

ATTACKER = ROOT / "tests" / "bots" / "attacker.py"
CHANNELS = ("keyring", "sysv_msg", "sysv_shm", "posix_shm", "mqueue", "abstract_socket")


def _bot(tmp_path: Path, name: str, attacks: str, extra: str = "", sandboxed: bool = True) -> ManagedBot:
    command = f"{{python}} {ATTACKER} --attacks {attacks} {extra} --address {{address}}"
    mode = SandboxMode.BUBBLEWRAP if sandboxed else SandboxMode.NONE
    return ManagedBot(
        name, command, tmp_path / f"{name}.log", startup_timeout_s=60, sandbox=SandboxSpec(mode=mode)
    )


def _log(bot: ManagedBot) -> str:
    logs = sorted(bot.log_path.parent.glob(f"{bot.name}.log*"))
    return "".join(p.read_text(errors="replace") for p in logs)


def _wait_for(bot: ManagedBot, line: str, timeout_s: float = 60.0) -> bool:
    """Whether ``line`` reached the bot's log (the shim copies its output a moment after it is written)."""
    deadline = time.monotonic() + timeout_s
    while line not in _log(bot) and time.monotonic() < deadline:
        time.sleep(0.05)
    return line in _log(bot)


def _collude(tmp_path: Path, sandboxed: bool) -> tuple[str, str]:
    """Bot ``planter`` leaves a secret in every channel and stays; then ``reader`` looks for it.

    :returns: the planter's log and the reader's.
    """
    channel = f"euchre-collusion-{os.getpid()}-{secrets.token_hex(4)}"
    planter = _bot(tmp_path, "planter", "plant", f"--channel {channel}", sandboxed)
    attacks = ",".join(f"collude_{c}" for c in CHANNELS)
    reader = _bot(tmp_path, "reader", attacks, f"--channel {channel} --cleanup", sandboxed)

    async def scenario() -> None:
        try:
            await planter.start()  # it plants before it serves
            await reader.start()  # it reads before it serves
        finally:
            await reader.close()
            await planter.close()

    try:
        asyncio.run(scenario())
    finally:
        _remove_channels(channel)
    assert "PLANTED" in _log(planter), _log(planter)[-2000:]
    return _log(planter), _log(reader)


def _remove_channels(channel: str) -> None:
    """What an unsandboxed pair leaves on the host if the reader did not find it (a failing test)."""
    with contextlib.suppress(OSError):
        Path(f"/dev/shm/{channel}").unlink()
    with contextlib.suppress(OSError):
        Path(f"/dev/mqueue/{channel}").unlink()
    key = str(0x45570000 + sum(channel.encode()) % 0xFFFF)
    if shutil.which("ipcrm"):
        subprocess.run(["ipcrm", "-Q", key], capture_output=True, check=False)
        subprocess.run(["ipcrm", "-M", key], capture_output=True, check=False)


def test_unsandboxed_the_channels_carry_the_secret(tmp_path: Path) -> None:
    """The attack's own check: on one host without a sandbox, every channel passes the secret (every one
    the host lets a process use: a container's own seccomp profile may refuse the keyring, for one)."""
    planted, log = _collude(tmp_path, sandboxed=False)
    usable = re.findall(r"^PLANTED (.*)$", planted, re.M)[0].split(",")
    assert len(usable) >= len(CHANNELS) - 2, f"this host lets a process use only {usable}"
    for c in usable:
        assert f"ATTACK collude_{c} SUCCEEDED" in log, log[-3000:]


@pytest.mark.needs_bwrap
def test_two_sandboxed_bots_share_no_kernel_object(tmp_path: Path) -> None:
    """Keyring, SysV message queue and shared memory, POSIX shared memory and message queue, abstract
    socket: none carries the secret from one sandbox to the other."""
    _, log = _collude(tmp_path, sandboxed=True)
    assert "SUCCEEDED" not in log, [x for x in log.splitlines() if "SUCCEEDED" in x]
    for c in CHANNELS:
        assert f"ATTACK collude_{c} FAILED" in log, log[-3000:]


@pytest.mark.needs_bwrap
def test_a_bot_cannot_fill_the_host_disk_through_its_socket_directory(tmp_path: Path) -> None:
    """The socket directory was a host directory: a bot wrote 1,200 MB through it. It tries 200 MB."""
    host = tempfile.gettempdir()  # where the arena used to make the socket directories
    before = shutil.disk_usage(host).free
    bot = _bot(tmp_path, "filler", "fill_socket_dir", "--fill-mb 200")

    async def scenario() -> None:
        try:
            await bot.start()
        finally:
            await bot.close()

    asyncio.run(scenario())
    filled = re.search(r"^FILLED (\d+)$", _log(bot), re.M)
    assert filled is not None, _log(bot)[-2000:]
    assert int(filled[1]) <= 1024 * 1024, f"wrote {int(filled[1]) >> 20} MB beside its socket"
    assert before - shutil.disk_usage(host).free < 100 * 1024 * 1024


FILL_DEV = """
import asyncio, sys
from pathlib import Path
from arena.players.process import ManagedBot
from arena.sandbox import SandboxMode, SandboxSpec, bubblewrap
out = Path(sys.argv[1])
command = f"{{python}} {sys.argv[2]} --attacks fill_dev --fill-mb 200 --shm-mb 64 --address {{address}}"
bot = ManagedBot("devfiller", command, out / "devfiller.log", startup_timeout_s=60,
                 sandbox=SandboxSpec(mode=SandboxMode.BUBBLEWRAP))
async def scenario() -> None:
    try:
        await bot.start()
    finally:
        await bot.close()
asyncio.run(scenario())
"""


@pytest.mark.needs_bwrap
@pytest.mark.parametrize("arena_user", ["as-run", "unprivileged"])
def test_a_bot_cannot_fill_memory_through_dev(arena_user: str) -> None:
    """``/dev`` and ``/dev/shm`` were bubblewrap's ``/dev`` tmpfs (half the host's memory), writable by the
    bot where the arena runs unprivileged: a bot wrote 200 MB to each. It tries 200 MB into each again, with
    the arena run as this test runs, and as an unprivileged user (nobody in a user namespace, when run as
    root)."""
    prefix: list[str] = []
    if arena_user == "unprivileged" and os.geteuid() == 0:
        # A user namespace where this process is nobody: the arena takes its unprivileged path (bubblewrap
        # without root), and can still read an interpreter kept under /root.
        prefix = ["unshare", "--user", "--map-user=65534", "--map-group=65534"]
        if subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
            pytest.skip("unshare cannot map this user to nobody in a user namespace here")
    with tempfile.TemporaryDirectory() as where:  # pytest's own tmp_path is its user's only
        out = Path(where)
        out.chmod(0o777)
        done = subprocess.run(
            [*prefix, sys.executable, "-c", FILL_DEV, str(out), str(ATTACKER)],
            cwd=ROOT,
            env={**os.environ, "HOME": str(out), "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        logs = "".join(p.read_text(errors="replace") for p in sorted(out.glob("devfiller.log*")))
    assert done.returncode == 0, done.stderr[-2000:] + logs[-2000:]
    assert "ATTACK fill_dev FAILED" in logs, logs[-3000:]
    shm = re.search(r"^FILLED /dev/shm/fill (\d+)$", logs, re.M)
    assert shm is not None and int(shm[1]) <= 64 * 1024 * 1024, logs[-3000:]


FORK_BOMB = """
import os, time
count = 0
try:
    while count < 1000:
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        count += 1
except OSError:
    pass
print("FORKED", count, flush=True)
"""


def _unprivileged_sandbox(command: list[str], spec: SandboxSpec, bot_path: Path) -> list[str]:
    """The sandbox's command as an unprivileged arena builds it, run as nobody when this test runs as root
    (with the host's own programs: nobody may not reach an interpreter kept under /root)."""
    with (
        mock.patch.object(bubblewrap.os, "geteuid", return_value=1000),
        mock.patch.object(bubblewrap, "sdk_paths", return_value=[]),  # these programs need no package
    ):
        argv = bubblewrap.bwrap_argv(command, spec, bot_path=bot_path, cwd=bot_path)
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    return [*prefix, *argv]


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory nobody can read (pytest's own tmp_path is its user's only), outside /tmp: inside the
    sandbox /tmp is the bot's own, and the directories of the bot's path must lie on the sandbox's root."""
    where = Path(tempfile.mkdtemp(dir="/var/tmp" if os.access("/var/tmp", os.W_OK) else None))
    where.chmod(0o755)
    yield where
    shutil.rmtree(where, ignore_errors=True)


@pytest.mark.needs_bwrap
def test_a_fork_bomb_is_capped_where_the_arena_runs_unprivileged(shared_dir: Path) -> None:
    """Unprivileged and without cgroups, a bot forked 2,000 processes. Two sandboxes at once, as nobody:
    each is capped at its own ``max_processes``, neither at the other's count."""
    system_python = Path("/usr/bin/python3")
    if not system_python.exists():
        pytest.skip("no /usr/bin/python3 to run the bomb as nobody")
    (shared_dir / "bomb.py").write_text(FORK_BOMB)
    argv = _unprivileged_sandbox(
        [str(system_python), str(shared_dir / "bomb.py")], SandboxSpec(max_processes=40), shared_dir
    )
    runs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={})
        for _ in range(2)
    ]
    outputs = [r.communicate(timeout=60) for r in runs]
    counts = [re.search(r"FORKED (\d+)", out) for out, _ in outputs]
    assert all(counts), outputs
    assert all(int(c[1]) < 40 for c in counts if c), outputs  # the cap, less the bot and bubblewrap's init
    assert all(int(c[1]) >= 30 for c in counts if c), outputs  # each its own count: not one shared cap


WRITES = """
for target in / /run "$PWD" "${PWD%/*}" "$PWD/results" /dev /tmp /dev/shm /run/arena; do
    if (echo x > "$target/planted") 2>/dev/null; then echo "WROTE $target"; fi
    chmod u+w "$target" 2>/dev/null && (echo x > "$target/planted") 2>/dev/null && echo "CHMOD $target"
done
df -k /tmp /dev/shm /run/arena | tail -n 3
"""


@pytest.mark.needs_bwrap
def test_an_unprivileged_bot_can_write_only_to_its_sized_mounts(shared_dir: Path) -> None:
    """Unprivileged, the bot owned what bubblewrap made (the root tmpfs of half the host's memory, the
    directories on it, the tmpfs hiding the results): it could write, or chmod and write, into any of them.
    As nobody it tries each; only /tmp, /dev/shm and the socket's directory take a write, each sized."""
    bot = shared_dir / "bot"
    (bot / "results").mkdir(parents=True)
    spec = SandboxSpec(hide=(bot / "results",), tmp_mb=16)
    argv = _unprivileged_sandbox(["/bin/sh", "-c", WRITES], spec, bot)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env={})
    wrote = set(re.findall(r"^(?:WROTE|CHMOD) (\S+)$", done.stdout, re.M))
    assert wrote == {"/tmp", "/dev/shm", "/run/arena"}, done.stdout + done.stderr
    sizes = [int(line.split()[1]) for line in done.stdout.splitlines()[-3:]]
    assert sizes[0] == 16 * 1024 and sizes[1] == bubblewrap.SHM_BYTES // 1024 and sizes[2] <= 64, done.stdout
    assert not (bot / "results" / "planted").exists()


@pytest.mark.needs_bwrap
def test_the_arena_never_dials_a_link_put_in_place_of_the_bot_s_socket(tmp_path: Path) -> None:
    """The bot moves its socket aside and links a host socket (the test's trap) in its place; the arena
    connects, shakes hands and restarts the bot, and never reaches the trap."""
    trap_path = tmp_path / "trap.sock"
    trap = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    trap.bind(str(trap_path))
    trap.listen(16)
    trap.settimeout(0.2)
    dialled: list[int] = []
    done = threading.Event()

    def count() -> None:
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                conn, _ = trap.accept()
                dialled.append(1)
                conn.close()

    counter = threading.Thread(target=count, daemon=True)
    counter.start()
    bot = _bot(tmp_path, "swapper", "swap_socket", f"--trap {trap_path}")
    outcomes: list[str] = []

    async def scenario() -> None:
        try:
            for _ in range(2):  # a start, and a restart: each pins the socket anew
                try:
                    await bot.start()
                except (BotCrashed, BotTimeout) as exc:
                    outcomes.append(f"refused: {exc}")
                    continue
                await asyncio.to_thread(_wait_for, bot, "SWAPPED")
                for _ in range(3):
                    connection = BotConnection(bot.address)
                    try:
                        outcomes.append(f"played as {(await connection.hello()).name}")
                    finally:
                        await connection.close()
                await bot.stop()
        finally:
            await bot.close()

    try:
        asyncio.run(scenario())
    finally:
        done.set()
        counter.join()
        trap.close()
    assert dialled == [], f"the arena dialled the bot's link {len(dialled)} times"
    assert outcomes, "the bot never started"
    for outcome in outcomes:
        assert outcome == "played as attacker" or "is a symbolic link: not dialled" in outcome, outcome


@pytest.mark.needs_bwrap
def test_entrants_in_one_folder_cannot_read_each_other(tmp_path: Path) -> None:
    """alice and bob in bots/ beside the organiser's notes: each sees its own program only; named as a
    shared workdir, they do see each other, and the arena says so."""
    bots = tmp_path / "bots"
    bots.mkdir()
    bots.chmod(0o755)  # readable by the bots' users, which the shared workdir needs
    for name in ("alice", "bob"):
        shutil.copy(ATTACKER, bots / f"{name}.py")
    (bots / "notes.txt").write_text("alice is weak at bidding")

    def entrant(name: str, other: str, **keys: str) -> dict[str, object]:
        neighbours = f"{bots / other}.py,{bots / 'notes.txt'}"
        command = f"{{python}} bots/{name}.py --attacks read_neighbours --neighbours {neighbours}"
        return {"name": name, "command": command + " --address {address}", "startup_timeout_s": 60, **keys}

    def start(tag: str, **keys: str) -> tuple[str, list[str]]:
        raw = {
            "name": tag,
            "output": str(tmp_path / tag),
            "game": {"variant": "five-handed"},
            "entrant": [entrant("alice", "bob", **keys), entrant("bob", "alice", **keys)],
        }
        config = parse_config(raw, base=tmp_path)
        executor = LocalExecutor(config, tmp_path / tag / "logs")

        async def scenario() -> list[str]:
            try:
                await executor.start(["alice", "bob"])
                return executor.notices()
            finally:
                await executor.stop()

        notices = asyncio.run(scenario())
        logs = "".join(p.read_text() for p in sorted((tmp_path / tag / "logs").glob("*.log")))
        return logs, notices

    logs, notices = start("own")
    assert logs.count("ATTACK read_neighbours FAILED") == 2, logs[-3000:]
    assert not [n for n in notices if n.startswith("warning:")], notices

    logs, notices = start("shared", workdir="bots")
    assert logs.count("ATTACK read_neighbours SUCCEEDED") == 2, logs[-3000:]
    (warning,) = [n for n in notices if n.startswith("warning:")]
    assert f"alice, bob are all shown {bots}" in warning


@pytest.mark.needs_bwrap
def test_a_balloon_under_the_default_config_is_stopped_at_the_default_limit(tmp_path: Path) -> None:
    """No ``memory_mb`` in the config: the bot holds 32 MB more at each step, up to 256 MB past the default,
    and is stopped (by its cgroup, or by the address-space limit where there are none) before the limit."""
    from arena.event.config import DEFAULT_MEMORY_MB

    balloon = f"--attacks balloon --balloon-mb {DEFAULT_MEMORY_MB + 256}"
    command = f"{{python}} {ATTACKER} {balloon} --address {{address}}"
    raw = {
        "name": "balloon",
        "output": str(tmp_path / "out"),
        "game": {"variant": "five-handed"},
        "entrant": [{"name": "balloon", "command": command, "startup_timeout_s": 60}],
    }
    executor = LocalExecutor(parse_config(raw, base=tmp_path), tmp_path / "out" / "logs")

    async def scenario() -> None:
        try:
            await executor.start(["balloon"])
        finally:
            await executor.stop()

    asyncio.run(scenario())
    log = (tmp_path / "out" / "logs" / "balloon.log").read_text()
    held = [int(x) for x in re.findall(r"^BALLOON (\d+)$", log, re.M)]
    assert held, log[-2000:]
    assert "SUCCEEDED" not in log and max(held) <= DEFAULT_MEMORY_MB, f"held {max(held)} MB"
    assert "balloon" in executor.down, "the bot was not stopped"
    if missing("needs_cgroups") is None:
        assert max(held) >= DEFAULT_MEMORY_MB - 128, f"stopped at {max(held)} MB, far below the limit"


@pytest.mark.needs_bwrap
@pytest.mark.needs_cgroups
def test_an_output_flood_is_charged_to_the_bot(tmp_path: Path) -> None:
    """1 GB written to stdout: the shim's CPU for copying it is in the bot's cgroup (the bot's account), and
    the log stays within its cap."""
    cap = 1024 * 1024
    bot = _bot(tmp_path, "flood", "flood", "--flood-mb 1024")
    ticks = os.sysconf("SC_CLK_TCK")

    async def scenario() -> tuple[float, float]:
        try:
            await bot.start()
            assert await asyncio.to_thread(_wait_for, bot, "FLOODED", 120.0), _log(bot)[-500:]
            assert bot.pid is not None and bot._cgroup is not None
            fields = Path(f"/proc/{bot.pid}/stat").read_text().rsplit(")", 1)[1].split()
            shim = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime of the shim
            return shim, bot._cgroup.cpu_seconds()
        finally:
            await bot.close()

    shim_s, charged_s = asyncio.run(scenario())
    assert shim_s > 0.1, f"the shim copied 1 GB in {shim_s:.2f} s of CPU?"
    assert charged_s >= shim_s, f"the bot was charged {charged_s:.2f} s; its shim alone used {shim_s:.2f} s"
    sizes = [p.stat().st_size for p in tmp_path.glob("flood.log*")]
    assert sum(sizes) <= 2 * cap + 4096, sizes
