"""The collusion check (arena.stats.collusion): hand-computed cases, the model against an independent dense
fit, honest in-process fields flagged rarely and an injected colluding pair flagged, and what the
leaderboard, its JSON and the report show (a line only when a pair is flagged)."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from random import Random
from typing import ClassVar

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.bot import Bot
from arena.cli import app
from arena.conductor.tournament import run_event
from arena.engine import ACTIONS, Action, GameConfig, View
from arena.event.config import parse_config
from arena.event.schedule import make_schedule
from arena.event.table import TableSpec, play_table
from arena.gameinfo import GameInfo
from arena.players.inprocess import InProcessPlayer
from arena.report import build_report
from arena.stats.collusion import anytime_p, collusion, flag_lines, holm, pair_p, upper_tail
from arena.stats.rating import RatedGame
from sample_bots.noisy import noisy
from sample_bots.policy import DEFAULT_STYLE, choose_view
from sample_bots.rules import RulesBot
from tests.helpers import call_ace_event

SIX = ("a", "b", "c", "d", "e", "f")


def seated(seq: int, seats: Sequence[str], scores: Sequence[float], hands: int = 10) -> RatedGame:
    ranks = tuple(1 + sum(t > s for t in scores) for s in scores)
    return RatedGame(seq, f"g{seq}", tuple(seats), ranks, tuple(scores), hands=hands)  # type: ignore[arg-type]


def round_robin(names: Sequence[str], seats: int, rounds: int, seed: int = 1) -> list[tuple[str, ...]]:
    return [g.seats for g in make_schedule(list(names), seats, rounds, seed)]


# ------------------------------------------------------------------------------------- hand-computed


def test_holm_by_hand() -> None:
    """Sorted 0.005, 0.01, 0.03, 0.04 are multiplied by 4, 3, 2, 1 and kept non-decreasing: 0.02, 0.03,
    0.06, then 0.04 raised to 0.06."""
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0]  # capped at 1
    assert upper_tail(1.959964) == pytest.approx(0.025, abs=1e-6)


def test_a_gain_only_with_b_is_recovered_exactly() -> None:
    """Every seat scores 1 point per hand, except ``a``, who scores 1.5 whenever ``b`` shares its table (six
    entrants, five seats: together in 80 of 120 games, each apart in 20). The additive model plus the pair's
    columns is then exact: a gains +0.5 with b, b gains 0 with a. Before a-b is in the model its effect
    shows in every pair around it; once flagged and fitted, every other pair gains exactly 0 and, its points
    fitting the model exactly, cannot be tested (no z, no p, no flag)."""
    games = []
    for seq, seats in enumerate(round_robin(SIX, 5, 120)):
        scores = [15.0 if s == "a" and "b" in seats else 10.0 for s in seats]
        games.append(seated(seq, seats, scores))
    result = collusion(games, SIX, interaction=False, anytime=False)
    ab = next(p for p in result.pairs if (p.a, p.b) == ("a", "b"))
    assert ab.a_gain == pytest.approx(0.5, abs=1e-9) and ab.b_gain == pytest.approx(0.0, abs=1e-9)
    assert ab.together == 80 and ab.a_apart == ab.b_apart == 20
    assert ab.flagged and ab.p is not None and ab.p < 1e-4 and result.flagged == (ab,)
    assert result.tests == 15  # 15 pairs, each one hypothesis
    others = [p for p in result.pairs if p is not ab]
    assert all(
        p.a_gain == pytest.approx(0, abs=1e-9) and p.b_gain == pytest.approx(0, abs=1e-9) for p in others
    )
    assert all(p.p is None and not p.flagged and "did not vary" in p.why for p in others)


def test_the_strength_interaction_keeps_a_graded_honest_field_unflagged() -> None:
    """Issue 42: an honest field of graded strengths where a strong bot gains less from a weak table than a
    weak one does (points of i = t_i - t/4 + λ t_i t, t the table's summed strengths: like with like gains,
    as the bench's ladder showed) has no colluding pair. The additive model reads the like-with-like gain as
    pairs gaining together and flags three; the default model (the strength interaction fitted) none."""
    strength = dict(zip(SIX, (0.3, 0.2, 0.1, -0.1, -0.2, -0.3), strict=True))
    rng = Random(1)
    games = []
    for seq, seats in enumerate(round_robin(SIX, 5, 1000, 1)):
        scores = []
        for name in seats:
            table = sum(strength[m] for m in seats if m != name)
            scores.append(10 * (1 + strength[name] - table / 4 + strength[name] * table) + rng.gauss(0, 3))
        games.append(seated(seq, seats, scores))
    assert len(collusion(games, SIX, interaction=False).flagged) == 3  # the additive model: e-f, d-e, d-f
    assert collusion(games, SIX).flagged == ()


def test_five_entrants_always_share_the_table_and_nothing_is_tested() -> None:
    games = [seated(i, SIX[:5], [10, 5, 0, 12, 3]) for i in range(200)]
    result = collusion(games, SIX[:5])
    assert len(result.pairs) == 10 and result.tests == 0 and not result.flagged
    assert all(p.why == "always at the same table" for p in result.pairs)
    assert collusion([], SIX).pairs[0].why == "no games"


def dense_fit(games: list[RatedGame], names: Sequence[str], pair: tuple[str, str]) -> tuple[np.ndarray, ...]:
    """An independent computation with the whole design matrix: the least-squares coefficients of the pair's
    two columns (a's rows with b, b's rows with a) in the full model, and their clustered score-test
    standard errors, J⁻¹VJ⁻¹ from the additive model's residuals."""
    n = len(names)
    index = {name: k for k, name in enumerate(names)}
    xs, zs, ys, ws, cl = [], [], [], [], []
    for c, g in enumerate(games):
        for name, score in zip(g.seats, g.scores, strict=True):
            x = np.zeros(2 * n)
            x[index[name]] = 1
            for mate in g.seats:
                if mate != name:
                    x[n + index[mate]] = 1
            xs.append(x)
            both = pair[0] in g.seats and pair[1] in g.seats
            zs.append([float(both and name == pair[0]), float(both and name == pair[1])])
            ys.append(score / g.hands)
            ws.append(g.hands)
            cl.append(c)
    x, z, y, w = np.array(xs), np.array(zs), np.array(ys), np.array(ws, dtype=float)
    root = np.sqrt(w)[:, None]
    full = np.linalg.lstsq(np.column_stack([x, z]) * root, y * root[:, 0], rcond=None)[0]
    e = y - x @ np.linalg.lstsq(x * root, y * root[:, 0], rcond=None)[0]
    z_res = z - x @ np.linalg.lstsq(x * root, z * root, rcond=None)[0]
    info = (z_res * w[:, None]).T @ z
    u = np.array([np.bincount(np.array(cl), weights=w * z_res[:, k] * e) for k in range(2)])
    v = len(games) / (len(games) - 1) * u @ u.T
    inverse = np.linalg.inv(info)
    return full[-2:], np.sqrt(np.diag(inverse @ v @ inverse))


def test_the_gains_and_their_standard_errors_match_an_independent_dense_fit() -> None:
    rng = Random(5)
    games = []
    for seq, seats in enumerate(round_robin(SIX, 5, 150)):
        hands = rng.randint(8, 16)
        scores = [rng.randint(0, 12) + (3 if s == "c" and "e" in seats else 0) for s in seats]
        games.append(seated(seq, seats, scores, hands))
    result = collusion(games, SIX, interaction=False)
    ce = next(p for p in result.pairs if (p.a, p.b) == ("c", "e"))
    gain, se = dense_fit(games, SIX, ("c", "e"))
    assert (ce.a_gain, ce.b_gain) == pytest.approx(tuple(gain), abs=1e-9)
    assert (ce.a_se, ce.b_se) == pytest.approx(tuple(se), rel=1e-9)
    assert ce.z is not None and ce.z[0] == pytest.approx(ce.a_gain / ce.a_se, rel=1e-9)
    assert ce.a_gain > 0.1  # c scored 0.3 more per hand (3 points in 8-16 hands) with e at the table


def test_void_games_and_autopilot_seats_are_left_out() -> None:
    games = [seated(i, seats, [10] * 5) for i, seats in enumerate(round_robin(SIX, 5, 60))]
    void = [replace(g, rated=False, scores=(99,) * 5) for g in games]
    autopilot = [replace(g, excluded=(g.seats[0],), scores=(99, *g.scores[1:])) for g in games]
    plain = collusion(games, SIX)
    assert collusion(games + void, SIX) == plain
    assert collusion(autopilot, SIX).games == 60
    assert all(p.a_gain == pytest.approx(0.0, abs=1e-9) for p in collusion(autopilot, SIX).pairs if p.a_gain)


# ------------------------------------------------------------------- in-process fields, honest and not

CONFIG = GameConfig.from_dict({"variant": "call-ace"})
FIELD = tuple((f"eps{round(e * 100):03d}", e) for e in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0))
EVENTS, GAMES = 6, 150
INJECTED = ("eps020", "eps060")


async def _play(seed: int) -> list[RatedGame]:
    classes = {n: noisy(e) for n, e in FIELD}
    out = []
    for g in make_schedule([n for n, _ in FIELD], 5, GAMES, seed):
        players = [InProcessPlayer(classes[n], n) for n in g.seats]
        r = await play_table(TableSpec(g.game_id, CONFIG, g.seed, g.seats), players)
        out.append(RatedGame(g.seq, g.game_id, g.seats, r.ranks, r.scores, block=g.block, hands=len(r.hands)))
    return out


@pytest.fixture(scope="module")
def honest_events() -> list[list[RatedGame]]:
    """Six seeded events of 150 games of a ladder of six noisy rules bots (ε 0 ... 1, about 0.1 points per
    hand apart): an honest field where an additive model of strengths is most easily wrong."""
    return [asyncio.run(_play(seed)) for seed in range(1, EVENTS + 1)]


def inject(games: list[RatedGame], pair: tuple[str, str], gain: float) -> list[RatedGame]:
    """``pair`` gains ``gain`` points per hand each wherever both sit at the table, from the other seats."""
    out = []
    for g in games:
        if all(n in g.seats for n in pair):
            others = len(g.seats) - len(pair)
            scores = tuple(
                s + gain * g.hands if n in pair else s - len(pair) * gain * g.hands / others
                for n, s in zip(g.seats, g.scores, strict=True)
            )
            g = replace(g, scores=scores)  # type: ignore[arg-type]
        out.append(g)
    return out


def test_honest_fields_are_flagged_rarely(honest_events: list[list[RatedGame]]) -> None:
    """At most 5% of honest events may show a flagged pair; of six, allow one (P ≤ 0.03 of two or more
    at 5%). Without the correction (45 tests at 5% each) nearly every event would."""
    names = [n for n, _ in FIELD]
    results = [collusion(games, names) for games in honest_events]
    assert all(r.tests == 15 and r.testable == 15 for r in results)
    flagged = sum(bool(r.flagged) for r in results)
    assert flagged <= 1, [[(p.a, p.b, p.p) for p in r.flagged] for r in results]
    # the z-scores of an honest field look standard normal: mean near 0, spread near 1
    zs = np.array([z for r in results for p in r.pairs if p.z for z in p.z[:2]])
    assert abs(zs.mean()) < 0.3 and 0.7 < zs.std() < 1.3


def test_an_injected_colluding_pair_is_flagged(honest_events: list[list[RatedGame]]) -> None:
    """The same games with two entrants gaining 0.3 points per hand each at the same table (taken from the
    others there): flagged in every event, as the most significant pair, with the gain estimated."""
    names = [n for n, _ in FIELD]
    for games in honest_events:
        result = collusion(inject(games, INJECTED, 0.3), names)
        assert result.flagged and (result.flagged[0].a, result.flagged[0].b) == INJECTED
        top = result.flagged[0]
        assert top.a_gain is not None and top.b_gain is not None and top.a_gain > 0.15 and top.b_gain > 0.15
        lines = flag_lines(result)
        assert lines[0].startswith("Collusion? ") and "eps020 and eps060" in " ".join(lines)
        assert max(len(line) for line in lines) <= 80


WEAK_FIELD = ("rules1", "rules2", "rules3", "rules4", "rand1", "rand2")


async def _play_weak(seed: int, games: int) -> list[RatedGame]:
    classes = {n: RulesBot for n in WEAK_FIELD[:4]} | {n: noisy(1.0) for n in WEAK_FIELD[4:]}
    out = []
    for g in make_schedule(list(WEAK_FIELD), 5, games, seed)[:games]:
        players = [InProcessPlayer(classes[n], n) for n in g.seats]
        r = await play_table(TableSpec(g.game_id, CONFIG, g.seed, g.seats), players)
        out.append(RatedGame(g.seq, g.game_id, g.seats, r.ranks, r.scores, block=g.block, hands=len(r.hands)))
    return out


def test_two_honest_weak_bots_among_equals_are_not_flagged() -> None:
    """Issue 42: four rules bots and two honest random bots, four seeded events of 250 games. The two weak
    bots gain about 0.2 points per hand at the same table (like with like), which the additive model reads
    as a pair: it flags them in 3 of the 4 (bench/collusion.py ``weakpair``: 6 of 6 at 200 games). The
    strength interaction flags no pair in any, even read as one look (the bench: 0 of 6 at 200 games, 1 of 6
    at 300); so does the default, whose p-values hold at every look."""
    additive = 0
    for seed in (1, 2, 3, 4):
        games = asyncio.run(_play_weak(seed, 250))
        assert collusion(games, WEAK_FIELD).flagged == (), seed
        assert collusion(games, WEAK_FIELD, anytime=False).flagged == (), seed
        flagged = collusion(games, WEAK_FIELD, interaction=False, anytime=False).flagged
        additive += [(p.a, p.b) for p in flagged] == [("rand1", "rand2")]
    assert additive >= 3  # the field does show the like-with-like gain the default must not flag


# ----------------------------------------------------------------- the leaderboard, its JSON, the report


class Together(Bot):
    """Plays the rules bot's moves when its ``mate`` shares the table and a random legal move otherwise: a
    pair that scores far more together, as a colluding pair does (test entrants ``Together1``/``2``)."""

    name = "together"
    mate: ClassVar[str] = ""

    def on_game_start(self, game: GameInfo) -> None:
        self.with_mate = self.mate in game.seat_names
        self.rng = Random(f"{game.game_id}/{game.seat}")

    def act(self, view: View) -> Action:
        if self.with_mate:
            return ACTIONS[choose_view(view, DEFAULT_STYLE)]
        return self.rng.choice(view.legal_actions)


class Together1(Together):
    mate = "pair2"


class Together2(Together):
    mate = "pair1"


RULES = [{"name": f"rules{i}", "class": "sample_bots.rules:RulesBot"} for i in range(1, 5)]
PAIR = [
    {"name": "pair1", "class": "tests.stats.test_collusion:Together1"},
    {"name": "pair2", "class": "tests.stats.test_collusion:Together2"},
]


def leaderboard(directory: Path, *extra: str) -> str:
    result = CliRunner().invoke(app, ["leaderboard", str(directory), *extra])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_leaderboard_prints_a_line_only_when_a_pair_is_flagged(tmp_path: Path) -> None:
    """Six entrants for 120 one-table rounds: four rules bots and a pair that plays well only together (each
    gains about half a point per hand with the other at the table). The leaderboard names the pair, its JSON
    carries every pair's effects, the organiser's report shows the section (not the public copy); an honest
    event prints no such line."""
    flagged = parse_config(call_ace_event(tmp_path / "pair", [*RULES, *PAIR], rounds=120))
    asyncio.run(run_event(flagged))
    text = leaderboard(flagged.output)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Collusion? 1 pair scores"))
    said = " ".join(lines[start:])
    assert "pair1 and pair2: pair1 +" in said and "with pair2 at the table" in said
    assert max(len(line) for line in lines[start:]) <= 80
    rows = {r["name"]: r for r in json.loads(leaderboard(flagged.output, "--json"))}
    mine = rows["pair1"]["pairs"]["pair2"]
    assert mine["flagged"] and mine["gain"] > 0.2 and mine["p"] <= 0.05 and mine["together"] == 80
    assert not rows["rules1"]["pairs"]["rules2"]["flagged"]
    assert set(rows["rules1"]["pairs"]) == set(rows) - {"rules1"}
    html = build_report(flagged.output, tmp_path / "report.html").path.read_text()
    assert 'id="collusion"' in html and "pair1 and pair2: pair1 +" in html and "collusion?" in html
    public = build_report(flagged.output, tmp_path / "public.html", public=True).path.read_text()
    assert 'id="collusion"' not in public  # the organiser judges it before anyone is accused

    lone = [*RULES, PAIR[0], RULES[0] | {"name": "rules5"}]  # pair1 without its mate: random, but honest
    honest = parse_config(call_ace_event(tmp_path / "honest", lone, rounds=120))
    asyncio.run(run_event(honest))
    text = leaderboard(honest.output)
    assert "Collusion?" not in text and "collusion" not in text.lower()
    rows = {r["name"]: r for r in json.loads(leaderboard(honest.output, "--json"))}
    assert not any(v["flagged"] for r in rows.values() for v in r["pairs"].values())


# ----------------------------------------------------------------------- looked at again and again


def _crossings(p_of: Callable[[float, float], float], paths: int = 2000, looks: int = 400) -> float:
    """The share of honest score paths (no gain: a random walk, one unit of information per game) whose
    p-value is at most 0.05 at *some* look, looking after every game, as the server's organiser page does."""
    rng = np.random.default_rng(20261206)
    walks = np.cumsum(rng.standard_normal((paths, looks)), axis=1)
    info = np.arange(1, looks + 1, dtype=float)
    zs = (walks / np.sqrt(info)).tolist()  # Python floats: a numpy scalar per look costs twice the reading
    se = (0.5 / np.sqrt(info)).tolist()  # a game's gain has sd 0.5 points per hand
    crossed = 0
    for z in zs:
        crossed += any(p_of(zk, sk) <= 0.05 for zk, sk in zip(z, se, strict=True))
    return crossed / paths


def test_the_anytime_p_value_holds_however_often_the_growing_event_is_read() -> None:
    """An honest pair read after every one of 400 games is flagged at 5% in at most 5% of events with
    ``anytime_p``; the one-look p-value read the same way crosses in far more (what the default fixes)."""
    assert _crossings(lambda z, se: anytime_p(z, se)) <= 0.05
    assert _crossings(lambda z, se: upper_tail(z)) > 0.2


def test_the_anytime_p_value_falls_as_the_evidence_grows() -> None:
    """More z at the same standard error, or the same gain measured more precisely, is more evidence."""
    assert anytime_p(5.0, 0.02) < anytime_p(4.0, 0.02) < anytime_p(3.0, 0.02) <= 1.0
    assert anytime_p(0.1 / 0.01, 0.01) < anytime_p(0.1 / 0.02, 0.02)
    assert anytime_p(-3.0, 0.02) == 1.0 and anytime_p(2.0, 0.0) == 1.0


Reader = Callable[[tuple[float, ...], tuple[float, ...]], float]


def _pair_crossings(p_of: Reader, paths: int = 2000) -> float:
    """``_crossings`` for a pair's three tests read together: two independent honest walks (a with b, b with
    a) and their joint (the sum, so its z is theirs over √2 and its standard error a √2 smaller), read after
    every one of 400 games."""
    rng = np.random.default_rng(20261206)
    looks = 400
    info = np.arange(1, looks + 1, dtype=float)
    za = np.cumsum(rng.standard_normal((paths, looks)), axis=1) / np.sqrt(info)
    zb = np.cumsum(rng.standard_normal((paths, looks)), axis=1) / np.sqrt(info)
    zj = (za + zb) / np.sqrt(2)
    ses = [(s, s, s / math.sqrt(2)) for s in (0.5 / np.sqrt(info)).tolist()]
    crossed = 0
    for a, b, j in zip(za.tolist(), zb.tolist(), zj.tolist(), strict=True):
        crossed += any(p_of(z, s) <= 0.05 for z, s in zip(zip(a, b, j, strict=True), ses, strict=True))
    return crossed / paths


def test_the_pair_p_value_holds_however_often_the_growing_event_is_read() -> None:
    """The pair's three tests as one p-value (``pair_p``: the weighted mean of their mixtures, a martingale
    under no gain) cross 5% at some look of 400 in at most 5% of honest pairs (measured 0.027); the smallest
    of the three every-look p-values, not paid for as three tests, crosses in more (0.061)."""
    assert _pair_crossings(lambda z, se: pair_p(z, se)) <= 0.05
    assert _pair_crossings(lambda z, se: min(anytime_p(zk, sk) for zk, sk in zip(z, se, strict=True))) > 0.05


def test_the_joint_test_pays_less_than_the_directed_ones() -> None:
    """Evidence in the joint test alone costs the pair a factor 1.5 on its p-value (its share ⅔); in one
    directed test alone, 6 (a share of ⅙): the goal's pair, which helps each other, shows in the joint test,
    and the one-look rule that counted three tests per pair made every test pay 3."""
    joint = pair_p((-9.0, -9.0, 4.5), (0.03, 0.03, 0.025))
    assert joint == pytest.approx(1.5 * anytime_p(4.5, 0.025), rel=1e-6)
    directed = pair_p((5.0, -9.0, -9.0), (0.03, 0.03, 0.025))
    assert directed == pytest.approx(6 * anytime_p(5.0, 0.03), rel=1e-6)
    assert pair_p((-1.0, 0.5, -0.3), (0.03, 0.03, 0.025)) == 1.0  # no evidence: p capped at 1
