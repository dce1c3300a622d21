"""The complete bot in docs/protocol.md must stay complete, short, and correct."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from pathlib import Path

from arena.engine import GameConfig
from arena.event.table import TableSpec, play_table
from arena.players.inprocess import InProcessPlayer
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


def _fine_print(text: str, bullet: str, more: str) -> list[str]:
    """The statements of a "fine print" list: each bullet with its continuation lines, whitespace folded."""
    items: list[str] = []
    for line in text.splitlines():
        if line.startswith(bullet):
            items.append(line[len(bullet) :])
        elif items and line.startswith(more) and line[len(more) :].strip():
            items[-1] += " " + line[len(more) :].strip()
        elif items:
            break
    return [" ".join(item.split()) for item in items]


def test_fine_print_is_stated_the_same_in_the_doc_and_the_proto() -> None:
    """One statement each, word for word the same in docs/protocol.md and in player.proto's header."""
    doc = DOC.read_text()
    doc_items = _fine_print(doc[doc.index("## The fine print") :].split("\n\n", 2)[2], "* ", "  ")
    proto = (DOC.parents[1] / "proto" / "arena" / "protocol" / "v1" / "player.proto").read_text()
    proto_items = _fine_print(proto[proto.index("// The fine print") :].split("\n", 1)[1], "// * ", "//   ")
    assert doc_items == proto_items
    topics = [item.split(":", 1)[0] for item in doc_items]
    assert topics == [
        "Health",
        "Decision ids",
        "A wrong `decision_id`",
        "Leading",
        "Unset fields",
        "Address",
        "Working directory",
        "No shell",
        "Stopping",
    ]


def test_fine_print_decision_ids_and_the_lead_hold_on_a_real_game() -> None:
    """ "Decision ids" and "Leading": ids count per game across seats from 1; a lead shows an empty trick."""
    from arena.players.base import DecisionTiming, Reply
    from arena.protocol import convert
    from arena.protocol.v1 import player_pb2 as pb

    asked: list[int] = []
    leads: list[pb.DecisionRequest] = []

    class Recording(InProcessPlayer):
        async def decide(self, view, decision_id: int, timing: DecisionTiming) -> Reply:  # type: ignore[no-untyped-def]
            asked.append(decision_id)
            request = convert.decision_request(view, decision_id, 1000, 0).decision_request
            if view.current_trick is not None and not view.current_trick.plays:
                leads.append(request)
            return await super().decide(view, decision_id, timing)

    for game in range(2):
        asked.clear()
        config = GameConfig.create("five-handed")
        players = [Recording(RandomBot, f"r{s}") for s in range(config.num_players)]
        result = asyncio.run(
            play_table(TableSpec(f"ids{game}", config, game, tuple(p.name for p in players)), players)
        )
        assert asked == list(range(1, result.decisions + 1))
    assert leads
    for request in leads:
        assert request.view.HasField("current_trick")
        assert not request.view.current_trick.plays
        assert request.view.current_trick.leader == request.view.seat
