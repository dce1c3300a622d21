"""docs/server.md cannot drift from the competition's declared options: each reference table lists exactly
the declared keys, with the declared default and the words of the error message (as docs/config.md is
kept equal to the tournament's, by the same reader)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import options
from arena.server.settings import (
    CheckSpec,
    CompetitionConfig,
    FinalSpec,
    LadderSpec,
    PeopleSpec,
    SubmissionSpec,
)
from tests.event.test_config_docs import table

DOC = Path(__file__).resolve().parents[2] / "docs" / "server.md"
SECTIONS: dict[str, type] = {
    "### Top level (competition)": CompetitionConfig,
    "### `[people]`": PeopleSpec,
    "### `[submissions]`": SubmissionSpec,
    "### `[checks]`": CheckSpec,
    "### `[ladder]`": LadderSpec,
    "### `[final]`": FinalSpec,
}
CASES = [(heading, key) for heading, cls in SECTIONS.items() for key in options.keys(cls)]


@pytest.mark.parametrize("heading", SECTIONS)
def test_each_table_lists_exactly_the_declared_keys(heading: str) -> None:
    assert set(table(heading, DOC)) == set(options.keys(SECTIONS[heading]))


@pytest.mark.parametrize(("heading", "key"), CASES, ids=[f"{h[4:]}.{k}" for h, k in CASES])
def test_each_option_is_documented_with_its_default_and_what_is_allowed(heading: str, key: str) -> None:
    declared = options.declaration(SECTIONS[heading], key)
    assert table(heading, DOC).get(key) == (declared.shown_default, declared.check.expected)
