"""The complete bot in docs/protocol.md must stay complete, short, and correct."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from pathlib import Path

from arena.engine import GameConfig
from arena.players.inprocess import InProcessPlayer
from arena.table import TableSpec, play_table
from sample_bots.random import RandomBot

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_protocol_doc_bot_is_under_30_lines_and_plays_every_variant(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1
    source = blocks[0]
    assert len(source.strip().splitlines()) < 30
    path = tmp_path / "greedy.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("greedy_doc_bot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for variant in ("five-handed", "call-ace", "classic"):
        config = GameConfig.create(variant)
        players = [InProcessPlayer(module.Greedy, "greedy")] + [
            InProcessPlayer(RandomBot, f"random-{s}") for s in range(1, config.num_players)
        ]
        result = asyncio.run(play_table(TableSpec("doc", config, 3, tuple(p.name for p in players)), players))
        assert result.faults == () and result.outcome is not None
