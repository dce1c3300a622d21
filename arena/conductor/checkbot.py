"""``arena check-bot``: what a contestant runs before entering, against a running bot or a launched one.

It shakes hands, then plays a few games of every variant the bot claims (with option sets that reach the
rare decisions: the Joker and the FH two turned up, No-Trumps, 4 to 7 players), the bot in one seat and
sample bots in the others, under the real fault policy. Then it plays several games at once with the bot in
every seat, because an event does: a server that handles one stream at a time passes the one-seat games
and fails here. With ``--command`` it first launches the bot exactly as an event would (the sandbox, the
limits, ``{address}``), so a bot that cannot start in the sandbox fails here too, with the reason and its
log. Every violation is reported in plain words, with latency figures and a verdict. The bot passes only
with zero violations.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.bot import Bot
from arena.conductor.ask import Timing, keep_games, launch_spec
from arena.engine.cards import JOKER, TWO_HEARTS, TWO_SPADES
from arena.engine.config import GameConfig, Variant
from arena.engine.dealing import deal_order
from arena.engine.state import Phase
from arena.errors import ArenaError, BotError
from arena.event.faults import FaultPolicy
from arena.event.table import TableResult, TableSpec, play_table, record_of
from arena.players.connection import BotConnection, BotIdentity
from arena.players.inprocess import InProcessPlayer
from arena.players.process import ManagedBot
from arena.players.remote import RemotePlayer
from arena.results.record import Fault, GameRecord, ScheduledGame
from arena.sandbox import SandboxMode
from arena.text import printable

STARTING_S = 10.0
"""How long check-bot waits for a running bot's address to accept a connection before the handshake: a bot
started just before it (``python bot.py &`` then ``arena check-bot``) may still be importing."""

CHECK_CONFIGS: dict[Variant, tuple[dict[str, object], ...]] = {
    Variant.CALL_ACE: (
        {},
        {"num_players": 7, "use_joker": True},
        {"num_players": 4, "allow_no_trump": True, "stick_the_dealer": True},
        {"num_players": 6, "use_joker": True, "target": 5},
    ),
    Variant.FIVE_HANDED: ({}, {"two_expose_mode": "exposed_suit", "target": 5}),
    Variant.CLASSIC: ({}, {"stick_the_dealer": True, "target": 5}),
}

PARALLEL_TABLES = 2
"""Tables played at once with the bot in every seat: two five-seat tables are ten streams on one bot."""
PARALLEL_HANDS = 12
"""The most hands of each of those games: they are for the streams at once, and a bot that passes every bid
(a starter that plays the first legal action) in every seat would otherwise deal to the game's 1,000-hand
limit, 20,000 decisions and most of its check's time."""


@dataclass
class CheckReport:
    address: str
    identity: BotIdentity | None = None
    health: str = "unknown"
    games: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    kinds_possible: set[str] = field(default_factory=set)
    latencies_ms: list[float] = field(default_factory=list)
    kinds_seen: set[str] = field(default_factory=set)
    decisions: int = 0
    parallel: list[str] = field(default_factory=list)
    launch: str = ""  # how the bot was launched (--command), or "" for a bot already running
    crash: str = ""  # one line when the failure is the bot's crash (its process exited), with its log's end
    kept: str = ""  # where the games are kept for ``arena ask`` when a decision failed
    violation_at: dict[int, tuple[str, int]] = field(default_factory=dict)
    """For each violation that is a failed decision (its index in ``violations``): its game's id and the
    decision's number, where ``arena ask`` finds the request (the server offers it beside the violation)."""
    records: list[tuple[ScheduledGame, GameRecord]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.identity is not None and not self.violations

    def percentile(self, q: float) -> float:
        data = sorted(self.latencies_ms)
        if not data:
            return float("nan")
        return data[min(len(data) - 1, int(q * len(data)))]

    def render(self) -> str:
        """The whole report, as ``arena check-bot`` prints it (the head and game lines as they happen)."""
        return "\n".join([*self.head(), *(f"  {g}" for g in self.games + self.parallel), *self.tail()])

    def head(self) -> list[str]:
        lines = [f"Checking the bot {self.launch}" if self.launch else f"Checking the bot at {self.address}"]
        if self.identity is not None:
            i = self.identity
            lines.append(
                f"  handshake: {i.name!r} version {i.version!r} by {i.author or '(no author)'}, "
                f"protocol {i.protocol_version}, variants: {', '.join(i.variants) or '(none)'}"
            )
        lines.append(f"  health check: {self.health}")
        return [printable(line) for line in lines]  # the bot's handshake is in them

    def tail(self) -> list[str]:
        lines: list[str] = []
        if self.latencies_ms:
            lines.append(
                f"  latency over {len(self.latencies_ms)} decisions: p50 {self.percentile(0.5):.1f} ms, "
                f"p99 {self.percentile(0.99):.1f} ms, max {max(self.latencies_ms):.1f} ms"
            )
        if self.kinds_seen:
            lines.append(f"  decision kinds answered: {', '.join(sorted(self.kinds_seen))}")
        missed = self.kinds_possible - self.kinds_seen
        if missed:
            lines.append(
                f"  not reached in these games (the bot's own choices decide some): "
                f"{', '.join(sorted(missed))}"
            )
        lines += [f"  warning: {w}" for w in self.warnings]
        if self.kept:
            lines.append(
                f"  the games are kept in {self.kept}: `arena faults {self.kept} --json` gives each "
                f"failed decision's game and number, `arena ask {self.kept} GAME --decision N` shows "
                "the request, and with --command or --address sends it to your bot again"
            )
        if self.crash:
            lines.append(f"  {self.crash}")
        if self.violations:
            lines.append(f"  {len(self.violations)} violation(s):")
            lines += [f"    - {v}" for v in self.violations]
        else:
            lines.append("  violations: none")
        lines.append("VERDICT: PASS" if self.passed else "VERDICT: FAIL")
        return [printable(line, lines=True) for line in lines]  # the bot's faults and log are in them


def _describe(fault: Fault) -> str:
    return (
        f"{fault.kind.value.replace('_', ' ')} in game {fault.game_id}, hand {fault.hand_index + 1}, "
        f"decision {fault.decision_id} after {fault.elapsed_ms:.0f} ms: {fault.detail}"
    )


def _opponent_class() -> type[Bot]:
    try:
        from sample_bots.rules import RulesBot

        return RulesBot
    except ImportError:  # pragma: no cover - the rules bot ships with the package
        from sample_bots.random import RandomBot

        return RandomBot


async def check_bot(
    address: str,
    games_per_config: int = 1,
    decision_ms: int = 1000,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
    keep: bool = False,
) -> CheckReport:
    """Run the whole check against the bot at ``address``; never raises for the bot's misbehaviour.

    With ``keep``, a failed decision has the check's games stored in a new directory (``report.kept``) for
    ``arena ask``; without it they are in ``report.records`` only.

    ``progress`` is told the report's head once the handshake is over, then each game's line as it ends
    (what ``CheckReport.render`` gives in one piece), so that a slow check shows it is alive; the tail is
    the caller's to print.
    """
    report = CheckReport(address)
    await _check(report, games_per_config, decision_ms, seed, progress or (lambda _line: None))
    if keep:
        _keep_games(report, FaultPolicy(decision_ms=decision_ms))
    return report


async def _check(
    report: CheckReport, games_per_config: int, decision_ms: int, seed: int, say: Callable[[str], None]
) -> None:
    connection = BotConnection(report.address)
    try:
        # A bot started just before (`python bot.py &` then `arena check-bot`, as the README has it) may not
        # listen yet: wait for it as an event waits for a launched bot, then let the handshake say why not.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(connection.channel.channel_ready(), STARTING_S)
        try:
            report.identity = await connection.hello()
        except BotError as exc:
            report.violations.append(f"handshake failed: {exc}")
            if _closed_mid_call(str(exc)):
                report.crash = (
                    "crashed? the bot accepted the connection and then dropped it during Hello, as a bot "
                    "does when it crashes on it: look at its own output"
                )
            for line in report.head():
                say(line)
            return
        report.health = await _health(connection.channel)
        for line in report.head():
            say(line)
        if report.health != "SERVING":
            report.violations.append(
                f"the standard gRPC health service does not answer SERVING ({report.health}); "
                "the arena waits for it before using a bot it launches"
            )
        if not report.identity.variants:
            report.violations.append("the handshake lists no variant, so the bot can never be seated")
        policy = FaultPolicy(decision_ms=decision_ms)
        opponent = _opponent_class()
        game_no = 0
        for variant in (Variant(v) for v in report.identity.variants):
            for options in CHECK_CONFIGS[variant]:
                config = GameConfig.create(variant, **options)
                for _ in range(games_per_config):
                    game_no += 1
                    seat = game_no % config.num_players
                    names = tuple(
                        report.identity.name if s == seat else f"{opponent.name}-{s}"
                        for s in range(config.num_players)
                    )
                    players = [
                        RemotePlayer(connection, names[s])
                        if s == seat
                        else InProcessPlayer(opponent, names[s])
                        for s in range(config.num_players)
                    ]
                    report.kinds_possible |= _possible_kinds(config)
                    spec = TableSpec(
                        f"check-{game_no}", config, _seed_for(config, seat, seed + game_no), names, policy
                    )
                    result = await play_table(spec, players)
                    _keep(report, spec, result)
                    faults = [f for f in result.faults if f.seat == seat]
                    _violations(report, [f for f in faults if f.charged])
                    report.warnings += [
                        f"the checking machine was too busy: {_describe(f)}" for f in faults if not f.charged
                    ]
                    report.latencies_ms += result.latencies_ms[seat]
                    report.decisions += len(result.latencies_ms[seat]) + len(faults)
                    for hand in result.hands:
                        report.kinds_seen.update(_kinds(hand, seat))
                    summary = (
                        f"{variant.value} {_options_text(options)}: game {spec.game_id} in seat {seat}, "
                        f"{len(result.hands)} hands, "
                        f"{len(result.latencies_ms[seat]) + len(faults)} decisions, "
                        f"{len(faults)} fault(s)" + (", forfeited" if seat in result.forfeited else "")
                    )
                    report.games.append(summary)
                    say(f"  {summary}")
                    if seat in result.forfeited:
                        return  # a forfeiting bot has shown enough
        if report.identity.variants:
            await _parallel(connection, report, policy, seed, say)
    finally:
        await connection.close()


async def _parallel(
    connection: BotConnection, report: CheckReport, policy: FaultPolicy, seed: int, say: Callable[[str], None]
) -> None:
    """``PARALLEL_TABLES`` short games at once with the bot in every seat: as many streams on one bot as an
    event's concurrent tables open. A bot that serves one stream at a time times out here."""
    assert report.identity is not None
    variant = Variant(report.identity.variants[0])
    config = GameConfig.create(variant, target=5, max_hands=PARALLEL_HANDS)
    name = report.identity.name
    names = tuple(f"{name}-{s}" for s in range(config.num_players))
    specs = [
        TableSpec(f"parallel-{t + 1}", config, seed + 1000 + t, names, policy) for t in range(PARALLEL_TABLES)
    ]
    results = await asyncio.gather(
        *(play_table(spec, [RemotePlayer(connection, n) for n in names]) for spec in specs)
    )
    streams = PARALLEL_TABLES * config.num_players
    for spec, result in zip(specs, results, strict=True):
        _keep(report, spec, result)
        charged = [f for f in result.faults if f.charged]
        _violations(report, charged[:3], f"with {streams} streams open at once: ")
        if len(charged) > 3:
            report.violations.append(f"... and {len(charged) - 3} more faults in game {spec.game_id}")
        report.warnings += [
            f"the checking machine was too busy: {_describe(f)}" for f in result.faults if not f.charged
        ]
        for seat in range(config.num_players):
            report.latencies_ms += result.latencies_ms[seat]
        decisions = sum(len(x) for x in result.latencies_ms) + len(result.faults)
        line = (
            f"{variant.value}, {PARALLEL_TABLES} games at once in every seat: game {spec.game_id} (target=5, "
            f"at most {PARALLEL_HANDS} hands), {len(result.hands)} hands, {decisions} decisions, "
            f"{len(result.faults)} fault(s)"
        )
        report.decisions += decisions
        report.parallel.append(line)
        say(f"  {line}")
    if any(f.charged for result in results for f in result.faults):
        report.violations.append(
            f"with {PARALLEL_TABLES} games at once the bot failed: an event plays many tables on one bot, so "
            f"it must serve concurrent PlayGame streams ({streams} here; a server with one worker thread, or "
            "one that handles one stream at a time, cannot)"
        )


def _violations(report: CheckReport, faults: list[Fault], prefix: str = "") -> None:
    """Each charged fault as a violation, remembering the decision it was (``violation_at``)."""
    for f in faults:
        report.violation_at[len(report.violations)] = (f.game_id, f.decision_id)
        report.violations.append(prefix + _describe(f))


def _keep(report: CheckReport, spec: TableSpec, result: TableResult) -> None:
    """Remember a played game in the store's form, for ``arena ask`` should a decision of it fail."""
    number = len(report.records)
    game = ScheduledGame(number, spec.game_id, 1, number + 1, spec.game_id, 0, spec.seed, spec.seat_names)
    report.records.append((game, record_of(result)))


def _keep_games(report: CheckReport, policy: FaultPolicy) -> None:
    """When a decision of the bot failed, store the check's games as a small event in a new directory
    (``report.kept``) that ``arena faults``, ``replay`` and ``ask`` read; a failure to store is a warning."""
    if not any(f.charged for _, record in report.records for f in record.faults):
        return
    where = Path(tempfile.mkdtemp(prefix="arena-check-games-"))
    timing = Timing(policy.decision_ms, policy.time_bank_ms, policy.max_faults_per_game)
    name = report.identity.name if report.identity else report.address
    try:
        keep_games(where, report.records, timing, name)
    except ArenaError as exc:
        report.warnings.append(f"the check's games could not be kept: {exc}")
        return
    report.kept = str(where)


def _closed_mid_call(detail: str) -> bool:
    """Whether a failed call's error says the bot's side went away in the middle of it (what a process
    that crashes while answering leaves), rather than that nobody was listening."""
    return "UNAVAILABLE" in detail and any(
        sign in detail for sign in ("Socket closed", "Stream removed", "Connection reset", "EOF")
    )


CRASH_SIGNS = re.compile(
    r"^(panic: |fatal error: |Traceback \(most recent call last\)|Exception in thread |terminate called |"
    r"Segmentation fault|\w+(\.\w+)*(Error|Exception): )"
)
"""The first line of what Go, Python, Java and C++ runtimes print when they die: the reason, which a
stack trace pushes out of the log's last lines."""


def _crash_reason(log: Path) -> str:
    """The log's last line that says why a runtime died (``CRASH_SIGNS``), or "" (read from its last
    64 KiB; a Python traceback's reason is its last line, which follows the trace)."""
    try:
        with log.open("rb") as f:
            f.seek(max(0, f.seek(0, 2) - 65536))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    found = [line.strip() for line in lines if CRASH_SIGNS.match(line.strip())]
    signs = [line for line in found if not line.startswith("Traceback")] or found
    return signs[-1][:200] if signs else ""


async def _exited(bot: ManagedBot, wait_s: float = 1.0) -> bool:
    """Whether the launched bot's process has exited (waiting up to ``wait_s`` for it to be reaped)."""
    for _ in range(int(wait_s / 0.05)):
        if not bot.alive():
            return True
        await asyncio.sleep(0.05)
    return not bot.alive()


def _seed_for(config: GameConfig, seat: int, base: int) -> int:
    """A deal seed from ``base`` on where ``seat`` deals a Joker (call-ace) or a two (five-handed) up-card in
    the first hand it deals, so the bot faces the blind decisions; ``base`` itself when none apply."""
    special = {
        Variant.CALL_ACE: (JOKER,) if config.use_joker else (),
        Variant.FIVE_HANDED: (TWO_SPADES, TWO_HEARTS),
    }
    cards = special.get(config.variant, ())
    if not cards:
        return base
    n = config.num_players
    hand = (seat - config.first_dealer) % n  # the first hand this seat deals
    for seed in range(base, base + 10_000):
        if deal_order(config, seed, hand)[5 * n] in cards:
            return seed
    return base


def _possible_kinds(config: GameConfig) -> set[str]:
    kinds = {"BID_ROUND_1", "BID_ROUND_2", "DISCARD", "CALL", "PLAY"}
    if config.variant is Variant.FIVE_HANDED:
        kinds |= {"TWO_CHOICE", "EXPOSE_NAME"}
    if config.variant is Variant.CALL_ACE and config.use_joker:
        kinds.add("JOKER_NAME")
    return kinds


def _options_text(options: dict[str, object]) -> str:
    """The options as a config writes them (``use_joker=true``, not Python's ``True``)."""

    def value(v: object) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else str(v)

    return "(" + (", ".join(f"{k}={value(v)}" for k, v in options.items()) or "defaults") + ")"


_KIND_OF_ACTION = {
    "PASS": None,
    "ORDER_UP": Phase.BID_ROUND_1,
    "TAKE_UP": Phase.BID_ROUND_1,
    "NAME": Phase.BID_ROUND_2,
    "JOKER_NAME": Phase.JOKER_NAME,
    "BLIND_NAME": Phase.TWO_CHOICE,
    "EXPOSE": Phase.TWO_CHOICE,
    "EXPOSE_NAME": Phase.EXPOSE_NAME,
    "DISCARD": Phase.DISCARD,
    "ALONE": Phase.CALL,
    "CALL": Phase.CALL,
    "PARTNER": Phase.CALL,
    "PLAY": Phase.PLAY,
}


def _kinds(hand: dict[str, object], seat: int) -> set[str]:
    """Decision kinds the seat answered in a hand record (a PASS is round 1 or 2 by position)."""
    seen = set()
    passes = 0
    n = int(hand["num_players"])  # type: ignore[call-overload]
    for entry in hand["actions"]:  # type: ignore[attr-defined]
        kind = entry["action"].split("(")[0]
        phase = _KIND_OF_ACTION[kind]
        if kind == "PASS":
            phase = Phase.BID_ROUND_1 if passes < n else Phase.BID_ROUND_2
            passes += 1
        if entry["seat"] == seat and phase is not None:
            seen.add(phase.name)
    return seen


async def _health(channel: grpc.aio.Channel) -> str:
    try:
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=3)
    except grpc.aio.AioRpcError as exc:
        return f"not available ({exc.code().name})"
    return health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)


async def check_command(
    command: str,
    *,
    sandbox: SandboxMode = SandboxMode.BUBBLEWRAP,
    workdir: Path | None = None,
    memory_mb: int | None = None,
    cpu_s: int | None = None,
    startup_timeout_s: float = 20.0,
    games_per_config: int = 1,
    decision_ms: int = 1000,
    progress: Callable[[str], None] | None = None,
    keep: bool = False,
) -> CheckReport:
    """Launch ``command`` as an event launches an entrant (its sandbox, limits and ``{address}``), check it,
    stop it. A bot that cannot start is a violation with the reason and the last lines of its log, which
    is kept (in a new directory under the system's temporary one) for the author to read whole, as is the
    log of every check that fails (its report names it); a passing check's log, which nothing names, is
    removed. One that crashed (its process exited) is said so in ``report.crash``. ``keep`` as for
    ``check_bot``.

    :raises ConfigError: the sandbox cannot run here, or the bot's directory cannot be told.
    """
    say = progress or (lambda _line: None)
    where = Path.cwd()
    spec = launch_spec(command, sandbox, workdir, where)
    launch = f"launched as `{command}` ({'in the sandbox' if spec.sandboxed else 'without a sandbox'})"
    logs = Path(tempfile.mkdtemp(prefix="arena-check-bot-"))
    bot = ManagedBot(
        "check",
        command,
        logs / "bot.log",
        startup_timeout_s=startup_timeout_s,
        memory_mb=memory_mb,
        cpu_s=cpu_s,
        sandbox=spec,
        cwd=where,
    )
    report = CheckReport(command, launch=launch)
    try:
        try:
            address = await bot.start()
        except (ArenaError, OSError) as exc:
            report.violations.append(f"the bot did not start: {exc}")
            for line in report.head():
                say(line)
            return report
        report = CheckReport(address, launch=launch)
        await _check(report, games_per_config, decision_ms, 1, say)
        if keep:
            _keep_games(report, FaultPolicy(decision_ms=decision_ms))
        if not report.passed:
            if await _exited(bot):
                why = _crash_reason(bot.log_path)
                report.crash = (
                    f"the bot crashed: its process exited during the check{f' ({why})' if why else ''}; "
                    f"{bot.log_excerpt()}"
                )
            else:
                report.warnings.append(bot.log_excerpt())
        return report
    finally:
        await bot.close()
        if report.passed:
            shutil.rmtree(logs, ignore_errors=True)
