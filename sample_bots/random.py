"""The weakest possible bot: a uniformly random legal action. Copy this file to start your own.

Its choices are seeded by the game id and its seat, so a tournament of random bots replays identically.
"""

from __future__ import annotations

import random

from arena.bot import Bot, GameInfo, run
from arena.engine import Action, View


class RandomBot(Bot):
    name = "random"
    author = "euchre-arena"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)

    def on_game_start(self, game: GameInfo) -> None:
        self.rng = random.Random(f"{game.game_id}/{game.seat}")

    async def act(self, view: View) -> Action:
        return self.rng.choice(view.legal_actions)


if __name__ == "__main__":
    run(RandomBot)
