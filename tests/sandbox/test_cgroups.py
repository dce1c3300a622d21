"""Issue 9: finding the bot's cgroups on either hierarchy, and what is written there (on a fake tree)."""

from __future__ import annotations

from pathlib import Path

from arena.sandbox.cgroups import BotCgroup, _Layout, find_layout

HYBRID_SELF = "5:memory:/job/7\n4:pids:/\n3:cpu,cpuacct:/job/7\n0::/\n"


def _hybrid(tmp_path: Path, memory_root: str = "/") -> str:
    """A mountinfo of v1 controllers (and an empty v2 tree) mounted under ``tmp_path``."""
    for d in ("memory/job/7", "memory/7", "pids", "cpu,cpuacct/job/7", "unified"):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    return (
        f"30 25 0:26 {memory_root} {tmp_path}/memory rw,relatime - cgroup cgroup rw,memory\n"
        f"31 25 0:27 / {tmp_path}/pids rw,relatime - cgroup cgroup rw,pids\n"
        f"32 25 0:28 / {tmp_path}/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
        f"33 25 0:29 / {tmp_path}/unified rw,relatime - cgroup2 cgroup2 rw\n"
    )


def test_v1_controllers_are_found_under_this_process_s_own_groups(tmp_path: Path) -> None:
    layout = find_layout(_hybrid(tmp_path), HYBRID_SELF)
    assert isinstance(layout, _Layout), layout
    assert layout.version == 1
    assert layout.parents == {
        "memory": tmp_path / "memory/job/7",
        "pids": tmp_path / "pids",
        "cpuacct": tmp_path / "cpu,cpuacct/job/7",
    }
    group = BotCgroup.create("b", 200, 32, layout=layout)
    memory = next((tmp_path / "memory/job/7").glob("euchre-arena-*-b"))
    assert (memory / "memory.limit_in_bytes").read_text() == str(200 * 1024 * 1024)
    assert (next((tmp_path / "pids").glob("euchre-arena-*-b")) / "pids.max").read_text() == "32"
    assert len(group.procs_files) == 3


def test_a_v1_mount_of_a_subtree_is_joined_relative_to_its_root(tmp_path: Path) -> None:
    """In a container the mount's root is the container's group: /proc/self/cgroup paths include it."""
    layout = find_layout(_hybrid(tmp_path, memory_root="/job"), HYBRID_SELF)
    assert isinstance(layout, _Layout), layout
    assert layout.parents["memory"] == tmp_path / "memory/7"


def test_v2_enables_the_controllers_and_writes_the_limits(tmp_path: Path) -> None:
    root = tmp_path / "cg"
    own = root / "user.slice" / "arena.scope"
    own.mkdir(parents=True)
    (own / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (own / "cgroup.subtree_control").write_text("")
    mountinfo = f"40 25 0:30 / {root} rw,relatime - cgroup2 cgroup2 rw\n"
    layout = find_layout(mountinfo, "0::/user.slice/arena.scope\n")
    assert isinstance(layout, _Layout), layout
    assert layout.version == 2 and layout.parents == {"": own}
    assert (own / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"

    group = BotCgroup.create("bot", 300, 64, layout=layout)
    (leaf,) = [d for d in own.iterdir() if d.is_dir()]
    assert leaf.name.endswith("-bot")
    assert (leaf / "memory.max").read_text() == str(300 * 1024 * 1024)
    assert (leaf / "memory.swap.max").read_text() == "0"
    assert (leaf / "pids.max").read_text() == "64"
    assert group.procs_files == [str(leaf / "cgroup.procs")]
    (leaf / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    assert group.cpu_seconds() == 2.5
    (leaf / "cgroup.procs").write_text("")
    assert group.pids() == [] and group.kill_all()


def test_v2_without_the_controllers_says_which_are_missing(tmp_path: Path) -> None:
    own = tmp_path / "cg"
    own.mkdir()
    (own / "cgroup.controllers").write_text("cpu io\n")
    mountinfo = f"40 25 0:30 / {own} rw,relatime - cgroup2 cgroup2 rw\n"
    problem = find_layout(mountinfo, "0::/\n")
    assert isinstance(problem, str) and "memory, pids" in problem


def test_no_cgroup_mount_is_a_reason_not_a_crash() -> None:
    """No cgroup mount at all, or only other file systems: the reason says what is missing."""
    reason = "no usable cgroup hierarchy with the memory, pids and cpuacct controllers"
    assert find_layout("", "") == reason
    proc_only = "22 1 0:20 / /proc rw,nosuid - proc proc rw\n23 1 0:21 / /sys rw - sysfs sysfs rw\n"
    assert find_layout(proc_only, "0::/\n") == reason
