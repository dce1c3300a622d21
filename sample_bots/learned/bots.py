"""The house bots with the learned models switched on, as classes that ``arena match``, ``arena check-bot``
and event files can name (``sample_bots.learned.bots:...``): the learned inference drawing the guesses
(``guesses = "learned"``; figures in ``sample_bots/learned/inference.md``), and the champion bidding by the
learned model alone (``bidding = "learned"``) or by the model and its rollouts together (``bidding =
"blend"``), or by the CFR table (``bidding = "cfr"``; figures of all three in
``sample_bots/learned/bidding.md``)."""

from __future__ import annotations

from arena.bot import run
from sample_bots.champion import ChampionBot
from sample_bots.montecarlo import MonteCarloBot


class LearnedGuessesChampion(ChampionBot):
    name = "champion-learned-guesses"
    guesses = "learned"


class LearnedBiddingChampion(ChampionBot):
    name = "champion-learned-bidding"
    bidding = "learned"


class BlendedBiddingChampion(ChampionBot):
    name = "champion-blended-bidding"
    bidding = "blend"


class CfrBiddingChampion(ChampionBot):
    name = "champion-cfr-bidding"
    bidding = "cfr"


class LearnedGuessesMonteCarlo(MonteCarloBot):
    name = "montecarlo-learned-guesses"
    guesses = "learned"


if __name__ == "__main__":
    run(LearnedGuessesChampion)
