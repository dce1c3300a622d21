"""The tournament schedule (arena/event/schedule.py): structure, fairness, duplicate blocks, determinism.

The balance bounds below were measured first (every field size 2..30 and seat count 4..7, three seeds, with
enough rounds for each pair to share about ten tables: worst max/min pair ratio 1.5, worst deviation from
the mean pair count 22 %, worst per-entrant seat spread 2) and are asserted with margin.
"""

from __future__ import annotations

import math
import random
import re
import statistics
import time
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.event.schedule import ScheduleSpread, game_seed, make_schedule, schedule_spread
from arena.results.record import ScheduledGame

PROPS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)

ID_RE = re.compile(r"r(\d{3,})-t(\d{2,})(?:-d(\d+))?")


def names(n: int) -> list[str]:
    return [f"bot{i:02d}" for i in range(n)]


def house_names(n: int, seats: int, house: str = "house") -> list[str]:
    return [f"{house}-{k}" for k in range(1, seats - n + 1)] if n < seats else []


def tables_played(schedule: list[ScheduledGame]) -> Counter[str]:
    """Tables (duplicate blocks count once) each name sat at."""
    return Counter(name for g in schedule if g.rotation == 0 for name in g.seats)


events = st.tuples(
    st.integers(1, 30),  # entrants
    st.integers(4, 7),  # seats per table
    st.integers(1, 25),  # rounds
    st.integers(-(2**70), 2**70),  # event seed (any int)
    st.booleans(),  # duplicate
)


# ---------------------------------------------------------------------------------------------------------
# Structure
# ---------------------------------------------------------------------------------------------------------


@PROPS
@given(events)
def test_structure_games_tables_and_house_bots(event):
    check_structure(*event)


@pytest.mark.parametrize("seats", [4, 5, 6, 7])
def test_structure_for_every_field_size(seats):
    for n in range(1, 31):
        check_structure(n, seats, 2 * seats + 3, seed=n, duplicate=n % 3 == 0)


def check_structure(n: int, seats: int, rounds: int, seed: int, duplicate: bool) -> None:
    entrants = names(n)
    house = house_names(n, seats)
    schedule = make_schedule(entrants, seats, rounds, seed, duplicate=duplicate)

    n_tables = max(1, n // seats)
    per_table = seats if duplicate else 1
    assert len(schedule) == rounds * n_tables * per_table
    assert [g.seq for g in schedule] == list(range(len(schedule)))

    for g in schedule:
        # ids: round and table in the id, rotation suffix only for rotations 1..N-1
        m = ID_RE.fullmatch(g.game_id)
        assert m, g.game_id
        assert (int(m[1]), int(m[2]), int(m[3] or 0)) == (g.round, g.table, g.rotation)
        assert g.block == f"r{g.round:03d}-t{g.table:02d}"
        assert (g.game_id == g.block) == (g.rotation == 0)
        assert 0 <= g.rotation < per_table
        assert g.seed == game_seed(seed, g.block)
        # one entrant per seat, nobody twice at a table, only known names
        assert len(g.seats) == seats
        assert len(set(g.seats)) == seats
        assert set(g.seats) <= set(entrants) | set(house)
        # house bots exactly when the entrants cannot fill one table, and then in exactly the empty seats
        if n < seats:
            assert sorted(g.seats) == sorted(entrants + house)
        else:
            assert not set(g.seats) & {"house-1", "house"}

    # seq order: rounds ascending, tables 1..T inside a round, each table's games consecutive
    assert [(g.round, g.table, g.rotation) for g in schedule] == sorted(
        (g.round, g.table, g.rotation) for g in schedule
    )
    for rnd in range(1, rounds + 1):
        bases = [g for g in schedule if g.round == rnd and g.rotation == 0]
        assert [g.table for g in bases] == list(range(1, n_tables + 1))
        seated = [name for g in bases for name in g.seats]
        assert len(seated) == len(set(seated)), "an entrant at two tables in one round"
        if n >= seats:
            assert len(seated) == n_tables * seats  # the rest sit out

    # games per entrant differ by at most one table (N games in a duplicate event)
    played = tables_played(schedule)
    counts = [played[e] for e in entrants]
    assert max(counts) - min(counts) <= 1
    spread = schedule_spread(schedule, entrants)
    assert spread.games_max - spread.games_min <= per_table
    assert sum(spread.games_per_entrant.values()) == sum(
        1 for g in schedule for name in g.seats if name in entrants
    )
    if n <= seats:
        assert set(counts) == {rounds}  # nobody sits out when everyone fits at one table


@PROPS
@given(st.integers(1, 30), st.integers(4, 7), st.integers(1, 12), st.integers(0, 2**64))
def test_duplicate_blocks_rotate_the_seating_over_the_same_deals(n, seats, rounds, seed):
    schedule = make_schedule(names(n), seats, rounds, seed, duplicate=True)
    assert len(schedule) % seats == 0
    for start in range(0, len(schedule), seats):
        block = schedule[start : start + seats]
        base = block[0]
        assert [g.rotation for g in block] == list(range(seats))
        assert [g.game_id for g in block] == [base.block] + [f"{base.block}-d{k}" for k in range(1, seats)]
        assert {g.block for g in block} == {base.block}
        assert {g.seed for g in block} == {base.seed}
        assert {(g.round, g.table) for g in block} == {(base.round, base.table)}
        for k, g in enumerate(block):
            assert all(g.seats[(s + k) % seats] == base.seats[s] for s in range(seats))
        # so every player at the table plays the block's deals from every seat exactly once
        for name in base.seats:
            assert sorted(g.seats.index(name) for g in block) == list(range(seats))
    assert len({g.block for g in schedule}) == len(schedule) // seats


def test_non_duplicate_blocks_are_single_games():
    schedule = make_schedule(names(12), 5, 4, seed=3)
    assert all(g.block == g.game_id and g.rotation == 0 for g in schedule)
    assert schedule[0].game_id == "r001-t01"
    assert [g.game_id for g in schedule[:4]] == ["r001-t01", "r001-t02", "r002-t01", "r002-t02"]


def test_house_bots_fill_the_empty_seats_with_distinct_names():
    schedule = make_schedule(["alice", "bob"], 5, 6, seed=1, house="cpu")
    for g in schedule:
        assert sorted(g.seats) == ["alice", "bob", "cpu-1", "cpu-2", "cpu-3"]
    # exactly full: no house bot; one more: a sit-out, still no house bot
    assert all("house-1" not in g.seats for g in make_schedule(names(5), 5, 3, seed=1))
    six = make_schedule(names(6), 5, 6, seed=1)
    assert all(len(set(g.seats) & set(names(6))) == 5 for g in six)
    assert all(not any(s.startswith("house") for s in g.seats) for g in six)
    assert set(Counter(s for g in six for s in g.seats).values()) == {5}  # each sat out once


# ---------------------------------------------------------------------------------------------------------
# Determinism
# ---------------------------------------------------------------------------------------------------------


@PROPS
@given(events)
def test_same_arguments_same_schedule_and_entrant_order_does_not_matter(event):
    n, seats, rounds, seed, duplicate = event
    entrants = names(n)
    first = make_schedule(entrants, seats, rounds, seed, duplicate)
    assert make_schedule(list(entrants), seats, rounds, seed, duplicate) == first
    shuffled = list(reversed(entrants))
    assert make_schedule(tuple(shuffled), seats, rounds, seed, duplicate) == first


@PROPS
@given(st.integers(1, 30), st.integers(4, 7), st.integers(1, 10), st.integers(1, 15), st.integers(0, 10**9))
def test_more_rounds_keep_the_games_already_scheduled(n, seats, rounds, extra, seed):
    """Extending an event (or resuming it with more rounds) never changes a game already played."""
    short = make_schedule(names(n), seats, rounds, seed)
    longer = make_schedule(names(n), seats, rounds + extra, seed)
    assert longer[: len(short)] == short


def test_different_seed_different_schedule():
    for n, seats in [(2, 4), (5, 5), (7, 4), (12, 5), (30, 7)]:
        schedules = [make_schedule(names(n), seats, 10, seed) for seed in range(6)]
        seatings = {tuple(g.seats for g in s) for s in schedules}
        assert len(seatings) == len(schedules), (n, seats)
        assert len({s[0].seed for s in schedules}) == len(schedules)


def test_the_seating_is_pinned():
    """Pinned: a changed value means every stored event would be re-seated on resume (bump the domain)."""
    schedule = make_schedule(["a", "b", "c", "d", "e", "f"], 4, 2, seed=7)
    assert [g.seats for g in schedule] == [("d", "b", "c", "a"), ("b", "f", "d", "e")]
    assert schedule[0].seed == game_seed(7, "r001-t01")


# ---------------------------------------------------------------------------------------------------------
# Balance
# ---------------------------------------------------------------------------------------------------------


def rounds_for_pairs(n: int, seats: int, per_pair: float) -> int:
    """Rounds after which each pair of ``n`` entrants shares about ``per_pair`` tables on average."""
    n_tables = max(1, n // seats)
    pairs_per_round = n_tables * math.comb(seats, 2) if n >= seats else math.comb(n, 2)
    return max(1, math.ceil(per_pair * math.comb(n, 2) / pairs_per_round))


@settings(PROPS, max_examples=100)
@given(st.integers(2, 30), st.integers(4, 7), st.integers(0, 2**32))
def test_pairs_and_seats_are_balanced(n, seats, seed):
    rounds = rounds_for_pairs(n, seats, 10)
    entrants = names(n)
    spread = schedule_spread(make_schedule(entrants, seats, rounds, seed), entrants)
    mean = statistics.fmean(spread.pair_counts.values())
    assert spread.pair_min >= 1
    assert spread.pair_max / spread.pair_min <= 2.0  # measured at most 1.5
    assert spread.pair_max - mean <= 0.35 * mean  # measured at most 0.22
    assert mean - spread.pair_min <= 0.35 * mean
    # each entrant's seats: within 3 games of each other (measured at most 2)
    for name, per_seat in spread.seat_counts.items():
        assert max(per_seat) - min(per_seat) <= 3, (name, per_seat)


@pytest.mark.parametrize("n, seats", [(3, 5), (1, 7), (4, 4), (5, 5), (6, 6), (7, 7)])
def test_a_single_full_table_sits_everyone_evenly(n, seats):
    """With everyone at one table every round, seats rotate exactly when rounds are a multiple of N."""
    entrants = names(n)
    spread = schedule_spread(make_schedule(entrants, seats, 4 * seats, seed=11), entrants)
    assert spread.games_min == spread.games_max == 4 * seats
    assert spread.seat_min == spread.seat_max == 4
    assert spread.pair_min == spread.pair_max == (4 * seats if n > 1 else 0)


def random_seating(entrants: list[str], seats: int, rounds: int, seed: int) -> list[ScheduledGame]:
    """The baseline: the same sit-out rule, then tables and seat orders by a plain shuffle."""
    rng = random.Random(seed)
    games = dict.fromkeys(entrants, 0)
    n_tables = len(entrants) // seats
    schedule: list[ScheduledGame] = []
    for rnd in range(1, rounds + 1):
        order = list(entrants)
        rng.shuffle(order)
        order.sort(key=lambda e: -games[e])
        playing = order[len(entrants) - n_tables * seats :]
        rng.shuffle(playing)
        for t in range(n_tables):
            table = tuple(playing[t * seats : (t + 1) * seats])
            for e in table:
                games[e] += 1
            gid = f"r{rnd:03d}-t{t + 1:02d}"
            schedule.append(ScheduledGame(len(schedule), gid, rnd, t + 1, gid, 0, 0, table))
    return schedule


def pair_variance(spread: ScheduleSpread) -> float:
    return statistics.pvariance(spread.pair_counts.values())


def seat_variance(spread: ScheduleSpread) -> float:
    return statistics.fmean(statistics.pvariance(c) for c in spread.seat_counts.values())


@pytest.mark.parametrize(
    "n, seats, rounds",
    [(6, 4, 40), (7, 4, 40), (9, 4, 30), (12, 5, 30), (13, 6, 30), (9, 7, 30), (16, 7, 30), (30, 7, 20)],
)
def test_beats_pure_random_seating(n, seats, rounds):
    """Measured: pair-count variance 5-50 % and seat-count variance 2-7 % of the random baseline's."""
    entrants = names(n)
    ours = [schedule_spread(make_schedule(entrants, seats, rounds, s), entrants) for s in range(3)]
    base = [schedule_spread(random_seating(entrants, seats, rounds, s), entrants) for s in range(3)]
    assert statistics.fmean(map(pair_variance, ours)) <= 0.75 * statistics.fmean(map(pair_variance, base))
    assert statistics.fmean(map(seat_variance, ours)) <= 0.25 * statistics.fmean(map(seat_variance, base))
    assert all(o.pair_max - o.pair_min <= b.pair_max - b.pair_min for o, b in zip(ours, base, strict=True))


def test_fast_enough_for_a_large_event():
    start = time.perf_counter()
    schedule = make_schedule(names(30), 7, 100, seed=5)
    elapsed = time.perf_counter() - start
    assert len(schedule) == 400
    assert elapsed < 5.0, f"30 entrants x 7 seats x 100 rounds took {elapsed:.2f} s"  # about 0.3 s


# ---------------------------------------------------------------------------------------------------------
# game_seed, the spread report, validation
# ---------------------------------------------------------------------------------------------------------


def test_game_seed_is_stable_and_63_bit():
    # pinned: BLAKE2b-64 of "euchre-arena/game-seed/v1:2024:r001-t01", top 63 bits
    assert game_seed(2024, "r001-t01") == 8752277777121817751
    assert game_seed(2024, "r001-t01") == game_seed(2024, "r001-t01")
    values = {game_seed(s, f"r{r:03d}-t{t:02d}") for s in (-1, 0, 1, 2**80) for r in (1, 2) for t in (1, 2)}
    assert len(values) == 16
    assert all(0 <= v < 2**63 for v in values)


def test_schedule_spread_counts_and_render():
    g = [
        ScheduledGame(0, "r001-t01", 1, 1, "r001-t01", 0, 1, ("a", "b", "c", "house-1")),
        ScheduledGame(1, "r002-t01", 2, 1, "r002-t01", 0, 2, ("b", "a", "house-1", "d")),
    ]
    spread = schedule_spread(g, ["a", "b", "c", "d"])
    assert spread.games_per_entrant == {"a": 2, "b": 2, "c": 1, "d": 1}
    assert spread.pair_counts == {
        ("a", "b"): 2,
        ("a", "c"): 1,
        ("a", "d"): 1,
        ("b", "c"): 1,
        ("b", "d"): 1,
        ("c", "d"): 0,
    }
    assert spread.seat_counts == {"a": (1, 1, 0, 0), "b": (1, 1, 0, 0), "c": (0, 0, 1, 0), "d": (0, 0, 0, 1)}
    assert (spread.games_min, spread.games_max) == (1, 2)
    assert (spread.pair_min, spread.pair_max) == (0, 2)
    assert (spread.seat_min, spread.seat_max) == (0, 1)
    assert spread.render() == (
        "games per entrant 1..2; pairs share a table 0..2 times; seats 0..1 per entrant and position"
    )
    one = schedule_spread(make_schedule(["solo"], 4, 8, seed=0), ["solo"])
    assert one.pair_counts == {}
    assert one.render() == "games per entrant 8..8; no pairs; seats 2..2 per entrant and position"


def test_spread_of_a_duplicate_event_counts_games():
    entrants = names(8)
    spread = schedule_spread(make_schedule(entrants, 4, 3, seed=9, duplicate=True), entrants)
    assert spread.games_min == spread.games_max == 12  # 3 tables of 4 rotations each
    assert all(c == 3 for per_seat in spread.seat_counts.values() for c in per_seat)
    assert all(c % 4 == 0 for c in spread.pair_counts.values())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"entrants": []}, "at least 1 entrant"),
        ({"entrants": ["a", "b", "a"]}, "duplicate names ['a']"),
        ({"entrants": ["a", ""]}, "entrant name ''"),
        ({"entrants": "abc"}, "not one string"),
        ({"rounds": 0}, "rounds=0"),
        ({"rounds": -3}, "rounds=-3"),
        ({"seats_per_table": 3}, "seats_per_table=3: expected an integer 4..7"),
        ({"seats_per_table": 8}, "seats_per_table=8"),
        ({"seats_per_table": True}, "seats_per_table=True"),
        ({"seed": "7"}, "seed='7'"),
        ({"entrants": ["a", "house-2"]}, "clash with the house bots"),
        ({"entrants": ["a"], "house": ""}, "house=''"),
    ],
)
def test_invalid_arguments_raise_config_error_naming_the_problem(kwargs, message):
    args = {"entrants": ["a", "b"], "seats_per_table": 4, "rounds": 2, "seed": 1, **kwargs}
    with pytest.raises(ConfigError) as info:
        make_schedule(**args)
    assert message in str(info.value)


def test_house_names_may_be_entrant_names_when_nobody_is_filled():
    # 4 entrants at 4 seats need no house bot, so an entrant called "house-1" is fine
    schedule = make_schedule(["house-1", "b", "c", "d"], 4, 2, seed=0)
    assert all(sorted(g.seats) == ["b", "c", "d", "house-1"] for g in schedule)


@pytest.mark.parametrize("entrants", [4, 5, 6, 7, 8])
def test_classic_partnerships_are_balanced_when_asked(entrants: int) -> None:
    names = [f"e{i}" for i in range(entrants)]
    plain = schedule_spread(make_schedule(names, 4, 60, 1), names, partners=True)
    teams = schedule_spread(make_schedule(names, 4, 60, 1, partners=True), names, partners=True)
    assert plain.partner_counts is not None and teams.partner_counts is not None
    spread = max(teams.partner_counts.values()) - min(teams.partner_counts.values())
    assert spread <= 2, teams.render()
    assert spread < max(plain.partner_counts.values()) - min(plain.partner_counts.values())
    assert teams.games_max - teams.games_min <= 1 and teams.seat_max - teams.seat_min <= 3
    assert "pairs are partners" in teams.render()
