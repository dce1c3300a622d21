"""A bot that thinks hard in some games: ``python tests/bots/thinker.py --port P``.

In a game whose id starts with ``think``, its plain ``def act`` spins on the CPU (holding the GIL, as a
search in pure Python does) for ``THINK_S`` seconds before it answers; in every other game it answers at
once. The SDK test checks that such a game never holds up the others' replies or the health check.
"""

from __future__ import annotations

import time

from arena.bot import Bot, run
from arena.engine import Action, View

THINK_S = 4.0


class Thinker(Bot):
    name = "thinker"

    def act(self, view: View) -> Action:
        assert self.game is not None
        if self.game.game_id.startswith("think"):
            end = time.monotonic() + THINK_S
            spins = 0
            while time.monotonic() < end:
                spins += sum(range(100))  # pure-Python work: holds the GIL between switches
        return view.legal_actions[0]


if __name__ == "__main__":
    run(Thinker)
