"""The conductor (arena.conductor.tournament) running whole events in this process: standings, outputs and
replay; the same event at any concurrency; house bots, duplicate blocks, disqualification; refusing another
event's directory; the overload warning; and ``--until-settled``: stops when settled or at the budget,
extends a finished or interrupted event, resumes identically.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from arena.conductor.tournament import OverloadWatch, Stopped, run_event
from arena.errors import ConfigError, FaultKind
from arena.event.config import parse_config
from arena.results.record import Fault
from arena.results.store import Store
from arena.stats.confidence import look
from arena.stats.leaderboard import compute_leaderboard
from arena.stats.sequential import Verdict
from arena.stats.tally import Tally
from tests.helpers import (
    FOUR_SAMPLE_BOTS,
    KEY,
    LADDER,
    Watch,
    arena_cli,
    board,
    call_ace_event,
    event,
    stored_hands,
)

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
    assert csv.returncode == 0 and csv.stdout.splitlines()[0].startswith("rank,place,name,score,")
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


def test_a_bot_that_keeps_forfeiting_is_disqualified_but_stays_in_the_standings(tmp_path: Path) -> None:
    entrants = [*event(tmp_path)["entrant"][:4], {"name": "cheater", "class": "tests.bots.inprocess:Cheater"}]
    data = event(tmp_path, entrant=entrants, rounds=7, faults={"disqualify_min_games": 3})
    summary = asyncio.run(run_event(parse_config(data)))
    cheater = next(s for s in summary.standings if s.name == "cheater")
    assert cheater.disqualified and cheater.forfeits == 3 and cheater.games == 7
    assert cheater.rank == len(summary.standings)
    with Store.open(tmp_path / "out") as store:
        late = store.database.one("SELECT COUNT(*) FROM faults WHERE game_id IN ('r004-t01', 'r005-t01')")
        assert late[0] == 0, "a disqualified entrant plays no more: the autopilot takes its seat"
        excluded = store.database.all("SELECT excluded FROM games WHERE game_id = 'r007-t01'")[0][0]
        assert json.loads(excluded) == ["cheater"]


def test_resuming_a_different_event_in_the_same_directory_is_refused(tmp_path: Path) -> None:
    asyncio.run(run_event(parse_config(event(tmp_path, rounds=1))))
    with pytest.raises(ConfigError, match=r"different event.*seed"):
        asyncio.run(run_event(parse_config(event(tmp_path, rounds=1, seed=8))))


def _fault(seat: int, kind: FaultKind) -> Fault:
    return Fault("x", "g", seat, 0, 1, kind, "", 0.0, "PASS")


class _Result:
    """Enough of a TableResult for the overload watch."""

    def __init__(self, decisions: int, harness: int) -> None:
        self.decisions = decisions
        self.faults = tuple(_fault(0, FaultKind.HARNESS) for _ in range(harness))


def test_the_overload_warning_comes_once_when_harness_lateness_is_frequent() -> None:
    watch = OverloadWatch(concurrency=8)
    assert watch.add(_Result(400, 1)) is None  # type: ignore[arg-type]
    assert watch.add(_Result(400, 2)) is None, "3 in 800: rare"  # type: ignore[arg-type]
    warning = watch.add(_Result(400, 5))  # type: ignore[arg-type]
    assert warning is not None and "overloaded" in warning and "--concurrency 4" in warning
    assert watch.add(_Result(10, 10)) is None, "said once"  # type: ignore[arg-type]


def test_arena_run_is_told_once_when_the_machine_is_overloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conductor hands the watch every finished game and passes its one warning on."""
    seen: list[int] = []

    def add(self: OverloadWatch, result: Any) -> str | None:
        seen.append(result.decisions)
        return "warning: this machine is overloaded" if len(seen) == 2 else None

    monkeypatch.setattr(OverloadWatch, "add", add)
    cfg = parse_config(
        {
            "rounds": 3,
            "output": str(tmp_path / "out"),
            "game": {"variant": "five-handed"},
            "entrant": FOUR_SAMPLE_BOTS[:3],
        }
    )
    notices: list[str] = []
    watch = Watch()
    asyncio.run(run_event(cfg, watch))
    notices.extend(watch.notices)
    assert len(seen) == 3 and all(d > 0 for d in seen)
    assert notices.count("warning: this machine is overloaded") == 1


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
    return call_ace_event(tmp_path / name, entrants, rounds=5, ranking=settings, deal_key="5a" * 16)


def figures(directory: Path) -> tuple[Any, ...]:
    with Store.open(directory) as store:
        board = compute_leaderboard(store)
        return (
            [(s.name, s.games, s.points, round(s.mu, 9)) for s in board.standings],
            board.confidence.to_dict(),
            sorted(store.finished()),
        )


def test_until_settled_stops_when_every_adjacent_pair_is_settled(tmp_path: Path) -> None:
    """Five bots of distinct strength, duplicate: it stops at the first look where all four adjacent pairs
    are ordered, before the budget, and every earlier look had an open pair; the leaderboard printed at the
    end states the figures of that last look."""
    entrants = [
        {"name": f"eps{k}", "class": f"sample_bots.noisy:Noisy{k}"} for k in ("00", "20", "40", "60", "100")
    ]
    ranking = {"confidence": 0.8, "max_games": 400, "check_every": 10, "look_growth": 1.0}
    config = parse_config(call_ace_event(tmp_path, entrants, rounds=2, duplicate=True, ranking=ranking))
    looks: list[Any] = []
    summary = asyncio.run(
        run_event(config, Watch(on_extend=lambda n, seen: looks.append(seen)), until_settled=True)
    )
    assert summary.stopped is Stopped.SETTLED and summary.confidence.settled
    assert summary.games_total < 400 and summary.games_total == 10 + 10 * len(looks)
    assert looks and all(not seen.settled for seen in looks)
    with Store.open(config.output) as store:
        tally = Tally([e.name for e in store.entrants()]).add(store.rated_games()).close()
    last = look(tally, "auto", 0.8, config.seed)
    assert summary.confidence.adjacent == last.adjacent and summary.confidence.pairwise == last.pairwise


def test_until_settled_on_two_identical_bots_never_orders_them(tmp_path: Path) -> None:
    """Two copies of one bot (the house bots fill the table): at no look is the pair ordered; with a margin
    the games can show, it ends tied; with one too fine for 60 games it ends at the budget, still open."""
    entrants = [{"name": n, "class": "sample_bots.noisy:Noisy20"} for n in ("same-a", "same-b")]
    for margin, budget in ((0.6, 200), (0.05, 60)):
        verdicts: list[Verdict] = []

        def record(_total: int, seen: Any, verdicts: list[Verdict] = verdicts) -> None:
            verdicts.extend(p.verdict for p in seen.adjacent if {p.upper, p.lower} == {"same-a", "same-b"})

        ranking = {"max_games": budget, "check_every": 20, "tie_margin": margin}
        config = parse_config(call_ace_event(tmp_path / str(margin), entrants, rounds=20, ranking=ranking))
        summary = asyncio.run(run_event(config, Watch(on_extend=record), until_settled=True))
        final = [p for p in summary.confidence.adjacent if {p.upper, p.lower} == {"same-a", "same-b"}]
        verdicts += [p.verdict for p in final]
        assert Verdict.ABOVE not in verdicts
        if margin == 0.6:
            assert final and final[0].verdict is Verdict.TIED and summary.games_total < budget
            assert summary.confidence.places()[:2] == ["1–2", "1–2"]
        else:
            assert summary.stopped is Stopped.BUDGET and summary.games_total == budget


def test_until_settled_stops_at_the_budget_and_names_the_open_pairs(tmp_path: Path) -> None:
    """One strong bot and four equal ones (the house bots fill the table): the equal ones never settle."""
    entrants = [{"name": "strong", "class": "sample_bots.noisy:Noisy00"}]
    ranking = {"confidence": 0.9, "max_games": 40, "check_every": 10, "look_growth": 1.0}
    looks: list[int] = []
    summary = asyncio.run(
        run_event(
            parse_config(call_ace_event(tmp_path, entrants, rounds=5, ranking=ranking)),
            Watch(on_extend=lambda n, seen: looks.append(n)),
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
        asyncio.run(run_event(broken, Watch(stop_after_some), until_settled=True))
    with Store.open(broken.output) as store:
        assert len(store.schedule()) > 12 > 5 and len(store.finished()) == 12
    resumed = asyncio.run(run_event(broken, until_settled=True))
    assert resumed.resumed and resumed.games_total == whole.games_total
    assert figures(broken.output) == figures(straight.output)


def test_a_resumed_event_may_grow_but_keeps_its_games(tmp_path: Path) -> None:
    config = parse_config(call_ace_event(tmp_path, LADDER, rounds=2))
    asyncio.run(run_event(config))
    with Store.open(config.output) as store:
        first = store.schedule()
    more = asyncio.run(run_event(parse_config(call_ace_event(tmp_path, LADDER, rounds=4))))
    with Store.open(config.output) as store:
        assert (
            store.schedule()[: len(first)] == first and more.games_total == 4 and more.games_played_now == 2
        )
    fewer = asyncio.run(run_event(parse_config(call_ace_event(tmp_path, LADDER, rounds=1))))
    assert fewer.games_total == 4 and fewer.games_played_now == 0  # the stored schedule is kept whole


def test_until_settled_with_planned_looks_stops_only_at_a_planned_look(tmp_path: Path) -> None:
    """Planned looks (first 10 games, doubling, budget 200): the 3 scheduled games are extended to the first
    planned look, every extension ends on a planned look, no look that could stop it was settled before the
    stop, and the stop is itself planned; the leaderboard printed states that look's verdicts."""
    entrants = [
        {"name": f"eps{k}", "class": f"sample_bots.noisy:Noisy{k}"} for k in ("00", "20", "40", "60", "100")
    ]
    ranking = {"confidence": 0.8, "max_games": 200, "look_growth": 2.0, "first_look": 10}
    config = parse_config(call_ace_event(tmp_path, entrants, rounds=3, ranking=ranking))
    plan = config.ranking.plan()
    assert plan is not None and plan.points(1) == [10, 20, 40, 80, 160, 200]
    grown: list[tuple[int, Any]] = []
    summary = asyncio.run(
        run_event(config, Watch(on_extend=lambda n, seen: grown.append((n, seen))), until_settled=True)
    )
    assert [n for n, _ in grown] == [p for p in plan.points(1) if p <= summary.games_total][: len(grown)]
    assert summary.games_total in plan.points(1)
    assert all(not seen.settled for n, seen in grown[1:])  # the look at 3 games could not stop it
    with Store.open(config.output) as store:
        tally = Tally([e.name for e in store.entrants()]).add(store.rated_games()).close()
    last = look(tally, "auto", 0.8, config.seed, plan=plan)
    assert summary.confidence.adjacent == last.adjacent
    assert summary.confidence.planned_looks == plan.looks()
