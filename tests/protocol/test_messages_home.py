"""Every protocol message is built in ``arena/protocol/``: no other module of the arena constructs one.

Why a test: the mapping between engine values and messages has one home (``arena.protocol.convert``, and
``arena.protocol.wire`` for the request bytes), so a change of the contract is made in one place and the
rest of the arena handles engine values and bytes only. A constructor call written anywhere else would
quietly start a second mapping. The scan reads the source (an AST walk), following whatever name the
generated module ``player_pb2`` (or a message class imported from it) is bound to; tests may still build
messages.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = "arena.protocol.v1.player_pb2"


def constructors(source: str) -> list[tuple[int, str]]:
    """(line, call) of every call that builds a message of ``player_pb2`` in ``source``."""
    tree = ast.parse(source)
    modules: set[str] = set()  # names bound to the module
    classes: set[str] = set()  # names bound to a message class of it
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == MESSAGES.rsplit(".", 1)[0]:
            modules |= {a.asname or a.name for a in node.names if a.name == "player_pb2"}
        elif isinstance(node, ast.ImportFrom) and node.module == MESSAGES:
            classes |= {a.asname or a.name for a in node.names if a.name[:1].isupper()}
        elif isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names if a.name == MESSAGES and a.asname}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr[:1].isupper()
            and (
                (isinstance(func.value, ast.Name) and func.value.id in modules)
                or ast.unparse(func.value) == MESSAGES
            )
        ) or (isinstance(func, ast.Name) and func.id in classes):
            found.append((node.lineno, ast.unparse(func)))
    return found


def violations(root: Path) -> list[str]:
    """Message constructors in ``root/arena`` outside ``arena/protocol/``, as ``path:line: call``; also
    the plain ``pb.Name(`` spelling the issue's grep looks for, so the two never disagree."""
    found = []
    for path in sorted((root / "arena").rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[:2] == ("arena", "protocol"):
            continue
        source = path.read_text()
        calls = constructors(source)
        lines = {line for line, _ in calls}
        for number, text in enumerate(source.splitlines(), 1):
            match = re.search(r"\bpb\.[A-Z]\w*\(", text)
            if match and number not in lines:
                calls.append((number, match.group(0)[:-1]))
        found += [f"{relative}:{line}: {call}(...)" for line, call in sorted(calls)]
    return found


def test_no_module_outside_protocol_builds_a_message() -> None:
    assert violations(ROOT) == []


def test_the_scan_finds_a_message_built_under_any_name(tmp_path: Path) -> None:
    """The scan can fail: every way of reaching a message class is caught, and a look-alike is not."""
    players = tmp_path / "arena" / "players"
    players.mkdir(parents=True)
    (tmp_path / "arena" / "protocol").mkdir()
    (tmp_path / "arena" / "protocol" / "convert.py").write_text(
        "from arena.protocol.v1 import player_pb2 as pb\nx = pb.GameOver()\n"
    )
    (players / "bad.py").write_text(
        "import arena.protocol.v1.player_pb2\n"
        "import arena.protocol.v1.player_pb2 as messages\n"
        "from arena.protocol.v1 import player_pb2 as pb\n"
        "from arena.protocol.v1 import player_pb2\n"
        "from arena.protocol.v1.player_pb2 import GameStart as Start, SeatInfo\n"
        "from grpc_health.v1 import health_pb2\n"
        "a = pb.GameOver(scores=[1])\n"
        "b = messages.HelloRequest()\n"
        "c = player_pb2.BotMessage()\n"
        "d = arena.protocol.v1.player_pb2.ArenaMessage()\n"
        "e = Start(seats=[SeatInfo()])\n"
        "f = pb.BotMessage.FromString(b'')\n"  # parsing, not building
        "g = health_pb2.HealthCheckRequest()\n"  # not a message of ours
        "h = pb.ActionKind.Value('ACTION_KIND_PASS')\n"
    )
    assert violations(tmp_path) == [
        "arena/players/bad.py:7: pb.GameOver(...)",
        "arena/players/bad.py:8: messages.HelloRequest(...)",
        "arena/players/bad.py:9: player_pb2.BotMessage(...)",
        "arena/players/bad.py:10: arena.protocol.v1.player_pb2.ArenaMessage(...)",
        "arena/players/bad.py:11: SeatInfo(...)",
        "arena/players/bad.py:11: Start(...)",
    ]
