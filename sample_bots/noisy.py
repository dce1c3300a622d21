"""The rules bot with a known handicap: at each decision, with probability ε, a uniformly random legal action.

Bots of known strength order, for measuring rankings (bench/ranking.py, tests/stats/test_confidence.py and
``--until-settled`` in tests/conductor/test_tournament.py): a larger ε is a weaker bot, and neighbours ε
apart by 0.2 differ by about 0.1 points per hand in five-player Call-Ace. The noise is seeded from the game
id, the seat and ε, never from a clock, so a game replays identically (resume, determinism tests), and two
entrants with the same ε still play independently (their game ids or seats differ).
"""

from __future__ import annotations

import random
from typing import ClassVar

from arena.bot import Bot, run
from arena.engine import ACTIONS, Action, View
from arena.gameinfo import GameInfo
from sample_bots.policy import DEFAULT_STYLE, choose_view


class NoisyRulesBot(Bot):
    name = "noisy-rules"
    author = "euchre-arena"
    version = "1"
    epsilon: ClassVar[float] = 0.0

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)

    def on_game_start(self, game: GameInfo) -> None:
        self.rng = random.Random(f"noisy-rules/{game.game_id}/{game.seat}/{self.epsilon}")

    def act(self, view: View) -> Action:
        legal = view.legal_actions
        if self.epsilon and self.rng.random() < self.epsilon:
            return legal[int(self.rng.random() * len(legal))]
        return ACTIONS[choose_view(view, DEFAULT_STYLE)]


def noisy(epsilon: float) -> type[NoisyRulesBot]:
    """A ``NoisyRulesBot`` subclass playing at noise ``epsilon``."""
    return type(f"Noisy{round(epsilon * 100):03d}", (NoisyRulesBot,), {"epsilon": epsilon})


# Named classes for configs (``class = "sample_bots.noisy:Noisy20"``): the ladder of bench/ranking.py.
Noisy00 = noisy(0.0)
Noisy20 = noisy(0.2)
Noisy40 = noisy(0.4)
Noisy60 = noisy(0.6)
Noisy80 = noisy(0.8)
Noisy100 = noisy(1.0)

if __name__ == "__main__":
    run(Noisy20)
