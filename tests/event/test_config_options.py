"""The config's options, declared once (arena/options.py): one bad value per declared option gives the message
organisers have always been given, and the stored form of a config keeps its keys, their order and types.

The cases are generated from the declarations, so an option added without a case here fails
``test_every_declared_option_has_a_case`` rather than going unchecked. The expected messages are written
out, as the arena printed them before the options were declared as data.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from arena import options
from arena.errors import ConfigError
from arena.event.config import (
    ENTRANT_KEYS,
    LAUNCH_KEYS,
    TOP_KEYS,
    EntrantKind,
    EntrantSpec,
    ExecutorKind,
    ExecutorSpec,
    TournamentConfig,
    parse_config,
    parse_executor,
)
from arena.event.faults import FaultPolicy, ForfeitResult
from arena.sandbox import SandboxMode
from arena.stats.leaderboard import RankingConfig

CMD = "{python} -m sample_bots.random --address {address}"
BASE: dict[str, Any] = {
    "name": "ev",
    "seed": 3,
    "rounds": 2,
    "game": {"variant": "five-handed"},
    "entrant": [{"name": f"b{i}", "class": "sample_bots.random:RandomBot"} for i in range(5)],
}
SECTIONS: dict[str, type] = {
    "top": TournamentConfig,
    "faults": FaultPolicy,
    "ranking": RankingConfig,
    "executor": ExecutorSpec,
    "entrant": EntrantSpec,
}

# (section, key) -> (a bad value, the message it gives)
CASES: dict[tuple[str, str], tuple[Any, str]] = {
    ("top", "name"): ("", "name='': expected 1-64 letters, digits, '_', '.', '+' or '-'"),
    ("top", "seed"): (2**63, "seed=9223372036854775808: expected an integer 0..9223372036854775807"),
    ("top", "rounds"): (0, "rounds=0: expected an integer 1..1000000"),
    ("top", "concurrency"): (0, "concurrency=0: expected an integer 1..256"),
    ("top", "output"): ("", "output='': expected a directory path"),
    ("top", "duplicate"): ("x", "duplicate='x': expected true or false"),
    ("top", "sandbox"): ("x", "sandbox='x': expected one of 'bubblewrap', 'none'"),
    ("top", "deal_key"): (
        "zz" * 16,
        "deal_key='zzzzzzzz...' (32 characters): expected 32..128 hex digits "
        "(e.g. python3 -c 'import secrets; print(secrets.token_hex(32))')",
    ),
    ("faults", "decision_ms"): (0, "faults.decision_ms=0: expected an integer 1..600000"),
    ("faults", "time_bank_ms"): (-1, "faults.time_bank_ms=-1: expected an integer 0..3600000"),
    ("faults", "max_faults_per_game"): (
        1_000_001,
        "faults.max_faults_per_game=1000001: expected an integer 0..1000000",
    ),
    ("faults", "forfeit_result"): ("x", "faults.forfeit_result='x': expected 'loss' or 'void'"),
    ("faults", "disqualify_share"): (0, "faults.disqualify_share=0: expected a number in (0, 1]"),
    ("faults", "disqualify_min_games"): (0, "faults.disqualify_min_games=0: expected an integer 1..1000000"),
    ("faults", "restart_backoff_s"): (
        3601,
        "faults.restart_backoff_s=3601: expected a number of seconds 0..3600",
    ),
    ("faults", "restart_backoff_max_s"): (
        -1,
        "faults.restart_backoff_max_s=-1: expected a number of seconds 0..3600",
    ),
    ("ranking", "method"): (
        "centred",
        "ranking.method='centred': expected one of auto, points, paired, trueskill",
    ),
    ("ranking", "confidence"): (0.5, "ranking.confidence=0.5: expected a probability in (0.5, 1)"),
    ("ranking", "max_games"): (0, "ranking.max_games=0: expected an integer 1..10000000"),
    ("ranking", "check_every"): (1_000_001, "ranking.check_every=1000001: expected an integer 1..1000000"),
    ("ranking", "tie_margin"): (-0.1, "ranking.tie_margin=-0.1: expected points per hand 0..10"),
    ("ranking", "look_growth"): (0.5, "ranking.look_growth=0.5: expected a factor 1..100"),
    ("ranking", "first_look"): (0, "ranking.first_look=0: expected an integer 1..10000000"),
    ("ranking", "settle"): ("best", "ranking.settle='best': expected one of order, winner, top, tiers"),
    ("ranking", "top"): (0, "ranking.top=0: expected an integer 1..10000"),
    ("executor", "kind"): ("x", "executor.kind='x': expected one of 'local', 'dask'"),
    ("executor", "workers"): (1025, "executor.workers=1025: expected an integer 1..1024"),
    ("executor", "scheduler"): ("", "executor.scheduler='': expected a non-empty string"),
    ("executor", "scheduler_file"): ("", "executor.scheduler_file='': expected a non-empty string"),
    ("executor", "pin_cpus"): ("x", "executor.pin_cpus='x': expected true or false"),
    ("executor", "tls_ca_file"): (" ca.pem", "executor.tls_ca_file=' ca.pem': expected a file path"),
    ("executor", "tls_cert"): ("", "executor.tls_cert='': expected a file path"),
    ("executor", "tls_key"): ("k\x00", "executor.tls_key='k\\x00': expected a file path"),
    ("entrant", "name"): ("", "entrant[0].name='': expected 1-64 letters, digits, '_', '.', '+' or '-'"),
    ("entrant", "memory_mb"): (15, "entrant[0].memory_mb=15: expected an integer 16..1000000"),
    ("entrant", "cpu_s"): (0, "entrant[0].cpu_s=0: expected an integer 1..10000000"),
    ("entrant", "startup_timeout_s"): (0, "entrant[0].startup_timeout_s=0: expected seconds in (0, 600]"),
    ("entrant", "sandbox"): ("x", "entrant[0].sandbox='x': expected one of 'bubblewrap', 'none'"),
    ("entrant", "workdir"): ("", "entrant[0].workdir='': expected a directory path"),
    ("entrant", "env"): (
        {"1A": "x"},
        "entrant[0].env={'1A': 'x'}: expected a table of NAME = \"value\" strings",
    ),
}


def config_with(section: str, key: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    if section == "top":
        data[key] = value
    elif section == "entrant":
        data["entrant"][0] = {"name": "cmd", "command": CMD, key: value}
    else:
        data[section] = {key: value}
    return data


DECLARED = [(section, key) for section, cls in SECTIONS.items() for key in options.keys(cls)]


def test_every_declared_option_has_a_case() -> None:
    assert sorted(DECLARED) == sorted(CASES)


@pytest.mark.parametrize(("section", "key"), DECLARED, ids=[f"{s}.{k}" for s, k in DECLARED])
def test_a_bad_value_gives_the_message_it_always_gave(section: str, key: str) -> None:
    value, message = CASES[section, key]
    with pytest.raises(ConfigError) as caught:
        parse_config(config_with(section, key, value))
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("where", "raw"),
    [("entrants", {"memory_mb": 15}), ("house", {"command": CMD, "memory_mb": 15})],
)
def test_the_entrant_defaults_and_the_house_are_checked_by_the_same_declarations(
    where: str, raw: dict[str, Any]
) -> None:
    data = copy.deepcopy(BASE) | {where: raw}
    with pytest.raises(ConfigError, match=rf"^{where}\.memory_mb=15: expected an integer 16\.\.1000000$"):
        parse_config(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"bogus": 1},
            "unknown key 'bogus': allowed top-level keys are name, seed, rounds, concurrency, output, "
            "duplicate, deal_key, game, faults, house, ranking, entrant, entrants, sandbox, executor",
        ),
        (
            {"faults": {"bogus": 1}},
            "unknown key faults.bogus: allowed keys are decision_ms, disqualify_min_games, disqualify_share, "
            "forfeit_result, max_faults_per_game, restart_backoff_max_s, restart_backoff_s, time_bank_ms",
        ),
        (
            {"ranking": {"bogus": 1}},
            "unknown key ranking.bogus: allowed keys are method, confidence, max_games, check_every, "
            "tie_margin, look_growth, first_look, settle, top",
        ),
        (
            {"executor": {"bogus": 1}},
            "unknown key executor.bogus: allowed keys are kind, workers, scheduler, scheduler_file, "
            "pin_cpus, tls_ca_file, tls_cert, tls_key",
        ),
        (
            {"entrants": {"bogus": 1}},
            "unknown key entrants.bogus: the [entrants] table gives defaults for launched entrants; "
            "allowed keys are memory_mb, cpu_s, startup_timeout_s, sandbox, workdir, env",
        ),
        (
            {"entrant": [{"name": "a", "class": "m:C", "bogus": 1}]},
            "unknown key entrant[0].bogus: allowed keys are name, address, command, class, memory_mb, cpu_s, "
            "startup_timeout_s, sandbox, workdir, env",
        ),
        (
            {"entrant": [{"name": "a", "class": "m:C", "memory_mb": 64}]},
            "entrant[0]: memory_mb, cpu_s, startup_timeout_s, sandbox, workdir, env only apply to a launched "
            "command",
        ),
    ],
)
def test_unknown_keys_are_listed_from_the_declarations(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(copy.deepcopy(BASE) | data)
    assert str(caught.value) == message


def test_the_key_lists_follow_the_declarations() -> None:
    assert LAUNCH_KEYS == ("memory_mb", "cpu_s", "startup_timeout_s", "sandbox", "workdir", "env")
    assert ENTRANT_KEYS[:4] == ("name", "address", "command", "class") and ENTRANT_KEYS[4:] == LAUNCH_KEYS
    sections = {"game", "faults", "house", "ranking", "entrant", "entrants", "executor"}
    assert set(TOP_KEYS) == set(options.keys(TournamentConfig)) | sections


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("seed", -1, "seed=-1: expected an integer 0..9223372036854775807"),
        ("rounds", True, "rounds=True: expected an integer 1..1000000"),
        ("concurrency", 257, "concurrency=257: expected an integer 1..256"),
        ("duplicate", 1, "duplicate=1: expected true or false"),
        ("sandbox", "docker", "sandbox='docker': expected one of 'bubblewrap', 'none'"),
        ("name", "x", "unknown setting 'name'"),
    ],
)
def test_command_line_overrides_are_checked_like_the_file(key: str, value: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(copy.deepcopy(BASE)).with_overrides(**{key: value})
    assert str(caught.value) == message


# What the arena stored for these configs before the options were declared as data, byte for byte: each
# event's database holds it, and a resumed event compares it.
FULL = (
    '{"name": "ev", "seed": 3, "rounds": 2, "concurrency": 7, "output": "o/p", "duplicate": true, '
    '"game": {"variant": "five-handed", "num_players": 5, "target": 10, "max_hands": 1000, '
    '"first_dealer": 0, "may_discard_upcard": true, "deck": "30", "joker_names": false, '
    '"call_may_be_trump": true, "two_expose_mode": "free_choice"}, "faults": {"decision_ms": 5, '
    '"time_bank_ms": 0, "max_faults_per_game": 3, "forfeit_result": "void", "disqualify_share": 1, '
    '"disqualify_min_games": 4, "restart_backoff_s": 1, "restart_backoff_max_s": 2.5}, '
    '"entrants": [{"name": "c", "command": "{python} -m sample_bots.random --address {address}", '
    '"memory_mb": 100, "cpu_s": 7, "startup_timeout_s": 5.0, "sandbox": "none", "workdir": "w", '
    '"env": {"A": "1", "B": "3", "C": "4"}}, {"name": "b1", "class": "sample_bots.random:RandomBot", '
    '"memory_mb": null, "cpu_s": null, "startup_timeout_s": 20.0, "sandbox": null, "workdir": null, '
    '"env": {}}], "house": {"name": "house", '
    '"command": "{python} -m sample_bots.random --address {address}", "memory_mb": 100, "cpu_s": 9, '
    '"startup_timeout_s": 5.0, "sandbox": "none", "workdir": "w", "env": {"A": "1", "B": "2", '
    '"Z": "1"}}, "ranking": {"method": "paired", "confidence": 0.9, "max_games": 10, "check_every": 3, '
    '"tie_margin": 2.0, "look_growth": 1.5, "first_look": 100}, "sandbox": "none", '
    '"executor": {"kind": "dask", "workers": 2, "scheduler": null, '
    '"scheduler_file": null, "pin_cpus": false}, "deal_key": "fixed"}'
)
DEFAULTS = (
    '{"name": "ev", "seed": 3, "rounds": 2, "concurrency": 4, "output": "results/ev", '
    '"duplicate": false, "game": {"variant": "five-handed", "num_players": 5, "target": 10, '
    '"max_hands": 1000, "first_dealer": 0, "may_discard_upcard": true, "deck": "30", '
    '"joker_names": false, "call_may_be_trump": true, "two_expose_mode": "free_choice"}, '
    '"faults": {"decision_ms": 1000, "time_bank_ms": 0, "max_faults_per_game": 3, '
    '"forfeit_result": "loss", "disqualify_share": 0.5, "disqualify_min_games": 4, '
    '"restart_backoff_s": 0.5, "restart_backoff_max_s": 30.0}, "entrants": [{"name": "b0", '
    '"class": "sample_bots.random:RandomBot", "memory_mb": null, "cpu_s": null, '
    '"startup_timeout_s": 20.0, "sandbox": null, "workdir": null, "env": {}}], '
    '"house": {"name": "house", "class": "sample_bots.random:RandomBot", "memory_mb": null, '
    '"cpu_s": null, "startup_timeout_s": 20.0, "sandbox": null, "workdir": null, "env": {}}, '
    '"ranking": {"method": "auto", "confidence": 0.95, "max_games": 1000, "check_every": 25, '
    '"tie_margin": 0.08, "look_growth": 1.5, "first_look": 100}, "sandbox": "bubblewrap", '
    '"executor": {"kind": "local", "workers": null, '
    '"scheduler": null, "scheduler_file": null, "pin_cpus": true}, "deal_key": "random"}'
)


def full_config() -> TournamentConfig:
    return parse_config(
        {
            **BASE,
            "sandbox": "none",
            "duplicate": True,
            "deal_key": "ab" * 16,
            "output": "o/p",
            "concurrency": 7,
            "faults": {
                "decision_ms": 5,
                "disqualify_share": 1,
                "restart_backoff_s": 1,
                "restart_backoff_max_s": 2.5,
                "forfeit_result": "void",
            },
            "ranking": {
                "method": "paired",
                "confidence": 0.9,
                "tie_margin": 2,
                "max_games": 10,
                "check_every": 3,
            },
            "executor": {"workers": 2, "pin_cpus": False},
            "entrants": {
                "memory_mb": 100,
                "env": {"A": "1", "B": "2"},
                "startup_timeout_s": 5,
                "sandbox": "none",
                "workdir": "w",
                "cpu_s": 9,
            },
            "entrant": [
                {"name": "c", "command": CMD, "env": {"B": "3", "C": "4"}, "cpu_s": 7},
                BASE["entrant"][1],
            ],
            "house": {"command": CMD, "env": {"Z": "1"}},
        }
    )


def test_the_stored_form_is_byte_for_byte_what_it_was() -> None:
    assert json.dumps(full_config().to_dict()) == FULL
    assert json.dumps(parse_config({**BASE, "entrant": BASE["entrant"][:1]}).to_dict()) == DEFAULTS


def test_each_section_comes_back_from_its_stored_form() -> None:
    config = full_config()
    stored = json.loads(json.dumps(config.to_dict()))
    assert FaultPolicy.from_dict(stored["faults"]) == config.faults
    assert RankingConfig.from_dict(stored["ranking"]) == config.ranking
    assert ExecutorSpec(**stored["executor"]) == config.executor
    assert parse_executor({"workers": 2, "pin_cpus": False}) == config.executor
    entrant = stored["entrants"][0]
    assert entrant["command"] == CMD and config.entrants[0].env == tuple(sorted(entrant["env"].items()))


def test_values_are_held_as_their_enums_and_stored_as_their_text() -> None:
    config = full_config()
    assert config.faults.forfeit_result is ForfeitResult.VOID
    assert config.executor.kind is ExecutorKind.DASK
    assert config.sandbox is SandboxMode.NONE and config.entrants[0].sandbox is SandboxMode.NONE
    assert [e.kind for e in config.entrants] == [EntrantKind.COMMAND, EntrantKind.CLASS]
    stored = config.to_dict()
    assert type(stored["sandbox"]) is str and type(stored["faults"]["forfeit_result"]) is str
    assert type(stored["executor"]["kind"]) is str and type(stored["entrants"][0]["sandbox"]) is str
    assert config.ranking.tie_margin == 2.0 and type(config.ranking.tie_margin) is float  # written as 2
