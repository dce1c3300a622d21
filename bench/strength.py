"""Strength benchmark of the Python sample bots: each pair plays many in-process games, with 95% CIs.

Usage::

    python bench/strength.py [--games N] [--variant five-handed,call-ace|...|all] [--mc-samples S]
                             [--pairs montecarlo:rules,rules:random,champion:montecarlo] [--copies K]
                             [--workers W] [--seed B]
    python bench/strength.py --sprt ladder --variant five-handed,call-ace,classic [--h1 0.15]
                             [--max-deals 60] [--sprt-output results/strength]

The bots: ``random``, ``rules``, ``montecarlo`` (with ``--mc-samples``) and ``champion`` (its defaults).

``--sprt`` plays no in-process games: it runs ``arena match CANDIDATE BASELINE`` (the duplicate A/B test of
docs/ranking.md, a field of rules players, SPRT with h0 = 0, h1 = ``--h1``, alpha = beta = 0.05) for each
pair, one game at a time, and prints each command, its wall time and the test's verdict line. ``ladder``
is every adjacent pair of random < rules < montecarlo < champion, plus champion:rules (the goal of issue
27); the figures measured with it are in README's sample-bot table.

For every pair "A:B" and every variant, ``--games`` whole games are played through
``arena.event.table.play_table`` with in-process players (no gRPC; the default fault policy, so the
Monte-Carlo bot also has its usual time budget, but with ``--mc-samples`` samples per card play and four times
that per bidding decision it stays far below it). In each game ``--copies`` seats (default 2; classic: one
team of two) are bot A and the rest bot B. The A seats rotate through every seat: game g uses deal seed ``B +
g // N`` and rotation ``g % N`` (N = players; classic: 2), so each run of deals is played with A in every
position, and the A seats
alternate between neighbours and seats two apart. The report per pair:

* ``A-B pts/hand``: A's mean score minus B's (each averaged over its seats), summed over games and divided
  by the hands played, with a 95% confidence interval;
* ``A wins``: A's share of the game wins (a shared win counts fractionally), with a 95% CI, next to
  ``fair``, the share it would get if it were exactly as strong as B (copies / players);
* games, hands, and the CPU seconds the games took.

Statistics: the unit is the block of games sharing a deal seed (the seat rotations), since blocks are
independent and the games within one are not; both figures are ratio estimators over blocks with their
delta-method variance and a Student-t quantile.

Games run in parallel on ``--workers`` processes (default: every core). The default run (five-handed and
call-ace 5p, montecarlo:rules and rules:random, 150 games each, 32 Monte-Carlo samples) took 11.4 minutes
on two cores shared with another benchmark (683 s wall, 1361 s of game time); the Monte-Carlo pair takes
nearly all of it. The two adjacent pairs establish the order montecarlo > rules > random, so
montecarlo:random is left out of the default (``--pairs`` adds it: about half again the time) and its time
goes to more games and samples for montecarlo:rules, the pair with the narrowest margin (16 samples and
100 games left its intervals reaching zero or the fair share).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from arena.bot import Bot
from arena.engine import GameConfig
from arena.event.table import TableSpec, play_table
from arena.players.inprocess import InProcessPlayer
from arena.stats.sprt import SprtSettings

VARIANTS: dict[str, dict[str, object]] = {
    "five-handed": {"variant": "five-handed"},
    "call-ace": {"variant": "call-ace"},
    "call-ace-4": {"variant": "call-ace", "num_players": 4},
    "call-ace-6": {"variant": "call-ace", "num_players": 6},
    "call-ace-7": {"variant": "call-ace", "num_players": 7},
    "call-ace-joker": {"variant": "call-ace", "use_joker": True},
    "call-ace-nt": {"variant": "call-ace", "allow_no_trump": True},
    "classic": {"variant": "classic"},
}
DEFAULT_VARIANTS = ("five-handed", "call-ace")
DEFAULT_PAIRS = ("montecarlo:rules", "rules:random")
LADDER = ("random", "rules", "montecarlo", "champion")
"""The sample bots from weakest to strongest; ``--sprt`` tests each adjacent pair (and champion:rules)."""
SPECS = {
    "random": "sample_bots.random:RandomBot",
    "rules": "sample_bots.rules:RulesBot",
    "montecarlo": "sample_bots.montecarlo:MonteCarloBot",
    "champion": "sample_bots.champion:ChampionBot",
}
MIXES = ("champion", "champion-play", "champion-bid", "champion-solvebid")
"""The champion, and halves of it for finding where its edge comes from (``bench/hands.py``):
``champion-play`` plays its cards but bids, discards and calls like the rules player; ``champion-bid``
bids, discards and calls like the champion (rollouts) and plays its cards like the rules player;
``champion-solvebid`` likewise but with its bids solved exactly (``ChampionBot.bid_solver``)."""
MATCH_VARIANTS = {"five-handed": "five-handed", "call-ace": "call-ace", "classic": "classic"}


def bot_class(name: str, mc_samples: int) -> type[Bot]:
    if name == "random":
        from sample_bots.random import RandomBot

        return RandomBot
    if name == "rules":
        from sample_bots.rules import RulesBot

        return RulesBot
    if name == "montecarlo":
        from sample_bots.montecarlo import MonteCarloBot

        return MonteCarloBot.configured(samples=mc_samples)
    if name in MIXES:
        from arena.engine import Phase
        from sample_bots.champion import ChampionBot

        if name == "champion":
            return ChampionBot
        play = frozenset({Phase.PLAY})
        if name == "champion-solvebid":
            return ChampionBot.configured(phases=frozenset(Phase) - play, bid_solver=True)
        return ChampionBot.configured(phases=play if name == "champion-play" else frozenset(Phase) - play)
    raise ValueError(f"unknown bot {name!r}: expected random, rules, montecarlo or champion")


def a_seats(config: GameConfig, game: int, copies: int) -> tuple[int, ...]:
    """Which seats bot A takes in game number ``game``: every rotation, two seating patterns."""
    n = config.num_players
    if config.team_play:
        r = game % 2
        return (r, r + 2)
    rotation, pattern = game % n, (game // n) % 2
    step = 2 if pattern and 2 * copies <= n + 1 else 1
    return tuple(sorted({(rotation + step * i) % n for i in range(copies)}))


@dataclass(frozen=True)
class GameTask:
    variant: str
    pair: str
    game: int
    seed: int
    copies: int
    mc_samples: int


@dataclass(frozen=True)
class GameOutcome:
    task: GameTask
    seed: int
    seats_a: tuple[int, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    hands: int
    faults: int
    wall_s: float


def play_one(task: GameTask) -> GameOutcome:
    config = GameConfig.from_dict(VARIANTS[task.variant])
    name_a, name_b = task.pair.split(":")
    cls_a, cls_b = bot_class(name_a, task.mc_samples), bot_class(name_b, task.mc_samples)
    seats = a_seats(config, task.game, task.copies)
    n = config.num_players
    players = [
        InProcessPlayer(cls_a, f"A-{name_a}-{s}") if s in seats else InProcessPlayer(cls_b, f"B-{name_b}-{s}")
        for s in range(n)
    ]
    seed = task.seed + task.game // (2 if config.team_play else n)
    spec = TableSpec(
        f"strength-{task.variant}-{task.pair}-{task.game}", config, seed, tuple(p.name for p in players)
    )
    result = asyncio.run(play_table(spec, players))
    return GameOutcome(
        task, seed, seats, result.scores, result.winners, len(result.hands), len(result.faults), result.wall_s
    )


@dataclass(frozen=True)
class Summary:
    games: int
    hands: int
    diff: float
    diff_ci: float
    wins: float
    wins_ci: float
    fair: float
    faults: int


def summarise(outcomes: list[GameOutcome], n: int) -> Summary:
    """A-B points per hand and A's share of the wins, with 95% confidence intervals.

    The unit of the statistics is the block of games that share a deal seed (the rotations of the seats):
    blocks are independent, while the games of a block are not (the same cards go round), and most of the
    luck of the cards cancels within a block. Points per hand is a ratio estimator (sum of differences over
    sum of hands) with its delta-method variance; the quantile is Student's t for the number of blocks.
    """
    blocks: dict[int, list[float]] = {}  # seed -> [sum of A-B score differences, hands, A's wins, games]
    for o in outcomes:
        b = [s for s in range(n) if s not in o.seats_a]
        mean_a = sum(o.scores[s] for s in o.seats_a) / len(o.seats_a)
        mean_b = sum(o.scores[s] for s in b) / len(b)
        share = sum(1 for w in o.winners if w in o.seats_a) / max(1, len(o.winners))
        block = blocks.setdefault(o.seed, [0.0, 0.0, 0.0, 0.0])
        block[0] += mean_a - mean_b
        block[1] += o.hands
        block[2] += share
        block[3] += 1
    rows = list(blocks.values())
    diff, diff_ci = ratio_ci([r[0] for r in rows], [r[1] for r in rows])
    wins, wins_ci = ratio_ci([r[2] for r in rows], [r[3] for r in rows])
    fair = len(outcomes[0].seats_a) / n
    faults = sum(o.faults for o in outcomes)
    return Summary(len(outcomes), sum(o.hands for o in outcomes), diff, diff_ci, wins, wins_ci, fair, faults)


def ratio_ci(num: list[float], den: list[float]) -> tuple[float, float]:
    """sum(num)/sum(den) over independent blocks, and the half-width of its 95% confidence interval."""
    k = len(num)
    ratio = sum(num) / sum(den)
    if k < 2:
        return ratio, float("inf")
    resid = [x - ratio * y for x, y in zip(num, den, strict=True)]
    var = sum(r * r for r in resid) / (k - 1)
    t = 1.96 + 2.4 / (k - 1)  # Student's t 97.5% quantile, within 1% for k-1 >= 3
    return ratio, t * math.sqrt(var / k) / (sum(den) / k)


def sprt_pairs(text: str) -> list[tuple[str, str]]:
    """``ladder`` (every adjacent pair of ``LADDER`` and champion:rules, strongest first) or A:B,..."""
    if text == "ladder":
        adjacent = [(LADDER[i + 1], LADDER[i]) for i in reversed(range(len(LADDER) - 1))]
        return [adjacent[0], ("champion", "rules"), *adjacent[1:]]
    pairs = [tuple(p.split(":")) for p in text.split(",")]
    for pair in pairs:
        if len(pair) != 2 or any(name not in SPECS for name in pair):
            raise ValueError(f"--sprt: bad pair {':'.join(pair)!r}: expected A:B of {', '.join(SPECS)}")
    return [(a, b) for a, b in pairs]


def run_sprt_matches(pairs: list[tuple[str, str]], variants: list[str], args: argparse.Namespace) -> None:
    """One ``arena match`` per pair and variant, one game at a time (one process: the machine is shared),
    each printed with its exact command, its wall time and the SPRT's verdict."""
    arena = Path(sys.executable).with_name("arena")
    for variant in variants:
        for cand, base in pairs:
            out = Path(args.sprt_output) / f"{variant}-{cand}-{base}"
            command = [
                str(arena), "match", SPECS[cand], SPECS[base], "--variant", MATCH_VARIANTS[variant],
                "--h0", "0", "--h1", str(args.h1), "--alpha", "0.05", "--beta", "0.05",
                "--max-deals", str(args.max_deals), "--concurrency", "1", "--output", str(out), "-q",
            ]  # fmt: skip
            print("$ " + " ".join(command), flush=True)
            started = time.monotonic()
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            verdict = {0: "H1", 1: "H0", 3: "undecided"}.get(done.returncode, f"exit {done.returncode}")
            print(f"{variant:<12} {cand} vs {base}: {verdict} in {time.monotonic() - started:.0f} s wall")
            print("  " + (sprt_paragraph(done.stdout) or done.stderr.strip()), flush=True)


def sprt_paragraph(stdout: str) -> str:
    """The match's verdict, which ``arena match`` wraps at 80 columns: the last line starting ``SPRT`` and
    the indented lines after it, joined (the edge, its interval and the decision are on the later ones)."""
    lines = stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("SPRT")]
    if not starts:
        return ""
    out = [lines[starts[-1]].strip()]
    for line in lines[starts[-1] + 1 :]:
        if not line.startswith(" "):
            break
        out.append(line.strip())
    return " ".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=150, help="games per pair and variant (default 150)")
    parser.add_argument(
        "--variant", default=",".join(DEFAULT_VARIANTS), help=f"comma list of {', '.join(VARIANTS)}, or all"
    )
    parser.add_argument(
        "--mc-samples", type=int, default=32, help="Monte-Carlo samples per card play (default 32)"
    )
    parser.add_argument("--pairs", default=",".join(DEFAULT_PAIRS), help="comma list of A:B bot pairs")
    parser.add_argument("--copies", type=int, default=2, help="seats of bot A (not classic; default 2)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: cores)")
    parser.add_argument("--seed", type=int, default=1, help="first deal seed (default 1)")
    parser.add_argument(
        "--sprt",
        default=None,
        help="instead of in-process games: arena match (SPRT, alpha = beta = 0.05) for each pair, 'ladder' "
        "for every adjacent pair of random < rules < montecarlo < champion and champion:rules",
    )
    parser.add_argument("--h1", type=float, default=0.15, help="with --sprt: H1's edge in pts/hand (0.15)")
    parser.add_argument("--max-deals", type=int, default=60, help="with --sprt: each match's budget (60)")
    parser.add_argument("--sprt-output", default="results/strength", help="with --sprt: where matches go")
    args = parser.parse_args(argv)
    variants = list(VARIANTS) if args.variant == "all" else args.variant.split(",")
    pairs = args.pairs.split(",")
    try:  # bad input is one line and exit 2, here, not a traceback in a worker
        if args.sprt is not None:
            sprt = sprt_pairs(args.sprt)
            for v in variants:
                if v not in MATCH_VARIANTS:
                    plays = ", ".join(MATCH_VARIANTS)
                    raise ValueError(f"--sprt plays {plays} (arena match's default options)")
            if args.max_deals < SprtSettings().min_deals:  # arena match refuses it too, but after the banner
                first = SprtSettings().min_deals
                raise ValueError(f"--max-deals {args.max_deals}: arena match looks first at deal {first}")
        for v in variants:
            if v not in VARIANTS:
                raise ValueError(f"unknown variant {v!r}: expected one of {', '.join(VARIANTS)} or all")
        for pair in [] if args.sprt is not None else pairs:
            names = pair.split(":")
            if len(names) != 2:
                raise ValueError(f"--pairs: bad pair {pair!r}: expected A:B")
            for name in names:
                bot_class(name, args.mc_samples)
    except ValueError as exc:
        parser.exit(2, f"strength.py: {exc}\n")
    if args.sprt is not None:
        run_sprt_matches(sprt, variants, args)
        return
    tasks = [
        GameTask(v, p, g, args.seed, args.copies, args.mc_samples)
        for v in variants
        for p in pairs
        for g in range(args.games)
    ]
    print(
        f"strength: {args.games} games per pair, variants {', '.join(variants)}, "
        f"montecarlo samples {args.mc_samples}, {args.workers} workers",
        flush=True,
    )
    started = time.monotonic()
    by_key: dict[tuple[str, str], list[GameOutcome]] = {}
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for outcome in pool.map(play_one, tasks, chunksize=1):
            by_key.setdefault((outcome.task.variant, outcome.task.pair), []).append(outcome)
    header = (
        f"{'variant':<15} {'A vs B':<22} {'seats':>5} {'games':>5} {'hands':>6} "
        f"{'A-B pts/hand [95% CI]':>26} {'A wins [95% CI]':>21} {'fair':>5} {'cpu s':>7}"
    )
    print(header)
    print("-" * len(header))
    for (variant, pair), outcomes in by_key.items():
        n = GameConfig.from_dict(VARIANTS[variant]).num_players
        s = summarise(outcomes, n)
        cpu = sum(o.wall_s for o in outcomes)
        name_a, name_b = pair.split(":")
        seats = f"{len(outcomes[0].seats_a)}/{n}"
        diff = f"{s.diff:+.3f} [{s.diff - s.diff_ci:+.3f}, {s.diff + s.diff_ci:+.3f}]"
        wins = f"{s.wins:.1%} [{max(0, s.wins - s.wins_ci):.0%}, {min(1, s.wins + s.wins_ci):.0%}]"
        line = (
            f"{variant:<15} {name_a + ' vs ' + name_b:<22} {seats:>5} {s.games:>5} {s.hands:>6} "
            f"{diff:>26} {wins:>21} {s.fair:>5.0%} {cpu:>7.1f}"
        )
        print(line + (f"  FAULTS: {s.faults}" if s.faults else ""), flush=True)
    print(f"total wall time {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
