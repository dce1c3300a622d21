"""Engine speed benchmark: random legal games per variant, in hands per second.

Usage::

    python bench/engine.py [--hands N] [--seconds S] [--repeats R] [--seed K]

For every variant configuration below, whole games are played with uniformly random legal actions through
the checked ``GameState.apply`` path (the legality check that a referee uses, not ``apply_unchecked``) until
at least ``--hands`` hands were dealt (or, with ``--seconds``, until that much time has passed). A hand is
one dealt hand, thrown-in hands included, counted with ``len(state.results)``; the dealing from the seed is
part of the timed work. Each measurement is repeated ``--repeats`` times (default 3) with the same seeds and
the best (fastest) repeat is reported, which removes most scheduling noise.

For classic Euchre the same number of hands is also played with OpenSpiel's ``euchre`` in the same process
(one hand per OpenSpiel game; chance outcomes, i.e. the dealer, the 20 dealt cards and the up-card, are
sampled uniformly with a seeded ``random.Random``; random legal play), and the ratio ours / OpenSpiel is
printed. OpenSpiel is optional: without ``pyspiel`` that row is skipped.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from arena.engine import GameConfig, GameState

VARIANTS: list[tuple[str, GameConfig]] = [
    ("classic", GameConfig.create("classic")),
    ("five-handed", GameConfig.create("five-handed")),
    ("call-ace 5p (28 cards)", GameConfig.create("call-ace")),
    ("call-ace 4p", GameConfig.create("call-ace", num_players=4)),
    ("call-ace 6p", GameConfig.create("call-ace", num_players=6)),
    ("call-ace 7p", GameConfig.create("call-ace", num_players=7)),
    ("call-ace 5p + Joker", GameConfig.create("call-ace", use_joker=True)),
]
OPENSPIEL_PARAMS = {"stick_the_dealer": False, "allow_lone_defender": False}  # as our classic default

Stop = Callable[[int, float], bool]
"""``stop(hands_played, elapsed_seconds)``: whether a measurement has done enough work."""


def play_ours(config: GameConfig, seed: int, stop: Stop) -> tuple[int, float, int]:
    """Random legal games with our engine until ``stop``; returns (hands dealt, seconds, actions)."""
    rng = random.Random(seed)
    choice = rng.choice
    hands = actions = 0
    game = 0
    start = time.perf_counter()
    while not stop(hands, time.perf_counter() - start):
        state = GameState(config, seed=seed * 1_000_003 + game)
        while not state.is_terminal():
            state.apply(choice(state.legal_actions()))
        hands += len(state.results)
        actions += sum(len(r.actions) for r in state.results)
        game += 1
    return hands, time.perf_counter() - start, actions


def play_openspiel(game, seed: int, hands: int) -> tuple[int, float, int]:
    """``hands`` random OpenSpiel ``euchre`` games (one hand each); returns (hands, seconds)."""
    rng = random.Random(seed)
    choice = rng.choice
    start = time.perf_counter()
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
    return hands, time.perf_counter() - start, 0


def best_of(repeats: int, run: Callable[[], tuple[int, float, int]]) -> tuple[int, float, int]:
    """The repeat with the highest hands per second."""
    runs = [run() for _ in range(repeats)]
    return max(runs, key=lambda r: r[0] / r[1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=10_000, help="hands per measurement (default 10000)")
    parser.add_argument("--seconds", type=float, help="time per measurement instead of a number of hands")
    parser.add_argument("--repeats", type=int, default=3, help="repeats per measurement; best is shown")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and of the random play")
    args = parser.parse_args(argv)
    if args.hands < 1 or args.repeats < 1 or (args.seconds is not None and args.seconds <= 0):
        parser.error("--hands and --repeats must be at least 1 and --seconds positive")

    if args.seconds is not None:
        budget = args.seconds

        def stop(hands: int, elapsed: float) -> bool:
            return elapsed >= budget

        measure = f"{budget:g} s per measurement"
    else:
        target = args.hands

        def stop(hands: int, elapsed: float) -> bool:
            return hands >= target

        measure = f"at least {target} hands per measurement (whole games)"

    print(f"Python {platform.python_version()} ({platform.python_implementation()}) on {platform.platform()}")
    processor = platform.processor() or "unknown"
    print(f"machine {platform.machine()}, processor {processor}, {os.cpu_count()} CPUs")
    print(f"{measure}; best of {args.repeats} repeats; seed {args.seed}")
    print("ours: random legal play through the checked GameState.apply path (legality check on every action)")
    print()

    rows: list[tuple[str, int, float, int]] = []
    for name, config in VARIANTS:
        hands, secs, actions = best_of(args.repeats, lambda c=config: play_ours(c, args.seed, stop))
        rows.append((name, hands, secs, actions))
    classic_hands, classic_secs = rows[0][1], rows[0][2]

    name_width = max(len(r[0]) for r in rows) + 2
    head = f"{'engine / variant':<{name_width + 6}}{'hands':>8}{'best s':>10}{'hands/s':>12}"
    print(f"{head}{'actions/hand':>14}{'actions/s':>12}")
    for name, hands, secs, actions in rows:
        print(
            f"{'ours  ' + name:<{name_width + 6}}{hands:>8}{secs:>10.3f}{hands / secs:>12,.0f}"
            f"{actions / hands:>14.1f}{actions / secs:>12,.0f}"
        )

    try:
        import pyspiel
    except ImportError:
        print("\nOpenSpiel (pyspiel) is not installed: no comparison (pip install open-spiel)")
        return
    game = pyspiel.load_game("euchre", OPENSPIEL_PARAMS)
    # The comparison alternates the two engines run by run (best of each), so that a noisy neighbour on
    # the machine slows both alike rather than whichever happened to run in the noisy moment.
    ours_runs, os_runs = [], []
    for _ in range(max(args.repeats, 5)):
        ours_runs.append(play_ours(VARIANTS[0][1], args.seed, stop))
        os_runs.append(play_openspiel(game, args.seed, classic_hands))
    classic_hands, classic_secs, _ = max(ours_runs, key=lambda r: r[0] / r[1])
    os_hands, os_secs, _ = max(os_runs, key=lambda r: r[0] / r[1])
    label = "OpenSpiel euchre"
    print(
        f"{'ours  classic (alternating)':<{name_width + 6}}{classic_hands:>8}{classic_secs:>10.3f}"
        f"{classic_hands / classic_secs:>12,.0f}"
    )
    print(f"{label:<{name_width + 6}}{os_hands:>8}{os_secs:>10.3f}{os_hands / os_secs:>12,.0f}")
    ratio = (classic_hands / classic_secs) / (os_hands / os_secs)
    print()
    version = importlib.metadata.version("open-spiel")
    print(
        f"classic: ours / OpenSpiel hands/s = {ratio:.2f} (above 1: ours is faster), best of "
        f"{len(os_runs)} alternating runs each"
    )
    print(
        f"OpenSpiel: open-spiel {version}, parameters {OPENSPIEL_PARAMS}, the same number of hands, one hand "
        "per game, chance outcomes sampled uniformly with random.Random, random legal play"
    )


if __name__ == "__main__":
    main()
