"""The ``node`` runtime: the sample Node.js bot uploaded as one file passes its check in the sandbox, on the
organiser's packages (sample_bots/node after `npm ci`)."""

from __future__ import annotations

import pytest

from tests.helpers import ROOT
from tests.server.conftest import Client, ServerProcess

pytestmark = pytest.mark.needs_node
COMPETITION = {"submissions": {"runtimes": ["python", "node"]}}

SQLITE_ONLY = True  # a runtime's launch, which no database touches: tests/server/conftest.py


def test_the_node_sample_bot_passes(server: ServerProcess) -> None:
    author = Client(server.url)
    author.sign_up("nodejs-fan")
    page = author.upload("bot.js", (ROOT / "sample_bots" / "node" / "bot.js").read_bytes(), runtime="node")
    assert page.status_code == 303, page.text
    verdict = author.verdict(page.headers["location"])
    assert "VERDICT: PASS" in verdict and "node-random" in verdict
    wrong = author.upload("bot.js", b"x", runtime="executable")
    assert wrong.status_code == 400 and "is not offered here" in wrong.text
