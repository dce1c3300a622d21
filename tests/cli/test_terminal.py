"""What the organiser reads in a terminal or a log: every command, run as a real process with COLUMNS=80,
prints no line over 80 characters; the leaderboard says one order plainly (its number first, ties said,
no raw value in a cell); a log gets progress lines; ``arena match`` says its LLR against its bounds, even
for two bots that play alike."""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from rich.console import Console

import arena.stats.leaderboard
from arena.cli.progress import Eta, Every, TerminalProgress
from arena.errors import ConfigError
from arena.stats.confidence import collect, confidence
from arena.stats.rating import RatedGame, Standing
from arena.stats.sprt import SprtResult, SprtSettings, SprtState
from arena.stats.wording import rating_note, verdict_sentence
from tests.helpers import LADDER, arena_cli, call_ace_event, write_toml

ENV = {**os.environ, "COLUMNS": "80"}
RAW = re.compile(r"\b(True|False|None|nan|inf)\b|[{}]|\d\.\d{4,}|\de[+-]\d")
"""A Python or JSON value, or an unrounded float, leaking into a cell."""

NAMES = ["rules", "rules-copy", "random-player", "random-b", "random-c", "noisy-one", "noisy-two"]
CLASSES = ["rules:RulesBot"] * 2 + ["random:RandomBot"] * 3 + ["noisy:Noisy40", "noisy:Noisy60"]


def run(*args: str, code: int = 0) -> str:
    result = arena_cli(*args, env=ENV)
    assert result.returncode == code, f"arena {' '.join(args)}: {result.stdout}{result.stderr}"
    return result.stdout + result.stderr


def too_long(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line.rstrip()) > 80]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A five-handed event of seven in-process bots, run by ``arena run`` into a log (not a terminal)."""
    tmp = tmp_path_factory.mktemp("terminal")
    data = {
        "name": "t",
        "seed": 5,
        "rounds": 8,
        "concurrency": 2,
        "output": str(tmp / "out"),
        "sandbox": "none",
        "game": {"variant": "five-handed"},
        "entrant": [{"name": n, "class": f"sample_bots.{c}"} for n, c in zip(NAMES, CLASSES, strict=True)],
    }
    config = write_toml(tmp / "event.toml", data)
    out = run("run", str(config), "--progress-every", "2", "--standings-every", "4")
    return tmp, tmp / "out", out


def test_every_command_fits_80_columns(played: tuple[Path, Path, str]) -> None:
    """Each command in a process of its own, two at a time: they only read the event (or write a file of
    their own), and each waits mostly on its own interpreter's start."""
    tmp, out, ran = played
    calls: dict[str, tuple[list[str], int]] = {}
    for args in (
        ["leaderboard", str(out)],
        ["leaderboard", str(out), "--explain"],
        ["games", str(out)],
        ["replay", str(out), "0"],
        ["ask", str(out), "0", "--decision", "7"],
        ["ask", str(out), "0", "--decision", "7", "--whole-hand", "-o", str(tmp / "asked.json")],
        ["faults", str(out)],
        ["export", str(out), "-o", str(tmp / "export")],
        ["report", str(out), "-o", str(tmp / "r.html")],
        ["version"],
    ):
        calls[" ".join(args)] = (args, 0)
    match = ["sample_bots.noisy:Noisy00", "sample_bots.noisy:Noisy100", "--max-deals", "10"]
    calls["match"] = (["match", *match, "--output", str(tmp / "match"), "--sandbox", "none"], 0)
    rules = "{python} -m sample_bots.rules --address {address}"
    calls["check-bot"] = (["check-bot", "--sandbox", "none", "--command", rules], 0)
    commands = ["", "run", "demo", "leaderboard", "replay", "report", "games", "faults", "export", "match"]
    commands += ["check-bot", "ask", "version", "serve", "invite", "submit", "status"]
    for command in commands:
        calls[f"{command} --help"] = ([*([command] if command else []), "--help"], 0)
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = {name: pool.submit(run, *args, code=code) for name, (args, code) in calls.items()}
        outputs = {"run": ran} | {name: future.result() for name, future in done.items()}
    outputs["match leaderboard"] = run("leaderboard", str(tmp / "match"))  # once the match has stored
    for name, text in outputs.items():
        assert text.strip(), f"arena {name} printed nothing"
        # the paths are the user's, as long as the test's temporary directory (longer under pytest-xdist):
        # the arena's own words must fit, so each path is measured as if it were /tmp/t/...
        text = text.replace(str(tmp), "/tmp/t")
        assert not too_long(text), f"arena {name}: lines over 80 columns:\n" + "\n".join(too_long(text))


def test_a_log_gets_progress_lines_and_interim_standings(played: tuple[Path, Path, str]) -> None:
    _, _, ran = played
    lines = re.findall(r"^t: (\d+) of 8 games \(\d+%\), ETA \d:\d\d:\d\d, faults: \d+$", ran, re.M)
    assert [int(n) for n in lines] == [2, 4, 6, 8], ran
    # Asked after game 4, computed on a thread from what is stored by then: games 5 to 8 may be in already,
    # and the title counts the games the standings were computed on.
    assert re.search(r"^standings after [4-8] of 8 games", ran, re.M), ran
    assert "━" not in ran, "no bar drawn into a log"


def test_interim_standings_leave_the_event_loop_free(
    played: tuple[Path, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The standings are computed beside the games: while they are computed, the event loop (where the
    games in flight wait for their bots) keeps running. No timing: the computation waits until the loop has
    run a step after ``standings()`` returned; computed on the loop itself it would wait in vain."""
    _, out, _ = played
    loop_ran = threading.Event()
    real = arena.stats.leaderboard.compute_leaderboard

    def after_the_loop(*args: object, **kwargs: object) -> object:
        assert loop_ran.wait(20), "the event loop stood still while the standings were computed"
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(arena.stats.leaderboard, "compute_leaderboard", after_the_loop)
    text = io.StringIO()
    progress = TerminalProgress("t", str(out), quiet=False, console=Console(file=text, width=80))

    async def playing() -> None:
        progress.done, progress.total = 4, 8
        progress.standings()
        await asyncio.sleep(0)
        loop_ran.set()

    asyncio.run(playing())
    progress.stop()  # waits for the standings: they print before the end, whole
    assert "standings after 8 of 8 games" in text.getvalue(), text.getvalue()


def test_progress_every_reads_seconds_or_games_and_refuses_the_rest(tmp_path: Path) -> None:
    assert Every.parse("10s") == Every(seconds=10) and Every.parse("50") == Every(games=50)
    assert Every.parse("0") == Every()
    for bad in ("x", "-1", "2.5", "10m"):
        with pytest.raises(ConfigError, match="--progress-every"):
            Every.parse(bad)
    result = arena_cli("run", str(tmp_path / "none.toml"), "--progress-every", "soon", env=ENV)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr


def test_the_eta_does_not_jump_when_games_finish_in_bursts() -> None:
    """Four tables finish together every 4 s: the ETA, read every half second, counts down steadily."""
    eta, done, shown = Eta(), 0, []
    eta.start(0, 0.0)
    for tick in range(1, 161):
        now = tick / 2
        if tick % 8 == 0:
            for _ in range(4):
                done += 1
                eta.finished(done, now)
        left = eta.seconds_left(100, now)
        if left is not None:
            shown.append(left)
    assert shown and shown[-1] < shown[0]
    steps = [b - a for a, b in itertools.pairwise(shown)]
    assert max(steps) < 1.0, f"the ETA rose by {max(steps):.1f} s at a burst"


def test_the_leaderboard_says_one_order_plainly(tmp_path: Path) -> None:
    """A ladder of noisy bots: the table leads with the order's number, which never rises down the table,
    TrueSkill stands after it as the rating, and no cell holds a raw value."""
    config = write_toml(tmp_path / "e.toml", call_ace_event(tmp_path, LADDER, rounds=30))
    run("run", str(config), "--quiet")
    text = run("leaderboard", str(tmp_path / "out"))
    rows = json.loads(run("leaderboard", str(tmp_path / "out"), "--json"))
    assert "Ordered by points per hand" in text
    assert "house-1 (house)" in text, "a house bot is marked beside its name"
    header = next(line for line in text.splitlines() if line.startswith("place"))
    assert header.split()[:3] == ["place", "entrant", "pts/hand"]
    assert header.index("pts/hand") < header.index("TrueSkill") and "mu-3" not in header
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores, reverse=True), "the order is by the score it says"
    places = {r["place"] for r in rows}
    table = [line.split() for line in text.splitlines() if line.split()[:1] and line.split()[0] in places]
    shown = [float(next(c for c in cells[2:] if not c.startswith("("))) for cells in table]
    assert len(shown) == len(rows) and shown == sorted(shown, reverse=True), "and the printed column agrees"
    assert list(rows[0])[:4] == ["rank", "place", "name", "score"], "the order's figures come first in JSON"
    for line in text.splitlines():
        assert not RAW.search(line), f"a raw value in {line!r}"
    csv_head, *csv_rows = run("leaderboard", str(tmp_path / "out"), "--csv").splitlines()
    assert csv_head.startswith("rank,place,name,score,score_lo,score_hi,")
    assert not any(re.search(r"\b(True|False|None)\b|[{}]", r) for r in csv_rows)


def test_identical_bots_are_said_to_be_tied(tmp_path: Path) -> None:
    entrants = [{"name": f"same-{i}", "class": "sample_bots.rules:RulesBot"} for i in range(5)]
    config = write_toml(tmp_path / "e.toml", call_ace_event(tmp_path, entrants, rounds=12))
    run("run", str(config), "--quiet")
    text = " ".join(run("leaderboard", str(tmp_path / "out")).split())
    rows = json.loads(run("leaderboard", str(tmp_path / "out"), "--json"))
    assert "No winner yet: any of the 5 ranked entrants may be first" in text, text
    assert "One tier: no group of entrants is yet shown better than the rest." in text
    assert {r["place"] for r in rows} == {"1–5"}
    assert {tuple(r["rank_range"]) for r in rows} == {(1, 5)} and {r["tier"] for r in rows} == {1}


def test_the_verdict_sentence_names_settled_and_tied_runs() -> None:
    """a is clearly best; b and c score the same; d is noisy and close to them: one settled place, then a
    run the evidence cannot separate (b = c shown tied, c ? d open)."""
    from random import Random

    rng = Random(3)
    games = [
        game(i, (30 + rng.randint(-2, 2), 10, 10 + rng.choice((-1, 1)), rng.randint(-10, 30)))
        for i in range(200)
    ]
    conf = confidence(collect(games, list("abcd")), "points", 0.95, 1, margin=0.2)
    assert conf.places() == ["1", "2–4", "2–4", "2–4"]
    b, c = conf.order[1], conf.order[2]
    assert verdict_sentence(conf) == (
        "a is first (every other entrant is shown below someone, at 0.95). 2 tiers: places 1, 2–4 (each "
        "entrant of a tier is shown better than every entrant of a lower tier). Tied (shown within 0.2 "
        f"points per hand): 2 {b} and 3 {c}."
    )
    standings = [Standing(n, mu, 1.0) for n, mu in zip(conf.order, (20, 30, 25, 24), strict=True)]
    note = rating_note(standings, conf)
    assert note is not None and f"{conf.order[1]} above a" in note and "not margins" in note


def game(seq: int, scores: tuple[int, ...]) -> RatedGame:
    ranks = tuple(1 + sum(t > s for t in scores) for s in scores)
    return RatedGame(seq, f"g{seq}", ("a", "b", "c", "d"), ranks, scores, hands=10)


def test_match_says_the_llr_against_its_bounds_and_survives_identical_bots() -> None:
    settings = SprtSettings()
    same = SprtState(10, 0.0, 0.0, -5e10, settings.lower, settings.upper, SprtResult.H0)
    text = " ".join(same.render(settings).split())
    assert "LLR past the lower -2.94 bound" in text and "bounds [-2.94, +2.94]" in text
    assert "50000000000" not in text and "e+" not in text and "±" not in text
    assert "on every deal (the two played alike" in text
    assert "past a bound" in same.line() and len(same.line()) <= 80
    open_ = SprtState(20, 0.02, 0.1, 1.47, settings.lower, settings.upper, SprtResult.UNDECIDED)
    text = " ".join(open_.render(settings).split())
    assert "LLR +1.47 of bounds [-2.94, +2.94] (50% of the way to H1)" in text
    assert "(95% interval -0.024 to +0.064)" in text and "±" not in text
    assert all(len(line) <= 80 for line in open_.render(settings).splitlines())


def test_match_of_two_identical_bots_prints_no_runaway_llr(tmp_path: Path) -> None:
    out = run(
        "match",
        "sample_bots.rules:RulesBot",
        "sample_bots.rules:RulesBot",
        "--max-deals",
        "10",
        "--output",
        str(tmp_path / "m"),
        code=1,
    )
    assert "LLR past the lower -2.94 bound" in " ".join(out.split()), out
    assert not re.search(r"\d{7,}\.\d\d", out) and not too_long(out)
