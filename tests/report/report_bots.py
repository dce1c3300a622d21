"""An in-process bot for the report tests' Call-Ace event: it never bids, so hands get thrown in."""

from __future__ import annotations

from arena.bot import Bot
from arena.engine import Action, ActionKind, View


class Passer(Bot):
    name = "passer"

    def act(self, view: View) -> Action:
        for action in view.legal_actions:
            if action.kind is ActionKind.PASS:
                return action
        return view.legal_actions[0]
