"""Regenerate the Python code of the protocol: ``python proto/generate.py`` from the repository root.

The generated modules (``arena/protocol/v1/player_pb2*.py*``) are committed so that ``pip install`` needs no
code generator; ``tests/protocol/test_generated.py`` fails when they are stale. Never edit them by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ["arena/protocol/v1/player.proto"]


def generate(out_dir: Path) -> None:
    """Write the ``_pb2``, ``_pb2_grpc`` and ``.pyi`` files for every proto under ``out_dir``."""
    include = str(Path(protoc.__file__).parent / "_proto")
    for proto in PROTOS:
        code = protoc.main(
            [
                "grpc_tools.protoc",
                f"-I{ROOT / 'proto'}",
                f"-I{include}",
                f"--python_out={out_dir}",
                f"--pyi_out={out_dir}",
                f"--grpc_python_out={out_dir}",
                str(ROOT / "proto" / proto),
            ]
        )
        if code != 0:
            sys.exit(f"protoc failed on {proto} (exit {code})")


if __name__ == "__main__":
    generate(ROOT)
    print("generated into", ROOT / "arena/protocol/v1")
