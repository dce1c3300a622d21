"""The documentation site builds with warnings as errors (mkdocs.yml: docs/ plus the API reference).

``--strict`` turns every warning into a failure: a broken link or anchor between pages, a page missing
from the navigation, or a reference (``::: arena.bot``) to an object that no longer exists. So renaming a
documented class or moving a section heading fails here, not on a reader. Skipped when MkDocs is not
installed (it is in the ``test`` extra).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings_handlers") is None,
    reason="MkDocs or mkdocstrings is not installed: pip install -e '.[test]'",
)


def test_docs_site_builds_strict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    reference = (site / "reference" / "view" / "index.html").read_text()
    # The API reference is generated from the docstrings, not empty: the View's fields are explained.
    for field in ("teammates", "current_trick", "legal_actions", "proposed_trump"):
        assert field in reference
    assert "grpc.reflection.v1" in (site / "reference" / "bot" / "index.html").read_text()
    assert "DecisionRequest" in (site / "player-proto" / "index.html").read_text()
