"""A competition's configuration (``arena serve competition.toml``): TOML in, one frozen value out.

Declared the way the tournament's config is (``arena/options.py``): each key is one field with its check,
default and one-line doc, so an unknown key or a bad value is one ``ConfigError`` naming it (the CLI prints
one line and exits with 2). The rules of the game (``[game]``), the fault policy (``[faults]``) and where the
tables are played (``[executor]``) are the tournament's own sections, checked by the same code, so a
competition and an ``arena run`` agree on what ``decision_ms``, ``use_joker`` or ``scheduler`` mean.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena import options
from arena.engine.config import GameConfig, Variant
from arena.errors import ConfigError
from arena.event.config import (
    TLS_KEYS,
    ExecutorSpec,
    TournamentConfig,
    parse_config,
    parse_executor,
    parse_game,
)
from arena.event.faults import FaultPolicy
from arena.options import Flag, OneOf, Range, Text, option, section
from arena.sandbox import SandboxMode
from arena.userfiles import KEY_LIMIT, read_user_text


class Signup(StrEnum):
    """Who may create an entrant account (``[people] signup``)."""

    INVITE = "invite"  # only with a link printed by `arena invite`
    OPEN = "open"  # anyone who finds the sign-up page


class Runtime(StrEnum):
    """How a submitted version is run (``[submissions] runtimes``); docs/server.md says how to add one."""

    PYTHON = "python"  # bot.py on arena.bot, run by the arena's interpreter, as launched entrants are
    EXECUTABLE = "executable"  # a Linux program or script `run` that takes --address
    # `run` that takes --port (TCP, relayed to the arena in the sandbox): for a gRPC stack that cannot listen
    # on a Unix socket (Debian's grpc-java); docs/bot-authors.md, "How a compiled bot goes through the server"
    EXECUTABLE_PORT = "executable-port"
    NODE = "node"  # bot.js on the organiser's @grpc/grpc-js (sample_bots/node's packages)


class NewVersion(StrEnum):
    """Where a newly active version's rating starts (``[ladder] new_version``)."""

    FRESH = "fresh"  # TrueSkill's prior: mu 25, sigma 25/3
    INHERIT = "inherit"  # its predecessor's mu, with the prior's sigma (it may have changed a lot)


ADDRESS_FILE = "server.url"  # in the competition's directory: where the server last answered
_NAME = options.declaration(TournamentConfig, "name").check  # a competition is named as an event is
_URL = Text("an http:// or https:// URL", re.compile(r"^https?://[^\s/]+(/\S*)?$"))
_CLASS = Text("'package.module:ClassName'", re.compile(r"^[\w.]+:\w+$"))


def _runtimes(value: Any, path: str) -> tuple[Runtime, ...]:
    allowed = [str(r) for r in Runtime]
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, str) and v in allowed for v in value)
        or len(set(value)) != len(value)
    ):
        raise ConfigError(
            f"{path}={value!r}: expected a list of distinct runtimes out of {', '.join(allowed)}"
        )
    return tuple(Runtime(v) for v in value)


@dataclass(frozen=True, slots=True)
class PeopleSpec:
    """``[people]``: who may join and what an anonymous spectator sees."""

    signup: Signup = option(Signup.INVITE, OneOf(Signup), "who may create an entrant account")
    public: bool = option(True, Flag(), "spectators (not logged in) see the leaderboard and the games")
    login_attempts: int = option(5, Range(1, 1000), "failed logins per account in 15 minutes before a wait")
    invite_days: int = option(14, Range(1, 365), "days an invitation or login link stays valid")

    def to_dict(self) -> dict[str, Any]:
        return options.to_dict(self)


@dataclass(frozen=True, slots=True)
class SubmissionSpec:
    """``[submissions]``: what an entrant may upload, how often, and the limits its bot runs under."""

    runtimes: tuple[Runtime, ...] = option(
        (Runtime.PYTHON, Runtime.EXECUTABLE),
        options.Parsed(_runtimes, "a list of runtimes"),
        "the runtimes an entrant may choose",
        dump=lambda rs: [str(r) for r in rs],
        shown='["python", "executable"]',
    )
    # A static Go or Rust bot is 5-15 MB as built (a Go bot from docs/bot-authors.md: 8.5 MB, 3.3 MB as
    # tar.gz): the defaults hold one, uploaded as it is or archived.
    max_upload_kb: int = option(16_384, Range(1, 1_048_576), "largest upload (a file or an archive)")
    max_files: int = option(200, Range(1, 100_000), "most files an archive may hold")
    max_unpacked_kb: int = option(65_536, Range(1, 10_485_760), "most bytes an archive may unpack to")
    per_hour: int = option(20, Range(1, 10_000), "uploads per entrant per hour")
    memory_mb: int = option(512, Range(16, 1_000_000), "memory limit of a bot's processes")
    startup_timeout_s: float = option(
        20.0, Range(0, 600, "seconds", integer=False, open_lo=True, to_float=True), "time to report SERVING"
    )

    def to_dict(self) -> dict[str, Any]:
        return options.to_dict(self)


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """``[checks]``: the check every new version gets (``arena check-bot``'s games) and its queue."""

    queue: int = option(100, Range(1, 100_000), "checks waiting at most; an upload beyond is refused")
    parallel: int = option(2, Range(1, 64), "checks run at once")
    games_per_config: int = option(1, Range(1, 100), "games per option set of each variant")
    decision_ms: int = option(1000, Range(1, 600_000), "time per decision during the check")

    def to_dict(self) -> dict[str, Any]:
        return options.to_dict(self)


@dataclass(frozen=True, slots=True)
class LadderSpec:
    """``[ladder]``: the continuous ladder of active versions."""

    tables: int = option(1, Range(1, 256), "games in flight at once")
    seed: int = option(
        1, Range(0, 2**63 - 1), "seeds the leaderboard's whole-order probability (a simulation)"
    )
    tau: float = option(
        25.0 / 300,
        Range(0, 25, "a number", integer=False, open_lo=True, to_float=True),
        "TrueSkill's skill drift per game (> 0: the field changes)",
        shown="25/300 ≈ 0.0833",
    )
    new_version: NewVersion = option(
        NewVersion.FRESH, OneOf(NewVersion), "where a new version's rating starts"
    )
    house: str = option("sample_bots.rules:RulesBot", _CLASS, "the in-process bot that fills empty seats")
    pause_s: float = option(
        0.0, Range(0, 3600, "seconds", integer=False, to_float=True), "a pause between two games of a table"
    )
    paused: bool = option(False, Flag(), "start with the ladder paused")
    # Unrated games (arena.server.matches.service): a version's SPRT match against its predecessor, and
    # challenges.
    match_share: float = option(
        0.25,
        Range(0, 1, "a fraction", integer=False, open_hi=True, to_float=True),
        "the share of the tables' games that unrated games may take while the ladder has games to play",
    )
    match_on_activate: bool = option(
        True, Flag(), "a newer version becoming active starts its SPRT match against the one it replaced"
    )
    match_deals: int = option(200, Range(2, 100_000), "an SPRT match's budget of deals")
    match_min_deals: int = option(10, Range(2, 100_000), "deals before the SPRT's first look")
    match_h1: float = option(
        0.1,
        Range(0, 10, "points per hand", integer=False, open_lo=True, to_float=True),
        "the edge an SPRT match tests for (H1; H0 is no edge)",
    )
    challenges_per_day: int = option(5, Range(0, 10_000), "challenges an entrant may ask for per day")
    challenge_games: int = option(20, Range(1, 10_000), "most games one challenge may ask for")
    person_deadline_s: float = option(
        60.0,
        Range(0, 3600, "seconds", integer=False, open_lo=True, to_float=True),
        "a person's time for each decision of a game they play (/play); then the autopilot plays the seat",
    )
    person_pace_s: float = option(
        0.6,
        Range(0, 10, "seconds", integer=False, to_float=True),
        "the wait before each bot's move in a person's game, so that the person can follow the table",
    )

    live_open_hands: bool = option(
        False, Flag(), "everybody watching a live table sees every seat's cards (else the organiser only)"
    )
    live_watchers: int = option(200, Range(0, 100_000), "live-table watchers at once; one more gets a 503")
    live_stall_s: float = option(
        20.0,
        Range(0.1, 3600, "seconds", integer=False, to_float=True),
        "a live-table watcher whose connection takes longer than this to accept one frame is dropped",
    )

    def to_dict(self) -> dict[str, Any]:
        return options.to_dict(self)


@dataclass(frozen=True, slots=True)
class FinalSpec:
    """``[final]``: the sealed final the organiser starts (``arena.server.finals.service``): an ``arena run``
    of the frozen field with duplicate deals and ``--until-settled``."""

    variant: Variant | None = option(
        None, OneOf(Variant), "the final's variant (with its default rules)", shown="the competition's [game]"
    )
    target: int | None = option(None, Range(1, 1000), "points to win a game", shown="the [game]'s target")
    rounds: int = option(1, Range(1, 100_000), "rounds scheduled before --until-settled adds more")
    seed: int = option(
        1, Range(0, 2**63 - 1), "fixes the final's schedule and seating (with its key, the deals)"
    )
    max_games: int = option(1000, Range(1, 10_000_000), "the budget of --until-settled, in games")
    confidence: float = option(
        0.95,
        Range(0.5, 1, "a probability", integer=False, open_lo=True, open_hi=True, to_float=True),
        "the level of each adjacent pair's verdict",
    )
    tables: int = option(1, Range(1, 256), "games of the final in flight at once")

    def to_dict(self) -> dict[str, Any]:
        return options.to_dict(self)


TOP_KEYS = (
    "name",
    "url",
    "database",
    "sandbox",
    "game",
    "faults",
    "people",
    "submissions",
    "checks",
    "ladder",
    "executor",
    "final",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class CompetitionConfig:
    """A whole competition."""

    name: str = option(check=_NAME, doc="the competition's name; its data go to results/NAME/")
    url: str | None = option(
        None, _URL, "the address entrants use, in printed links", shown="http://HOST:PORT of arena serve"
    )
    database: str | None = option(
        None,
        Text("a database URL"),
        "where the server keeps its state",
        shown="sqlite:///results/NAME/server.sqlite",
    )
    sandbox: SandboxMode = option(
        SandboxMode.BUBBLEWRAP,
        OneOf(SandboxMode),
        'how submitted bots are confined; "none" only for a trusted class on a machine without bubblewrap',
    )
    game: GameConfig = section()
    faults: FaultPolicy = section(FaultPolicy)
    people: PeopleSpec = section(PeopleSpec)
    submissions: SubmissionSpec = section(SubmissionSpec)
    checks: CheckSpec = section(CheckSpec)
    ladder: LadderSpec = section(LadderSpec)
    executor: ExecutorSpec = section(ExecutorSpec)
    final: FinalSpec = section(FinalSpec)
    data_dir: Path = Path()  # results/NAME, relative to the working directory of `arena serve`
    source: Path | None = None  # the TOML file: hidden from the sandboxed bots

    @property
    def database_url(self) -> str:
        return self.database or f"sqlite:///{(self.data_dir / 'server.sqlite').resolve()}"

    def base_url(self, host: str = "127.0.0.1", port: int = 8000) -> str:
        return (self.url or f"http://{host}:{port}").rstrip("/")

    def record_address(self, base_url: str) -> None:
        """Remember where the server answers (``arena serve`` at start), so that the links printed later on
        this machine (``arena invite``, ``arena login-link``) point at it, whatever port it was given."""
        with contextlib.suppress(OSError):
            (self.data_dir / ADDRESS_FILE).write_text(base_url + "\n")

    def link_base(self, host: str | None = None, port: int | None = None) -> tuple[str, str | None]:
        """The address links are printed with, and a warning when it is only a guess: the options given,
        else the competition's ``url``, else the address the server last started on, else
        http://127.0.0.1:8000."""
        if host is not None or port is not None:
            return self.base_url(host or "127.0.0.1", port or 8000), None
        if self.url:
            return self.base_url(), None
        with contextlib.suppress(ConfigError):
            recorded = read_user_text(self.data_dir / ADDRESS_FILE, "address file", KEY_LIMIT).strip()
            if recorded.startswith(("http://", "https://")):
                return recorded, None
        guess = self.base_url()
        return guess, (
            f"no server has started for this competition and it names no url: the links use {guess}; "
            "give --host and --port, or set url in the competition"
        )

    def tournament(self) -> TournamentConfig:
        """The ladder's games as the conductor and the executor know an event: the rules, the fault policy,
        the sandbox, the house bot that fills empty seats, the executor that plays the tables, and the
        directory hidden from every bot. Its
        entrants are added as versions become active (``arena.server.ladder.service``)."""
        placeholder = {"name": "placeholder", "class": self.ladder.house}
        config = parse_config(
            {
                "name": self.name,
                "seed": self.ladder.seed,
                "concurrency": self.ladder.tables,
                "output": str(self.data_dir.resolve()),
                "sandbox": str(self.sandbox),
                "game": self.game.to_dict(),
                "faults": self.faults.to_dict(),
                "house": {"name": "house", "class": self.ladder.house},
                "entrant": [placeholder],
            },
            source=self.source,
        )
        # The ladder adds its entrants as versions become active; ``[executor]`` is the tournament's own
        # section, parsed by the same code (so its keys and checks cannot differ).
        # Its TLS files are relative to the competition file, as a tournament's are to its config.
        base = self.source.parent if self.source is not None else Path()
        files: dict[str, Any] = {
            k: str(base / v) for k in TLS_KEYS if (v := getattr(self.executor, k)) is not None
        }
        return replace(config, entrants=(), executor=replace(self.executor, **files))


def _table(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be a table ([{key}]), got {value!r}")
    return dict(value)


def _section(cls: type, data: Mapping[str, Any], key: str) -> Any:
    raw = _table(data, key)
    options.reject_unknown(raw, options.keys(cls), key)
    return cls(**options.parse(cls, raw, key))


def parse_competition(data: Mapping[str, Any], source: Path | None = None) -> CompetitionConfig:
    """Validate a competition read into a mapping.

    :raises ConfigError: an unknown key, a missing name or variant, or a bad value (naming the key).
    """
    for key in data:
        if key not in TOP_KEYS:
            raise ConfigError(f"unknown key {key!r}: allowed top-level keys are {', '.join(TOP_KEYS)}")
    values = options.parse(CompetitionConfig, data, "")
    if "name" not in values:
        raise ConfigError("name is missing: every competition needs a name (its data go to results/NAME/)")
    game_config = parse_game(_table(data, "game"))
    return CompetitionConfig(
        **values,
        game=game_config,
        faults=FaultPolicy.from_dict(_table(data, "faults")),
        people=_section(PeopleSpec, data, "people"),
        submissions=_section(SubmissionSpec, data, "submissions"),
        checks=_section(CheckSpec, data, "checks"),
        ladder=_section(LadderSpec, data, "ladder"),
        executor=parse_executor(_table(data, "executor")),
        final=_section(FinalSpec, data, "final"),
        data_dir=(Path("results") / values["name"]).absolute(),
        source=source,
    )


def load_competition(path: str | Path) -> CompetitionConfig:
    """Read and validate a competition's TOML file.

    :raises ConfigError: a missing or unreadable file, bad TOML, or any bad key or value.
    """
    path = Path(path)
    data = options.read_toml(path, "competition file")
    return parse_competition(data, source=path.resolve())
