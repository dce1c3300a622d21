"""Outcomes and kinds are enums whose text is what the config files, the stored events, the JSON and the
terminal have always said: renaming a member is free, changing a value is a format change."""

from __future__ import annotations

import json
import sqlite3
from enum import StrEnum

import pytest

from arena.conductor.tournament import Stopped
from arena.event.config import EntrantKind, ExecutorKind
from arena.event.faults import ForfeitResult
from arena.sandbox import SandboxMode, SandboxSpec


@pytest.mark.parametrize(
    ("enum", "values"),
    [
        (ForfeitResult, ["loss", "void"]),
        (ExecutorKind, ["local", "dask"]),
        (EntrantKind, ["address", "command", "class"]),
        (SandboxMode, ["bubblewrap", "none"]),
        (Stopped, ["", "settled", "budget"]),
    ],
)
def test_the_stored_text_of_each_member(enum: type[StrEnum], values: list[str]) -> None:
    assert [m.value for m in enum] == values
    assert json.loads(json.dumps([*enum])) == values
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (v TEXT)")
    db.executemany("INSERT INTO t VALUES (?)", [(m,) for m in enum])
    assert [r[0] for r in db.execute("SELECT v FROM t")] == values  # the entrants table stores a kind


def test_an_event_that_ran_out_its_schedule_says_nothing_of_settling() -> None:
    assert not Stopped.SCHEDULE and Stopped.SETTLED and Stopped.BUDGET


def test_only_bubblewrap_confines_even_when_given_as_text() -> None:
    assert SandboxSpec(mode=SandboxMode.BUBBLEWRAP).sandboxed
    assert SandboxSpec(mode="bubblewrap").sandboxed  # type: ignore[arg-type]
    assert not SandboxSpec(mode=SandboxMode.NONE).sandboxed
