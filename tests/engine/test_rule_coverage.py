"""Every rule ID of docs/RULES.md (sections 0-8) is covered by a test that ran and passed in this session.

A rule ID is defined by a bullet such as ``* C-2.1`` or ``* CA-6.3``; IDs that only appear as section headings
(``### CA-6``) or in the ambiguity register (``A-CA-1``) are not rules. A test covers ``CA-6.3`` by containing
``CA_6_3`` as a whole underscore-separated part of its function name, e.g.
``test_CA_6_3_maker_with_all_three_aces_must_go_alone``, and by passing: tests/conftest.py records every
test that passed and runs the check after all the others. When only some of the tests that name rules were
selected (``pytest tests/engine/test_cards.py``, ``-k``, ``--lf``), coverage cannot be judged and the check
is skipped, saying so.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from tests.conftest import PASSED

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "docs" / "RULES.md"
TESTS = REPO / "tests"

_BULLET = re.compile(r"^\s*\*\s+((?:C|CA|FH|CL)-\d+\.\d+)\b", re.MULTILINE)


def rule_ids(text: str) -> list[str]:
    """The rule IDs defined as bullets in sections 0-8 of RULES.md, in document order."""
    end = re.search(r"^## 9\.", text, re.MULTILINE)
    body = text[: end.start()] if end else text
    ids = []
    for rule in _BULLET.findall(body):
        if rule not in ids:
            ids.append(rule)
    return ids


def names_rule(name: str, rule: str) -> bool:
    token = rule.replace("-", "_").replace(".", "_")
    return re.search(rf"(?:^|_){re.escape(token)}(?:_|$)", name) is not None


def test_rule_ids_are_extracted_from_bullets_only():
    ids = rule_ids(RULES.read_text(encoding="utf-8"))
    for expected in ("C-0.1", "C-2.1", "C-5.5", "CA-2.1", "CA-6.3", "CA-8.4", "FH-3.2", "FH-7.2", "CL-2.3"):
        assert expected in ids
    assert not any(i.startswith("A-") for i in ids)
    assert "CA-6" not in ids and "FH-3" not in ids  # headings are not rules
    assert len(ids) == len(set(ids)) >= 70


def test_names_rule_matches_whole_parts_only():
    assert names_rule("test_CA_6_3_maker_with_all_three_aces_must_go_alone", "CA-6.3")
    assert names_rule("test_C_2_1", "C-2.1")
    assert not names_rule("test_CA_2_1_joker", "C-2.1")
    assert not names_rule("test_C_2_10_x", "C-2.1")
    assert not names_rule("test_FH_7_2x", "FH-7.2")


def rule_tests(root: Path = TESTS) -> set[tuple[Path, str]]:
    """Every test function under ``root`` whose name names a rule, as (file, function name)."""
    ids = rule_ids(RULES.read_text(encoding="utf-8"))
    found = set()
    for path in root.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name.startswith("test")
                and any(names_rule(node.name, rule) for rule in ids)
            ):
                found.add((path.resolve(), node.name))
    return found


def uncovered(ids: list[str], ran: list[tuple[str, bool]]) -> list[str]:
    """The rules that no test of ``ran`` (function name, passed) both names and passed."""
    return [rule for rule in ids if not any(ok and names_rule(name, rule) for name, ok in ran)]


def test_uncovered_needs_a_test_that_names_the_rule_and_passed():
    ran = [("test_CA_6_3_x", True), ("test_C_2_1_y", False), ("test_FH_7_2_z", True)]
    assert uncovered(["CA-6.3", "C-2.1", "FH-7.2", "CL-2.3"], ran) == ["C-2.1", "CL-2.3"]


def coverage_problem(reported: dict[str, bool]) -> str | None:
    """What the session's reports (node id: passed) say is wrong with the rules' coverage, or None (also
    when only some of the tests that name rules ran: coverage cannot be judged). Used by tests/conftest.py
    under pytest-xdist, where no one worker sees every test's outcome."""
    ids = rule_ids(RULES.read_text(encoding="utf-8"))
    declared = rule_tests()
    ran: list[tuple[str, bool]] = []
    seen: set[tuple[Path, str]] = set()
    for nodeid, ok in reported.items():
        path, _, rest = nodeid.partition("::")
        name = rest.split("::")[-1].split("[")[0]
        seen.add(((REPO / path).resolve(), name))
        ran.append((name, ok))
    if declared - seen:
        return None
    missing = uncovered(ids, ran)
    if missing:
        return f"rule IDs whose every test failed or was skipped in this session: {', '.join(missing)}"
    return None


def test_coverage_problem_reads_node_ids_of_every_worker():
    declared = sorted(rule_tests())
    every = {f"{path.relative_to(REPO)}::{name}[x]": True for path, name in declared}
    assert coverage_problem(every) is None
    ids = rule_ids(RULES.read_text(encoding="utf-8"))
    rule = next(r for r in ids if sum(names_rule(n, r) for _, n in declared) == 1)
    failed = dict(every) | {k: False for k in every if names_rule(k.split("::")[1].split("[")[0], rule)}
    assert rule in (coverage_problem(failed) or "")
    some = dict(list(every.items())[1:])
    assert coverage_problem(some) is None  # not every rule test ran: not judged


@pytest.mark.run_last
def test_every_rule_id_is_named_by_a_test(request: pytest.FixtureRequest):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("under pytest-xdist the controller judges every worker's passes (tests/conftest.py)")
    ids = rule_ids(RULES.read_text(encoding="utf-8"))
    declared = rule_tests()
    items = [item for item in request.session.items if isinstance(item, pytest.Function)]
    selected = {(item.path.resolve(), item.originalname) for item in items}
    left_out = declared - selected
    if left_out:
        pytest.skip(
            f"only some tests were selected ({len(left_out)} of the {len(declared)} that name rules were "
            "not): run the whole suite to check rule coverage"
        )
    passed = request.config.stash[PASSED]
    ran = [(item.originalname, item.nodeid in passed) for item in items if item is not request.node]
    missing = uncovered(ids, ran)
    named = [rule for rule in missing if not any(names_rule(name, rule) for _, name in declared)]
    assert not named, f"rule IDs of docs/RULES.md that no test function name mentions: {', '.join(named)}"
    assert not missing, (
        f"rule IDs whose every test failed or was skipped in this session: {', '.join(missing)}"
    )
