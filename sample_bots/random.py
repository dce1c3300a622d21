"""The weakest possible bot: a uniformly random legal action. Copy this file to start your own."""

from __future__ import annotations

import random

from arena.bot import Bot, run
from arena.engine import Action, View


class RandomBot(Bot):
    name = "random"
    author = "euchre-arena"
    version = "1"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    async def act(self, view: View) -> Action:
        return self.rng.choice(view.legal_actions)


if __name__ == "__main__":
    run(RandomBot)
