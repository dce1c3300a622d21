"""Every example in README.md and docs/*.md runs as written, or says in the page why it cannot run here.

In the spirit of python-chess running its README's doctests: an example nobody runs drifts, and the first
reader to find out is a newcomer following the page to the letter. So every fenced block of the pages is
one of these, by its language tag:

- ``bash`` / ``sh``: a shell example. Run as written by ``bash -e -o pipefail`` in a fresh copy of the
  checkout (the files git tracks), with the suite's virtual environment activated, as the README's
  set-up command leaves the reader; each block must exit 0. The blocks of one page run in order in one
  directory, so a later block uses what an earlier one made (``results/my-event``).
- ``toml``: a config example, read by the real loader: an event config (``arena.event.config``), or a
  competition file (``arena.server.settings``) when marked ``competition``; a block marked ``fragment`` is
  one table of such a file, loaded inside the smallest complete one.
- ``python``: imported as a module (not run as ``__main__``): it compiles and what it imports exists.
- anything else (``text`` for output and diagrams, ``json``, ``yaml``, ``csv``, ...): an illustration,
  not run, unless marked ``file NAME`` (below): then written, as a data file for the examples after it.
  A block without a language tag is refused: say which it is.

**Markers.** HTML comments on the lines just before a block (invisible on the rendered page), one or
more, each ``<!-- example: WORDS -->``:

- ``not-run: REASON``: the block is not run here, and REASON says why (a server's URL, another machine,
  a run of hours, covered by the test named). REASON may not be empty.
- ``file NAME``: the block is also written to NAME in the page's directory, for the page's later
  shell examples (the README's ``first_legal.py`` and ``my-event.toml``, server.md's ``students.csv``).
- ``competition``, ``fragment``: how a TOML block is loaded (above).
- ``needs_bwrap`` (any marker of tests/conftest.py's ``NEEDS``): skipped with the tool's reason where the
  tool is missing, like every test that needs it.

**What the runner changes, and only this.** The ports 50051-50059 of the examples become free ports of
this machine (the suite shares its loopback with other processes); a ``pip install -e '.[EXTRAS]'`` is
checked, not run: it passes when every requirement of those extras is installed in the suite's
environment already (the same effect, without a network or a second environment), and fails naming the
missing one. Processes a block started in the background are stopped when the block ends.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import NEEDS, missing
from tests.helpers import ROOT

PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]
SHELL = {"bash", "sh"}
RUN_KINDS = SHELL | {"toml", "python"}
FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.S | re.M)
MARKER = re.compile(r"^\s*<!-- example: (?P<words>.*?) -->\s*$")
PORTS = re.compile(r"\b5005[1-9]\b")
BLOCK_TIMEOUT_S = 300
"""Bounds a hang only: the slowest example run here (the README's event and its listings) takes seconds."""


@dataclass
class Example:
    page: str
    line: int
    kind: str
    body: str
    not_run: str | None = None
    file: str | None = None
    competition: bool = False
    fragment: bool = False
    needs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runs(self) -> bool:
        return (self.kind in RUN_KINDS or self.file is not None) and self.not_run is None


def _dedent(body: str, indent: str) -> str:
    return "".join(line.removeprefix(indent) for line in body.splitlines(keepends=True))


def examples_of(page: str) -> list[Example]:
    text = (ROOT / page).read_text()
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        info = match["info"].strip().split()
        example = Example(page, line, info[0] if info else "", _dedent(match["body"], match["indent"]))
        if not info:
            example.problems.append(
                "no language tag: bash, sh, toml or python (run), text (output, diagrams)"
            )
        above = text[: match.start()].splitlines()
        while above and (marker := MARKER.match(above[-1])):
            above.pop()
            words = marker["words"].strip()
            if words.startswith("not-run:"):
                example.not_run = words.removeprefix("not-run:").strip()
                if not example.not_run:
                    example.problems.append("not-run without its reason")
            elif words.startswith("file "):
                example.file = words.removeprefix("file ").strip()
            elif words == "competition":
                example.competition = True
            elif words == "fragment":
                example.fragment = True
            elif words in NEEDS:
                example.needs.append(words)
            else:
                example.problems.append(f"unknown marker {words!r}")
        if example.kind not in RUN_KINDS and (example.not_run or example.needs or example.fragment):
            example.problems.append(f"a marker on a {example.kind or 'untagged'} block, which is never run")
        found.append(example)
    return found


ALL = [example for page in PAGES for example in examples_of(page)]
RUN = [example for example in ALL if example.runs]


def test_every_block_is_run_or_marked_with_its_reason() -> None:
    problems = [f"{e.where}: {problem}" for e in ALL for problem in e.problems]
    assert not problems, "\n".join(problems)
    # The pages this test reads hold examples, and some of them run: a broken parser (no block found, or
    # every block left out) would pass everything below.
    assert len([e for e in RUN if e.kind in SHELL]) >= 4
    assert len([e for e in ALL if e.kind in RUN_KINDS and not e.runs]) < len(ALL)


# --- running them --------------------------------------------------------------------------------------


def _checkout_copy(into: Path) -> None:
    """The files git tracks (a fresh clone's), else the working tree without what running leaves."""
    listed = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
        if shutil.which("git")
        else None
    )
    if listed is not None and listed.returncode == 0:
        for name in listed.stdout.decode().split("\0"):
            source = ROOT / name
            if name and source.is_file():
                (into / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, into / name)
        return
    left_out = {".venv", ".git", "results", "node_modules", "site"}

    def ignore(directory: str, names: list[str]) -> set[str]:
        top = Path(directory) == ROOT
        return {n for n in names if (top and n in left_out) or n == "__pycache__"}

    shutil.copytree(ROOT, into, ignore=ignore, dirs_exist_ok=True)


class Page:
    """One page's directory and its free ports: its examples run there in order."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.ports: dict[str, str] = {}
        self.ran: set[str] = set()

    def text(self, example: Example) -> str:
        """The example as run here: each port 5005x of the page one free port, in every block alike."""
        return PORTS.sub(lambda m: self.port(m.group()), example.body)

    def port(self, written: str) -> str:
        if written not in self.ports:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                self.ports[written] = str(s.getsockname()[1])
        return self.ports[written]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Page]:
    return {}


def _page(pages: dict[str, Page], tmp_path_factory: pytest.TempPathFactory, name: str) -> Page:
    if name not in pages:
        directory = tmp_path_factory.mktemp("doc-" + re.sub(r"\W", "-", name))
        _checkout_copy(directory)
        pages[name] = Page(directory)
    return pages[name]


PIP_STAND_IN = r"""
pip() {
  # The suite's environment stands in for the example's: `pip install -e '.[EXTRAS]'` must find every
  # requirement of EXTRAS installed already (tests/test_doc_examples.py says why).
  if [[ $# -eq 3 && $1 == install && $2 == -e && $3 =~ ^\.(\[([a-z,]+)\])?$ ]]; then
    python -c "$DOC_EXAMPLE_PIP_CHECK" "${BASH_REMATCH[2]}"
  else
    echo "doc example: only pip install -e '.[EXTRAS]' is supported here, not: pip $*" >&2
    return 2
  fi
}
"""


def check_installed(extras: str) -> None:
    """Exit non-zero naming the first requirement of EXTRAS (comma-separated) not installed here."""
    import sys
    from importlib import metadata

    from packaging.requirements import Requirement

    wanted = [extra for extra in extras.split(",") if extra]
    declared = metadata.metadata("euchre-arena").get_all("Provides-Extra") or []
    for extra in wanted:
        if extra not in declared:
            sys.exit(f"doc example: euchre-arena has no extra {extra!r} (it has {', '.join(declared)})")
    for text in metadata.requires("euchre-arena") or []:
        requirement = Requirement(text)
        needed = requirement.marker is None or any(
            requirement.marker.evaluate({"extra": extra}) for extra in wanted
        )
        if requirement.marker is not None and not wanted:
            needed = requirement.marker.evaluate({"extra": ""})
        if not needed or requirement.name == "euchre-arena":
            continue
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            sys.exit(f"doc example: {requirement} is not installed in the suite's environment")
        if version not in requirement.specifier:
            sys.exit(f"doc example: {requirement.name} {version} is installed, {requirement} is asked")


PIP_CHECK = f"{inspect.getsource(check_installed)}\ncheck_installed(__import__('sys').argv[1])"
"""The stand-in's check as a script of its own, run by the example's python in the example's directory."""


def _run_shell(example: Example, page: Page) -> None:
    script = page.text(example)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(Path(sys.executable).parent.parent),
        "DOC_EXAMPLE_PIP_CHECK": PIP_CHECK,
    }
    env.pop("COLUMNS", None)
    log = page.directory.parent / f"{page.directory.name}-{example.line}.log"
    with log.open("w") as out:  # a file, not a pipe: a background process would hold a pipe open
        process = subprocess.Popen(
            ["bash", "-e", "-o", "pipefail", "-c", PIP_STAND_IN + script],
            cwd=page.directory,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its background processes are stopped with it, below
        )
        try:
            returncode = process.wait(timeout=BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            returncode = None
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL if returncode is None else signal.SIGTERM)
            process.wait()
    output = log.read_text()
    assert returncode is not None, (
        f"{example.where}: still running after {BLOCK_TIMEOUT_S} s:\n{script}\n{output}"
    )
    assert returncode == 0, (
        f"{example.where}: the example exits {returncode}, as written:\n{script}\n--- its output:\n{output}"
    )


MINIMAL_EVENT = {
    "name": "doc",
    "game": {"variant": "five-handed"},
    "entrant": [{"name": "a", "class": "sample_bots.random:RandomBot"}],
}
MINIMAL_COMPETITION = {"name": "doc", "game": {"variant": "five-handed"}}


def _load_toml(example: Example, page: Page) -> None:
    from arena.event.config import load_config, parse_config

    path = page.directory / (example.file or "doc-example.toml")
    path.write_text(page.text(example))
    if example.competition:
        from arena.server.settings import load_competition, parse_competition

        if example.fragment:
            parse_competition({**MINIMAL_COMPETITION, **tomllib.loads(page.text(example))}, source=path)
        else:
            load_competition(path)
    elif example.fragment:
        parse_config({**MINIMAL_EVENT, **tomllib.loads(page.text(example))}, base=page.directory, source=path)
    else:
        load_config(path)


def _import_python(example: Example, page: Page) -> None:
    path = page.directory / (example.file or "doc_example.py")
    path.write_text(page.text(example))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import runpy, sys; runpy.run_path(sys.argv[1], run_name='doc_example')",
            path,
        ],
        cwd=page.directory,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"{example.where}: the example does not import:\n{done.stderr}"


@pytest.mark.parametrize("example", RUN, ids=[e.where for e in RUN])
def test_example_runs_as_written(
    example: Example, pages: dict[str, Page], tmp_path_factory: pytest.TempPathFactory
) -> None:
    for marker in example.needs:
        if (reason := missing(marker)) is not None:
            pytest.skip(reason)
    page = _page(pages, tmp_path_factory, example.page)
    # The page's earlier examples first (they ran already, in order, unless this one was chosen alone).
    earlier = [e for e in RUN if e.page == example.page and e.line < example.line]
    for before in earlier:
        if before.where not in page.ran and all(missing(m) is None for m in before.needs):
            _run(before, page)
    _run(example, page)


def _run(example: Example, page: Page) -> None:
    if example.kind not in RUN_KINDS:  # a data file for the examples after it
        (page.directory / str(example.file)).write_text(page.text(example))
    elif example.kind in SHELL:
        _run_shell(example, page)
    elif example.kind == "toml":
        _load_toml(example, page)
    else:
        _import_python(example, page)
    page.ran.add(example.where)


def describe() -> str:
    """What runs and what is marked not-run, with the reasons: ``python -c 'from tests.test_doc_examples
    import describe; print(describe())'``."""
    left = [e for e in ALL if e.kind in RUN_KINDS and e.not_run]
    return (
        f"{len(RUN)} examples run, {len(left)} marked not-run:\n"
        + "\n".join(f"  {e.where} ({e.kind}): {e.not_run}" for e in left)
        + "\n"
        + "\n".join(f"  runs {e.where} ({e.kind})" for e in RUN)
    )
