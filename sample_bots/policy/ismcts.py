"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS) for the card play of a hand.

Why beside the champion's PIMC: perfect-information Monte Carlo solves each guess as if every seat saw every
card, so it credits plays that only work when the cards are known ("strategy fusion"). SO-ISMCTS (Cowling,
Powley and Whitehouse, 2012) grows one tree over the searching seat's information set instead: each
iteration draws a fresh guess of the hidden cards (a determinization), walks the tree choosing only among
the moves legal in that guess, and backs up the result for the seat that moved at each node, so a move is
judged over all the guesses that allow it, not as if the guess were known.

Details, as in the paper: selection by UCB1 in which a child's exploration term counts the times it was
*available* (legal in the iteration's guess) rather than its parent's visits; one node expanded per
iteration; the rest of the hand played out by the rules player (``policy.rollout``); rewards are each
seat's points for the hand minus the others' mean (classic: its team's less the other team's), the
quantity the arena measures. The tree keys a node by the card actions since the root, which identifies
the public history of the hand from the searching seat's view (every card played is seen by everyone).

Pure and deterministic: the guesses come from the caller's ``draw`` (seeded by the caller), and a search
stops at its iteration count or when the caller's ``stop`` says so (the clocks are the caller's).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.engine.state import P_PLAY, GameState
from sample_bots.policy import choose, rollout, seen_from_state
from sample_bots.policy.bidding import DEFAULT_STYLE, Style
from sample_bots.policy.knowledge import cards_played

Reward = Callable[[GameState, int], float]


@dataclass(slots=True)
class Node:
    """A node of the tree: the statistics of the move that led here, for the seat that made it."""

    seat: int = -1  # who made the move into this node (-1 at the root)
    visits: int = 0
    total: float = 0.0
    available: int = 0  # iterations in which this move was legal at its parent
    children: dict[int, Node] = field(default_factory=dict)

    def ucb(self, c: float) -> float:
        return self.total / self.visits + c * math.sqrt(math.log(self.available) / self.visits)


def search(
    draw: Callable[[], GameState | None],
    iterations: int,
    reward: Reward,
    rng: random.Random,
    c: float = 1.0,
    style: Style = DEFAULT_STYLE,
    stop: Callable[[int], bool] | None = None,
) -> tuple[Node, int]:
    """Grow the tree from the searching seat's decision for up to ``iterations`` guesses.

    ``draw`` returns a determinization at the decision (``None``: none fitted, the iteration is skipped);
    ``reward(state, seat)`` what the finished hand is worth to ``seat``; ``stop(done)``, asked every 8
    iterations, ends the search early (a clock). Returns the root and the iterations run.
    """
    root = Node()
    done = misses = 0
    while done < iterations and misses < 20:
        if stop is not None and done and done % 8 == 0 and stop(done):
            break
        state = draw()
        if state is None:
            misses += 1
            continue
        iterate(root, state, reward, rng, c, style)
        done += 1
    return root, done


def iterate(root: Node, state: GameState, reward: Reward, rng: random.Random, c: float, style: Style) -> None:
    """One iteration on the determinization ``state`` (consumed): select, expand one node, roll out, back
    up."""
    path: list[Node] = []
    node = root
    while state.phase == P_PLAY:
        legal = state.legal_actions()
        seat = state.to_act
        untried = [a for a in legal if a not in node.children]
        for a in legal:
            child = node.children.get(a)
            if child is not None:
                child.available += 1
        if untried:
            if len(untried) == len(legal):  # a new node: try the rules player's card first
                played = cards_played(state)
                first = choose(seen_from_state(state, seat, played), style)
                action = first if first in untried else rng.choice(untried)
            else:
                action = rng.choice(untried)
            child = Node(seat=seat, available=1)
            node.children[action] = child
            state.apply_unchecked(action)
            path.append(child)
            break
        action = max(legal, key=lambda a: node.children[a].ucb(c))
        node = node.children[action]
        state.apply_unchecked(action)
        path.append(node)
    if state.phase == P_PLAY:
        rollout(state, style)
    worth: dict[int, float] = {}
    for visited in path:
        if visited.seat not in worth:
            worth[visited.seat] = reward(state, visited.seat)
        visited.visits += 1
        visited.total += worth[visited.seat]


def best_move(root: Node, legal: list[int], default: int) -> int:
    """The most visited of the root's moves that are legal here (the robust child); ties, and a root
    never searched, go to ``default``."""
    visits = {a: root.children[a].visits for a in legal if a in root.children}
    if not visits:
        return default
    top = max(visits.values())
    if visits.get(default) == top:
        return default
    return max(visits, key=lambda a: (visits[a], -a))
