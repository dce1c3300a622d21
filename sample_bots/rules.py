"""A rule-based player: the bidding, calling and card play of a sensible club player, in every variant.

The strategy lives in ``sample_bots.policy`` (shared with the ``montecarlo`` bot, which plays out its
simulations with it), where each idea is a small function: ``hand_tricks`` values a hand for a trump suit,
``bid_round_1``/``bid_round_2`` make trump, ``discard_choice`` keeps trumps and makes voids, ``call`` picks
the partner card or goes alone, and ``lead``/``follow``/``throw_off`` play the cards. This bot applies it
to each decision in well under a millisecond. Its thresholds are a ``Style``: subclass and set ``style`` to
try others. Copy both files to start your own bot.
"""

from __future__ import annotations

from typing import ClassVar

from arena.bot import Bot, run
from arena.engine import ACTIONS, Action, View
from sample_bots.policy import DEFAULT_STYLE, Style, choose_view


class RulesBot(Bot):
    name = "rules"
    author = "euchre-arena"
    version = "1"
    style: ClassVar[Style] = DEFAULT_STYLE

    def act(self, view: View) -> Action:
        return ACTIONS[choose_view(view, self.style)]


if __name__ == "__main__":
    run(RulesBot)
