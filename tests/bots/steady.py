"""A deterministic bot that takes a little time: ``python tests/bots/steady.py --address ADDR``.

It plays the first legal action after 10 ms, so that a game lasts about a second: long enough for a test
to do something to the machine in the middle of an event, short enough for the suite.
"""

from __future__ import annotations

import asyncio

from arena.bot import Bot, run
from arena.engine.views import View


class Steady(Bot):
    name = "steady"

    async def act(self, view: View) -> object:
        await asyncio.sleep(0.01)
        return view.legal_actions[0]


if __name__ == "__main__":
    run(Steady)
