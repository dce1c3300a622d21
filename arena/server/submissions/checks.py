"""The check every new version gets, at once: ``arena check-bot``'s games, against the version launched
in its sandbox exactly as the ladder will launch it.

Checks run ``[checks] parallel`` at a time (2) from a bounded queue (``[checks] queue``), in upload order,
each entrant seeing its place while it waits. Two at once rather than one: a check's time is half its
bot's start (a process of its own importing its runtime) and half its games (this process's loop), so a
second check's start overlaps the first's games and the queue empties about twice as fast on 2 cores. An
upload beyond the queue's bound is refused at once (429) rather than accepted and forgotten. Versions whose
check had not finished when the server stopped are queued again at the next start.

While a check runs or waits, the ladder starts no new game, for at most ``Ladder.YIELD_S`` in a row
(``idle``): a verdict is what a person is waiting for, a ladder game is not, and with the ladder's games
on the same loop and cores a check took three times as long (docs/server.md, Speed).

What an entrant reads on the version's page is what :func:`check_version` returns: the verdict, every
violation with the game, hand and decision it happened at (``arena.conductor.checkbot``), latency p50 and
p99, and the last lines of the bot's stderr (escaped by the page like every text).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gzip
import itertools
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from arena.conductor import ask as asking
from arena.conductor.checkbot import check_bot
from arena.conductor.requests import Decision, Timing
from arena.errors import ArenaError, StoreError
from arena.event.faults import FaultPolicy
from arena.players.process import ManagedBot
from arena.players.shim import STARTING_MARK
from arena.results.record import GameRecord, ScheduledGame
from arena.sandbox import SandboxSpec
from arena.server.db.models import VersionStatus
from arena.server.db.multi import CheckClaims, shared
from arena.server.errors import Refused
from arena.server.settings import CompetitionConfig, Runtime
from arena.server.submissions.service import KEPT, Submissions, launch_command

log = logging.getLogger("arena.server")
STDERR_TAIL_BYTES = 4000
LOGS = "logs"
SHARED_POLL_S = 1.0  # how often a process on a shared database looks for uploads made to the others


def public_text(text: str, data_dir: Path, directory: Path) -> str:
    """``text`` (a reason, a log) as an entrant may read it: without the shim's launch line and with the
    server's own paths replaced (an unsandboxed bot's traceback names its file under the server's
    directory): the upload's folder becomes ``<your upload>``, the rest of the server's ``<server>``."""
    return public_texts((text,), data_dir, directory)[0]


def public_texts(parts: Sequence[str], data_dir: Path, directory: Path) -> list[str]:
    """``public_text`` of pieces cut from one log (a game's span and the bytes written just after it),
    judged as the one text they are: a path or launch line that the cut splits is still found, and goes
    whole to the piece where it begins. Each piece on its own would show the two halves of the path."""
    forms = sorted(
        {
            (form, name)
            for path, name in ((directory, "<your upload>"), (data_dir, "<server>"))
            for form in (str(path), str(path.resolve()), str(path.absolute()))
            if form not in ("", ".")
        },
        key=lambda pair: len(pair[0]),
        reverse=True,
    )
    names = dict(forms)
    joined = "".join(parts)
    cut_off = _cut_at_the_end(joined, forms)
    if cut_off is not None:
        names[cut_off[0]] = cut_off[1]
    cut_before = _cut_at_the_start(joined, forms)
    if cut_before is not None:
        names[cut_before[0]] = cut_before[1]
    # Lines end at "\n" only, as the bot's log is written (arena.players.shim): ``str.splitlines`` also
    # ends one at \x0b, \x1c, \x85, U+2028 ..., which a bot can write to start a line of its choosing.
    pattern = re.compile(
        "(?m)"
        + (rf"\A{re.escape(cut_before[0])}|" if cut_before is not None else "")
        + (rf"{re.escape(cut_off[0])}\Z|" if cut_off is not None else "")
        + rf"^{re.escape(STARTING_MARK)}[^\n]*(?:\n|$)"
        + "".join(f"|{re.escape(f)}" for f, _ in forms)
    )
    cuts = list(itertools.accumulate(len(p) for p in parts))[:-1]
    moved = list(cuts)  # each cut's place in the output
    shift = 0  # how much longer the output is than the input, up to the last match
    for match in pattern.finditer(joined):
        grown = len(names.get(match.group(), "")) - len(match.group())
        for c, cut in enumerate(cuts):
            if match.start() < cut < match.end():  # the match goes whole to the piece where it begins
                moved[c] = match.end() + shift + grown
            elif cut >= match.end():
                moved[c] = cut + shift + grown
        shift += grown
    text = pattern.sub(lambda m: names.get(m.group(), ""), joined)
    bounds = [0, *moved, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _cut_at_the_end(text: str, forms: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """The start of a server path that the end of ``text`` cuts off (a log's tail is kept to a number of
    bytes, and the cut can fall inside a path: "/srv/class/resu"), with its name, or None. Only a start
    that names a directory ("/srv/") counts, so a bot's trailing "/" or "/t" stays as it wrote it; the
    name is the shortest path it could still become: ``<server>`` until it is surely the upload's."""
    longest = max((len(f) for f, _ in forms), default=0)
    for start in range(max(0, len(text) - longest), len(text)):
        tail = text[start:]
        if not tail.startswith("/") or tail.count("/") < 2:
            continue
        if any(tail == f for f, _ in forms):
            return None  # a whole path: the forms themselves hide it
        could_be = [(len(f), name) for f, name in forms if len(f) > len(tail) and f.startswith(tail)]
        if could_be:
            return tail, min(could_be)[1]
    return None


def _cut_at_the_start(text: str, forms: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """The end of a server path that the start of ``text`` cuts off (a stderr's tail starts at a byte count:
    "0/results/versions/2/v1/bot.py"), with its name, or None. Only an end that spans a "/" counts."""
    found = [
        (len(f) - start, f[start:], name)
        for f, name in forms
        for start in range(1, len(f))
        if "/" in f[start:] and text.startswith(f[start:])
    ]
    if not found:
        return None
    _, head, name = max(found)
    return head, name


def version_log(config: CompetitionConfig, user_id: int, number: int, what: str) -> Path:
    """Where a version's stderr goes: ``check`` for its check, ``ladder`` for its ladder games."""
    return config.data_dir / LOGS / str(user_id) / f"v{number}-{what}.log"


async def check_version(
    config: CompetitionConfig, runtime: Runtime, directory: Path, log_path: Path
) -> dict[str, Any]:
    """Launch the version in its sandbox and play the check's games against it; never raises for the
    bot's faults (they are the verdict)."""
    started = time.perf_counter()
    spec = config.submissions
    hidden = [config.data_dir.resolve(), *([config.source] if config.source else [])]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.unlink(missing_ok=True)
    bot = ManagedBot(
        f"check-{directory.name}",
        launch_command(runtime, directory),
        log_path,
        startup_timeout_s=spec.startup_timeout_s,
        memory_mb=spec.memory_mb,
        sandbox=SandboxSpec(mode=config.sandbox, workdir=directory, hide=tuple(hidden)),
        cwd=directory,
        log_label="its stderr",
    )
    report: dict[str, Any] = {"violations": [], "warnings": [], "games": []}
    try:
        address = await bot.start()
    except (ArenaError, OSError) as exc:
        # the whole reason: its first line says how the start failed, the lines under it the bot's own
        report["violations"].append(public_text(f"the bot did not start: {exc}", config.data_dir, directory))
    else:
        found = await check_bot(
            address, config.checks.games_per_config, config.checks.decision_ms, seed=int(time.time())
        )
        variant = config.game.variant.value
        if found.identity is not None and variant not in found.identity.variants:
            found.violations.append(f"the bot does not claim {variant}, the variant this competition plays")
        report |= {
            "identity": None
            if found.identity is None
            else {
                "name": found.identity.name,
                "version": found.identity.version,
                "author": found.identity.author,
            },
            "violations": found.violations,
            "warnings": found.warnings,
            "games": found.games,
            "decisions": found.decisions,
            "p50_ms": None if not found.latencies_ms else round(found.percentile(0.5), 2),
            "p99_ms": None if not found.latencies_ms else round(found.percentile(0.99), 2),
            "passed": found.passed,
            # each violation's failed decision (or None), and the games they are in: the request the bot
            # received is offered beside the violation, for `arena ask` (``check_decisions``)
            "violation_decisions": [
                list(found.violation_at[i]) if i in found.violation_at else None
                for i in range(len(found.violations))
            ],
            KEPT: keep_failed(found.records, {game for game, _ in found.violation_at.values()}),
        }
    finally:
        await bot.close()
    report["passed"] = bool(report.get("passed")) and not report["violations"]
    report["warnings"] = [public_text(w, config.data_dir, directory) for w in report["warnings"]]
    # The bot's own lines: the launcher's "[arena] starting: bwrap ..." line tells the entrant nothing.
    report["stderr_tail"] = public_text(bot.log_tail(STDERR_TAIL_BYTES), config.data_dir, directory).rstrip(
        "\n"
    )
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report


CHECK_TIMING = FaultPolicy()
"""The fault policy of the check's games but their time per decision (``[checks] decision_ms``):
check-bot plays them under ``FaultPolicy(decision_ms=...)``."""


def keep_failed(records: list[tuple[ScheduledGame, GameRecord]], games: set[str]) -> str:
    """The check's ``games`` in which a decision failed, packed for the report (every decision of them
    rebuilds from it: ``check_decisions``)."""
    kept = [asking.kept_record(record) for _, record in records if record.game_id in games]
    data = json.dumps(kept, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(data, mtime=0)).decode()


def check_decisions(report: dict[str, Any], decision_ms: int, game_id: str) -> list[Decision] | None:
    """Every decision of game ``game_id`` of a version's check, as the bot was asked them, or None when
    the check kept no such game (only the games a violation was found in are kept).

    :raises StoreError: the kept game is damaged.
    """
    packed = report.get(KEPT)
    if not isinstance(packed, str) or not packed:
        return None
    try:
        kept = json.loads(gzip.decompress(base64.b64decode(packed, validate=True)))
    except (ValueError, OSError, EOFError) as exc:
        raise StoreError(f"the check's kept games are damaged ({exc!r})") from None
    timing = Timing(decision_ms, CHECK_TIMING.time_bank_ms, CHECK_TIMING.max_faults_per_game)
    for data in kept:
        if isinstance(data, dict) and data.get("game_id") == game_id:
            return asking.decisions_of_kept(data, timing)
    return None


class CheckQueue:
    """The bounded queue of checks, ``[checks] parallel`` at a time (see the module's docstring)."""

    def __init__(
        self,
        config: CompetitionConfig,
        submissions: Submissions,
        on_verdict: Callable[[], Awaitable[None]],
        claims: CheckClaims | None = None,
    ) -> None:
        self.config = config
        self.submissions = submissions
        self.on_verdict = on_verdict
        self.claims = claims or CheckClaims(submissions.db)
        # Several processes on one database: the queue is the database's versions waiting for a check,
        # each taken by one process (arena.server.db.multi); an upload to any process wakes this one.
        self.shared = shared(submissions.db)
        self._wake = asyncio.Event()
        self.queue: asyncio.Queue[int] = asyncio.Queue(config.checks.queue)
        self.waiting: list[int] = []  # in order, for "your check is number 3 in the queue"
        self.running: list[int] = []  # the checks under way, in the order they began
        self.idle = asyncio.Event()
        """Set while no check of this process runs or waits: the ladder waits for it (``Ladder.checks``)."""
        self.idle.set()
        self.done = 0

    def put(self, version_id: int) -> None:
        """:raises Refused: 429 when the queue is full."""
        if self.shared:
            if len(self.submissions.pending()) > self.config.checks.queue:
                raise Refused(429, "the check queue is full: upload again in a minute", 60)
            self._wake.set()
            return
        try:
            self.queue.put_nowait(version_id)
        except asyncio.QueueFull:
            raise Refused(429, "the check queue is full: upload again in a minute", 60) from None
        self.waiting.append(version_id)
        self.idle.clear()

    def place(self, version_id: int) -> int | None:
        """1 for the oldest check under way, 2 for the next (under way or waiting) ..., None when not
        waiting."""
        if self.shared:  # in upload order among all the processes' waiting and running checks
            pending = self.submissions.pending()
            return pending.index(version_id) + 1 if version_id in pending else None
        queue = self.running + self.waiting
        return queue.index(version_id) + 1 if version_id in queue else None

    @property
    def size(self) -> int:
        """Checks under way or waiting in this process."""
        return len(self.running) + len(self.waiting)

    async def run(self) -> None:
        """Check versions ``[checks] parallel`` at a time, forever (cancelled at shutdown: those checks are
        redone at start)."""
        workers = self.config.checks.parallel
        if self.shared:
            broken: set[int] = set()  # checks failed by a bug: not retried by this process until restart
            await asyncio.gather(*(self._run_shared(broken) for _ in range(workers)))
            return
        for version_id in self.submissions.pending():
            self.put(version_id)
        await asyncio.gather(*(self._run() for _ in range(workers)))

    async def _run(self) -> None:
        while True:
            version_id = await self.queue.get()
            self.waiting.remove(version_id)
            self.running.append(version_id)
            try:
                await self._check(version_id)
            except Exception:  # a bug in the check must not stop the queue; the version stays queued
                log.exception("the check of version %s failed", version_id)
            finally:
                self._ended(version_id)

    def _ended(self, version_id: int) -> None:
        self.running.remove(version_id)
        self.done += 1
        if not self.size:
            self.idle.set()

    async def _run_shared(self, broken: set[int]) -> None:
        """Take the oldest version no process (nor another of this one's workers) is checking, check it, and
        again; when none is left, wait to be woken by an upload here or look again in a second (an upload
        to another process)."""
        while True:
            taken = None
            for version_id in self.submissions.pending():
                if version_id in broken or version_id in self.running:  # a lock is counted per taking
                    continue
                if self.claims.claim(version_id):
                    if version_id in self.submissions.pending():  # not finished meanwhile by another
                        taken = version_id
                        break
                    self.claims.release(version_id)
            if taken is None:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), SHARED_POLL_S)
                continue
            self.running.append(taken)
            self.idle.clear()
            try:
                await self._check(taken)
            except Exception:  # as in run: the version stays queued, for this process or another
                log.exception("the check of version %s failed", taken)
                broken.add(taken)
            finally:
                self.claims.release(taken)
                self._ended(taken)

    async def _check(self, version_id: int) -> None:
        version = self.submissions.get(version_id)
        self.submissions.set_status(version_id, VersionStatus.CHECKING)
        path = version_log(self.config, version.user_id, version.number, "check")
        report = await check_version(
            self.config, Runtime(version.runtime), self.submissions.directory(version), path
        )
        verdict = VersionStatus.PASSED if report["passed"] else VersionStatus.FAILED
        self.submissions.set_status(version_id, verdict, report)
        log.info(
            "check of %s %s: %s in %.1f s", version.user, version.label, report["passed"], report["seconds"]
        )
        await self.on_verdict()
