"""The autopilot: the player of a seat whose entrant is disqualified, not up, or has forfeited the game.

Seeded by the entrant's name and the game's public seed, so a seat it plays is played the same whoever
runs the table (the local executor or a Dask worker).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.engine.news import News
from arena.engine.views import View
from arena.gameinfo import GameInfo, GameResult
from arena.players.base import DecisionTiming, Player, Reply


class AutopilotPlayer(Player):
    """Plays for a disqualified entrant, or one that is not up: seeded random legal actions, never a fault."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.rng = random.Random(f"euchre-arena/autopilot/{seed}/{name}")

    async def start(self, info: GameInfo, news: Sequence[News]) -> None:
        return None

    def queue_news(self, news: Sequence[News]) -> None:
        return None

    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        return Reply(self.rng.choice(view.legal_actions), 0.0)

    async def finish(self, final: GameResult) -> None:
        return None
