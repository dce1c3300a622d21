"""Dealing as a pure function of (seed, hand number) (RULES.md C-4).

The shuffle does not use ``random``: CPython promises a stable ``random()`` stream but not a stable
``shuffle``, and a tournament must deal the same cards on every machine and Python version. A BLAKE2b
digest of the seed and hand number gives 512 bits, which are read as the digits of a Lehmer code (a
Fisher-Yates shuffle whose swap indices come from repeated ``divmod``); 512 bits leave a bias far below
2**-300 even for the 39-card space.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache

from arena.engine.cards import CardId, card_text
from arena.engine.config import GameConfig, deck_of
from arena.errors import RuleError

DEAL_DOMAIN = "euchre-arena/deal/v1"


def shuffled(cards: Sequence[CardId], seed: int, hand_index: int) -> list[CardId]:
    """``cards`` in the order dealt for hand ``hand_index`` of the game with ``seed`` (index 0 = top)."""
    digest = hashlib.blake2b(f"{DEAL_DOMAIN}:{seed}:{hand_index}".encode(), digest_size=64).digest()
    x = int.from_bytes(digest, "big")
    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        x, j = divmod(x, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def deal_order(config: GameConfig, seed: int, hand_index: int) -> list[CardId]:
    """The full deck order of one hand: the same (config, seed, hand_index) gives the same deal anywhere."""
    return shuffled(deck_of(config), seed, hand_index)


@lru_cache(maxsize=64)
def deal_positions(num_players: int, dealer: int) -> tuple[tuple[int, ...], ...]:
    """For each seat, the deck positions of its five cards in the order received (C-4.4).

    Pass 1 gives two cards to each seat from ``dealer + 1`` round to the dealer, pass 2 gives three.
    """
    positions: list[list[int]] = [[] for _ in range(num_players)]
    pos = 0
    for batch in (2, 3):
        for k in range(1, num_players + 1):
            seat = (dealer + k) % num_players
            for _ in range(batch):
                positions[seat].append(pos)
                pos += 1
    return tuple(tuple(p) for p in positions)


def check_deck(config: GameConfig, deck: Sequence[CardId], hand_index: int) -> tuple[CardId, ...]:
    """Validate an explicit deck order given by a test or a replay.

    :raises RuleError: if it is not exactly a permutation of the configuration's deck.
    """
    expected = deck_of(config)
    order = tuple(deck)
    if sorted(order) != list(expected):
        missing = sorted(set(expected) - set(order))
        extra = sorted(set(order) - set(expected))
        raise RuleError(
            f"deck for hand {hand_index} is not a permutation of the {config.variant.value} deck of "
            f"{len(expected)} cards: got {len(order)} cards, missing {[card_text(c) for c in missing]}, "
            f"unexpected or repeated {[card_text(c) for c in extra] or _repeats(order)}"
        )
    return order


def _repeats(order: Sequence[CardId]) -> list[str]:
    seen: set[CardId] = set()
    return [card_text(c) for c in order if c in seen or seen.add(c)]  # type: ignore[func-returns-value]
