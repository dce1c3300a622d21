"""Duplicate single-hand benchmark: a bot's edge over the rules player in points per hand, hand by hand.

    python bench/hands.py [--deals 60] [--variant five-handed] [--bots champion,champion-play,champion-bid]
                          [--workers 2] [--seed 1] [--measure relative|own]

Each deal (``GameState(config, seed=d, single_hand=True)``) is played once by rules players at every seat
(the baseline) and, for every seat s, once more with the bot at s and rules players elsewhere. The bot's
edge on that deal and seat is its utility (its points minus the others' mean; classic: its team's minus the
other team's) less the rules player's at the same seat of the baseline: the same cards, the same other
players, so most of the luck of the deal cancels and hands where the bot does what the rules player does
count zero. The unit of the statistics is the deal (its seats are not independent): mean edge per hand
with a 95% confidence interval (Student's t over deals). Whole games (``bench/strength.py``) measure the
same quantity with the game's scores on top and need several times the CPU for the same interval.

The bots are bench/strength.py's names; ``champion-play`` and ``champion-bid`` are the two halves of the
champion (its card play with the rules player's bidding, and the reverse), so that the edges of the
phases can be told apart on the same deals. A run is deterministic given ``--seed`` only where the bots'
guess counts and work budgets stop their searches: the champion's CPU cap (``budget_s``, 0.25 s of thread
CPU) stops some card searches even on a quiet machine (README's champion paragraph), and more on a loaded
one: two runs of the same ``champion-play`` on the same 10 deals gave +0.150 and +0.120 (load average 8 to
10). Add ``@budget_s=10.0`` to a champion's name for a run that depends on the seed alone (the ISMCTS
comparison below).

Measured 2026-12-03 (two cores shared with other jobs, load average 8 to 10, ``nice -n 10``), the halves
of the champion against rules, pts/hand, 95% CI over deals, every seat of each deal:

    python bench/hands.py --deals 100 --bots champion-play,champion-bid,champion-solvebid --workers 2
      five-handed: champion-play +0.040 ± 0.026 (29 of 500 hands changed); champion-bid (rollouts)
      +0.056 ± 0.047 (60 changed); champion-solvebid (each bid option solved) +0.005 ± 0.047 (51
      changed, 3.5x champion-bid's CPU)
    python bench/hands.py --variant call-ace --deals 80 \
        --bots champion-play,champion-bid,champion-solvebid@bid_samples=24 --workers 1
      call-ace: champion-play +0.033 ± 0.048; champion-bid +0.073 ± 0.054; champion-solvebid +0.046 ± 0.055

So both phases carry some of the edge, neither alone is near +0.15, and solving the bids did not beat the
rollouts. Two card-play variants on the first 40 Five-handed deals, paired against ``champion-play``:
three times the work (``@play_work=300000+play_samples=144``) -0.015 ± 0.034 (more guesses do not help:
the error is PIMC's, not the sampling's); sharper inference (``@inference=0.02+tries=24``) +0.024 ±
0.031, and -0.007 ± 0.034 on the next 40 deals (``--seed 41``): no gain. The rules player's own
thresholds are near their best against rules players:
``--bots rules:order_up=2.35,rules:order_up=2.1,...`` over 3000 deals moved no threshold of ``Style`` by
more than +0.004 ± 0.002 (``wait_margin=0``).

ISMCTS card play against PIMC (``sample_bots/policy/ismcts.py``; both at fixed work, ``@budget_s=10.0``,
so the runs depend on the seed alone), measured 2026-12-03, two cores shared, ``nice -n 10``:

    python bench/hands.py --deals 60 --workers 1 \
        --bots "champion-play@budget_s=10.0,champion-play@ismcts_iterations=300+budget_s=10.0"
      PIMC +0.042 ± 0.037 (143 s CPU); ISMCTS 300 iterations +0.067 ± 0.044 (296 s); PIMC - ISMCTS
      -0.026 ± 0.044
    python bench/hands.py --deals 100 --seed 61 --workers 2 --bots "champion-play@budget_s=10.0,\
        champion-play@ismcts_iterations=300+budget_s=10.0,champion-play@ismcts_iterations=150+budget_s=10.0"
      PIMC +0.040 ± 0.030 (252 s); ISMCTS 300 +0.016 ± 0.032 (501 s); ISMCTS 150 (PIMC's CPU) +0.011 ±
      0.032 (254 s); PIMC - ISMCTS 300 +0.023 ± 0.024, PIMC - ISMCTS 150 +0.028 ± 0.027

    python bench/hands.py --variant call-ace --deals 60 --workers 2 \
        --bots "champion-play@budget_s=10.0,champion-play@ismcts_iterations=300+budget_s=10.0"
      PIMC +0.019 ± 0.059 (123 s); ISMCTS 300 +0.032 ± 0.053 (242 s); PIMC - ISMCTS -0.013 ± 0.037

Over the 160 Five-handed deals ISMCTS is no better than PIMC at twice its CPU, and worse at the same CPU;
in Call-Ace the two are within noise at twice the CPU. PIMC stays the champion's card play; ISMCTS is kept
as the option ``ismcts_iterations``.

The champion valuing a hand by its own points (``objective=own``, what ``arena match`` and points per hand
count) instead of its points minus the others' mean, measured 2026-12-04 in own points (``--measure
own``), one worker beside an ``arena match``:

    python bench/hands.py --deals 60 --workers 1 --measure own --bots "champion,champion@objective=own"
      champion +0.077 ± 0.062 (150 s CPU); objective=own +0.020 ± 0.098 (156 s); champion - own
      +0.057 ± 0.069

So even by the measure it aims at, ``own`` is no better: it bids more and is euchred more (in a Five-handed
``arena match`` against rules, +0.021 pts/hand over 10 deals, it named trump in 189 hands of its 50 games
and made 61% of them; the default champion 138 and 77%: ``arena leaderboard`` of each match). The ``win``
objective needs whole games (single hands start at 0 points); README's sample-bot table has its
``arena match`` head to head.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bot import Bot
from arena.engine import GameConfig, GameState, build_view
from arena.engine.actions import encode
from bench.strength import VARIANTS, bot_class
from sample_bots.montecarlo import hand_utility
from sample_bots.policy import choose_state


def seat_utility(state: GameState, seat: int, measure: str = "relative") -> float:
    """What the hand gave ``seat``: ``relative``, its points minus the others' mean (classic: its team's
    minus the other team's); ``own``, its points, what the arena's points per hand and ``arena match``
    count."""
    return hand_utility(state, seat, "own" if measure == "own" else "points")


def play_hand(config: GameConfig, deal: int, bot: Bot | None, seat: int) -> GameState:
    """The hand of ``deal`` with ``bot`` at ``seat`` (``None``: rules players everywhere)."""
    state = GameState(config, seed=deal, single_hand=True)
    while not state.is_terminal():
        legal = state.legal_actions()
        who = state.to_act
        if len(legal) == 1:
            action = legal[0]
        elif bot is not None and who == seat:
            action = encode(bot.act(build_view(state, who)))  # type: ignore[arg-type]
        else:
            action = choose_state(state, who)
        state.apply(action)
    return state


def deal_edges(task: tuple[str, str, int, str]) -> tuple[str, int, list[float], float]:
    """The bot's edge at every seat of one deal, and the CPU seconds it took."""
    variant, name, deal, measure = task
    config = GameConfig.from_dict(VARIANTS[variant])
    started = time.process_time()
    base = play_hand(config, deal, None, 0)
    cls = styled(name) if name.startswith("rules:") else tuned(name)
    edges = []
    for seat in range(config.num_players):
        bot = cls(seed=deal) if hasattr(cls, "rng_for") else cls()  # type: ignore[call-arg]
        state = play_hand(config, deal, bot, seat)
        edges.append(seat_utility(state, seat, measure) - seat_utility(base, seat, measure))
    return name, deal, edges, time.process_time() - started


def styled(name: str) -> type[Bot]:
    """``rules:order_up=2.1+name=2.2``: the rules player with other thresholds (``policy.Style``)."""
    from sample_bots.policy import Style
    from sample_bots.rules import RulesBot

    fields = {key: float(value) for key, value in (kv.split("=") for kv in name[6:].split("+"))}
    return type("StyledRules", (RulesBot,), {"style": Style(**fields)})  # type: ignore[arg-type]


def tuned(name: str) -> type[Bot]:
    """``champion-play@play_work=300000+play_samples=144``: a bench/strength.py bot with other settings."""
    base, _, settings = name.partition("@")
    cls = bot_class(base, 32)
    if not settings:
        return cls
    fields = {key: setting(v) for key, v in (kv.split("=") for kv in settings.split("+"))}
    return cls.configured(**fields)  # type: ignore[attr-defined,no-any-return]


def setting(text: str) -> int | float | str:
    """A setting's value as written: ``300000`` an int, ``10.0`` a float, ``own`` a string."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def mean_ci(values: list[float]) -> tuple[float, float]:
    k = len(values)
    mean = sum(values) / k
    if k < 2:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (k - 1)
    t = 1.96 + 2.4 / (k - 1)
    return mean, t * math.sqrt(var / k)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--variant", default="five-handed", help=", ".join(VARIANTS))
    parser.add_argument("--bots", default="champion,champion-play,champion-bid")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=20, help="print the figures so far every N deals")
    parser.add_argument(
        "--measure",
        choices=("relative", "own"),
        default="relative",
        help="the edge in points minus the others' mean (default) or in own points (arena match's)",
    )
    args = parser.parse_args(argv)
    if args.variant not in VARIANTS:
        parser.exit(2, f"unknown variant {args.variant!r}: expected one of {', '.join(VARIANTS)}\n")
    names = args.bots.split(",")
    for name in names:  # bad names fail here, in one line, not in a worker
        try:
            styled(name) if name.startswith("rules:") else tuned(name)
        except (SystemExit, TypeError, ValueError) as exc:
            parser.exit(2, f"bad bot {name!r}: {exc}\n")
    tasks = [(args.variant, name, args.seed + d, args.measure) for d in range(args.deals) for name in names]
    per: dict[str, dict[int, list[float]]] = {name: {} for name in names}
    cpu = dict.fromkeys(names, 0.0)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for name, deal, edges, spent in pool.map(deal_edges, tasks, chunksize=1):
            per[name][deal] = edges
            cpu[name] += spent
            if (
                name == names[-1]
                and (deal - args.seed + 1) % args.every == 0
                and deal - args.seed + 1 < args.deals
            ):
                report(per, cpu, f"{args.variant}: first {deal - args.seed + 1} deals")
    report(per, cpu, f"{args.variant}: {args.deals} deals from seed {args.seed}, every seat, {args.measure}")


def report(per: dict[str, dict[int, list[float]]], cpu: dict[str, float], title: str) -> None:
    """Each bot's mean edge over rules per hand (95% CI over deals), then the first bot's paired
    difference to each of the others on the deals both played."""
    names = list(per)
    print(f"{title}; edge over rules, pts/hand", flush=True)
    for name in names:
        blocks = [sum(e) / len(e) for e in per[name].values()]
        mean, ci = mean_ci(blocks)
        changed = sum(1 for e in per[name].values() for x in e if x != 0)
        hands = sum(len(e) for e in per[name].values())
        print(
            f"  {name:<17} {mean:+.3f} ± {ci:.3f}  (hands {hands}, changed {changed}, cpu {cpu[name]:.0f} s)"
        )
    first = names[0]
    for name in names[1:]:
        both = [d for d in per[first] if d in per[name]]
        diffs = [
            sum(per[first][d]) / len(per[first][d]) - sum(per[name][d]) / len(per[name][d]) for d in both
        ]
        mean, ci = mean_ci(diffs)
        print(f"  {first} - {name}: {mean:+.3f} ± {ci:.3f}", flush=True)


if __name__ == "__main__":
    main()
