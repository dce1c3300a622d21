"""The committed protocol code must be exactly what ``proto/generate.py`` produces from the .proto file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.helpers import ROOT

GENERATED = ["player_pb2.py", "player_pb2.pyi", "player_pb2_grpc.py"]


def _load_generator():
    spec = importlib.util.spec_from_file_location("generate", ROOT / "proto" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools")
    _load_generator().generate(tmp_path)
    for name in GENERATED:
        fresh = (tmp_path / "arena/protocol/v1" / name).read_text()
        committed = (ROOT / "arena/protocol/v1" / name).read_text()
        assert fresh == committed, f"arena/protocol/v1/{name} is stale: run `python proto/generate.py`"
