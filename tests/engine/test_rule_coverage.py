"""Every rule ID of docs/RULES.md (sections 0-8) is named by at least one test function under tests/.

A rule ID is defined by a bullet such as ``* C-2.1`` or ``* CA-6.3``; IDs that only appear as section headings
(``### CA-6``) or in the ambiguity register (``A-CA-1``) are not rules. A test names ``CA-6.3`` by containing
``CA_6_3`` as a whole underscore-separated part of its function name, e.g.
``test_CA_6_3_maker_with_all_three_aces_must_go_alone``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

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


def collect_test_names(root: Path = TESTS) -> set[str]:
    names = set()
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
                names.add(node.name)
    return names


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


def test_every_rule_id_is_named_by_a_test():
    ids = rule_ids(RULES.read_text(encoding="utf-8"))
    names = collect_test_names()
    missing = [rule for rule in ids if not any(names_rule(name, rule) for name in names)]
    assert not missing, f"rule IDs of docs/RULES.md that no test function name mentions: {', '.join(missing)}"
