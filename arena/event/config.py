"""A tournament's configuration: TOML in, one frozen, validated value out.

Every error names the key (as a dotted path), the value, and what is allowed, so an organiser can fix a
file without reading code; the CLI turns ``ConfigError`` into exit code 2. Unknown keys are errors, never
ignored: a typo must not silently change an event. See ``docs/config.md`` and ``examples/``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena import options
from arena.engine.config import GameConfig
from arena.errors import ConfigError
from arena.event.deals import MAX_KEY_BYTES, MIN_KEY_BYTES, parse_key
from arena.event.faults import FaultPolicy
from arena.options import Flag, OneOf, Parsed, Range, Text, option, section
from arena.sandbox import SandboxMode
from arena.stats.leaderboard import RankingConfig


class EntrantKind(StrEnum):
    """How the arena reaches an entrant: its one key of ``address``, ``command`` and ``class``."""

    ADDRESS = "address"  # a bot the organiser runs: HOST:PORT
    COMMAND = "command"  # a program the arena launches (and confines, and keeps for the whole event)
    CLASS = "class"  # module:Class run inside the arena: trusted code only


class ExecutorKind(StrEnum):
    """Where tables are played (``[executor] kind``)."""

    LOCAL = "local"  # on the arena's own event loop
    DASK = "dask"  # on Dask workers


STARTUP_TIMEOUT_S = 20.0
"""How long a launched bot has to report SERVING, counted from when its own start begins (bots start a
few at a time, ``arena.executor.local.STARTING_AT_ONCE``); generous, so a loaded machine does not fail
them."""
DEFAULT_MEMORY_MB = 1024
"""The memory limit of a launched bot whose config sets none (``memory_mb``). Measured with
``bench/bot_memory.py``: every sample bot stays far below it (docs/security.md has the figures); it also
leaves room for the address space that gRPC's threads and Node's V8 reserve, which is what counts where
the limit falls back to ``RLIMIT_AS``. Without a default, one bot held 2,000 MB under the default config."""
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME = Text("1-64 letters, digits, '_', '.', '+' or '-'", re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$"))
_SANDBOX = OneOf(SandboxMode)
_PATH_TEXT = re.compile(r"^(?!\s)[^\x00-\x1f\x7f]*(?<!\s)$")
"""A path as an organiser means one: not empty, not only or around spaces (``--output " "`` is a slip, not
a directory named by a space), and no control characters (a NUL cannot reach the file system at all)."""
_PATH = Text("a directory path", _PATH_TEXT)
_FILE = Text("a file path", _PATH_TEXT)


_ENV_TABLE = 'a table of NAME = "value" strings'


def _env(value: Any, path: str) -> tuple[tuple[str, str], ...]:
    """An ``env`` table, held sorted so that two spellings of the same table are the same spec."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and _ENV_NAME.match(k) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(f"{path}={value!r}: expected {_ENV_TABLE}")
    return tuple(sorted(value.items()))


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrantSpec:
    """One entrant: exactly one of a running bot's ``address``, a ``command`` to launch, or an in-process
    ``class`` (``module:Class``, trusted code only). Every option after ``name`` concerns only a launched
    (``command``) entrant; the ``[entrants]`` table gives their defaults."""

    name: str = option(check=_NAME, doc="unique name in the standings")
    kind: EntrantKind
    target: str  # the value of its ``kind`` key
    memory_mb: int | None = option(
        None, Range(16, 1_000_000), "memory limit of the bot's processes", shown=str(DEFAULT_MEMORY_MB)
    )
    cpu_s: int | None = option(None, Range(1, 10_000_000), "CPU seconds for the whole event")
    startup_timeout_s: float = option(
        STARTUP_TIMEOUT_S,
        Range(0, 600, "seconds", integer=False, open_lo=True, to_float=True),
        "seconds to wait for the bot's SERVING",
    )
    sandbox: SandboxMode | None = option(
        None, _SANDBOX, "how this bot is confined, overriding the event's", shown="the event's sandbox"
    )
    workdir: str | None = option(
        None,
        _PATH,
        "the directory the sandbox shows the bot",
        shown="its program",
    )
    env: tuple[tuple[str, str], ...] = option(
        (),
        Parsed(_env, _ENV_TABLE),
        "added to the sandbox's cleared environment",
        dump=dict,
    )

    def to_dict(self) -> dict[str, Any]:
        data = options.to_dict(self)
        return {"name": data.pop("name"), self.kind.value: self.target, **data}


LAUNCH_KEYS = tuple(key for key in options.keys(EntrantSpec) if key != "name")
ENTRANT_KEYS = ("name", *EntrantKind, *LAUNCH_KEYS)


@dataclass(frozen=True, slots=True)
class ExecutorSpec:
    """Where tables are played: on the arena's own event loop (``local``) or on Dask workers (``dask``).

    Never part of the fingerprint: for deterministic bots the results are the same whatever plays them, so
    an event may be resumed under another executor.
    """

    kind: ExecutorKind = option(ExecutorKind.LOCAL, OneOf(ExecutorKind), "where tables are played")
    workers: int | None = option(
        None,
        Range(1, 1024),
        "dask: start a local cluster of this many worker processes",
        shown='2 (with "dask" and no scheduler)',
    )
    scheduler: str | None = option(None, Text(), "dask: join the cluster of this scheduler (tcp://HOST:PORT)")
    scheduler_file: str | None = option(None, Text(), "dask: ... or of the scheduler that wrote this file")
    pin_cpus: bool = option(True, Flag(), "local cluster: each worker and its bots on CPUs of their own")
    tls_ca_file: str | None = option(
        None, _FILE, "a cluster you started: the CA its certificates are signed by (PEM)"
    )
    tls_cert: str | None = option(None, _FILE, "... the arena's certificate, signed by that CA (PEM)")
    tls_key: str | None = option(
        None, _FILE, "... its private key (PEM), unless the certificate file holds it"
    )

    def to_dict(self) -> dict[str, Any]:
        """The stored form; the TLS files only when given, so an event's stored config stays what it was
        before they existed (bench/same_behaviour.sh compares it)."""
        data = options.to_dict(self)
        return {k: v for k, v in data.items() if v is not None or k not in TLS_KEYS}


_CLUSTERS = ("workers", "scheduler", "scheduler_file")
"""The ways of naming a Dask cluster; give at most one."""
TLS_KEYS = ("tls_ca_file", "tls_cert", "tls_key")
"""How the arena proves itself to a cluster that speaks TLS (the local cluster makes its own)."""


def parse_executor(raw: Mapping[str, Any], where: str = "executor") -> ExecutorSpec:
    """The ``[executor]`` table (or the equivalent command-line flags), checked key by key.

    :raises ConfigError: an unknown key, kind or a bad value.
    """
    options.reject_unknown(raw, options.keys(ExecutorSpec), where)
    dask = any(k in raw for k in options.keys(ExecutorSpec) if k != "kind")  # any dask key implies dask
    raw = {"kind": ExecutorKind.DASK if dask else ExecutorKind.LOCAL} | dict(raw)
    values = options.parse(ExecutorSpec, raw, where)
    _check_cluster(values, "pin_cpus" in raw, where)
    return ExecutorSpec(**values)


def _check_cluster(values: Mapping[str, Any], pin_given: bool, where: str) -> None:
    """At most one way of naming the cluster, only for ``dask``, and ``pin_cpus`` only for the local cluster
    the arena starts itself."""
    given = [k for k in _CLUSTERS if values.get(k) is not None]
    if len(given) > 1:
        raise ConfigError(
            f"{where}: give only one of workers, scheduler or scheduler_file (got {', '.join(given)})"
        )
    local = values["kind"] is ExecutorKind.LOCAL
    if local and given:
        raise ConfigError(f'{where}.{given[0]} needs kind = "dask"')
    running = bool(values.get("scheduler") or values.get("scheduler_file"))
    if pin_given and (local or running):
        raise ConfigError(
            f'{where}.pin_cpus applies to the local cluster the arena starts (kind = "dask" with workers); '
            "pin the workers of a cluster you start yourself with taskset (docs/scale-out.md)"
        )
    tls = [k for k in TLS_KEYS if values.get(k) is not None]
    if tls and not running:
        raise ConfigError(
            f"{where}.{tls[0]} applies to a cluster you started (scheduler or scheduler_file); the local "
            "cluster the arena starts makes a certificate of its own for each event"
        )
    if tls and not (values.get("tls_ca_file") and values.get("tls_cert")):
        raise ConfigError(
            f"{where}: TLS needs both tls_ca_file and tls_cert (and tls_key, unless in tls_cert)"
        )


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
"""The keys of a config file, in the order the reference (and the unknown-key message) lists them: the
options of ``TournamentConfig`` and its sections (``entrant``: the list; ``entrants``: their defaults)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentConfig:
    """A whole event. The fields' order is the order of ``to_dict``, which each event stores."""

    name: str = option("event", _NAME, "the event's name, shown in the output")
    seed: int = option(1, Range(0, 2**63 - 1), "fixes the schedule and the seating (with the key, the deals)")
    rounds: int = option(10, Range(1, 1_000_000), "each round seats every entrant once")
    concurrency: int = option(4, Range(1, 256), "games in flight at once")
    output: Path = option(check=_PATH, doc="where the results go", dump=str, shown="results/<name>")
    duplicate: bool = option(False, Flag(), "each deal replayed with the seats rotated")
    game: GameConfig = section()
    faults: FaultPolicy = section(FaultPolicy)
    entrants: tuple[EntrantSpec, ...] = section()
    house: EntrantSpec = section()
    ranking: RankingConfig = section(RankingConfig)
    sandbox: SandboxMode = option(
        SandboxMode.BUBBLEWRAP, _SANDBOX, "how launched entrants are confined unless they say otherwise"
    )
    executor: ExecutorSpec = section(ExecutorSpec)
    source: Path | None = None  # the TOML file, hidden from sandboxed bots
    base: Path | None = None  # relative paths in the config are relative to this (the TOML file's dir)
    # A fixed secret deal key, or None for a fresh random key per event (arena/event/deals.py). Kept out of
    # repr and the fingerprint, and stored only as "fixed" or "random": what those produce is printed and
    # stored.
    deal_key: bytes | None = option(
        None,
        Parsed(parse_key, f"{2 * MIN_KEY_BYTES}..{2 * MAX_KEY_BYTES} hex digits"),
        "fixes the secret deal key",
        dump=lambda key: "fixed" if key is not None else "random",
        shown="none: a new key per event",
        repr=False,
    )

    def path(self, value: str) -> Path:
        """A path written in the config, as the arena must open it."""
        return (self.base / value) if self.base is not None else Path(value)

    def sandbox_of(self, entrant: EntrantSpec) -> SandboxMode:
        return entrant.sandbox or self.sandbox

    def with_overrides(self, **overrides: Any) -> TournamentConfig:
        """The same config with command-line overrides applied (``None`` = not given) and re-validated."""
        given = {k: v for k, v in overrides.items() if v is not None}
        for key, value in given.items():
            if key == "output":
                given[key] = output_path(value)
            elif key == "executor":
                if not isinstance(value, ExecutorSpec):
                    raise ConfigError(f"executor={value!r}: expected an executor spec")
            elif key in _OVERRIDABLE:
                given[key] = options.check(TournamentConfig, key, value)
            else:
                raise ConfigError(f"unknown setting {key!r}")
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
        return options.to_dict(self)

    def exposed_to_fixed_key(self) -> list[str]:
        """Entrants (and the house) the arena does not trust, launched or remote, when the deal key is fixed:
        a fixed key is written in the config, and whoever learns it can compute every deal."""
        if self.deal_key is None:
            return []
        return [e.name for e in (*self.entrants, self.house) if e.kind is not EntrantKind.CLASS]


def output_path(text: str, where: str = "--output") -> Path:
    """The output directory a command line names, relative to the working directory as on any command line.

    Checked as text first: ``Path("")`` is the working directory itself, so an empty ``--output`` would
    otherwise put an event (and its mode 0700) on whatever directory the organiser happens to be in.

    :raises ConfigError: empty, only or around spaces, or with control characters.
    """
    return Path(options.declaration(TournamentConfig, "output").check(text, where))


_OVERRIDABLE = tuple(k for k in options.keys(TournamentConfig) if k not in ("name", "output"))
"""The options ``arena run`` has a flag for, checked as in the file (``--output`` is a path of the command
line, relative to where it runs; the name fixes the event and is not a flag)."""


def parse_game(game: dict[str, Any]) -> GameConfig:
    """The ``[game]`` table (a tournament's or a competition's) as a ``GameConfig``; errors name the table.

    :raises ConfigError: no variant, or an option the variant refuses.
    """
    game = dict(game)
    variant = game.pop("variant", None)
    if variant is None:
        raise ConfigError("game.variant is missing: expected 'call-ace', 'five-handed' or 'classic'")
    try:
        game_config = GameConfig.create(variant, **game)
    except ConfigError as exc:
        raise ConfigError(f"[game] {exc}") from None
    return game_config


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a TOML file.

    :raises ConfigError: for a missing or unreadable file, bad TOML, or any bad key or value.
    """
    path = Path(path)
    data = options.read_toml(path)
    config = parse_config(data, base=path.resolve().parent, source=path.resolve())
    # The file's workdirs must exist now (a config built in code may name directories it makes later).
    for i, entrant in enumerate(config.entrants):
        _check_workdir(entrant, f"entrant[{i}]", config.base)
    _check_workdir(config.house, "house", config.base)
    return config


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
    values = options.parse(TournamentConfig, data, "")
    name = values.setdefault("name", options.declaration(TournamentConfig, "name").default)
    # A relative output is relative to the working directory, like every path given on a command line.
    output = values.pop("output", f"results/{name}")
    game_config = parse_game(_section(data, "game"))
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
    defaults = _entrant_defaults(_section(data, "entrants"))
    entrants = tuple(_entrant(e, f"entrant[{i}]", defaults) for i, e in enumerate(entrants_raw))
    names = [e.name for e in entrants]
    for dup in sorted({n for n in names if names.count(n) > 1}):
        raise ConfigError(f"entrant name {dup!r} is used more than once: names must be unique")
    house_raw = _section(data, "house") or {"name": "house", "class": "sample_bots.random:RandomBot"}
    house_raw.setdefault("name", "house")
    house = _entrant(house_raw, "house", defaults)
    _check_house_name(house.name, names)
    return TournamentConfig(
        **values,
        output=(base / output) if base is not None else Path(output),
        base=base,
        source=source,
        game=game_config,
        faults=faults,
        entrants=entrants,
        house=house,
        ranking=RankingConfig.from_dict(_section(data, "ranking")),
        executor=executor,
    )


def _section(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    section = data.get(key, {})
    if not isinstance(section, dict):
        raise ConfigError(f"{key} must be a table ([{key}]), got {section!r}")
    return dict(section)


def _check_house_name(house: str, entrants: list[str]) -> None:
    """The house's seats are named ``house-1``, ``house-2`` ...: no entrant may be called like one."""
    if any(n == house or n.startswith(house + "-") for n in entrants):
        raise ConfigError(f"house.name={house!r} clashes with an entrant name; choose another")


def _entrant_defaults(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The ``[entrants]`` table: defaults for the launch keys of every launched entrant, and nothing else.

    :raises ConfigError: another key, or a bad value.
    """
    for key in raw:
        if key not in LAUNCH_KEYS:
            raise ConfigError(
                f"unknown key entrants.{key}: the [entrants] table gives defaults for launched entrants; "
                f"allowed keys are {', '.join(LAUNCH_KEYS)}"
            )
    return options.parse(EntrantSpec, raw, "entrants", LAUNCH_KEYS)


def _entrant(raw: Mapping[str, Any], where: str, defaults: Mapping[str, Any] | None = None) -> EntrantSpec:
    """One ``[[entrant]]`` (or the ``[house]``); a launched one takes ``defaults`` for the keys it omits."""
    defaults = defaults or {}
    options.reject_unknown(raw, ENTRANT_KEYS, where)
    name = options.check(EntrantSpec, "name", raw.get("name"), where)
    kind, target = _target(raw, where, name)
    limits = options.parse(EntrantSpec, raw, where, LAUNCH_KEYS)
    if kind is not EntrantKind.COMMAND and limits:
        raise ConfigError(f"{where}: {', '.join(LAUNCH_KEYS)} only apply to a launched command")
    if kind is EntrantKind.COMMAND:
        # The [entrants] defaults, for what the entrant does not set itself; env tables are merged.
        env = dict(defaults.get("env", ())) | dict(limits.get("env", ()))
        limits = dict(defaults) | limits | ({"env": tuple(sorted(env.items()))} if env else {})
    return EntrantSpec(name=name, kind=kind, target=target, **limits)


def _check_workdir(entrant: EntrantSpec, where: str, base: Path | None) -> None:
    """A launched entrant's ``workdir`` must be a directory, relative to the config's directory: refused
    with the config file (exit 2), not found missing when the bot starts and the entrant disqualified.

    :raises ConfigError: it does not exist, or is not a directory.
    """
    if entrant.kind is not EntrantKind.COMMAND or not entrant.workdir:
        return
    path = (base if base is not None else Path.cwd()) / entrant.workdir
    if not path.exists():
        raise ConfigError(
            f"{where} ({entrant.name}).workdir={entrant.workdir!r}: {str(path)!r} does not exist"
        )
    if not path.is_dir():
        raise ConfigError(
            f"{where} ({entrant.name}).workdir={entrant.workdir!r}: {str(path)!r} is not a directory"
        )


def _target(raw: Mapping[str, Any], where: str, name: str) -> tuple[EntrantKind, str]:
    """Exactly one of ``address``, ``command`` and ``class``, with a value of its form.

    :raises ConfigError: none or several given, or a value that is not of its key's form.
    """
    kinds = [k for k in EntrantKind if k in raw]
    if len(kinds) != 1:
        raise ConfigError(
            f"{where} ({name}) needs exactly one of address, command or class; got "
            f"{', '.join(kinds) or 'none'}"
        )
    kind, target = kinds[0], raw[kinds[0]]
    if not isinstance(target, str) or not target.strip():
        raise ConfigError(f"{where}.{kind}={target!r}: expected a non-empty string")
    if kind is EntrantKind.ADDRESS and not (
        re.match(r"^[^\s:]+:\d{1,5}$", target) and 0 < int(target.rsplit(":", 1)[1]) < 65536
    ):
        raise ConfigError(f"{where}.address={target!r}: expected HOST:PORT, e.g. 127.0.0.1:50051")
    if kind is EntrantKind.COMMAND:
        try:
            parts = shlex.split(target)
        except ValueError as exc:
            raise ConfigError(f"{where}.command={target!r}: cannot be split into arguments: {exc}") from None
        if not any("{port}" in p or "{address}" in p for p in parts):
            raise ConfigError(
                f"{where}.command={target!r}: must contain {{address}} or {{port}}, where the arena puts the "
                "address (or TCP port) the bot listens on"
            )
    if kind is EntrantKind.CLASS and not re.match(r"^[\w.]+:\w+$", target):
        raise ConfigError(f"{where}.class={target!r}: expected 'package.module:ClassName'")
    return kind, target
