"""The house bots with the learned inference drawing their guesses (``guesses = "learned"``), as classes
that ``arena match``, ``arena check-bot`` and event files can name (``sample_bots.learned.bots:...``).
Their figures against the default bots are in ``sample_bots/learned/inference.md``."""

from __future__ import annotations

from arena.bot import run
from sample_bots.champion import ChampionBot
from sample_bots.montecarlo import MonteCarloBot


class LearnedGuessesChampion(ChampionBot):
    name = "champion-learned-guesses"
    guesses = "learned"


class LearnedGuessesMonteCarlo(MonteCarloBot):
    name = "montecarlo-learned-guesses"
    guesses = "learned"


if __name__ == "__main__":
    run(LearnedGuessesChampion)
