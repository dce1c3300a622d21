"""The sealed final: the organiser freezes the field and the server runs it as ``arena run`` would.

**Freezing.** At the organiser's word, the active version of every enabled entrant is written into a
new event directory under the competition's, ``results/NAME/final-N/``, as an ordinary tournament file,
``final.toml``: one launched entrant per version (its program in the version's directory, which is never
changed after the upload), duplicate deals, the ``[final]`` settings, the competition's rules, fault
policy, sandbox, house bot and ``[executor]``. That file *is* the frozen field: a version uploaded or
chosen later changes nothing in it, and ``arena run final.toml --until-settled`` with the final's key
(``final-N/deal.key``) plays exactly the final's games. ``final.json`` beside it says what was frozen and
when, and whether the final is still running: the event directory is the only source of truth (the
database holds nothing of a final).

**Running.** The final is ``arena.conductor.tournament.run_event`` with ``until_settled``, on the
executor the competition's ``[executor]`` names, in the server's event loop. So it resumes after a kill -9
exactly as ``arena run`` resumes: the server finds a final not marked done at its start and runs it
again, which plays only the games its store lacks. At the end the organiser's report (with the bots'
logs) and the public one (``--public``: without them) are written beside it.

**The ladder waits** while a final runs (``Ladder.held``): the final's verdicts rest on every bot getting
its whole deadline, and on a small machine the ladder's games would take CPU from the final's bots (the
overload ``arena run`` warns of). Sharing capacity would only make the ladder's games a little earlier;
the final is what the competition is judged by. Ladder games in flight at the freeze finish and are stored.

**Several processes** (``arena.server.db.multi``): the final is played by the one process that holds its
advisory lock; the others find it in the shared directory within half a second and hold their tables while it
runs; if its player dies (its lock goes with its connection) another takes it and resumes it. The page of a
process that does not play it shows no progress (the count of games lives in the player).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.conductor.observer import EventObserver
from arena.conductor.tournament import run_event
from arena.errors import ArenaError, ConfigError
from arena.event.config import ExecutorSpec, load_config
from arena.report import REPORT_NAME, build_report
from arena.results import outdir
from arena.results.queries import Queries
from arena.server.db.multi import CheckClaims, shared
from arena.server.errors import Refused
from arena.server.ladder.service import Ladder
from arena.server.settings import CompetitionConfig, Runtime
from arena.server.submissions.service import Submissions, launch_command
from arena.stats.leaderboard import Leaderboard, compute_leaderboard
from arena.userfiles import STATE_LIMIT, read_user_text

log = logging.getLogger("arena.server")
FINAL_TOML = "final.toml"
STATE = "final.json"
PUBLIC_REPORT = "report-public.html"
RUNNING, DONE, FAILED = "running", "done", "failed"
_DIR = re.compile(r"^final-([0-9]+)$")
FREEZING = 0  # the advisory lock's second key while a final is frozen (arena.server.db.multi)
LOOK_S = 0.5  # on a shared database, how often the directory is looked at for a final (a listing: cheap)
_ENTRANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")  # a tournament's entrant name


@dataclass(frozen=True, slots=True)
class FinalView:
    """A final as its page shows it: the frozen field, its progress, and its order once done."""

    number: int
    directory: Path
    state: str
    frozen_at: float
    field: list[dict[str, Any]]
    played: int
    total: int
    board: Leaderboard | None
    stopped: str
    error: str


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value))  # a TOML basic string: JSON's escapes are TOML's


def to_toml(top: dict[str, Any], tables: dict[str, dict[str, Any]], entrants: list[dict[str, Any]]) -> str:
    """A tournament file: top-level keys, tables, ``[[entrant]]`` sections (None values left out: TOML has
    no null, and an absent key is the option's default). Small enough not to need a TOML-writing library."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in top.items() if v is not None]
    for name, table in tables.items():
        lines += ["", f"[{name}]"] + [f"{k} = {_toml_value(v)}" for k, v in table.items() if v is not None]
    for entrant in entrants:
        lines += ["", "[[entrant]]"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in entrant.items() if v is not None]
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str) -> None:
    """Atomically: a kill -9 leaves the old file or the new one, never half of one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def event_toml(config: CompetitionConfig, number: int, entrants: list[dict[str, Any]]) -> str:
    """The final as a tournament file (``output = "."``: its own directory)."""
    final = config.final
    tournament = config.tournament()  # [executor] with its TLS files' paths resolved
    defaults = ExecutorSpec().to_dict()
    game: dict[str, Any] = config.game.to_dict()
    if final.variant is not None and final.variant != config.game.variant:
        game = {"variant": str(final.variant)}
    if final.target is not None:
        game["target"] = final.target
    top = {
        "name": f"{config.name[:48]}-final-{number}",  # an event's name has at most 64 characters
        "seed": final.seed,
        "rounds": final.rounds,
        "concurrency": final.tables,
        "output": ".",
        "duplicate": True,
        "sandbox": str(config.sandbox),
    }
    tables = {
        "game": game,
        "faults": config.faults.to_dict(),
        "ranking": {"confidence": final.confidence, "max_games": final.max_games},
        "house": {"name": "house", "class": config.ladder.house},
        # only what differs from the defaults: a key given is checked against the others (pin_cpus)
        "executor": {k: v for k, v in tournament.executor.to_dict().items() if defaults.get(k) != v},
    }
    return to_toml(top, tables, entrants)


class Progress(EventObserver):
    """The final's games played and scheduled, for its page (never its standings: the final is sealed
    until it ends)."""

    def __init__(self) -> None:
        self.total = 0
        self.done = 0

    def started(self, total: int, done: int) -> None:
        self.total, self.done = total, done

    def game_finished(self, game: Any, record: Any) -> None:
        self.done += 1

    def extended(self, total: int, seen: Any) -> None:
        self.total = total


class Finals:
    """The competition's finals (see the module's docstring)."""

    def __init__(
        self,
        config: CompetitionConfig,
        submissions: Submissions,
        ladder: Ladder,
        claims: CheckClaims | None = None,
    ) -> None:
        self.config = config
        self.submissions = submissions
        self.ladder = ladder
        self.claims = claims or CheckClaims(ladder.db)
        self.shared = shared(ladder.db)
        self.wake = asyncio.Event()
        self.progress = Progress()
        self._boards: dict[Path, Leaderboard] = {}

    # --- the event directories -----------------------------------------------------------------------

    def directories(self) -> list[Path]:
        """Every final's directory, oldest first."""
        found = [
            (int(m.group(1)), p) for p in self.config.data_dir.glob("final-*") if (m := _DIR.match(p.name))
        ]
        return [p for _, p in sorted(found) if (p / STATE).is_file()]

    def latest(self) -> Path | None:
        finals = self.directories()
        return finals[-1] if finals else None

    @staticmethod
    def state(directory: Path) -> dict[str, Any]:
        path = directory / STATE
        text = read_user_text(path, "final's state", STATE_LIMIT)  # a regular file of bounded size
        try:
            data: dict[str, Any] = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"final's state {str(path)!r} is not JSON: {exc}") from None
        return data

    def running(self) -> bool:
        latest = self.latest()
        return latest is not None and self.state(latest)["state"] == RUNNING

    # --- freezing -----------------------------------------------------------------------------------

    def freeze(self) -> Path:
        """Freeze the field into a new final's directory and wake the task that runs it.

        :raises Refused: 409 while a final runs or another process is freezing one, 400 with fewer than
            two versions to play.
        """
        # Two organisers' clicks on two processes: the one that holds the lock freezes, the other is told
        # (the lock's number is no final's: they count from 1).
        if not self.claims.claim_final(FREEZING):
            raise Refused(
                409, "another organiser is freezing a final at this moment: look at the finals page"
            )
        try:
            return self._freeze()
        finally:
            self.claims.release_final(FREEZING)

    def _freeze(self) -> Path:
        if self.running():
            raise Refused(409, "a final is already running: wait for its result")
        field = sorted(self.submissions.active_field(), key=lambda vd: (vd[0].user.lower(), vd[0].id))
        if len(field) < 2:
            raise Refused(400, "a final needs at least two entrants with an active version")
        finals = self.directories()
        number = int(_DIR.match(finals[-1].name).group(1)) + 1 if finals else 1  # type: ignore[union-attr]
        directory = self.config.data_dir / f"final-{number}"
        outdir.prepare(directory)
        with outdir.EventLock(directory):  # its lock file marks the directory as an event's (``check_own``)
            pass
        spec = self.config.submissions
        entrants, frozen = [], []
        for version, path in field:
            plain = _ENTRANT.match(version.user) and not version.user.startswith("house")
            name = version.user if plain else f"v{version.id}"
            entrants.append(
                {
                    "name": name,
                    "command": launch_command(Runtime(version.runtime), path),
                    "workdir": str(path),
                    "memory_mb": spec.memory_mb,
                    "startup_timeout_s": spec.startup_timeout_s,
                }
            )
            frozen.append(
                {"name": name, "user": version.user, "user_id": version.user_id, "version_id": version.id,
                 "version": version.number, "runtime": version.runtime}
            )  # fmt: skip
        _write(directory / FINAL_TOML, event_toml(self.config, number, entrants))
        state = {"number": number, "state": RUNNING, "frozen_at": time.time(), "field": frozen}
        _write(directory / STATE, json.dumps(state, indent=1) + "\n")
        self.wake.set()
        return directory

    # --- running ------------------------------------------------------------------------------------

    async def run(self) -> None:
        """The server's task: run the latest final while it is not done (at start: resume it), then wait
        to be woken by the next freeze. Cancelled at shutdown: the final resumes at the next start."""
        while True:
            latest = self.latest()
            if latest is not None and self.state(latest)["state"] == RUNNING:
                number = int(self.state(latest)["number"])
                if self.claims.claim_final(number):
                    try:
                        if self.state(latest)["state"] == RUNNING:  # not ended while the lock was asked
                            log.info("final %d: played by this process", number)
                            await self.play(latest)
                    finally:
                        self.claims.release_final(number)
                    continue
                if not self.ladder.held:
                    log.info("final %d: played by another process, the tables here wait", number)
                self.ladder.held = True  # another process plays it: no game here until it ends
                await asyncio.sleep(LOOK_S)
                continue
            if self.ladder.held:  # the final another process played has ended
                self.ladder.held = False
                self.ladder.changed.set()
            self.wake.clear()
            with contextlib.suppress(TimeoutError):  # a final frozen on another process: found at a look
                await asyncio.wait_for(self.wake.wait(), LOOK_S if self.shared else None)

    async def play(self, directory: Path) -> None:
        self.ladder.held = True
        self.progress = Progress()
        state = self.state(directory)
        try:
            config = load_config(directory / FINAL_TOML)
            summary = await run_event(config, self.progress, until_settled=True)
            await asyncio.to_thread(build_report, directory)
            await asyncio.to_thread(build_report, directory, directory / PUBLIC_REPORT, True)
            state |= {"state": DONE, "stopped": str(summary.stopped), "games": summary.games_total}
        except (ArenaError, OSError) as exc:  # a final that cannot run (a key lost, a full disk): said, kept
            log.warning("the final in %s failed: %s", directory, exc)
            state |= {"state": FAILED, "error": str(exc)}
        except Exception as exc:  # a bug: said, and the final marked, so the server does not retry forever
            log.exception("the final in %s failed", directory)
            state |= {"state": FAILED, "error": f"internal error: {exc!r}"}
        finally:
            self.ladder.held = False
            self.ladder.changed.set()
        _write(directory / STATE, json.dumps(state, indent=1) + "\n")

    # --- reading ------------------------------------------------------------------------------------

    def view(self, directory: Path) -> FinalView:
        """The final in ``directory``; its order (from its stored games) only once it is done."""
        state = self.state(directory)
        board = None
        played = total = 0
        if state["state"] == DONE:
            board = self._boards.get(directory)
            if board is None:
                with Queries.open(directory) as store:
                    board = compute_leaderboard(store)
                self._boards[directory] = board
            played = total = int(state.get("games", 0))
        elif state["state"] == RUNNING and directory == self.latest():
            played, total = self.progress.done, self.progress.total
        return FinalView(
            int(state["number"]), directory, state["state"], float(state["frozen_at"]), state["field"],
            played, total, board, str(state.get("stopped", "")), str(state.get("error", "")),
        )  # fmt: skip

    def report(self, directory: Path, organiser: bool) -> Path | None:
        path = directory / (REPORT_NAME if organiser else PUBLIC_REPORT)
        return path if path.is_file() else None
