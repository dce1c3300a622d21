"""How fast the double-dummy solver (sample_bots/policy/solver.py) is, and what each of its tools is worth.

    python bench/solver.py                  # 40 deals per variant, from the first lead of the first hand
    python bench/solver.py --deals 100

For each variant: the median and the slowest time to solve a whole five-card hand from the first lead,
the median number of nodes, and positions (nodes) per second; then the same search with each tool off in
turn (the transposition table, merging equivalent cards, strongest-first move ordering). The deals are
random legal bids and plays up to the first lead (seeded), so the figures repeat on the same machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the package, not bench/arena.py

from arena.engine import GameConfig, GameState
from arena.engine.state import P_PLAY
from sample_bots.policy.solver import Position, Solver

VARIANTS = {"five-handed": {}, "call-ace": {"use_joker": True}, "classic": {}}
TOOLS = {
    "all tools": {},
    "no table": {"table": False},
    "no merging": {"merge": False},
    "no ordering": {"order": False},
}


def first_leads(variant: str, deals: int) -> list[Position]:
    positions = []
    seed = 0
    while len(positions) < deals:
        seed += 1
        rng = random.Random(seed)
        state = GameState(GameConfig.create(variant, **VARIANTS[variant]), seed=seed)
        while state.phase != P_PLAY and not state.results:
            state.apply(rng.choice(state.legal_actions()))
        if state.phase == P_PLAY and not state.results:
            positions.append(Position.from_state(state))
    return positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    args = parser.parse_args()
    print(f"{'variant':12} {'search':12} {'median ms':>9} {'max ms':>8} {'nodes':>8} {'nodes/s':>9}")
    for variant in VARIANTS:
        positions = first_leads(variant, args.deals)
        exact = None
        for label, flags in TOOLS.items():
            times, nodes, values = [], [], []
            for position in positions:
                solver = Solver(position, **flags)
                began = time.perf_counter()
                values.append(solver.value(position))
                times.append(time.perf_counter() - began)
                nodes.append(solver.nodes)
            exact = exact or values
            assert values == exact, f"{variant} {label}: the value changed without a tool"
            rate = sum(nodes) / sum(times)
            print(
                f"{variant:12} {label:12} {1000 * statistics.median(times):9.1f} {1000 * max(times):8.1f} "
                f"{statistics.median(nodes):8.0f} {rate:9.0f}"
            )


if __name__ == "__main__":
    main()
