"""The leaderboard's statistics (arena.stats.confidence) against hand-computed cases, their behaviour on real
events, and ``--until-settled``: stops when settled, extends a finished or interrupted event, resumes
identically."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.conductor.observer import EventObserver
from arena.conductor.tournament import Stopped, run_event
from arena.errors import ConfigError
from arena.event.config import parse_config
from arena.results.store import Store
from arena.stats.confidence import collect, confidence, effective_sharpen, pair_probability, scores
from arena.stats.leaderboard import compute_board
from arena.stats.rating import RatedGame

LADDER = [  # ε-noisy rules bots: known order, about 0.15 points per hand apart
    {"name": "eps00", "class": "sample_bots.noisy:Noisy00"},
    {"name": "eps40", "class": "sample_bots.noisy:Noisy40"},
    {"name": "eps100", "class": "sample_bots.noisy:Noisy100"},
]


class Extensions(EventObserver):
    def __init__(self, on_extend: Any) -> None:
        self.on_extend = on_extend

    def extended(self, total: int, board: Any) -> None:
        self.on_extend(total, board)


class Games(EventObserver):
    def __init__(self, on_game: Any) -> None:
        self.on_game = on_game

    def game_finished(self, game: Any, record: Any) -> None:
        self.on_game(game, record)


def event(tmp_path: Path, entrants: list[dict[str, Any]], **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "r",
        "seed": 11,
        "rounds": 4,
        "concurrency": 1,
        "output": str(tmp_path / "out"),
        "game": {"variant": "call-ace"},
        "entrant": entrants,
        # A fixed deal key: with the default random key every run deals other cards, and a test that
        # judges how the figures move with games must see the same games each time.
        "deal_key": "5e" * 32,
    }
    data.update(overrides)
    return data


def game(seq: int, seats: tuple[str, ...], scores: tuple[int, ...], hands: int = 10, **kw: Any) -> RatedGame:
    ranks = tuple(1 + sum(t > s for t in scores) for s in scores)
    return RatedGame(seq, kw.pop("game_id", f"g{seq}"), seats, ranks, scores, hands=hands, **kw)


# ------------------------------------------------------------------------------ hand-computed statistics


def test_bootstrap_interval_of_two_games_is_their_extremes() -> None:
    """Two games, a scoring 10 then 0 points in 10 hands: resamples give 1.0, 0.5 or 0.0 points per hand
    with probability 1/4, 1/2, 1/4, so the 95% interval is [0, 1] around the estimate 0.5."""
    games = [game(0, ("a", "b"), (10, 5)), game(1, ("a", "b"), (0, 5))]
    conf = confidence(collect(games, ["a", "b"]), "points", 0.95, event_seed=1)
    a = next(e for e in conf.entrants if e.name == "a")
    assert a.points_per_hand == 0.5
    assert a.points_ci == (0.0, 1.0)
    assert a.mean_rank == 1.5 and a.rank_ci == (1.0, 2.0)
    b = next(e for e in conf.entrants if e.name == "b")
    assert b.points_ci == (0.5, 0.5)  # b scored the same in both: every resample agrees


def test_p_above_on_a_constructed_event_matches_the_normal_formula() -> None:
    """Per game, a - b points differ by d_i (10 hands each): the (n-1)-corrected bootstrap sd of the mean
    difference is the standard error of d/10, so P(a above b) = Φ(mean / (s / sqrt(n)))."""
    diffs = [3, -1, 4, 1, -5, 9, 2, -6, 5, 3, 5, -8, 9, 7, -9, 3, 2, 3, -8, 4]
    games = [game(i, ("a", "b"), (10 + d, 10)) for i, d in enumerate(diffs)]
    n = len(diffs)
    mean = sum(diffs) / n / 10
    sd = math.sqrt(sum((d / 10 - mean) ** 2 for d in diffs) / (n - 1)) / math.sqrt(n)
    expected = NormalDist().cdf(mean / sd)
    conf = confidence(collect(games, ["a", "b"]), "points", 0.95, 3, replicates=4000, sharpen=1.0)
    assert conf.order == ("a", "b")
    assert conf.pairwise[0][1] == pytest.approx(expected, abs=0.02)
    assert conf.pairwise[1][0] == pytest.approx(1 - conf.pairwise[0][1], abs=1e-9)
    assert conf.adjacent[0].probability == conf.pairwise[0][1]
    # the whole order of two is their one pair: read from the replicates, it is that pair's P up to noise
    assert conf.whole == pytest.approx(conf.pairwise[0][1], abs=0.02) and conf.whole <= conf.pairwise[0][1]
    assert not conf.adjacent[0].settled  # about 0.83: open, with a finite estimate of the games it needs
    assert conf.adjacent[0].more_games is not None and conf.adjacent[0].more_games > n


def test_whole_order_is_joint_over_the_replicates_not_the_product_of_the_pairs() -> None:
    """a and c score the same every game; b's score swings. When b is lucky the gap a-b shrinks exactly as
    b-c widens, so the two pairs are rarely both in doubt in one replicate: being right about both is less
    likely than the product of the two pairs' P says only if their errors are anti-correlated, and here they
    are perfectly so (one can fail or the other, never both), so P(whole) = P1 + P2 - 1, below the product."""
    swings = [4, -3, 5, -2, 6, -4, 3, -5, 2, 1, -1, 4, -6, 5, 0, 3, -2, 2, -3, -9]  # mean 0: b is midway
    games = [game(i, ("a", "b", "c"), (20, 10 + 10 * d, 0)) for i, d in enumerate(swings)]
    conf = confidence(collect(games, ["a", "b", "c"]), "points", 0.95, 5, replicates=4000, sharpen=1.0)
    assert conf.order == ("a", "b", "c")
    p1, p2 = (pair.probability for pair in conf.adjacent)
    assert 0.7 < p1 < 0.999 and 0.7 < p2 < 0.999  # both pairs in doubt, so the two figures differ
    assert conf.whole == pytest.approx(p1 + p2 - 1, abs=0.03)
    assert conf.whole < p1 * p2 - 0.01


def test_the_sharpening_ramps_up_over_the_first_fifty_games() -> None:
    assert effective_sharpen(1.75, 0) == 1.0
    assert effective_sharpen(1.75, 25) == pytest.approx(1.375)
    assert effective_sharpen(1.75, 50) == effective_sharpen(1.75, 5000) == 1.75
    assert effective_sharpen(1.0, 10) == 1.0  # the plain bootstrap stays plain


def test_pair_probability_is_the_normal_cdf_of_the_sharpened_gap_over_its_sd() -> None:
    assert pair_probability(1.0, 1.0, sharpen=1.0) == pytest.approx(0.841345, abs=1e-6)
    assert pair_probability(1.0, 1.0, sharpen=1.5) == pytest.approx(NormalDist().cdf(1.5))
    assert pair_probability(0.3, 0.0) == 1.0 and pair_probability(0.0, 0.0) == 0.5


def test_paired_score_cancels_the_luck_of_the_seat_and_deal() -> None:
    """A duplicate block of three rotations: seat 0 holds the good cards (+6). Everyone scores the same from
    the same seat except b, who makes 3 more wherever it sits: only b's paired score differs from zero."""
    base = (8, 2, 2)
    names = ("a", "b", "c")
    games = []
    for r in range(3):
        seats = tuple(names[(s - r) % 3] for s in range(3))
        pts = tuple(base[s] + (3 if seats[s] == "b" else 0) for s in range(3))
        games.append(game(r, seats, pts, block="blk", game_id=f"blk-{r}"))
    units = collect(games, list(names))
    assert units.duplicate and units.count == 1
    paired = scores(units, "paired")
    assert paired["b"] == pytest.approx(2 / 10 * 3 / 3)  # +3 - 1 (its share in the seat mean) per game
    assert paired["a"] == pytest.approx(paired["c"]) == pytest.approx(-1 / 10)


def test_a_forfeit_scores_no_points_and_a_disqualified_entrant_is_printed_last() -> None:
    games = [game(0, ("a", "b"), (10, 2), forfeited=("a",)), game(1, ("a", "b"), (10, 2))]
    units = collect(games, ["a", "b"])
    assert scores(units, "points") == {"a": 0.5, "b": 0.2}
    conf = confidence(units, "points", 0.95, 1, demoted=["a"])
    assert conf.order == ("b", "a") and conf.adjacent[0].probability == 1.0


def test_same_event_same_figures_and_the_seed_is_the_events() -> None:
    games = [game(i, ("a", "b", "c"), (i % 4, (i * 7) % 5, 3)) for i in range(30)]
    units = collect(games, ["a", "b", "c"])
    assert confidence(units, "points", 0.95, 5) == confidence(units, "points", 0.95, 5)
    assert confidence(units, "points", 0.95, 5).pairwise != confidence(units, "points", 0.95, 6).pairwise


def test_ranking_config_is_checked_key_by_key() -> None:
    base = {"game": {"variant": "call-ace"}, "entrant": [{"name": "x", "class": "m:C"}]}
    assert parse_config(base | {"ranking": {"confidence": 0.8, "max_games": 60}}).ranking.max_games == 60
    for bad, message in (
        ({"confidence": 1.5}, r"ranking.confidence=1.5: expected a probability"),
        ({"max_games": 0}, r"ranking.max_games=0"),
        ({"method": "elo"}, r"ranking.method='elo'"),
        ({"confidenc": 0.9}, r"unknown key ranking.confidenc"),
        ({"sharpen": 0.5}, r"ranking.sharpen=0.5: expected a number 1..4"),
    ):
        with pytest.raises(ConfigError, match=message):
            parse_config(base | {"ranking": bad})


# ------------------------------------------------------------------------------ on real games


def test_confidence_rises_with_games_on_a_ladder_with_a_real_gap(tmp_path: Path) -> None:
    entrants = [
        *LADDER,
        {"name": "eps100-b", "class": "sample_bots.noisy:Noisy100"},
        {"name": "eps60", "class": "sample_bots.noisy:Noisy60"},
    ]
    config = parse_config(event(tmp_path, entrants, rounds=60))
    asyncio.run(run_event(config))
    with Store.open(config.output) as store:
        games = list(store.rated_games())
    names = [e["name"] for e in entrants]
    p = []
    for n in (5, 20, 60):
        conf = confidence(collect(games[:n], names), "points", 0.95, 11)
        p.append(conf.pairwise[conf.order.index("eps00")][conf.order.index("eps100")])
    assert p[0] < p[1] < p[2] or p[1] == p[2] == 1.0
    assert p[2] >= 0.99


def test_identical_bots_in_duplicate_stay_at_one_half_and_never_settle(tmp_path: Path) -> None:
    """Five copies of the deterministic rules bot on the same deals from every seat play identically, so
    every paired score is 0 and every P(A above B) is exactly 1/2."""
    entrants = [{"name": f"same-{i}", "class": "sample_bots.rules:RulesBot"} for i in range(5)]
    config = parse_config(event(tmp_path, entrants, rounds=3, duplicate=True))
    summary = asyncio.run(run_event(config))
    conf = summary.confidence
    assert conf.method == "paired" and conf.unit == "deal block" and conf.units == 3
    assert all(p == 0.5 for i, row in enumerate(conf.pairwise) for j, p in enumerate(row) if i != j)
    assert not any(pair.settled for pair in conf.adjacent)
    assert conf.whole == pytest.approx(0.5**4)


def test_leaderboard_prints_and_exports_the_confidence(tmp_path: Path) -> None:
    config = parse_config(event(tmp_path, [*LADDER, {"name": "eps60", "class": "sample_bots.noisy:Noisy60"}]))
    asyncio.run(run_event(config))
    runner = CliRunner()
    text = runner.invoke(app, ["leaderboard", str(config.output)])
    assert text.exit_code == 0
    assert "Whole order right: P" in text.output and "P(row finishes above column)" in text.output
    assert "pts/hand [95%]" in text.output
    assert max(len(line.rstrip()) for line in text.output.splitlines()) <= 80
    rows = json.loads(runner.invoke(app, ["leaderboard", str(config.output), "--json"]).output)
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5]
    assert set(rows[0]["p_above"]) == {r["name"] for r in rows[1:]}
    assert rows[0]["p_above_next"] == rows[0]["p_above"][rows[1]["name"]]
    assert rows[-1]["p_above_next"] is None and rows[-1]["settled_above_next"] is None
    lo, hi = rows[0]["points_per_hand_ci"]
    assert lo <= rows[0]["score"] <= hi  # plain event: the score is points per hand
    assert len({r["whole_order"] for r in rows}) == 1 and 0 <= rows[0]["whole_order"] <= 1
    again = json.loads(runner.invoke(app, ["leaderboard", str(config.output), "--json"]).output)
    assert again == rows  # seeded: the same event prints the same figures
    csv_text = runner.invoke(app, ["leaderboard", str(config.output), "--csv"]).output
    header, first = csv_text.splitlines()[:2]
    assert header.endswith("p_above_next,settled_above_next,whole_order") and first.startswith("1,")


# ------------------------------------------------------------------------------ --until-settled


class Interrupt(Exception):
    pass


def ladder_event(tmp_path: Path, name: str, **ranking: Any) -> dict[str, Any]:
    entrants = [
        {"name": "eps00", "class": "sample_bots.noisy:Noisy00"},
        {"name": "eps100", "class": "sample_bots.noisy:Noisy100"},
        {"name": "eps100-b", "class": "sample_bots.noisy:Noisy100"},
        {"name": "eps00-b", "class": "sample_bots.noisy:Noisy00"},
        {"name": "eps50", "class": "sample_bots.noisy:Noisy100"},
    ]
    settings = {"confidence": 0.9, "max_games": 60, "check_every": 10} | ranking
    # one fixed deal key: the events in different directories must be dealt alike to be compared
    return event(tmp_path / name, entrants, rounds=5, ranking=settings, deal_key="5a" * 16)


def figures(directory: Path) -> tuple[Any, ...]:
    with Store.open(directory) as store:
        board = compute_board(store)
        return (
            [(s.name, s.games, s.points, round(s.mu, 9)) for s in board.standings],
            board.confidence.to_dict(),
            sorted(store.finished()),
        )


def test_until_settled_stops_when_every_adjacent_pair_is_settled(tmp_path: Path) -> None:
    """Five bots of distinct strength, duplicate: it stops at the first look where all four adjacent pairs
    are settled, long before the budget, and every earlier look had an open pair."""
    entrants = [
        {"name": f"eps{k}", "class": f"sample_bots.noisy:Noisy{k}"} for k in ("00", "20", "40", "60", "100")
    ]
    ranking = {"confidence": 0.8, "max_games": 400, "check_every": 10}
    config = parse_config(event(tmp_path, entrants, rounds=2, duplicate=True, ranking=ranking))
    looks: list[Any] = []
    summary = asyncio.run(
        run_event(config, Extensions(lambda n, board: looks.append(board)), until_settled=True)
    )
    assert summary.stopped is Stopped.SETTLED and summary.confidence.settled
    assert summary.games_total < 400 and summary.games_total == 10 + 10 * len(looks)
    assert looks and all(not board.confidence.settled for board in looks)


def test_until_settled_stops_at_the_budget_and_names_the_open_pairs(tmp_path: Path) -> None:
    """One strong bot and four equal ones (the house bots fill the table): the equal ones never settle."""
    entrants = [{"name": "strong", "class": "sample_bots.noisy:Noisy00"}]
    # sharpen 1: unsharpened probabilities, as docs/ranking.md advises for a field of near-equal bots
    ranking = {"confidence": 0.9, "max_games": 40, "check_every": 10, "sharpen": 1.0}
    looks: list[int] = []
    summary = asyncio.run(
        run_event(
            parse_config(event(tmp_path, entrants, rounds=5, ranking=ranking)),
            Extensions(lambda n, board: looks.append(n)),
            until_settled=True,
        )
    )
    assert summary.stopped is Stopped.BUDGET and summary.games_total == 40 and looks == [15, 25, 35, 40]
    assert summary.standings[0].name == "strong" and summary.confidence.open_pairs()


def test_until_settled_extends_a_finished_event_and_an_interrupted_one_resumes_identically(
    tmp_path: Path,
) -> None:
    straight = parse_config(ladder_event(tmp_path, "straight"))
    whole = asyncio.run(run_event(straight, until_settled=True))
    assert whole.games_total > 5  # it had to extend

    # A finished 5-game event, later extended with --until-settled, ends where the straight run ended.
    later = parse_config(ladder_event(tmp_path, "later"))
    asyncio.run(run_event(later))
    extended = asyncio.run(run_event(later, until_settled=True))
    assert extended.resumed and extended.games_total == whole.games_total
    assert figures(later.output) == figures(straight.output)

    # Interrupted in the middle of an extension, then resumed: the same games, decisions and figures.
    broken = parse_config(ladder_event(tmp_path, "broken"))
    count = 0

    def stop_after_some(_game: Any, _result: Any) -> None:
        nonlocal count
        count += 1
        if count == 12:
            raise Interrupt

    with pytest.raises(Interrupt):
        asyncio.run(run_event(broken, Games(stop_after_some), until_settled=True))
    with Store.open(broken.output) as store:
        assert len(store.schedule()) > 12 > 5 and len(store.finished()) == 12
    resumed = asyncio.run(run_event(broken, until_settled=True))
    assert resumed.resumed and resumed.games_total == whole.games_total
    assert figures(broken.output) == figures(straight.output)


def test_a_resumed_event_may_grow_but_keeps_its_games(tmp_path: Path) -> None:
    config = parse_config(event(tmp_path, LADDER, rounds=2))
    asyncio.run(run_event(config))
    with Store.open(config.output) as store:
        first = store.schedule()
    more = asyncio.run(run_event(parse_config(event(tmp_path, LADDER, rounds=4))))
    with Store.open(config.output) as store:
        assert (
            store.schedule()[: len(first)] == first and more.games_total == 4 and more.games_played_now == 2
        )
    fewer = asyncio.run(run_event(parse_config(event(tmp_path, LADDER, rounds=1))))
    assert fewer.games_total == 4 and fewer.games_played_now == 0  # the stored schedule is kept whole


def test_cli_run_until_settled_reports_the_open_pairs_at_the_budget(tmp_path: Path) -> None:
    config = tmp_path / "e.toml"
    config.write_text(
        f'seed = 3\nrounds = 2\nconcurrency = 1\noutput = "{tmp_path / "out"}"\n'
        '[game]\nvariant = "call-ace"\n[ranking]\nmax_games = 6\ncheck_every = 2\n'
        '[[entrant]]\nname = "a"\nclass = "sample_bots.rules:RulesBot"\n'
    )
    result = CliRunner().invoke(app, ["run", str(config), "--until-settled", "--quiet"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the console wraps long lines
    assert "after 2 games 4 of 4 adjacent pairs are open" in text and "extending to 6 games" in text
    assert "until-settled: budget of 6 games spent (6 played); still open:" in text
    assert "Whole order right" in text
