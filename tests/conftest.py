"""The suite's one place for what a test needs of the machine, and the record of which tests passed.

**System tools.** A test that needs a program that ``pip install -e '.[test]'`` does not bring is marked
with one of the ``needs_*`` markers below, and skipped where that program is missing, with the reason and
how to install it; every other test runs everywhere (an event that only happens to launch a bot says
``sandbox = "none"``). A test that adapts instead of skipping (cgroups or not) asks ``missing(marker)``.
``.ci/run`` runs the suite twice: with these tools installed, and with them hidden from ``PATH``.

**Outcomes.** Every test that passed is recorded, so that ``tests/engine/test_rule_coverage.py`` can tell
whether each rule of docs/RULES.md was covered by a test that ran and passed in this session; tests marked
``run_last`` run after all the others for that reason.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Callable, Generator
from pathlib import Path

import pytest

from tests.helpers import ROOT

PASSED = pytest.StashKey[set[str]]()
"""Node ids of the tests whose setup, call and teardown all passed in this session."""
FAILED = pytest.StashKey[set[str]]()


@functools.cache
def _bubblewrap() -> str | None:
    from arena.sandbox import bubblewrap_problem

    problem = bubblewrap_problem()
    return None if problem is None else f"needs the bubblewrap sandbox: {problem}"


@functools.cache
def _cgroups() -> str | None:
    from arena.sandbox import cgroup_problem

    problem = cgroup_problem()
    return None if problem is None else f"needs writable cgroups: {problem}"


def _chromium() -> str | None:
    if shutil.which("chromium") or shutil.which("chromium-browser"):
        return None
    return (
        "needs Debian's chromium, which is not on PATH: apt-get install chromium "
        "(Playwright drives it and never downloads a browser)"
    )


def _node() -> str | None:
    if shutil.which("node") is None:
        return (
            "needs node (Node.js), which is not on PATH: apt-get install nodejs npm, "
            "then `npm ci` in sample_bots/node"
        )
    if not (ROOT / "sample_bots" / "node" / "node_modules").is_dir():
        return "needs the Node bot's packages: run `npm ci` in sample_bots/node"
    return None


def _buf() -> str | None:
    if shutil.which("node") is None:
        return (
            "needs buf, which runs on Node.js, and node is not on PATH: apt-get install nodejs npm, "
            "then `npm ci` in tools/"
        )
    if not (ROOT / "tools" / "node_modules" / ".bin" / "buf").exists():
        return "needs buf, which is not installed: run `npm ci` in tools/"
    return None


@functools.cache
def _grpc_cpp() -> str | None:
    """The C++ starter kit's toolchain (sample_bots/cpp/Makefile)."""
    tools = ("g++", "make", "pkg-config", "protoc", "grpc_cpp_plugin")
    absent = [tool for tool in tools if shutil.which(tool) is None]
    if not absent and subprocess.run(["pkg-config", "--exists", "grpc++"], check=False).returncode != 0:
        absent = ["grpc++ (its pkg-config file)"]
    if not absent:
        return None
    return (
        f"needs Debian's grpc++ toolchain ({', '.join(absent)} missing): apt-get install g++ make "
        "pkg-config protobuf-compiler protobuf-compiler-grpc libgrpc++-dev"
    )


@functools.cache
def _grpc_ruby() -> str | None:
    """The Ruby starter kit's runtime and code generator (sample_bots/ruby/bot.rb)."""
    if shutil.which("ruby") and shutil.which("grpc_tools_ruby_protoc"):
        probe = ["ruby", "-e", "require 'grpc'; require 'grpc/health/checker'"]
        if subprocess.run(probe, capture_output=True, check=False).returncode == 0:
            return None
    return "needs Ruby's gRPC: apt-get install ruby-grpc ruby-grpc-tools"


GO_PACKAGES = (
    "golang-go golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc"
)
JAVA_PACKAGES = (
    "default-jdk-headless protobuf-compiler-grpc-java-plugin libgrpc-java libprotobuf-java libnetty-java "
    "libperfmark-java libguava-java libgeronimo-annotation-1.3-spec-java"
)


@functools.cache
def _grpc_go() -> str | None:
    """The Go starter kit's toolchain (sample_bots/go/Makefile): Debian's grpc-go, built in GOPATH mode on
    the v1.5 protobuf runtime (the v1.3 one cannot marshal what today's generator writes)."""
    tools = ("go", "make", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
    absent = [tool for tool in tools if shutil.which(tool) is None]
    gocode = Path("/usr/share/gocode/src")
    if not (gocode / "google.golang.org" / "grpc" / "health").is_dir():
        absent.append("grpc-go's sources")
    else:
        runtime = gocode / "github.com" / "golang" / "protobuf" / "go.mod"
        if not runtime.is_file() or "google.golang.org/protobuf" not in runtime.read_text():
            absent.append("the v1.5 protobuf runtime")
    if not absent:
        return None
    return (
        f"needs Debian's grpc-go ({', '.join(absent)} missing): apt-get install make protobuf-compiler "
        f"{GO_PACKAGES}"
    )


JAVA_JARS = ("grpc-netty", "grpc-protobuf", "grpc-stub", "protobuf", "netty-codec-http2", "perfmark-api")


@functools.cache
def _grpc_java() -> str | None:
    """The Java starter kit's toolchain (sample_bots/java/Makefile): Debian's grpc-java and its jars."""
    tools = ("java", "javac", "jar", "make", "protoc", "grpc_java_plugin")
    absent = [tool for tool in tools if shutil.which(tool) is None]
    absent += [f"{jar}.jar" for jar in JAVA_JARS if not (Path("/usr/share/java") / f"{jar}.jar").is_file()]
    if not absent:
        return None
    return (
        f"needs Debian's grpc-java ({', '.join(absent)} missing): apt-get install make protobuf-compiler "
        f"{JAVA_PACKAGES}"
    )


@functools.cache
def _postgres() -> str | None:
    from tests.postgres import postgres_problem

    return postgres_problem()


def _root() -> str | None:
    return (
        None if os.geteuid() == 0 else "needs root (as .ci/run runs): only root can hand a bot to user nobody"
    )


@functools.cache
def _readonly_mount() -> str | None:
    """Root writes through file permissions: a read-only directory needs a private read-only bind mount."""
    if os.geteuid() != 0:
        return None
    if shutil.which("unshare") is None:
        return (
            "as root, needs `unshare` (util-linux) to mount a directory read-only: apt-get install util-linux"
        )
    if subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode != 0:
        return "as root, needs `unshare -m` (a private mount namespace) to mount a directory read-only"
    return None


NEEDS: dict[str, tuple[Callable[[], str | None], str]] = {
    "needs_bwrap": (_bubblewrap, "bubblewrap can sandbox a bot here (apt-get install bubblewrap)"),
    "needs_cgroups": (_cgroups, "the arena can create cgroups here"),
    "needs_chromium": (_chromium, "Debian's chromium is on PATH (apt-get install chromium)"),
    "needs_node": (_node, "node is on PATH and `npm ci` has run in sample_bots/node"),
    "needs_buf": (_buf, "`npm ci` has run in tools/ and node is on PATH"),
    "needs_grpc_cpp": (_grpc_cpp, "Debian's grpc++ toolchain is installed (the C++ starter kit)"),
    "needs_grpc_ruby": (_grpc_ruby, "Ruby's gRPC is installed (the Ruby starter kit)"),
    "needs_grpc_go": (_grpc_go, "Debian's grpc-go is installed (the Go starter kit)"),
    "needs_grpc_java": (_grpc_java, "Debian's grpc-java is installed (the Java starter kit)"),
    "needs_postgres": (_postgres, "PostgreSQL's server programs are installed (apt-get install postgresql)"),
    "needs_root": (_root, "the suite runs as root"),
    "needs_readonly_mount": (
        _readonly_mount,
        "a directory can be made read-only for the arena (not root, or unshare -m)",
    ),
}


def missing(marker: str) -> str | None:
    """Why the tool behind ``marker`` is missing here, or None when it is there."""
    return NEEDS[marker][0]()


def pytest_configure(config: pytest.Config) -> None:
    for name, (_, needs) in NEEDS.items():
        config.addinivalue_line("markers", f"{name}: skipped unless {needs}")
    config.addinivalue_line("markers", "run_last: runs after every other test (it judges their outcomes)")
    config.stash[PASSED] = set()
    config.stash[FAILED] = set()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for marker in item.iter_markers():
            if marker.name in NEEDS and (reason := missing(marker.name)) is not None:
                item.add_marker(pytest.mark.skip(reason=reason))  # -rs then names the test, not this file
                break
    items.sort(key=lambda item: item.get_closest_marker("run_last") is not None)  # stable: else unchanged


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed or report.skipped:
        item.config.stash[FAILED].add(item.nodeid)
        item.config.stash[PASSED].discard(item.nodeid)
    elif report.when == "call" and item.nodeid not in item.config.stash[FAILED]:
        item.config.stash[PASSED].add(item.nodeid)
    return report


# --- rule coverage under pytest-xdist -------------------------------------------------------------------
# Each worker sees only the tests it ran, so there the check of tests/engine/test_rule_coverage.py is made
# by the controlling process, which is sent every test's report: at the session's end it judges the
# passes of all workers by the same function, and fails the session as the test would have.

REPORTED: dict[str, bool] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed or report.skipped:
        REPORTED[report.nodeid] = False
    elif report.when == "call":
        REPORTED.setdefault(report.nodeid, True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not session.config.pluginmanager.hasplugin("dsession") or os.environ.get("PYTEST_XDIST_WORKER"):
        return  # no workers: the test itself judged (tests/engine/test_rule_coverage.py)
    from tests.engine.test_rule_coverage import coverage_problem

    problem = coverage_problem(REPORTED)
    if problem is not None:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"FAILED rule coverage: {problem}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
