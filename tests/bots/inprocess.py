"""In-process bots that tests enter by their ``module:Class`` string (``tests.bots.inprocess:Cheater``): the
arena imports them as it imports any class entrant, here or in an ``arena run`` started from the
repository's root.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from arena.bot import Bot
from arena.engine import Action, ActionKind, View
from arena.engine.cards import CARDS


class Cheater(Bot):
    """Always plays a card it does not hold: every play is an illegal-action fault."""

    name = "cheater"

    def act(self, view: View) -> Action:
        first = view.legal_actions[0]
        if first.kind is ActionKind.PLAY:
            held = {c.id for c in view.hand or ()}
            return Action(ActionKind.PLAY, card=next(c for c in CARDS if c.id not in held and c.id < 36))
        return first


class Gate(Bot):
    """Announces its first decision in ``$GATE_DIR/reached``, then waits for ``$GATE_DIR/open``: an arena
    that provably holds its output directory while a test starts a second one (no timing involved)."""

    name = "gate"

    async def act(self, view: View) -> Action:
        gate = Path(os.environ["GATE_DIR"])
        (gate / "reached").touch()
        deadline = time.monotonic() + 120
        while not (gate / "open").exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return view.legal_actions[0]
