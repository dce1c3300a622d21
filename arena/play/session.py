"""``arena play``'s game: one person and bots at one table, refereed by the arena's own table, then stored.

The game is played by ``arena.event.table.play_table``, the referee of every event: the person's seat is a
``HumanSeat`` and the bots are in-process house bots (``arena.players.inprocess``), so the engine judges a
click exactly as it judges a bot's reply, and the game is stored as a one-game event (``event.sqlite``)
that ``arena replay``, ``arena games`` and ``arena report`` read like any other. The deal comes from the
game's seed alone (there is no secret key: the person is the only one who could read it, and the page never
shows the seed before the game is over).

A page follows the game by asking for its seat's state with the version it has (``wait_for``): the answer
comes as soon as anything changed, so the page needs no timer of its own to stay current.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine.actions import parse_action_id
from arena.engine.config import GameConfig
from arena.engine.records import hand_record
from arena.engine.state import GameState
from arena.errors import ConfigError, RuleError
from arena.event.faults import FaultPolicy
from arena.event.table import TableResult, TableSpec, play_table, record_of
from arena.play.feed import SeatFeed, seat_state
from arena.play.seat import HumanSeat, PacedPlayer
from arena.players.base import Player
from arena.players.inprocess import InProcessPlayer, load_bot_class
from arena.results import outdir
from arena.results.record import ScheduledGame
from arena.results.store import Store

HOUSE_BOTS: dict[str, str] = {
    "random": "sample_bots.random:RandomBot",
    "rules": "sample_bots.rules:RulesBot",
    "noisy": "sample_bots.noisy:NoisyRulesBot",
    "montecarlo": "sample_bots.montecarlo:MonteCarloBot",
    "champion": "sample_bots.champion:ChampionBot",
}
"""The bots ``arena play`` seats by a short name; any other is given as ``package.module:Class``."""

GAME_ID = "play"
DEFAULT_DEADLINE_S = 60.0
DEFAULT_PACE_S = 0.6
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")


def bot_spec(text: str) -> tuple[str, str]:
    """``rules`` → (``rules``, ``sample_bots.rules:RulesBot``); ``pkg.mod:Class`` → (``Class``, itself).

    :raises ConfigError: naming the text and the short names, for neither form.
    """
    text = text.strip()
    if text in HOUSE_BOTS:
        return text, HOUSE_BOTS[text]
    if re.match(r"^[\w.]+:[A-Za-z_]\w*$", text):
        return text.rsplit(":", 1)[1], text
    raise ConfigError(
        f"bot {text!r}: expected one of {', '.join(HOUSE_BOTS)} or package.module:Class (an in-process bot)"
    )


@dataclass(frozen=True, slots=True)
class PlaySettings:
    """What ``arena play`` was asked: the variant, the bots in the other seats, the person's seat."""

    variant: str = "five-handed"
    bots: tuple[str, ...] = ("rules",)
    seat: int = 0
    name: str = "human"
    seed: int | None = None
    deadline_s: float = DEFAULT_DEADLINE_S
    autopilot: str = "rules"
    pace_s: float = DEFAULT_PACE_S
    output: Path = Path("results/play")
    options: dict[str, Any] = field(default_factory=dict)
    decision_ms: int = 1000

    def game_config(self) -> GameConfig:
        """:raises ConfigError: an unknown variant or option."""
        return GameConfig.create(self.variant, **self.options)

    def seating(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Every seat's name and class spec (the person's spec is ``""``), the bots in the given order.

        One bot fills every other seat; otherwise one bot per other seat is needed. Names repeat with a
        number (``rules``, ``rules-2``), as every seat of a game is a distinct entrant.

        :raises ConfigError: a wrong number of bots, a bad bot or name, or a seat off the table.
        """
        n = self.game_config().num_players
        if not _NAME.match(self.name):
            raise ConfigError(f"--name {self.name!r}: letters, digits, '.', '_' or '-', at most 32")
        if not 0 <= self.seat < n:
            raise ConfigError(f"--seat {self.seat}: a {self.variant} table has seats 0..{n - 1}")
        if not self.deadline_s > 0:
            raise ConfigError(f"--deadline {self.deadline_s}: give a number of seconds above 0")
        if self.pace_s < 0:
            raise ConfigError(f"--pace {self.pace_s}: give a number of seconds, 0 or more")
        bots = list(self.bots)
        if len(bots) == 1:
            bots *= n - 1
        if len(bots) != n - 1:
            raise ConfigError(
                f"--bots: {len(bots)} given for the {n - 1} other seats of a {self.variant} table "
                f"(give {n - 1}, or one for every seat)"
            )
        specs = [bot_spec(b) for b in bots]
        bot_spec(self.autopilot)
        names: list[str] = []
        for base, _ in specs:
            name, k = base, 1
            while name in names or name == self.name:
                k += 1
                name = f"{base}-{k}"
            names.append(name)
        seat_names = [*names[: self.seat], self.name, *names[self.seat :]]
        classes = [s for _, s in specs]
        seat_specs = [*classes[: self.seat], "", *classes[self.seat :]]
        return tuple(seat_names), tuple(seat_specs)


def next_directory(root: Path) -> Path:
    """The first ``root/NNN`` not taken (``001``, ``002`` ...): each game played keeps its own event."""
    k = 1
    while (root / f"{k:03d}").exists():
        k += 1
    return root / f"{k:03d}"


def _writable(directory: Path) -> None:
    """Make ``directory`` (where the game's own directory will be) and check that it takes a new one.

    :raises ConfigError: naming the directory and why.
    """
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot store games in {str(directory)!r}: {exc.strerror}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot store games in {str(directory)!r}: it is not writable")


class PlaySession:
    """One game between a person and bots, and what its page is told of it."""

    def __init__(self, settings: PlaySettings, directory: Path | None = None) -> None:
        """:raises ConfigError: bad settings or a bot class that cannot be loaded (before anything runs)."""
        self.settings = settings
        self.config = settings.game_config()
        self.seat_names, self.seat_specs = settings.seating()
        self.classes = {spec: load_bot_class(spec) for spec in {*self.seat_specs, ""} - {""}}
        self.autopilot_spec = bot_spec(settings.autopilot)
        self.classes.setdefault(self.autopilot_spec[1], load_bot_class(self.autopilot_spec[1]))
        self.seed = settings.seed if settings.seed is not None else secrets.randbelow(2**63)
        self.directory = directory if directory is not None else next_directory(settings.output)
        _writable(self.directory.parent)  # now, not after a whole game played for nothing
        outdir.check_own(self.directory)
        self.feed = SeatFeed()
        self.stored: Path | None = None
        self.error: str | None = None
        self.finished = asyncio.Event()  # the page said it is done (or the game could not be played)
        self.seat = HumanSeat(
            settings.name,
            InProcessPlayer(self.classes[self.autopilot_spec[1]], f"autopilot-{self.autopilot_spec[0]}"),
            self.autopilot_spec[0],
            settings.deadline_s,
            self.changed,
        )

    # ------------------------------------------------------------------ the game

    def players(self) -> list[Player]:
        out: list[Player] = []
        for name, spec in zip(self.seat_names, self.seat_specs, strict=True):
            if spec == "":
                out.append(self.seat)
            else:
                out.append(PacedPlayer(InProcessPlayer(self.classes[spec], name), self.settings.pace_s))
        return out

    def spec(self) -> TableSpec:
        policy = FaultPolicy(decision_ms=self.settings.decision_ms)
        return TableSpec(GAME_ID, self.config, self.seed, self.seat_names, policy)

    async def run(self) -> TableResult:
        """Play the game to its end and store it; the page is told of every step.

        :raises StoreError: the game could not be stored (the page is told why too).
        """
        try:
            result = await play_table(self.spec(), self.players())
            self.store(result)
            return result
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            self.changed()
            raise

    def store(self, result: TableResult) -> None:
        """The game as a one-game event in its own directory, the person's seat and handovers beside it."""
        outdir.prepare(self.directory)
        game = ScheduledGame(0, GAME_ID, 1, 1, GAME_ID, 0, self.seed, self.seat_names)
        rows = [
            (name, "person" if spec == "" else "class", spec or "arena play", False)
            for name, spec in zip(self.seat_names, self.seat_specs, strict=True)
        ]
        config = {
            "name": f"arena play {self.directory.name}",
            "seed": self.seed,
            "game": self.config.to_dict(),
            "faults": {"decision_ms": self.settings.decision_ms},
        }
        fingerprint = {
            "play": GAME_ID,
            "seed": self.seed,
            "game": self.config.to_dict(),
            "seats": list(self.seat_names),
        }
        with outdir.EventLock(self.directory), Store.open(self.directory) as store:
            store.begin_event(fingerprint, config, [game], rows)
            store.set_meta("play", self.play_meta())
            store.save_record(game, record_of(result), rated=False, excluded=list(self.seat_names))
        self.stored = self.directory
        self.changed()

    def play_meta(self) -> dict[str, Any]:
        return {
            "seat": self.settings.seat,
            "person": self.settings.name,
            "bots": [s for s in self.seat_specs if s],
            "deadline_s": self.settings.deadline_s,
            "autopilot": self.autopilot_spec[1],
            "handovers": [{"decision": h.decision_id, "hand": h.hand_index} for h in self.seat.handovers],
        }

    # ------------------------------------------------------------------ the page

    def changed(self) -> None:
        self.feed.changed()

    @property
    def version(self) -> int:
        return self.feed.version

    async def wait_for(self, since: int, timeout_s: float) -> None:
        """Return once the state is newer than ``since``, or after ``timeout_s``."""
        await self.feed.wait_for(since, timeout_s)

    def state(self) -> dict[str, Any]:
        """What the page shows (``arena.play.feed.seat_state``), and where the game was stored."""
        state = seat_state(
            self.seat, self.version, GAME_ID, self.config, self.settings.seat, self.seat_names, self.seed
        )
        return state | {
            "stored": None
            if self.stored is None
            else {"directory": str(self.stored), "replay": f"arena replay {self.stored} {GAME_ID}"},
            "error": self.error,
        }


def replay_game(config: GameConfig, seed: int, hands: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hand records a fresh engine gives when dealt from ``seed`` and given the stored actions in order.

    A stored game replays exactly when this equals its stored hands: the same deals, every action legal
    at its turn, the same tricks, points and scores.

    :raises RuleError: an action out of turn or illegal, or actions left over after the game ended.
    """
    state = GameState(config, seed=seed)
    for hand in hands:
        for entry in hand["actions"]:
            if state.is_terminal():
                raise RuleError(f"hand {hand['hand_index']}: {entry!r} comes after the game ended")
            if state.current_player() != entry["seat"]:
                raise RuleError(f"hand {hand['hand_index']}: {entry!r} out of turn")
            action = parse_action_id(entry["action"])
            if action not in state.legal_actions():
                raise RuleError(f"hand {hand['hand_index']}: {entry!r} is not legal")
            state.apply(action)
    return [hand_record(r) for r in state.results]
