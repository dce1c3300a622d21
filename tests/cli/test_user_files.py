"""Issue 42: every file a person hands the arena is checked before it is read (``arena.userfiles``).

``arena run /dev/zero`` grew to 23.9 GB in 8 s before the kernel's out-of-memory killer ended it; a FIFO or
``/dev/urandom`` as the config hung. Each kind of file is handed to ``arena run`` as a real process: one
``error:`` line naming the file and what it is, exit 2, and the process never held 100 MB (its peak
resident size, from the kernel, read while it runs). How fast that is belongs in bench/, not here; a hang
would fail on the timeout, and a read of ``/dev/zero`` on the memory.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.cli.app import app
from arena.errors import ConfigError
from arena.event.deals import read_key_file
from arena.start import RUN_FLAGS, RUN_VALUES, run_config
from arena.userfiles import check_user_file, read_user_file, read_user_text
from tests.helpers import ROOT

MEMORY_LIMIT_KB = 100 * 1024


def _fifo(tmp: Path) -> Path:
    path = tmp / "config.fifo"
    os.mkfifo(path)
    return path


def _gigabyte(tmp: Path) -> Path:
    path = tmp / "huge.toml"
    with path.open("wb") as f:
        f.truncate(1024**3)  # sparse: costs no disk
    return path


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "/dev/zero": (lambda _: Path("/dev/zero"), "is a character device, not a regular file"),
    "/dev/urandom": (lambda _: Path("/dev/urandom"), "is a character device, not a regular file"),
    "a FIFO": (_fifo, "is a FIFO (named pipe), not a regular file"),
    "a 1 GB file": (_gigabyte, "is 1,024.0 MB: more than a config file may be (4.0 MB)"),
    "a directory": (lambda tmp: tmp, "is a directory, not a regular file"),
}


def _run(args: list[str], cwd: Path) -> tuple[int, str, str, int]:
    """Run the arena; its exit status, output, error output and peak resident size (KB).

    The peak is the kernel's high-water mark of the arena's own memory (``VmHWM``), read while it runs:
    ``wait4``'s would also count the test runner's pages, which the child holds between fork and exec.
    """
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    peak = [0]

    def watch() -> None:
        status, cmdline = Path(f"/proc/{proc.pid}/status"), Path(f"/proc/{proc.pid}/cmdline")
        while proc.poll() is None:
            with contextlib.suppress(OSError, ValueError, IndexError):
                if b"-m\0arena\0" in cmdline.read_bytes():  # exec'd: the arena's own memory
                    # an exiting process (a zombie) has no VmHWM line left: nothing more to read
                    for line in status.read_text().splitlines():
                        if line.startswith("VmHWM:"):
                            peak[0] = max(peak[0], int(line.split()[1]))
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    watcher.join()
    return proc.returncode, out.decode(), err.decode(), peak[0]


@pytest.mark.parametrize("case", list(CASES))
def test_arena_run_refuses_a_config_that_is_no_regular_file(tmp_path: Path, case: str) -> None:
    make, said = CASES[case]
    path = make(tmp_path)
    code, out, err, peak_kb = _run(["run", str(path), "--output", str(tmp_path / "out")], tmp_path)
    assert code == 2, (out, err)
    assert err == f"error: config file {str(path)!r} {said}\n", err
    assert peak_kb < MEMORY_LIMIT_KB, f"the arena held {peak_kb // 1024} MB"
    assert not (tmp_path / "out").exists(), "the arena wrote before it refused"


@pytest.mark.parametrize(
    "shape",
    [
        ["run", "{path}", "--output", "{out}"],
        ["run", "--seed", "7", "--output={out}", "-q", "{path}"],
        ["run", "--strict", "--no-duplicate", "--output", "{out}", "--", "{path}"],
    ],
)
def test_the_early_refusal_is_the_command_lines_own(tmp_path: Path, shape: list[str]) -> None:
    """``arena.start`` refuses before the command line loads, with its exact line and status, wherever the
    path stands among the options; ``--help`` beside a bad path is still help (the command line's)."""
    path = _fifo(tmp_path)
    args = [a.format(path=path, out=tmp_path / "out") for a in shape]
    code, out, err, _ = _run(args, tmp_path)
    assert (code, out) == (2, ""), err
    assert err == f"error: config file {str(path)!r} is a FIFO (named pipe), not a regular file\n"
    code, out, err, _ = _run(["run", "--help", *args[1:]], tmp_path)
    assert code == 0 and "Usage: arena run" in out, err
    assert not (tmp_path / "out").exists()


def test_the_early_refusal_loads_nothing_of_the_command_line(tmp_path: Path) -> None:
    """The point of ``arena.start``: the refusal of ``/dev/zero`` imports neither typer nor numpy nor the
    rest of the arena (the time it saves is in bench/bad_files.py)."""
    script = (
        "import sys; from arena.start import refuse_early; code = refuse_early(['run', '/dev/zero']); "
        "print(code, sorted(m for m in ('typer', 'numpy', 'rich', 'arena.cli', 'arena.event') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout == "2 []\n", (done.stdout, done.stderr)
    assert done.stderr == "error: config file '/dev/zero' is a character device, not a regular file\n"


def test_run_config_finds_the_path_only_when_certain() -> None:
    assert run_config(["run", "a.toml"]) == "a.toml"
    assert run_config(["run", "--rounds", "3", "a.toml", "--quiet"]) == "a.toml"
    assert run_config(["run", "--deal-key=ab", "--", "-odd.toml"]) == "-odd.toml"
    assert run_config(["run", "--rounds", "a.toml"]) is None  # the path is --rounds' value: no path
    for args in (["run"], ["run", "a", "b"], ["run", "a", "--help"], ["run", "a", "--bogus"], ["demo", "a"]):
        assert run_config(args) is None, args
    assert run_config(["run", "a", "--no-such=1"]) is None
    assert run_config([]) is None


def test_the_early_parse_knows_every_option_of_run() -> None:
    """``RUN_VALUES`` and ``RUN_FLAGS`` are ``arena run``'s own options: a new option of the command that
    takes a value, unknown there, would be read as the config's path (a wrong refusal) or hide it."""
    import typer.main

    command = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    values: set[str] = set()
    flags: set[str] = set()
    for param in command.params:
        if param.param_type_name != "option":
            continue
        names = [*param.opts, *param.secondary_opts]
        (flags if param.is_flag else values).update(names)
    flags.discard("--help")
    assert (values, flags) == (set(RUN_VALUES), set(RUN_FLAGS))


def test_read_user_file_stops_past_the_limit_where_the_size_is_unknown(tmp_path: Path) -> None:
    """``/proc`` files say they hold 0 bytes: the read itself stops one byte past the limit."""
    with pytest.raises(ConfigError, match="holds more than a status file may"):
        read_user_file("/proc/self/status", "status file", 16)
    assert read_user_file("/proc/self/status", "status file", 1 << 20).startswith(b"Name:")


def test_read_user_text_names_the_file_and_what_is_wrong(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b'name = "caf\xe9"\n')
    with pytest.raises(ConfigError, match=r"config file '.*latin1.toml' is not UTF-8 text"):
        read_user_text(bad, "config file", 1024)
    with pytest.raises(ConfigError, match=r"config file '.*missing' does not exist"):
        read_user_text(tmp_path / "missing", "config file", 1024)
    link = tmp_path / "link.toml"
    link.symlink_to(tmp_path / "real.toml")
    (tmp_path / "real.toml").write_text("ok = 1\n")
    assert read_user_text(link, "config file", 1024) == "ok = 1\n"  # a link to a regular file is one


def test_a_deal_key_that_is_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "deal.key")
    with pytest.raises(ConfigError, match=r"deal key .* is a FIFO"):
        read_key_file(tmp_path)
    assert read_key_file(tmp_path / "nowhere") is None


def test_check_user_file_reads_nothing(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "cert.pem")
    with pytest.raises(ConfigError, match=r"executor.tls_cert '.*cert.pem' is a FIFO"):
        check_user_file(tmp_path / "cert.pem", "executor.tls_cert")
    with pytest.raises(ConfigError, match="is a character device"):
        check_user_file("/dev/zero", "upload")
    assert check_user_file(ROOT / "pyproject.toml", "config file", 1 << 20) == ROOT / "pyproject.toml"
