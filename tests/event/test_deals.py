"""Secret deals (arena.event.deals): the deal follows from the seed *and* the event's secret key.

The attack this guards against: a bot that knows the event seed and its game id rebuilt every hand with
``GameState(config, seed=game_seed(seed, game_id)).dealt``. These tests show it fails, and that it
succeeds with the key from ``OUTPUT/deal.key`` (so they would notice if the key stopped mattering); then
bad keys, the fixed-key warning, and resuming with the stored key.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.conductor.tournament import run_event
from arena.engine.cards import card_text
from arena.engine.config import GameConfig
from arena.engine.state import GameState
from arena.errors import ConfigError
from arena.event.config import parse_config
from arena.event.deals import KEY_FILE, deal_seed, key_check, parse_key
from arena.event.schedule import game_seed
from arena.results.store import Store
from tests.helpers import KEY, arena_cli, board, event, file_mode, played, stored_hands, write_toml

FIVE = GameConfig.create("five-handed")


def dealt(seed: int) -> list[list[str]]:
    """The first hand's cards as the issue's attacker computes them."""
    return [[card_text(c) for c in hand] for hand in GameState(FIVE, seed=seed).dealt]


def first_hand(directory: Path, game_id: str) -> dict[str, Any]:
    with Store.open(directory, create=False) as store:
        row = store.database.one("SELECT record FROM hands WHERE game_id = ? AND hand_index = 0", (game_id,))
    return json.loads(row[0])


# ---------------------------------------------------------------------------------------------- the attack


def test_issue_9_attack_rebuilding_the_deal_from_seed_and_game_id_fails_but_works_with_the_key(
    tmp_path: Path,
) -> None:
    out = played(tmp_path, "out")
    record = first_hand(out, "r001-t01")
    assert dealt(game_seed(7, "r001-t01")) != record["dealt"], "the public seed alone must not give the deal"
    with Store.open(out, create=False) as store:
        stored_ints = [
            int(v)
            for row in store.database.rows("SELECT * FROM schedule WHERE game_id = 'r001-t01'")
            for v in row
            if isinstance(v, int)
        ]
    assert all(dealt(v) != record["dealt"] for v in stored_ints), "nothing in the schedule row deals it"
    key = parse_key((out / KEY_FILE).read_text())
    assert len(key) == 32
    assert dealt(deal_seed(key, game_seed(7, "r001-t01"))) == record["dealt"], "the organiser's key does"


def test_issue_9_event_sqlite_holds_neither_the_key_nor_any_deal_seed(tmp_path: Path) -> None:
    """The database may be read by whoever gets at it: no key, no deal seed of any game, played or not."""
    out = played(tmp_path, "out")
    key = parse_key((out / KEY_FILE).read_text())
    with Store.open(out, create=False) as store:
        seeds = [deal_seed(key, g.seed) for g in store.schedule()]
        with contextlib.closing(sqlite3.connect(out / "event.sqlite")) as db:
            dump = "\n".join(db.iterdump())
        assert store.meta("deal_key_check") == key_check(key)
    raw = b"".join(p.read_bytes() for p in out.glob("event.sqlite*"))
    assert key.hex() not in dump and key.hex().encode() not in raw and key not in raw
    for seed in seeds:
        assert str(seed) not in dump and str(seed).encode() not in raw
        assert seed.to_bytes(32, "big") not in raw
    replay = arena_cli("replay", str(out), "r001-t01")
    assert replay.returncode == 0 and key.hex() not in replay.stdout and str(seeds[0]) not in replay.stdout
    assert "keyed by the event's secret key" in replay.stdout
    leaderboard = arena_cli("leaderboard", str(out), "--json")
    assert leaderboard.returncode == 0 and key.hex() not in leaderboard.stdout


def test_same_seed_without_deal_key_deals_other_cards_with_the_same_key_the_same(tmp_path: Path) -> None:
    a, b = played(tmp_path, "a"), played(tmp_path, "b")
    assert (a / KEY_FILE).read_text() != (b / KEY_FILE).read_text()
    assert first_hand(a, "r001-t01")["deck"] != first_hand(b, "r001-t01")["deck"]
    with Store.open(a, create=False) as sa, Store.open(b, create=False) as sb:
        assert sa.schedule() == sb.schedule(), "schedule and seating do not depend on the key"
    c, d = played(tmp_path, "c", deal_key=KEY), played(tmp_path, "d", deal_key=KEY.upper())
    assert stored_hands(c) == stored_hands(d) and board(c) == board(d)
    assert (c / KEY_FILE).read_text().strip() == KEY


# ---------------------------------------------------------------------------------------------- deal_key


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "deal_key='abc' (3 characters): expected 32..128 hex digits"),
        ("00" * 15, "(30 characters)"),
        ("0" * 33, "(33 characters)"),
        ("g" * 32, "expected 32..128 hex digits"),
        ("0" * 130, "(130 characters)"),
        (12345, "deal_key=12345: expected"),
    ],
)
def test_bad_deal_key_is_rejected_in_one_line(tmp_path: Path, value: Any, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_config(event(tmp_path, deal_key=value))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_bad_deal_key_exits_2_without_traceback_from_the_file_and_the_flag(tmp_path: Path) -> None:
    path = write_toml(tmp_path / "bad.toml", event(tmp_path, deal_key="xyz"))
    result = arena_cli("run", str(path))
    assert result.returncode == 2 and result.stderr.startswith("error: deal_key='xyz'")
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    good = write_toml(tmp_path / "good.toml", event(tmp_path))
    result = arena_cli("run", str(good), "--deal-key", "ab" * 8)
    assert result.returncode == 2 and "deal_key='abababababababab' (16 characters)" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "out").exists(), "nothing is created for a bad key"


def test_fixed_key_with_untrusted_entrants_warns_in_one_line(tmp_path: Path) -> None:
    launched = [
        *event(tmp_path)["entrant"][:4],
        {"name": "launched", "command": "{python} -m sample_bots.random --port {port}"},
    ]
    path = write_toml(
        tmp_path / "l.toml", event(tmp_path, entrant=launched, rounds=1, deal_key=KEY, sandbox="none")
    )
    result = arena_cli("run", "-q", str(path), timeout=300)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: deal_key is fixed and launched is not trusted code: whoever learns the key can compute "
        "every deal; fix it only for experiments"
    ]
    remote = [*event(tmp_path)["entrant"][:4], {"name": "remote", "address": "127.0.0.1:9"}]
    assert parse_config(event(tmp_path, entrant=remote, deal_key=KEY)).exposed_to_fixed_key() == ["remote"]
    assert parse_config(event(tmp_path, entrant=launched)).exposed_to_fixed_key() == [], "random key"
    assert parse_config(event(tmp_path, deal_key=KEY)).exposed_to_fixed_key() == [], "trusted classes"
    quiet = arena_cli(
        "run",
        "-q",
        str(write_toml(tmp_path / "c.toml", event(tmp_path, rounds=1, output=str(tmp_path / "c")))),
    )
    assert quiet.returncode == 0 and "warning" not in quiet.stderr


# ---------------------------------------------------------------------------------------------- resume


def test_resume_refuses_a_changed_key_and_uses_the_stored_one_without(tmp_path: Path) -> None:
    out = played(tmp_path, "out", deal_key=KEY)
    other = "ab" * 32
    with pytest.raises(ConfigError, match=r"deal_key differs from the key .* dealt with"):
        asyncio.run(run_event(parse_config(event(tmp_path, rounds=2, output=str(out), deal_key=other))))
    path = write_toml(tmp_path / "o.toml", event(tmp_path, rounds=3, output=str(out), deal_key=other))
    result = arena_cli("run", "-q", str(path))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    # rounds is part of the fingerprint, so extend nothing: resume the same event without deal_key
    summary = asyncio.run(run_event(parse_config(event(tmp_path, rounds=2, output=str(out)))))
    assert summary.games_played_now == 0 and (out / KEY_FILE).read_text().strip() == KEY


def test_resume_after_interruption_deals_the_rest_with_the_stored_key(tmp_path: Path) -> None:
    """In-process: drop the last stored games (as if killed), resume without deal_key, compare."""
    broken = played(tmp_path, "broken")
    key = (broken / KEY_FILE).read_text().strip()
    with Store.open(broken, create=False) as store, store.transaction() as db:
        for table in ("hands", "game_seats", "faults"):
            db.execute(f"DELETE FROM {table} WHERE game_id LIKE 'r002-%'")
        db.execute("DELETE FROM games WHERE game_id LIKE 'r002-%'")
    summary = asyncio.run(run_event(parse_config(event(tmp_path, rounds=2, output=str(broken)))))
    assert summary.games_played_now == 1
    again = played(tmp_path, "again", deal_key=key)
    assert stored_hands(broken) == stored_hands(again) and board(broken) == board(again)


def test_lost_or_wrong_key_file_with_stored_games_is_a_clear_error(tmp_path: Path) -> None:
    out = played(tmp_path, "out")
    key = (out / KEY_FILE).read_text().strip()
    path = write_toml(tmp_path / "e.toml", event(tmp_path, rounds=2, output=str(out)))
    (out / KEY_FILE).unlink()
    result = arena_cli("run", "-q", str(path))
    assert (
        result.returncode == 2 and "deal.key is missing but 2 games of this event are stored" in result.stderr
    )
    assert len(result.stderr.splitlines()) == 1 and not (out / KEY_FILE).exists(), "never a silent new key"
    (out / KEY_FILE).write_text("not a key\n")
    result = arena_cli("run", "-q", str(path))
    assert result.returncode == 2 and "the key file is damaged" in result.stderr
    (out / KEY_FILE).write_text("cd" * 32 + "\n")
    result = arena_cli("run", "-q", str(path))
    assert result.returncode == 2 and "is not the key this event was dealt with" in result.stderr
    (out / KEY_FILE).unlink()
    result = arena_cli("run", "-q", str(path), "--deal-key", key)  # the published key restores the file
    assert result.returncode == 0, result.stderr
    assert (out / KEY_FILE).read_text().strip() == key and file_mode(out / KEY_FILE) == 0o600


def test_events_stored_before_secret_deals_resume_and_replay_with_the_public_seed(tmp_path: Path) -> None:
    """No check value in the database = an older event: its remaining games are dealt as it began."""
    out = played(tmp_path, "out")
    with Store.open(out, create=False) as store, store.transaction() as db:
        db.execute("DELETE FROM meta WHERE key = 'deal_key_check'")
        for table in ("hands", "game_seats", "faults"):
            db.execute(f"DELETE FROM {table} WHERE game_id = 'r002-t01'")
        db.execute("DELETE FROM games WHERE game_id = 'r002-t01'")
    (out / KEY_FILE).unlink()
    with pytest.raises(ConfigError, match="begun by an older arena"):
        asyncio.run(run_event(parse_config(event(tmp_path, rounds=2, output=str(out), deal_key=KEY))))
    asyncio.run(run_event(parse_config(event(tmp_path, rounds=2, output=str(out)))))
    assert first_hand(out, "r002-t01")["dealt"] == dealt(game_seed(7, "r002-t01"))
    assert not (out / KEY_FILE).exists()
    replay = arena_cli("replay", str(out), "r002-t01")
    assert replay.returncode == 0 and f"deal seed {game_seed(7, 'r002-t01')}" in replay.stdout
