"""docs/config.md cannot drift from the declared options: each section's table lists exactly the declared
keys, each with its declared default and, in the "allowed" column, the words its error message uses.

Tested rather than generated: the tables' "meaning" column is prose with links and examples that belongs in
the docs, not in the code, while what can drift (a key, its default, its range or choices) is compared here
with the declarations (``arena/options.py``), so a changed bound or a new option fails until the page says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import options
from arena.event.config import EntrantKind, EntrantSpec, ExecutorSpec, TournamentConfig
from arena.event.faults import FaultPolicy
from arena.stats.leaderboard import RankingConfig

DOC = Path(__file__).resolve().parents[2] / "docs" / "config.md"
SECTIONS: dict[str, type] = {
    "## Top level": TournamentConfig,
    "## `[faults]`": FaultPolicy,
    "## `[ranking]`": RankingConfig,
    "## `[executor]`": ExecutorSpec,
    "## `[[entrant]]`": EntrantSpec,
}
EXTRA_ROWS: dict[str, set[str]] = {"## `[[entrant]]`": {str(k) for k in EntrantKind}}
"""Rows that are not options: an entrant's one key of address, command and class is a rule between keys."""


def table(heading: str, doc: Path = DOC) -> dict[str, tuple[str, str]]:
    """The rows of the first table under ``heading`` in ``doc``: key -> (default, allowed), cells as
    written, a code span's backticks dropped (docs/server.md's tables are read the same way)."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    rows: dict[str, tuple[str, str]] = {}
    for line in lines[start + 1 :]:
        if line.startswith("## "):
            break
        if rows and not line.startswith("|"):
            break
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            rows[cells[0].strip("`")] = (_unquote(cells[1]), _unquote(cells[2]))
    return rows


def _unquote(cell: str) -> str:
    return cell[1:-1] if cell.startswith("`") and cell.endswith("`") and cell.count("`") == 2 else cell


@pytest.mark.parametrize("heading", SECTIONS)
def test_each_table_lists_exactly_the_declared_keys(heading: str) -> None:
    assert set(table(heading)) == set(options.keys(SECTIONS[heading])) | EXTRA_ROWS.get(heading, set())


CASES = [(heading, key) for heading, cls in SECTIONS.items() for key in options.keys(cls)]


@pytest.mark.parametrize(("heading", "key"), CASES, ids=[f"{h[3:]}.{k}" for h, k in CASES])
def test_each_option_is_documented_with_its_default_and_what_is_allowed(heading: str, key: str) -> None:
    declared = options.declaration(SECTIONS[heading], key)
    assert table(heading).get(key) == (declared.shown_default, declared.check.expected)
