"""Bots of the report tests: ``Passer`` (in-process, for the Call-Ace event) never bids, so hands get thrown
in; ``Chatty`` is launched (``python tests/report/report_bots.py --port P``) and logs every decision."""

from __future__ import annotations

import sys

from arena.bot import Bot, run
from arena.engine import Action, ActionKind, View


class Passer(Bot):
    name = "passer"

    def act(self, view: View) -> Action:
        for action in view.legal_actions:
            if action.kind is ActionKind.PASS:
                return action
        return view.legal_actions[0]


class Chatty(Bot):
    """A launched bot that says what it is about to do on its standard error, a line per decision (the
    organiser's report shows such lines beside the game)."""

    name = "chatty"

    def act(self, view: View) -> Action:
        action = view.legal_actions[-1]
        print(f"thinking: {len(view.legal_actions)} legal, playing {action}", file=sys.stderr, flush=True)
        return action


if __name__ == "__main__":
    run(Chatty)
