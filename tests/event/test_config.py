"""The event's configuration (arena.event.config): every bad key or value is refused naming the key, the value
and what is allowed; the ``[executor]``, ``[entrants]`` and ``[ranking]`` tables; overrides from the command
line; the example configs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.event.config import STARTUP_TIMEOUT_S, ExecutorKind, load_config, parse_config
from arena.executor.local import STARTING_AT_ONCE
from tests.helpers import ROOT, arena_cli, event, write_toml


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
        (
            {"executor": {"workers": 2, "tls_ca_file": "ca", "tls_cert": "c"}},
            "makes a certificate of its own",
        ),
        ({"executor": {"scheduler": "tls://h:1", "tls_cert": "c"}}, "needs both tls_ca_file and tls_cert"),
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


def test_entrants_defaults_table_applies_to_launched_entrants_that_do_not_set_a_key() -> None:
    cfg = parse_config(
        {
            "game": {"variant": "five-handed"},
            "entrants": {"startup_timeout_s": 45, "memory_mb": 256, "sandbox": "none", "env": {"A": "1"}},
            "entrant": [
                {"name": "a", "command": "{python} bot.py {address}"},
                {"name": "b", "command": "{python} bot.py {address}", "memory_mb": 512, "env": {"B": "2"}},
                {"name": "c", "class": "sample_bots.random:RandomBot"},
            ],
        }
    )
    a, b, c = cfg.entrants
    assert (a.startup_timeout_s, a.memory_mb, a.sandbox, a.env) == (45.0, 256, "none", (("A", "1"),))
    assert (b.startup_timeout_s, b.memory_mb, b.env) == (45.0, 512, (("A", "1"), ("B", "2")))
    assert (c.startup_timeout_s, c.memory_mb, c.sandbox) == (STARTUP_TIMEOUT_S, None, None), (
        "class: untouched"
    )
    plain = parse_config({"game": {"variant": "classic"}, "entrant": [{"name": "x", "command": "p {port}"}]})
    assert plain.entrants[0].startup_timeout_s == STARTUP_TIMEOUT_S
    assert STARTING_AT_ONCE >= 2


@pytest.mark.parametrize(
    ("entrants", "expected"),
    [
        ({"startup_time": 5}, "unknown key entrants.startup_time"),
        ({"name": "x"}, "unknown key entrants.name"),
        ({"startup_timeout_s": 0}, "entrants.startup_timeout_s=0"),
        ({"sandbox": "docker"}, "entrants.sandbox='docker'"),
        ([{"name": "x"}], "[[entrant]]"),
    ],
)
def test_a_bad_entrants_table_is_refused_with_its_key(entrants: Any, expected: str, tmp_path: Path) -> None:
    data = {
        "game": {"variant": "five-handed"},
        "entrants": entrants,
        "entrant": [{"name": "a", "class": "m:C"}],
    }
    with pytest.raises(ConfigError, match=None) as info:
        parse_config(data)
    assert expected in str(info.value)
    if isinstance(entrants, dict):
        path = write_toml(tmp_path / "e.toml", {"game": {"variant": "five-handed"}, "entrants": entrants})
        result = arena_cli("run", str(path))
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1


def test_ranking_config_is_checked_key_by_key() -> None:
    base = {"game": {"variant": "call-ace"}, "entrant": [{"name": "x", "class": "m:C"}]}
    assert parse_config(base | {"ranking": {"confidence": 0.8, "max_games": 60}}).ranking.max_games == 60
    for bad, message in (
        ({"confidence": 1.5}, r"ranking.confidence=1.5: expected a probability"),
        ({"max_games": 0}, r"ranking.max_games=0"),
        ({"method": "elo"}, r"ranking.method='elo'"),
        ({"confidenc": 0.9}, r"unknown key ranking.confidenc"),
        ({"tie_margin": "0.05"}, r"ranking.tie_margin='0.05': expected points per hand 0..10"),
        ({"sharpen": 1.75}, r"ranking.sharpen is no longer an option: the pair probabilities are now fitted"),
    ):
        with pytest.raises(ConfigError, match=message):
            parse_config(base | {"ranking": bad})
