"""Collusion bench: does ``arena.stats.collusion`` flag a pair that plays as a secret team, and how rarely an
honest field?

Usage::

    python bench/collusion.py [--events E] [--games G] [--fields F,...] [--workers W] [--save F]
    python bench/collusion.py --load F [--alpha A] [--looks 500,1000] [--only FIELD,...] [--additive]
                              [--no-sides]

Fields (call-ace, five seats, six entrants, so each game one entrant sits out and every pair shares a table in
about 2 of 3 games): ``colluders`` (two colluding rules bots, ``col_a`` and ``col_b``, among four honest rules
bots), ``honest`` (the same six names, all honest rules bots: a field of equals), ``ladder`` (the six noisy
rules bots of bench/ranking.py, ε = 0 ... 1: an honest field of very different strengths, where additive
models are most easily wrong), ``class`` (``CLASS``: ten graded entrants, three of them twice),
``together`` (the tests' ``Together`` pair, random apart and the rules bot together, among four rules bots)
and ``weakpair`` (two honest random bots among four rules bots: honest, but like gains with like). Every
field's events use the same seeds, so ``colluders`` and ``honest`` play the same schedules and deals: the
colluders' gain is measured against exactly the games they would have played honestly.

The colluders share their hands through a channel the bench gives them (``Link``, one shared Python object per
game: each posts the cards it holds whenever it is dealt or acts) and soft-play each other:

* as maker, call the ace the accomplice holds (when the rules bot would call at all);
* never take a trick the accomplice is winning (throw off instead), whatever the sides;
* lead to the accomplice: when the accomplice holds the best card left of a plain suit I hold, lead my
  lowest card of that suit.

Into each honest field's games it also injects a pair of known effect (``INJECTED``: the pair of
``INJECT_INTO`` given +g points per hand each wherever both sit at the table, taken equally from the three
others there). ``--additive`` runs the statistics without the strength interaction (docs/ranking.md,
"Graded fields"). Each game's hands are kept as the store keeps them (maker, partner, sitting out, points)
and handed to the check, whose test on the sides of each hand decides a pair that the strength interaction
rests on (docs/ranking.md, "The sides of each hand"); ``--no-sides`` runs it on the scores alone, as
before (files saved before the hands were kept have none). Per field and look (the event's first ``b``
games) it prints how often the colluding pair is flagged (power), how often any honest pair is flagged
(false alarms: family-wise, the share of events with at least one), and for ``colluders`` each colluder's
points per hand against the same seat's in the honest replay.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import pickle
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from arena.bot import Bot
from arena.engine import ACTIONS, GameConfig, View
from arena.engine import actions as A
from arena.engine.cards import NUM_CARDS, TRICK_KEY
from arena.engine.events import Event, HandStarted
from arena.engine.state import P_BID1, P_BID2, P_CALL, P_PLAY
from arena.event.schedule import make_schedule
from arena.event.table import TableSpec, play_table
from arena.gameinfo import GameInfo
from arena.players.inprocess import InProcessPlayer
from arena.stats.collusion import ALPHA, HandSides, collusion
from arena.stats.rating import RatedGame
from sample_bots.noisy import noisy
from sample_bots.policy import DEFAULT_STYLE, choose, ranks, seen_from_view
from sample_bots.policy.bidding import hand_tricks, order_up_tricks
from sample_bots.policy.knowledge import Seen, is_boss
from sample_bots.policy.play import throw_off
from sample_bots.rules import RulesBot

CONFIG = GameConfig.from_dict({"variant": "call-ace"})
SEATS = 5
PAIR = ("col_a", "col_b")
HONEST = ("hon1", "hon2", "hon3", "hon4")
FIELDS = ("colluders", "honest", "ladder", "class", "together", "weakpair")
WEAK = ("pair1", "pair2")
"""The two entrants of ``together`` (tests/stats/test_collusion.py's ``Together`` bots: random moves apart,
the rules bot's together) and of ``weakpair`` (two honest random bots), beside ``HONEST``'s rules bots."""
LADDER = tuple((f"eps{round(e * 100):03d}", e) for e in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0))
CLASS = tuple(
    (f"s{k:02d}_eps{round(e * 100):03d}", e)
    for k, e in enumerate((0.0, 0.0, 0.1, 0.2, 0.3, 0.3, 0.5, 0.7, 1.0, 1.0))
)
"""A class-like field: ten entrants of graded strengths, three of them twice (copies of one bot, as students
hand in the starter kit): each game five of the ten sit, so a pair shares about one game in five."""
NOISY = dict(LADDER) | dict(CLASS)
INJECT_INTO = {"honest": PAIR, "ladder": ("eps020", "eps060"), "class": ("s02_eps010", "s06_eps050")}
"""Where each honest field's pair of known effect is injected (``INJECTED``): in the graded fields a strong
and a middling entrant, so that the pair's gain must be told from the strengths the model fits."""
SOFT = True
"""Never take a trick the accomplice is winning, on opposite sides too (False: only as its friend)."""
JOINT_SHARE = 1.0
JOINT_THRESHOLD = 3.2
"""Joint bidding: my tricks plus this share of the accomplice's (my partner once I call its ace) must
reach the threshold (the rules bot alone makes trump at 2.35 of its own)."""
ALONE_WITH_MATE = 3.0
"""A lone hand when the accomplice (a soft defender) is at the table, from this many tricks (rules: 3.6).
docs/ranking.md ("Collusion") gives the gain each variant measured."""
INJECTED = (0.05, 0.1, 0.15)
"""Pair effects injected into the honest field's games (points per hand each, taken from the other three
seats at the table): the power against a pair known to gain exactly this much."""
LOOKS = (100, 200, 300, 400, 500, 700, 1000)


class Link:
    """The bench's channel between the two colluders of one game: the cards each holds, by seat."""

    def __init__(self) -> None:
        self.hands: dict[int, frozenset[int]] = {}


class Colluder(Bot):
    """The rules bot, playing as a secret team with ``mate`` through ``link`` (bound per game)."""

    name = "colluder"
    link: ClassVar[Link]
    mate: ClassVar[str]
    soft: ClassVar[bool] = SOFT

    def __init__(self) -> None:
        super().__init__()
        self.mate_seat: int | None = None
        self.seat = -1

    def on_game_start(self, game: GameInfo) -> None:
        self.seat = game.seat
        self.mate_seat = game.seat_names.index(self.mate) if self.mate in game.seat_names else None

    def on_event(self, event: Event) -> None:
        if isinstance(event, HandStarted) and event.hand is not None:
            self.link.hands[self.seat] = frozenset(c.id for c in event.hand)

    def act(self, view: View) -> Any:
        k = seen_from_view(view)
        self.link.hands[k.seat] = frozenset(k.hand or ())
        mate = self.mate_seat
        if mate is not None and len(k.legal) > 1:
            theirs = self.link.hands.get(mate, frozenset())
            if k.phase in (P_BID1, P_BID2):
                bid = self.joint_bid(k, theirs)
                if bid is not None:
                    return ACTIONS[bid]
            elif k.phase == P_CALL:
                calls = [a for a in k.legal if A.CALL_BASE <= a < A.CALL_BASE + NUM_CARDS]
                to_mate = [a for a in calls if a - A.CALL_BASE in theirs]
                strength = hand_tricks(k.hand or [], k.trump, k.config)
                if A.ALONE in k.legal and (strength >= ALONE_WITH_MATE or not to_mate):
                    # the accomplice defends softly: a lone hand is safer, and its march pays N
                    return ACTIONS[A.ALONE if strength >= ALONE_WITH_MATE else choose(k, DEFAULT_STYLE)]
                if to_mate:
                    return ACTIONS[to_mate[0]]
            elif k.phase == P_PLAY:
                play = self.team_play(k, mate, theirs)
                if play is not None:
                    return ACTIONS[play]
        return ACTIONS[choose(k, DEFAULT_STYLE)]

    def joint_bid(self, k: Seen, theirs: frozenset[int]) -> int | None:
        """Make trump when this hand and the accomplice's, called as my partner, take three tricks."""
        hand = k.hand or []
        options: list[tuple[float, int]] = []
        for action in k.legal:
            if action in (A.ORDER_UP, A.TAKE_UP):
                trump = k.proposed
                mine = order_up_tricks(k)
            elif A.NAME_BASE <= action < A.NAME_BASE + 4:
                trump = action - A.NAME_BASE
                mine = hand_tricks(hand, trump, k.config)
            else:
                continue
            r = ranks(k.config, trump)
            callable_ace = any(r.pos[c] == 0 and r.eff[c] != trump for c in theirs)
            if callable_ace:
                options.append((mine + JOINT_SHARE * hand_tricks(list(theirs), trump, k.config), action))
        if not options:
            return None
        value, action = max(options)
        return action if value >= JOINT_THRESHOLD else None

    def team_play(self, k: Seen, mate: int, theirs: frozenset[int]) -> int | None:
        """Play with the accomplice as a known friend when we are on the same side (``soft``: always)."""
        making = {k.maker, k.partner} if k.partner >= 0 else {k.maker}
        if k.called >= 0 and k.called in theirs:
            making.add(mate)
        if k.called >= 0 and k.called in (k.hand or []):
            making.add(k.seat)
        same_side = (mate in making) == (k.seat in making)
        if not (same_side or self.soft):
            return None
        r = ranks(k.config, k.trump)
        if k.trick:
            led = r.eff[k.trick[0][1]]
            key = TRICK_KEY[k.trump][led]
            winner = max(k.trick, key=lambda play: key[play[1]])[0]
            if winner == mate:
                return throw_off(k, r, all(r.eff[c] == led for c in k.legal))
            return None
        hand = list(theirs)
        for card in sorted(theirs):
            suit = r.eff[card]
            if suit != k.trump and is_boss(card, r, k.dead, hand):
                mine = [c for c in k.legal if r.eff[c] == suit]
                if mine:
                    return max(mine, key=lambda c: r.pos[c])
        return None


def colluding_pair() -> dict[str, type[Bot]]:
    """Fresh colluder classes for one game, sharing one new ``Link``."""
    link = Link()
    a, b = PAIR
    return {
        a: type("ColluderA", (Colluder,), {"link": link, "mate": b}),
        b: type("ColluderB", (Colluder,), {"link": link, "mate": a}),
    }


def entrants(field: str) -> tuple[str, ...]:
    field = field.split(" + ")[0]
    if field == "ladder":
        return tuple(n for n, _ in LADDER)
    if field == "class":
        return tuple(n for n, _ in CLASS)
    if field in ("together", "weakpair"):
        return (*WEAK, *HONEST)
    return (*PAIR, *HONEST)


def watched(field: str) -> tuple[str, ...]:
    """The pair whose flag is power, not a false alarm: the colluders, the ``Together`` pair, or the pair
    injected into the field (none in ``weakpair``: its two random bots are honest)."""
    base, _, injected = field.partition(" + ")
    if injected:
        return INJECT_INTO[base]
    return {"together": WEAK, "weakpair": ()}.get(base, PAIR)


Sides = tuple[HandSides, ...]
"""One game's hands as (maker, partner, sitting out, each seat's points): who was on which side of each hand
(-1: none), what the arena's store keeps in every hand record (``hands``: ``maker``, ``partner``,
``sitting_out``, ``points``)."""


def sides_of(hands: Sequence[dict[str, Any]]) -> Sides:
    """The sides and points of each hand record of a game (``Sides``)."""

    def seat(value: Any) -> int:
        return -1 if value is None else int(value)

    return tuple(
        (seat(h["maker"]), seat(h["partner"]), seat(h["sitting_out"]), tuple(h["points"])) for h in hands
    )


async def _play(field: str, seed: int, games: int) -> tuple[list[RatedGame], list[Sides]]:
    names = entrants(field)
    one = make_schedule(list(names), SEATS, 1, seed)
    schedule = make_schedule(list(names), SEATS, math.ceil(games / len(one)), seed)[:games]
    graded = {n: noisy(e) for n, e in NOISY.items()}
    out = []
    sides = []
    for g in schedule:
        if field in ("ladder", "class"):
            classes: dict[str, type[Bot]] = graded
        elif field == "colluders":
            classes = {n: RulesBot for n in HONEST} | colluding_pair()
        elif field == "together":
            from tests.stats.test_collusion import Together1, Together2  # the tests' pair, exactly

            classes = {n: RulesBot for n in HONEST} | {"pair1": Together1, "pair2": Together2}
        elif field == "weakpair":
            classes = {n: RulesBot for n in HONEST} | {n: noisy(1.0) for n in WEAK}
        else:
            classes = {n: RulesBot for n in names}
        players = [InProcessPlayer(classes[n], n) for n in g.seats]
        r = await play_table(TableSpec(g.game_id, CONFIG, g.seed, g.seats), players)
        out.append(
            RatedGame(g.seq, g.game_id, g.seats, r.ranks, r.scores, (), True, (), g.block, len(r.hands))
        )
        sides.append(sides_of(r.hands))
    return out, sides


@dataclass
class Played:
    field: str
    seed: int
    games: list[RatedGame]
    cpu_s: float
    sides: list[Sides] | None = None  # each game's hands (``Sides``); None in older files


def play_event(task: tuple[str, int, int]) -> Played:
    field, seed, games = task
    started = time.process_time()
    played, sides = asyncio.run(_play(field, seed, games))
    return Played(field, seed, played, time.process_time() - started, sides)


def points_per_hand(games: Sequence[RatedGame], name: str) -> float:
    points = sum(s for g in games for n, s in zip(g.seats, g.scores, strict=True) if n == name)
    hands = sum(g.hands for g in games if name in g.seats)
    return points / hands if hands else float("nan")


def inject(games: Sequence[RatedGame], gain: float, pair: tuple[str, str] = PAIR) -> list[RatedGame]:
    """The games with ``pair`` gaining ``gain`` points per hand each wherever both sit at the table, taken
    equally from the others seated there: a colluding pair of exactly known effect on real games."""
    out = []
    for g in games:
        if all(n in g.seats for n in pair):
            others = len(g.seats) - 2
            scores = tuple(
                s + gain * g.hands if n in pair else s - 2 * gain * g.hands / others
                for n, s in zip(g.seats, g.scores, strict=True)
            )
            g = replace(g, scores=scores)  # type: ignore[arg-type]
        out.append(g)
    return out


def inject_sides(
    games: Sequence[RatedGame], sides: Sequence[Sides], gain: float, pair: tuple[str, str] = PAIR
) -> list[Sides]:
    """``inject`` hand by hand: ``pair`` gains ``gain`` points in each hand where both sit at the table, taken
    equally from the others seated there (the same totals as ``inject``'s games)."""
    out: list[Sides] = []
    for g, hands in zip(games, sides, strict=False):
        if all(n in g.seats for n in pair):
            share = -2 * gain / (len(g.seats) - 2)
            moved = tuple(gain if n in pair else share for n in g.seats)
            hands = tuple(
                (m, p, o, tuple(v + d for v, d in zip(pts, moved, strict=True))) for m, p, o, pts in hands
            )
        out.append(hands)
    return out


def hands_by_game(event: Played, look: int) -> dict[str, Sides] | None:
    """The event's first ``look`` games' hands by game id, for ``collusion(..., hands=)`` (None: not kept)."""
    if not event.sides:
        return None
    return {g.game_id: h for g, h in zip(event.games[:look], event.sides[:look], strict=False)}


def analyse(
    played: list[Played],
    alpha: float,
    interaction: bool = True,
    looks: Sequence[int] = LOOKS,
    anytime: bool = True,
    sides: bool = True,
) -> None:
    by_field: dict[str, list[Played]] = {}
    for p in played:
        by_field.setdefault(p.field, []).append(p)
    for base in [f for f in INJECT_INTO if f in by_field]:
        for gain in INJECTED:
            field = f"{base} + {gain} injected"
            by_field[field] = [
                Played(
                    field,
                    e.seed,
                    inject(e.games, gain, watched(field)),
                    e.cpu_s,
                    None if e.sides is None else inject_sides(e.games, e.sides, gain, watched(field)),  # type: ignore[arg-type]
                )
                for e in by_field[base]
            ]
    for field, events in by_field.items():
        names = entrants(field)
        pair = set(watched(field))
        cpu = sum(e.cpu_s for e in events)
        per_game = cpu / max(1, sum(len(e.games) for e in events)) * 1e3
        print(f"\n{field}: {len(events)} events, {per_game:.1f} ms CPU per game")
        print("  games  pair flagged  any honest pair flagged  mean joint z of the pair (sd)  ms per look")
        ever = [False] * len(events)
        found = [False] * len(events)  # the watched pair flagged at some look (a flag valid at every look)
        for look in looks:
            if any(len(e.games) < look for e in events):
                continue
            hit = false = 0
            zs = []
            started = time.process_time()
            for k, e in enumerate(events):
                hands = hands_by_game(e, look) if sides else None
                result = collusion(
                    e.games[:look], names, alpha, interaction=interaction, anytime=anytime, hands=hands
                )
                honest_flag = any(p.flagged and {p.a, p.b} != pair for p in result.pairs)
                false += honest_flag
                ever[k] |= honest_flag
                for p in result.pairs:
                    if {p.a, p.b} == pair:
                        hit += p.flagged
                        found[k] |= p.flagged
                        if p.z is not None:
                            zs.append(p.z[2])
            ms = (time.process_time() - started) / len(events) * 1e3
            mean = sum(zs) / len(zs) if zs else float("nan")
            sd = math.sqrt(sum((z - mean) ** 2 for z in zs) / max(1, len(zs) - 1)) if zs else float("nan")
            power = (
                f"{hit / len(events):.2f}" if pair and field not in ("honest", "ladder", "class") else "  – "
            )
            print(f"  {look:5d}  {power:>12}  {false / len(events):23.2f}  "
                  f"{mean:16.2f} ({sd:.2f})  {ms:18.0f}")  # fmt: skip
        print(f"  any honest pair flagged at any of those looks: {sum(ever) / len(events):.2f}")
        if pair and field not in ("honest", "ladder", "class"):
            print(f"  the pair flagged at some look up to the last: {sum(found) / len(events):.2f}")
    if "colluders" in by_field and "honest" in by_field:  # the colluders' gain over the same deals
        honest = {e.seed: e for e in by_field["honest"]}
        gains = []
        for e in by_field["colluders"]:
            if e.seed in honest:
                gains.append(
                    [points_per_hand(e.games, n) - points_per_hand(honest[e.seed].games, n) for n in PAIR]
                )
        if gains:
            for k, name in enumerate(PAIR):
                values = [g[k] for g in gains]
                mean = sum(values) / len(values)
                se = math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, len(values) - 1) / len(values))
                print(f"{name}: {mean:+.3f} ± {se:.3f} points per hand against its honest replay "
                      f"({len(values)} events)")  # fmt: skip
            others = [
                points_per_hand(e.games, n) - points_per_hand(honest[e.seed].games, n)
                for e in by_field["colluders"]
                if e.seed in honest
                for n in HONEST
            ]
            print(f"each honest entrant: {sum(others) / max(1, len(others)):+.3f} points per hand")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--fields", default=",".join(FIELDS))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--alpha", type=float, default=ALPHA)
    parser.add_argument("--save", type=Path)
    parser.add_argument(
        "--additive", action="store_true", help="the additive model alone (no strength interaction)"
    )
    parser.add_argument(
        "--one-look", action="store_true", help="p-values of one look (not arena.stats.collusion.anytime_p)"
    )
    parser.add_argument(
        "--no-sides",
        action="store_true",
        help="the games' scores alone, as before the test on the hands' sides (arena.stats.collusion_sides)",
    )
    parser.add_argument("--only", help="analyse only these fields (comma-separated)")
    parser.add_argument(
        "--looks", default=",".join(map(str, LOOKS)), help="the looks (games), comma-separated"
    )
    parser.add_argument("--load", type=Path, action="append")
    args = parser.parse_args()
    if args.load:
        played = [p for path in args.load for p in pickle.loads(path.read_bytes())]
    else:
        fields = [f for f in args.fields.split(",") if f]
        unknown = set(fields) - set(FIELDS)
        if unknown:
            parser.error(f"unknown fields {sorted(unknown)}; known: {', '.join(FIELDS)}")
        tasks = [(f, args.first_seed + s, args.games) for s in range(args.events) for f in fields]
        played = []
        with ProcessPoolExecutor(max(1, min(args.workers, os.cpu_count() or 1))) as pool:
            for event in pool.map(play_event, tasks):
                played.append(event)
                if args.save:  # after every event, so an interrupted run keeps what it played
                    args.save.write_bytes(pickle.dumps(played))
    if args.only:
        played = [p for p in played if p.field in args.only.split(",")]
    looks = [int(v) for v in args.looks.split(",")]
    analyse(played, args.alpha, not args.additive, looks, not args.one_look, not args.no_sides)


if __name__ == "__main__":
    main()
