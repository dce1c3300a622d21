"""Tournaments end to end: config errors, ratings, determinism, resume after SIGKILL, demo, outputs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.bot import Bot
from arena.conductor.tournament import run_event
from arena.engine import Action, ActionKind, View
from arena.engine.cards import CARDS
from arena.errors import ConfigError
from arena.event.config import ExecutorKind, load_config, parse_config
from arena.results.store import Store
from arena.stats.leaderboard import compute_standings
from arena.stats.rating import HistoryRow, RatedGame, apply_in_order, rate

ROOT = Path(__file__).resolve().parents[2]
KEY = "5eed" * 16  # a fixed deal key (issue 9), where two output directories must deal the same cards


def arena_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def event(tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "t",
        "seed": 7,
        "rounds": 6,
        "concurrency": 1,
        "output": str(tmp_path / "out"),
        "game": {"variant": "five-handed"},
        "entrant": [
            {"name": "rules", "class": "sample_bots.rules:RulesBot"},
            {"name": "random", "class": "sample_bots.random:RandomBot"},
            {"name": "random-b", "class": "sample_bots.random:RandomBot"},
            {"name": "rules-b", "class": "sample_bots.rules:RulesBot"},
            {"name": "random-c", "class": "sample_bots.random:RandomBot"},
            {"name": "random-d", "class": "sample_bots.random:RandomBot"},
        ],
    }
    data.update(overrides)
    return data


def board(directory: Path) -> list[dict[str, Any]]:
    result = arena_cli("leaderboard", str(directory), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def stored_hands(directory: Path) -> list[tuple[str, int, str]]:
    with Store.open(directory, create=False) as store:
        query = "SELECT game_id, hand_index, record FROM hands ORDER BY game_id, hand_index"
        return store.database.all(query)


def write_toml(path: Path, data: dict[str, Any]) -> Path:
    lines = []
    for key, value in data.items():
        if not isinstance(value, dict | list):
            lines.append(f"{key} = {json.dumps(value)}")
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append(f"[{key}]")
            lines += [f"{k} = {json.dumps(v)}" for k, v in value.items()]
    for entrant in data.get("entrant", []):
        lines.append("[[entrant]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in entrant.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------------------------------------- config


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rounds": 0}, "rounds=0: expected an integer 1..1000000"),
        ({"colour": "red"}, "unknown key 'colour'"),
        (
            {"game": {"variant": "five-handed", "use_joker": True}},
            "unknown option 'use_joker' for variant 'five-handed'",
        ),
        ({"game": {"variant": "euchre-9"}}, "unknown variant 'euchre-9'"),
        ({"game": {"variant": "call-ace", "num_players": 8}}, "num_players=8"),
        ({"faults": {"decision_ms": -5}}, "faults.decision_ms=-5"),
        ({"faults": {"patience": 3}}, "unknown key faults.patience"),
        ({"entrant": [{"name": "x", "command": "python bot.py"}]}, "must contain {address} or {port}"),
        ({"entrant": [{"name": "x", "command": "bot '{port}"}]}, "cannot be split into arguments"),
        ({"sandbox": "docker"}, "sandbox='docker': expected one of 'bubblewrap', 'none'"),
        ({"entrant": [{"name": "x", "command": "b {port}", "sandbox": "jail"}]}, "entrant[0].sandbox='jail'"),
        ({"entrant": [{"name": "x", "command": "b {port}", "env": {"A": 1}}]}, "entrant[0].env="),
        ({"entrant": [{"name": "x", "command": "b {port}", "env": {"1A": "v"}}]}, "entrant[0].env="),
        ({"entrant": [{"name": "x", "command": "b {port}", "workdir": ""}]}, "entrant[0].workdir="),
        ({"entrant": [{"name": "x", "class": "m:C", "sandbox": "none"}]}, "only apply to a launched command"),
        ({"entrant": [{"name": "x", "address": "nowhere"}]}, "expected HOST:PORT"),
        (
            {"entrant": [{"name": "x", "address": "h:1", "class": "a:B"}]},
            "exactly one of address, command or class",
        ),
        ({"entrant": [{"name": "x", "class": "m:C"}, {"name": "x", "class": "m:C"}]}, "used more than once"),
        ({"entrant": []}, "no [[entrant]] given"),
        ({"duplicate": "yes"}, "duplicate='yes': expected true or false"),
        ({"executor": {"kind": "ray"}}, "executor.kind='ray': expected one of 'local', 'dask'"),
        ({"executor": {"nodes": 2}}, "unknown key executor.nodes"),
        ({"executor": {"workers": 0}}, "executor.workers=0: expected an integer 1..1024"),
        ({"executor": {"kind": "local", "workers": 2}}, 'executor.workers needs kind = "dask"'),
        ({"executor": {"workers": 2, "scheduler": "tcp://h:1"}}, "give only one of workers, scheduler"),
        ({"executor": {"workers": 2, "pin_cpus": "yes"}}, "executor.pin_cpus='yes': expected true or false"),
        ({"executor": {"scheduler": "tcp://h:1", "pin_cpus": True}}, "pin_cpus applies to the local cluster"),
        ({"executor": {"kind": "local", "pin_cpus": False}}, "pin_cpus applies to the local cluster"),
    ],
)
def test_bad_config_is_rejected_with_key_value_and_allowed(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as error:
        parse_config(event(tmp_path, **change))
    assert message in str(error.value)


def test_the_executor_table_defaults_to_local_and_pins_a_local_cluster_unless_told_not_to(
    tmp_path: Path,
) -> None:
    assert parse_config(event(tmp_path)).executor.kind is ExecutorKind.LOCAL
    spec = parse_config(event(tmp_path, executor={"workers": 3})).executor
    assert (spec.kind, spec.workers, spec.pin_cpus) == ("dask", 3, True)
    assert not parse_config(event(tmp_path, executor={"kind": "dask", "pin_cpus": False})).executor.pin_cpus


def test_bad_config_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    path = write_toml(tmp_path / "bad.toml", event(tmp_path, rounds=-1))
    result = arena_cli("run", str(path))
    assert result.returncode == 2
    assert "rounds=-1" in result.stderr and "Traceback" not in result.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("name = [unclosed\n")
    result = arena_cli("run", str(broken))
    assert result.returncode == 2 and "not valid TOML" in result.stderr
    result = arena_cli("run", str(tmp_path / "missing.toml"))
    assert result.returncode == 2 and "does not exist" in result.stderr


def test_cli_flags_override_the_file(tmp_path: Path) -> None:
    path = write_toml(tmp_path / "e.toml", event(tmp_path))
    config = load_config(path).with_overrides(seed=99, rounds=2, concurrency=3, output=str(tmp_path / "o2"))
    assert (config.seed, config.rounds, config.concurrency, config.output) == (99, 2, 3, tmp_path / "o2")
    with pytest.raises(ConfigError, match="rounds=0"):
        load_config(path).with_overrides(rounds=0)


def test_example_configs_are_valid() -> None:
    examples = sorted((ROOT / "examples").glob("*.toml"))
    assert examples
    for path in examples:
        load_config(path)


# ---------------------------------------------------------------------------------------------- ratings


def test_trueskill_a_bot_that_always_wins_rises_to_the_top() -> None:
    names = ["a", "b", "c", "d", "e"]
    games = [
        RatedGame(
            i,
            f"g{i}",
            tuple(names[(i + k) % 5] for k in range(5)),
            tuple(1 if names[(i + k) % 5] == "c" else 2 + k for k in range(5)),
            (0,) * 5,
        )
        for i in range(30)
    ]
    ratings, history = rate(games, names)
    best = max(names, key=lambda n: ratings[n].mu - 3 * ratings[n].sigma)
    assert best == "c"
    assert ratings["c"].mu > 30 and all(ratings[n].mu < ratings["c"].mu for n in names if n != "c")
    assert len(history) == 30 * 5


def test_trueskill_ties_share_a_rank_and_move_alike() -> None:
    ratings, _ = rate([RatedGame(0, "g", ("a", "b", "c"), (1, 1, 3), (10, 10, 4))], ["a", "b", "c"])
    assert ratings["a"].mu == pytest.approx(ratings["b"].mu, rel=1e-3)  # TrueSkill iterates to 1e-4
    assert ratings["a"].mu > 25 > ratings["c"].mu


def test_void_games_and_excluded_seats_are_not_rated() -> None:
    ratings, history = rate(
        [
            RatedGame(0, "g", ("a", "b"), (1, 2), (10, 0), rated=False),
            RatedGame(1, "h", ("a", "b", "c"), (1, 2, 3), (10, 5, 0), excluded=("c",)),
        ],
        ["a", "b", "c"],
    )
    assert ratings["c"].mu == 25 and {h.game_id for h in history} == {"h"}


def test_ratings_are_applied_one_game_at_a_time_only_in_schedule_order() -> None:
    games = [RatedGame(1, "b", ("a", "b"), (1, 2), (10, 0)), RatedGame(0, "a", ("a", "b"), (2, 1), (0, 10))]
    with pytest.raises(AssertionError, match="seq 0"):
        apply_in_order(games, ["a", "b"])
    streamed: list[HistoryRow] = []
    ratings = apply_in_order(reversed(games), ["a", "b"], streamed.append)
    expected, history = rate(games, ["a", "b"])  # ``rate`` sorts them itself
    assert streamed == history and ratings == expected


def test_stored_rating_history_is_every_step_in_schedule_order_written_in_batches(tmp_path: Path) -> None:
    config = parse_config(event(tmp_path, rounds=4))
    asyncio.run(run_event(config))
    with Store.open(config.output) as store:
        names = [e.name for e in store.entrants()]
        _, expected = rate(list(store.rated_games()), names)
        with store.rating_history_writer(batch=7) as record:  # 4 games x 5 seats: two full batches and a rest
            compute_standings(store, record)
        query = "SELECT seq, game_id, entrant, mu, sigma FROM ratings ORDER BY seq, entrant"
        rows = [HistoryRow(*row) for row in store.database.rows(query)]
    assert len(expected) == 20
    assert rows == sorted(expected, key=lambda h: (h.seq, h.entrant))


# ---------------------------------------------------------------------------------------------- events


def test_event_in_process_standings_outputs_and_replay(tmp_path: Path) -> None:
    config = parse_config(event(tmp_path))
    summary = asyncio.run(run_event(config))
    assert summary.games_total == summary.games_played_now > 0
    names = {s.name for s in summary.standings}
    assert names == {e.name for e in config.entrants}
    assert sum(s.games for s in summary.standings) == summary.games_total * 5
    assert [s.rank for s in summary.standings] == list(range(1, 7))
    assert summary.standings[0].conservative >= summary.standings[-1].conservative
    rows = board(config.output)
    assert rows[0]["name"] == summary.standings[0].name and set(rows[0]) >= {"mu", "sigma", "maker_success"}
    csv = arena_cli("leaderboard", str(config.output), "--csv")
    assert csv.returncode == 0 and csv.stdout.splitlines()[0].startswith("rank,name,conservative")
    replay = arena_cli("replay", str(config.output), "0")
    assert replay.returncode == 0
    assert "Hand 1 — dealer" in replay.stdout and "trick 5:" in replay.stdout and "Final (" in replay.stdout
    with Store.open(config.output, create=False) as store:
        assert len(store.finished()) == summary.games_total
        ratings = store.database.all("SELECT COUNT(*) FROM ratings")[0][0]
        assert ratings == summary.games_total * 5


def test_same_seed_same_schedule_deals_and_leaderboard_at_concurrency_1_and_4(tmp_path: Path) -> None:
    one = parse_config(event(tmp_path, concurrency=1, output=str(tmp_path / "c1"), deal_key=KEY))
    four = parse_config(event(tmp_path, concurrency=4, output=str(tmp_path / "c4"), deal_key=KEY))
    asyncio.run(run_event(one))
    asyncio.run(run_event(four))
    assert board(one.output) == board(four.output)
    with Store.open(one.output) as a, Store.open(four.output) as b:
        assert a.schedule() == b.schedule()
    assert stored_hands(one.output) == stored_hands(four.output)
    other = parse_config(event(tmp_path, seed=8, output=str(tmp_path / "s8"), deal_key=KEY))
    asyncio.run(run_event(other))
    assert board(other.output) != board(one.output)


def test_fewer_entrants_than_seats_are_filled_with_named_house_bots(tmp_path: Path) -> None:
    data = event(tmp_path, entrant=event(tmp_path)["entrant"][:3], rounds=3)
    summary = asyncio.run(run_event(parse_config(data)))
    house = [s for s in summary.standings if s.house]
    assert sorted(s.name for s in house) == ["house-1", "house-2"]
    assert all(s.games == 3 for s in summary.standings)


def test_duplicate_blocks_replay_each_deal_from_every_seat(tmp_path: Path) -> None:
    data = event(tmp_path, duplicate=True, rounds=1, entrant=event(tmp_path)["entrant"][:5])
    config = parse_config(data)
    asyncio.run(run_event(config))
    with Store.open(config.output) as store:
        games = store.schedule()
        assert len(games) == 5 and len({g.seed for g in games}) == 1 and len({g.block for g in games}) == 1
        first_deck = {
            g: json.loads(
                store.database.all(
                    "SELECT record FROM hands WHERE game_id = ? AND hand_index = 0", (g.game_id,)
                )[0][0]
            )["deck"]
            for g in games
        }
        assert len({tuple(d) for d in first_deck.values()}) == 1, "every rotation gets the same first deal"
        seats_of_rules = {g.seats.index("rules") for g in games}
        assert seats_of_rules == set(range(5))


class Cheater(Bot):
    """Always plays a card it does not hold: every play is an illegal-action fault."""

    name = "cheater"

    def act(self, view: View) -> Action:
        first = view.legal_actions[0]
        if first.kind is ActionKind.PLAY:
            held = {c.id for c in view.hand or ()}
            return Action(ActionKind.PLAY, card=next(c for c in CARDS if c.id not in held and c.id < 36))
        return first


def test_a_bot_that_keeps_forfeiting_is_disqualified_but_stays_in_the_standings(tmp_path: Path) -> None:
    entrants = [*event(tmp_path)["entrant"][:4], {"name": "cheater", "class": "test_tournament:Cheater"}]
    data = event(tmp_path, entrant=entrants, rounds=7, faults={"disqualify_min_games": 3})
    summary = asyncio.run(run_event(parse_config(data)))
    cheater = next(s for s in summary.standings if s.name == "cheater")
    assert cheater.disqualified and cheater.forfeits == 3 and cheater.games == 7
    assert cheater.rank == len(summary.standings)
    with Store.open(tmp_path / "out") as store:
        late = store.database.all("SELECT COUNT(*) FROM faults WHERE game_id IN ('r004-t01', 'r005-t01')")[0]
        assert late[0] == 0, "a disqualified entrant plays no more: the autopilot takes its seat"
        excluded = store.database.all("SELECT excluded FROM games WHERE game_id = 'r007-t01'")[0][0]
        assert json.loads(excluded) == ["cheater"]


def test_resuming_a_different_event_in_the_same_directory_is_refused(tmp_path: Path) -> None:
    asyncio.run(run_event(parse_config(event(tmp_path, rounds=1))))
    with pytest.raises(ConfigError, match=r"different event.*seed"):
        asyncio.run(run_event(parse_config(event(tmp_path, rounds=1, seed=8))))


def test_killed_with_sigkill_mid_event_then_resumed_gives_the_uninterrupted_leaderboard(
    tmp_path: Path,
) -> None:
    """Resume after ``kill -9`` (the output lock dies with the arena) deals the rest with the stored secret
    key: the event equals an uninterrupted one run afterwards with that key, published (issue 9)."""
    entrants = [
        {"name": "random", "command": "{python} -m sample_bots.random --port {port}"},
        {"name": "rules", "class": "sample_bots.rules:RulesBot"},
        {"name": "random-b", "class": "sample_bots.random:RandomBot"},
        {"name": "rules-b", "command": "{python} -m sample_bots.rules --port {port}"},
        {"name": "random-c", "class": "sample_bots.random:RandomBot"},
    ]
    broken = write_toml(
        tmp_path / "broken.toml",
        event(tmp_path, entrant=entrants, rounds=12, concurrency=2, output=str(tmp_path / "broken")),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", "-q", str(broken)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    db = tmp_path / "broken" / "event.sqlite"
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and stored < 4:
        time.sleep(0.05)
        if db.exists():
            try:
                with Store.open(tmp_path / "broken", create=False) as store:
                    stored = len(store.finished())
            except Exception:
                stored = 0
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    with Store.open(tmp_path / "broken", create=False) as store:
        interrupted_at = len(store.finished())
    assert 4 <= interrupted_at < 12, "killed mid-event"
    resumed = arena_cli("run", str(broken), timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{interrupted_at} of 12 games already stored" in resumed.stdout
    whole = write_toml(
        tmp_path / "whole.toml",
        event(tmp_path, entrant=entrants, rounds=12, concurrency=2, output=str(tmp_path / "whole")),
    )
    key = (tmp_path / "broken" / "deal.key").read_text().strip()
    assert arena_cli("run", "-q", str(whole), "--deal-key", key, timeout=300).returncode == 0
    assert board(tmp_path / "broken") == board(tmp_path / "whole")
    assert stored_hands(tmp_path / "broken") == stored_hands(tmp_path / "whole")


def test_demo_runs_end_to_end(tmp_path: Path) -> None:
    result = arena_cli(
        "demo", "--rounds", "2", "--output", str(tmp_path / "demo"), "-q", "--decision-ms", "150", timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "montecarlo" in result.stdout and "demo: 2 games" in result.stdout
    assert len(board(tmp_path / "demo")) == 5
    assert f"report: {tmp_path / 'demo' / 'report.html'}" in result.stdout  # issue 12: written at the end
    assert (tmp_path / "demo" / "report.html").stat().st_size > 500_000
