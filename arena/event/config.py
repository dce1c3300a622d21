"""A tournament's configuration: TOML in, one frozen, validated value out.

Every error names the key (as a dotted path), the value, and what is allowed, so an organiser can fix a
file without reading code; the CLI turns ``ConfigError`` into exit code 2. Unknown keys are errors, never
ignored: a typo must not silently change an event. See ``docs/config.md`` and ``examples/``.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.engine.config import GameConfig
from arena.errors import ConfigError
from arena.event.deals import parse_key
from arena.event.faults import FaultPolicy
from arena.stats.leaderboard import RankingConfig

TOP_KEYS = (
    "name",
    "seed",
    "rounds",
    "concurrency",
    "output",
    "duplicate",
    "deal_key",
    "game",
    "faults",
    "house",
    "ranking",
    "entrant",
    "entrants",
    "sandbox",
    "executor",
)
EXECUTOR_KEYS = ("kind", "workers", "scheduler", "scheduler_file", "pin_cpus")
EXECUTOR_KINDS = ("local", "dask")
ENTRANT_KEYS = (
    "name",
    "address",
    "command",
    "class",
    "memory_mb",
    "cpu_s",
    "startup_timeout_s",
    "sandbox",
    "workdir",
    "env",
)
LAUNCH_KEYS = ("memory_mb", "cpu_s", "startup_timeout_s", "sandbox", "workdir", "env")
"""Keys that only concern a launched (``command``) entrant; the ``[entrants]`` table gives their defaults."""
SANDBOX_MODES = ("bubblewrap", "none")
STARTUP_TIMEOUT_S = 20.0
"""How long a launched bot has to report SERVING, counted from when its own start begins (bots start a
few at a time, ``arena.executor.local.STARTING_AT_ONCE``); generous, so a loaded machine does not fail
them."""
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")


@dataclass(frozen=True, slots=True)
class EntrantSpec:
    """One entrant: exactly one of a running bot's ``address``, a ``command`` to launch, or an in-process
    ``class`` (``module:Class``, trusted code only)."""

    name: str
    kind: str  # "address" | "command" | "class"
    target: str
    memory_mb: int | None = None
    cpu_s: int | None = None
    startup_timeout_s: float = STARTUP_TIMEOUT_S
    sandbox: str | None = None  # None: the event's setting
    workdir: str | None = None  # the directory the sandbox shows the bot; None: its program's directory
    env: tuple[tuple[str, str], ...] = ()  # added to the sandbox's cleared environment

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            self.kind: self.target,
            "memory_mb": self.memory_mb,
            "cpu_s": self.cpu_s,
            "startup_timeout_s": self.startup_timeout_s,
            "sandbox": self.sandbox,
            "workdir": self.workdir,
            "env": dict(self.env),
        }


@dataclass(frozen=True, slots=True)
class ExecutorSpec:
    """Where tables are played: on the arena's own event loop (``local``) or on Dask workers (``dask``).

    Never part of the fingerprint: for deterministic bots the results are the same whatever plays them, so
    an event may be resumed under another executor.
    """

    kind: str = "local"
    workers: int | None = None  # dask: start a local cluster of this many worker processes
    scheduler: str | None = None  # dask: join the cluster of this scheduler (tcp://HOST:PORT)
    scheduler_file: str | None = None  # dask: ... or of the scheduler that wrote this file
    pin_cpus: bool = True  # dask, local cluster: each worker and its bots on a share of the CPUs of their own

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "workers": self.workers,
            "scheduler": self.scheduler,
            "scheduler_file": self.scheduler_file,
            "pin_cpus": self.pin_cpus,
        }


def parse_executor(raw: Mapping[str, Any], where: str = "executor") -> ExecutorSpec:
    """The ``[executor]`` table (or the equivalent command-line flags), checked key by key.

    :raises ConfigError: an unknown key, kind or a bad value.
    """
    for key in raw:
        if key not in EXECUTOR_KEYS:
            raise ConfigError(f"unknown key {where}.{key}: allowed keys are {', '.join(EXECUTOR_KEYS)}")
    kind = raw.get("kind", "dask" if any(k in raw for k in EXECUTOR_KEYS[1:]) else "local")
    if kind not in EXECUTOR_KINDS:
        raise ConfigError(f"{where}.kind={kind!r}: expected one of {', '.join(map(repr, EXECUTOR_KINDS))}")
    workers = raw.get("workers")
    if workers is not None and (
        not isinstance(workers, int) or isinstance(workers, bool) or not 1 <= workers <= 1024
    ):
        raise ConfigError(f"{where}.workers={workers!r}: expected an integer 1..1024")
    for key in ("scheduler", "scheduler_file"):
        if raw.get(key) is not None and (not isinstance(raw[key], str) or not raw[key]):
            raise ConfigError(f"{where}.{key}={raw[key]!r}: expected a non-empty string")
    given = [k for k in ("workers", "scheduler", "scheduler_file") if raw.get(k) is not None]
    if len(given) > 1:
        raise ConfigError(
            f"{where}: give only one of workers, scheduler or scheduler_file (got {', '.join(given)})"
        )
    if kind == "local" and given:
        raise ConfigError(f'{where}.{given[0]} needs kind = "dask"')
    pin = raw.get("pin_cpus", True)
    if not isinstance(pin, bool):
        raise ConfigError(f"{where}.pin_cpus={pin!r}: expected true or false")
    if "pin_cpus" in raw and (kind == "local" or raw.get("scheduler") or raw.get("scheduler_file")):
        raise ConfigError(
            f'{where}.pin_cpus applies to the local cluster the arena starts (kind = "dask" with workers); '
            "pin the workers of a cluster you start yourself with taskset (docs/scale-out.md)"
        )
    return ExecutorSpec(kind, workers, raw.get("scheduler"), raw.get("scheduler_file"), pin)


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    name: str
    seed: int
    rounds: int
    concurrency: int
    output: Path
    duplicate: bool
    game: GameConfig
    faults: FaultPolicy
    entrants: tuple[EntrantSpec, ...]
    house: EntrantSpec
    ranking: RankingConfig = field(default_factory=RankingConfig)
    sandbox: str = "bubblewrap"  # for launched entrants that do not say otherwise
    executor: ExecutorSpec = field(default_factory=lambda: ExecutorSpec())
    source: Path | None = None  # the TOML file, hidden from sandboxed bots
    base: Path | None = None  # relative paths in the config are relative to this (the TOML file's dir)

    def path(self, value: str) -> Path:
        """A path written in the config, as the arena must open it."""
        return (self.base / value) if self.base is not None else Path(value)

    # A fixed secret deal key (``deal_key``), or None for a fresh random key per event (arena/event/deals.py).
    # Kept out of repr, to_dict and the fingerprint: what those produce is printed and stored.
    deal_key: bytes | None = field(default=None, repr=False)

    def sandbox_of(self, entrant: EntrantSpec) -> str:
        return entrant.sandbox or self.sandbox

    def with_overrides(self, **overrides: Any) -> TournamentConfig:
        """The same config with command-line overrides applied (``None`` = not given) and re-validated."""
        given = {k: v for k, v in overrides.items() if v is not None}
        for key, value in given.items():
            if key == "output":
                given[key] = Path(value)
            elif key == "deal_key":
                given[key] = parse_key(value)
            elif key == "executor":
                if not isinstance(value, ExecutorSpec):
                    raise ConfigError(f"executor={value!r}: expected an executor spec")
            else:
                _check_top(key, value)
        return replace(self, **given)

    def fingerprint(self) -> dict[str, Any]:
        """What fixes the schedule and the deals: a resumed event must have the same. Not ``rounds``: an
        event may grow by rounds and keep every game it played (``Store.begin_event``)."""
        return {
            "seed": self.seed,
            "duplicate": self.duplicate,
            "game": self.game.to_dict(),
            "entrants": [e.name for e in self.entrants],
            "house": self.house.name,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seed": self.seed,
            "rounds": self.rounds,
            "concurrency": self.concurrency,
            "output": str(self.output),
            "duplicate": self.duplicate,
            "game": self.game.to_dict(),
            "faults": self.faults.to_dict(),
            "entrants": [e.to_dict() for e in self.entrants],
            "house": self.house.to_dict(),
            "ranking": self.ranking.to_dict(),
            "sandbox": self.sandbox,
            "executor": self.executor.to_dict(),
            "deal_key": "fixed" if self.deal_key is not None else "random",
        }

    def exposed_to_fixed_key(self) -> list[str]:
        """Entrants (and the house) the arena does not trust, launched or remote, when the deal key is fixed:
        a fixed key is written in the config, and whoever learns it can compute every deal."""
        if self.deal_key is None:
            return []
        return [e.name for e in (*self.entrants, self.house) if e.kind != "class"]


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a TOML file.

    :raises ConfigError: for a missing or unreadable file, bad TOML, or any bad key or value.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {str(path)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {str(path)!r} is not valid TOML: {exc}") from None
    return parse_config(data, base=path.resolve().parent, source=path.resolve())


def parse_config(
    data: Mapping[str, Any], base: Path | None = None, source: Path | None = None
) -> TournamentConfig:
    """Validate a config already read into a mapping.

    ``base`` is the directory relative paths in the config are taken from: the TOML file's, so that an
    event runs the same from any working directory (``output``, ``workdir``, and the programs and files in
    ``command``, which is run from there). None (a config built in code): the working directory.
    """
    for key in data:
        if key not in TOP_KEYS:
            raise ConfigError(f"unknown key {key!r}: allowed top-level keys are {', '.join(TOP_KEYS)}")
    name = data.get("name", "event")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(f"name={name!r}: expected 1-64 letters, digits, '_', '.', '+' or '-'")
    values: dict[str, Any] = {"seed": 1, "rounds": 10, "concurrency": 4, "duplicate": False}
    for key in values:
        if key in data:
            _check_top(key, data[key])
            values[key] = data[key]
    output = data.get("output", f"results/{name}")
    if not isinstance(output, str) or not output:
        raise ConfigError(f"output={output!r}: expected a directory path")
    game = _section(data, "game")
    variant = game.pop("variant", None)
    if variant is None:
        raise ConfigError("game.variant is missing: expected 'call-ace', 'five-handed' or 'classic'")
    try:
        game_config = GameConfig.create(variant, **game)
    except ConfigError as exc:
        raise ConfigError(f"[game] {exc}") from None
    faults = FaultPolicy.from_dict(_section(data, "faults"))
    executor = parse_executor(_section(data, "executor"))
    entrants_raw = data.get("entrant", [])
    if not isinstance(entrants_raw, list) or not all(isinstance(e, dict) for e in entrants_raw):
        raise ConfigError("entrant must be a list of tables ([[entrant]] sections)")
    if not entrants_raw:
        raise ConfigError("no [[entrant]] given: a tournament needs at least one entrant")
    if isinstance(data.get("entrants"), list):
        raise ConfigError(
            "entrants must be one table ([entrants]: defaults for every launched entrant); each entrant is "
            "an [[entrant]] section"
        )
    defaults = _launch_keys(_section(data, "entrants"), "entrants")
    entrants = tuple(_entrant(e, f"entrant[{i}]", defaults) for i, e in enumerate(entrants_raw))
    names = [e.name for e in entrants]
    for dup in sorted({n for n in names if names.count(n) > 1}):
        raise ConfigError(f"entrant name {dup!r} is used more than once: names must be unique")
    house_raw = _section(data, "house") or {"name": "house", "class": "sample_bots.random:RandomBot"}
    house_raw.setdefault("name", "house")
    house = _entrant(house_raw, "house", defaults)
    if any(n == house.name or n.startswith(house.name + "-") for n in names):
        raise ConfigError(f"house.name={house.name!r} clashes with an entrant name; choose another")
    sandbox = data.get("sandbox", "bubblewrap")
    if sandbox not in SANDBOX_MODES:
        raise ConfigError(f"sandbox={sandbox!r}: expected one of {', '.join(map(repr, SANDBOX_MODES))}")
    deal_key = parse_key(data["deal_key"]) if "deal_key" in data else None
    # A relative output is relative to the working directory, like every path given on a command line.
    return TournamentConfig(
        sandbox=sandbox,
        executor=executor,
        name=name,
        deal_key=deal_key,
        output=(base / output) if base is not None else Path(output),
        base=base,
        source=source,
        game=game_config,
        faults=faults,
        entrants=entrants,
        house=house,
        ranking=RankingConfig.from_dict(_section(data, "ranking")),
        **values,
    )


def _section(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    section = data.get(key, {})
    if not isinstance(section, dict):
        raise ConfigError(f"{key} must be a table ([{key}]), got {section!r}")
    return dict(section)


_TOP_RULES: dict[str, tuple[type, int, int]] = {
    "seed": (int, 0, 2**63 - 1),
    "rounds": (int, 1, 1_000_000),
    "concurrency": (int, 1, 256),
}


def _check_top(key: str, value: Any) -> None:
    if key == "sandbox":
        if value not in SANDBOX_MODES:
            raise ConfigError(f"sandbox={value!r}: expected one of {', '.join(map(repr, SANDBOX_MODES))}")
        return
    if key == "duplicate":
        if not isinstance(value, bool):
            raise ConfigError(f"duplicate={value!r}: expected true or false")
        return
    if key not in _TOP_RULES:
        raise ConfigError(f"unknown setting {key!r}")
    _, lo, hi = _TOP_RULES[key]
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ConfigError(f"{key}={value!r}: expected an integer {lo}..{hi}")


def _launch_keys(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The launch keys of an ``[[entrant]]`` (or the ``[entrants]`` defaults table), checked one by one.

    :raises ConfigError: a bad value (or, for the ``entrants`` table, any other key).
    """
    if where == "entrants":
        for key in raw:
            if key not in LAUNCH_KEYS:
                raise ConfigError(
                    f"unknown key entrants.{key}: the [entrants] table gives defaults for launched entrants; "
                    f"allowed keys are {', '.join(LAUNCH_KEYS)}"
                )
    limits: dict[str, Any] = {}
    for key, lo, hi in (("memory_mb", 16, 1_000_000), ("cpu_s", 1, 10_000_000)):
        if key in raw:
            value = raw[key]
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ConfigError(f"{where}.{key}={value!r}: expected an integer {lo}..{hi}")
            limits[key] = value
    if "startup_timeout_s" in raw:
        value = raw["startup_timeout_s"]
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value <= 600:
            raise ConfigError(f"{where}.startup_timeout_s={value!r}: expected seconds in (0, 600]")
        limits["startup_timeout_s"] = float(value)
    if "sandbox" in raw:
        if raw["sandbox"] not in SANDBOX_MODES:
            raise ConfigError(
                f"{where}.sandbox={raw['sandbox']!r}: expected one of {', '.join(map(repr, SANDBOX_MODES))}"
            )
        limits["sandbox"] = raw["sandbox"]
    if "workdir" in raw:
        if not isinstance(raw["workdir"], str) or not raw["workdir"]:
            raise ConfigError(f"{where}.workdir={raw['workdir']!r}: expected a directory path")
        limits["workdir"] = raw["workdir"]
    if "env" in raw:
        env = raw["env"]
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and _ENV_NAME.match(k) and isinstance(v, str) for k, v in env.items()
        ):
            raise ConfigError(f'{where}.env={env!r}: expected a table of NAME = "value" strings')
        limits["env"] = tuple(sorted(env.items()))
    return limits


def _entrant(raw: Mapping[str, Any], where: str, defaults: Mapping[str, Any] | None = None) -> EntrantSpec:
    """One ``[[entrant]]`` (or the ``[house]``); a launched one takes ``defaults`` for the keys it omits."""
    defaults = defaults or {}
    for key in raw:
        if key not in ENTRANT_KEYS:
            raise ConfigError(f"unknown key {where}.{key}: allowed keys are {', '.join(ENTRANT_KEYS)}")
    name = raw.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(f"{where}.name={name!r}: expected 1-64 letters, digits, '_', '.', '+' or '-'")
    kinds = [k for k in ("address", "command", "class") if k in raw]
    if len(kinds) != 1:
        raise ConfigError(
            f"{where} ({name}) needs exactly one of address, command or class; got "
            f"{', '.join(kinds) or 'none'}"
        )
    kind, target = kinds[0], raw[kinds[0]]
    if not isinstance(target, str) or not target.strip():
        raise ConfigError(f"{where}.{kind}={target!r}: expected a non-empty string")
    if kind == "address" and not (
        re.match(r"^[^\s:]+:\d{1,5}$", target) and 0 < int(target.rsplit(":", 1)[1]) < 65536
    ):
        raise ConfigError(f"{where}.address={target!r}: expected HOST:PORT, e.g. 127.0.0.1:50051")
    if kind == "command":
        try:
            parts = shlex.split(target)
        except ValueError as exc:
            raise ConfigError(f"{where}.command={target!r}: cannot be split into arguments: {exc}") from None
        if not any("{port}" in p or "{address}" in p for p in parts):
            raise ConfigError(
                f"{where}.command={target!r}: must contain {{address}} or {{port}}, where the arena puts the "
                "address (or TCP port) the bot listens on"
            )
    if kind == "class" and not re.match(r"^[\w.]+:\w+$", target):
        raise ConfigError(f"{where}.class={target!r}: expected 'package.module:ClassName'")
    limits = _launch_keys(raw, where)
    if kind != "command" and limits:
        raise ConfigError(f"{where}: {', '.join(LAUNCH_KEYS)} only apply to a launched command")
    if kind == "command":
        # The [entrants] defaults, for what the entrant does not set itself; env tables are merged.
        env = dict(defaults.get("env", ())) | dict(limits.get("env", ()))
        limits = dict(defaults) | limits | ({"env": tuple(sorted(env.items()))} if env else {})
    return EntrantSpec(name=name, kind=kind, target=target, **limits)
