"""The bot SDK: subclass ``Bot``, implement ``act``, call ``run``. gRPC stays out of sight.

    from arena.bot import Bot, run

    class FirstLegal(Bot):
        name = "first-legal"

        def act(self, view):
            return view.legal_actions[0]

    if __name__ == "__main__":
        run(FirstLegal)

Each game gets its own instance of the class, so instance attributes are per-game state. ``act`` receives the
seat's complete ``View`` (own hand, public history, legal actions) and returns one of ``view.legal_actions``
(an ``Action``, its text such as ``"PLAY(JH)"``, or its id). A plain ``def act`` runs in a thread of its own
(``arena.protocol.threads``), so a slow search never stalls the other games this process serves; an ``async
def act`` runs on the event loop. ``self.time_left()`` says how long the current decision may still take. The
view is decoded lazily (``arena.protocol.lazyview``): a field costs only when read.
``run`` uses uvloop when it is installed (the ``uvloop`` extra). A bot may start helper processes:
``import arena`` turns gRPC's fork support off, which otherwise crashes some of the children a busy gRPC
process starts (import ``arena.bot`` before ``grpc``, or set ``GRPC_ENABLE_FORK_SUPPORT=0`` yourself).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import logging
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, ClassVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.engine.actions import ACTIONS, Action, parse_action_id
from arena.engine.config import Variant
from arena.engine.news import News
from arena.engine.views import View
from arena.errors import ConfigError
from arena.gameinfo import GameInfo, GameResult
from arena.protocol import PROTOCOL_VERSION, SERVICE_NAME, convert, loops, reflection
from arena.protocol.lazyview import LazyViewDecoder
from arena.protocol.threads import pool_for_running_loop
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.v1 import player_pb2_grpc as pb_grpc

log = logging.getLogger("arena.bot")

SAFETY_MARGIN_S = 0.05
"""``time_left`` keeps this much (plus 10 % of the decision's time) in hand for the reply to travel."""


class Bot:
    """Base class of every Python bot. Override ``act``; the other hooks are optional.

    The SDK makes one instance per game (per ``PlayGame`` stream), so anything a bot stores on ``self`` is
    that game's state and needs no reset. A subclass that defines ``__init__`` must call
    ``super().__init__()`` and take no arguments.
    """

    name: ClassVar[str] = "bot"
    """The name the bot gives in the handshake; standings show the entrant's name from the config."""
    author: ClassVar[str] = ""
    """Who wrote it (a person or team), for ``arena check-bot`` and the logs."""
    version: ClassVar[str] = "0"
    """The bot's own version string, for the logs: tells apart two builds entered under one name."""
    variants: ClassVar[tuple[Variant, ...]] = tuple(Variant)
    """The variants the bot can play; the arena seats it only at tables of these (default: all three)."""

    def __init__(self) -> None:
        self.game: GameInfo | None = None
        """This game's seat, rules, seat names and time limits; set before ``on_game_start`` is called."""
        self._deadline = float("inf")

    def act(self, view: View) -> Action | str | int | Awaitable[Action | str | int]:
        """Choose one of ``view.legal_actions``: return the ``Action``, its text (``"PLAY(JH)"``) or its id.

        A plain ``def`` runs in a thread of its own (up to 32 at once per process), so a long search does
        not stall the other games this process plays; ``async def`` runs on the event loop and must not
        block it. Anything else returned, or an exception, is a fault for the seat (an exception ends the
        game stream with an error status; the arena reopens it at the seat's next decision).
        ``self.time_left()`` says how long it may take.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement act(view)")

    def on_game_start(self, game: GameInfo) -> Awaitable[None] | None:
        """Called once per game before any event or decision (``self.game`` is already set).

        Also called again, with ``game.resumed`` true, when the arena reopens a stream that failed in
        mid-game; the instance is then a new one, so a bot that keeps state rebuilds it from the next view.
        """

    def on_event(self, event: News) -> Awaitable[None] | None:
        """Called for every event this seat is told (``arena.engine.news``), in order.

        Events arrive batched with the next message, so all of them have been delivered before ``act`` is
        called. Overriding this is optional and costs decoding time; a bot that does not override it gets
        no events decoded at all.
        """

    def on_game_over(self, result: GameResult) -> Awaitable[None] | None:
        """Called once when the game ends, with scores, ranks and winners; the instance is then dropped."""

    def time_left(self) -> float:
        """Seconds this decision may still take, with a safety margin for the reply's trip.

        It is 90 % of the request's ``time_ms`` less ``SAFETY_MARGIN_S``, counted from when the request
        arrived, and does not include the game's time bank: the bank is for accidents, not for planning.
        """
        return max(0.0, self._deadline - time.monotonic())


def to_action(value: Action | str | int) -> Action:
    """Normalise what ``act`` returned: an ``Action``, its text, or its id."""
    if isinstance(value, Action):
        return value
    if isinstance(value, str):
        return ACTIONS[parse_action_id(value)]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(ACTIONS):
        return ACTIONS[value]
    raise TypeError(f"act() must return an Action, an action text or an action id, got {value!r}")


class PlayerServicer(pb_grpc.PlayerServicer):
    """The gRPC side of a bot process: one ``Bot`` instance per ``PlayGame`` stream."""

    def __init__(self, bot_class: type[Bot]) -> None:
        self.bot_class = bot_class

    async def Hello(self, request: pb.HelloRequest, context: grpc.aio.ServicerContext) -> pb.HelloResponse:
        if request.protocol_version != PROTOCOL_VERSION:
            log.warning("arena speaks protocol %s, this bot %s", request.protocol_version, PROTOCOL_VERSION)
        cls = self.bot_class
        return convert.hello_response(cls.name, cls.author, cls.version, cls.variants)

    async def PlayGame(
        self, request_iterator: AsyncIterator[pb.ArenaMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.BotMessage]:
        bot = self.bot_class()
        decoder = LazyViewDecoder()
        wants_events = type(bot).on_event is not Bot.on_event  # decoding events costs; skip it if unused
        pool = None if inspect.iscoroutinefunction(bot.act) else pool_for_running_loop()
        async for message in request_iterator:
            kind = message.WhichOneof("body")
            try:
                if kind == "game_start":
                    bot.game = convert.game_info_from_pb(message.game_start)
                    await _maybe_await(bot.on_game_start(bot.game))
                if wants_events:
                    for event in message.events:
                        await _maybe_await(bot.on_event(convert.event_from_pb(event)))
                if kind == "decision_request":
                    request = message.decision_request
                    received = time.monotonic()
                    bot._deadline = received + request.time_ms / 1000 * 0.9 - SAFETY_MARGIN_S
                    view = decoder.decode(request)
                    if pool is None:
                        result = await bot.act(view)  # type: ignore[misc]
                    else:
                        result = await pool.call(bot.act, view)
                        if type(result) is not Action and inspect.isawaitable(result):
                            result = await result
                    yield _reply(request.decision_id, result)
                elif kind == "game_over":
                    await _maybe_await(bot.on_game_over(convert.game_result_from_pb(message.game_over)))
            except Exception as exc:  # a bug in the bot: report it to the arena, which records a fault
                log.exception("%s failed on %s", type(bot).__name__, kind)
                await context.abort(
                    grpc.StatusCode.INTERNAL, f"{type(bot).__name__} raised {exc!r} on {kind}"
                )


def _reply(decision_id: int, result: Action | str | int) -> pb.BotMessage:
    """The reply carrying ``result`` (what ``act`` returned: see ``to_action``)."""
    return convert.decision_reply(decision_id, result if type(result) is Action else to_action(result))


async def _maybe_await(value: Any) -> None:
    if inspect.isawaitable(value):
        await value


async def create_server(
    bot_class: type[Bot], address: str = "127.0.0.1:0", max_message_bytes: int = 4 * 1024 * 1024
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    """A started gRPC server for ``bot_class`` with health and reflection; returns (server, port, health).

    Use it instead of ``serve`` to run a bot inside a program of your own (a test, a notebook): the server
    is already started; stop it with ``await server.stop(grace)``. Health answers ``SERVING`` for ``""``
    (the name the arena asks for) and for ``euchre.arena.v1.Player``; reflection is served as both
    ``grpc.reflection.v1`` and ``v1alpha``, so that any gRPC tool can list and call the bot.

    ``address`` is ``HOST:PORT`` or ``unix:PATH`` (a Unix socket: how the sandbox connects to a bot).
    ``SO_REUSEPORT`` is off (gRPC turns it on by default): a second bot started on a busy port must fail,
    not silently share the port so that the arena talks to either of them by turns.
    """
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes),
            ("grpc.so_reuseport", 0),
        ]
    )
    pb_grpc.add_PlayerServicer_to_server(PlayerServicer(bot_class), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME), server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as exc:  # grpc reports a port it cannot bind as a RuntimeError
        raise OSError(f"cannot listen on {address}: {exc}") from None
    if port == 0 and not address.startswith("unix:"):
        raise OSError(f"cannot listen on {address}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    return server, port, health_servicer


async def serve(
    bot_class: type[Bot],
    host: str = "127.0.0.1",
    port: int = 0,
    grace_s: float = 2.0,
    address: str | None = None,
) -> None:
    """Serve ``bot_class`` until SIGTERM or SIGINT, then stop gracefully (games in flight get ``grace_s``).

    Listens on ``address`` when given (``HOST:PORT`` or ``unix:PATH``), else on ``host:port``. Prints
    ``listening on ...`` (with the chosen port when ``port`` is 0) on stdout and flushes it, so a launcher
    can read the port.
    """
    # A thread thinking in ``act`` holds the GIL for up to the switch interval at a time; the event loop
    # that must send the reply waits for it. 1 ms instead of 5 keeps replies prompt when several games
    # think at once, at a negligible cost.
    sys.setswitchinterval(0.001)
    where = address or f"{host}:{port}"
    server, bound, health_servicer = await create_server(bot_class, where)
    shown = where if where.startswith("unix:") else f"{where.rsplit(':', 1)[0]}:{bound}"
    print(f"{bot_class.name} listening on {shown}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await health_servicer.enter_graceful_shutdown()
    await server.stop(grace_s)


def loop_factory(loop: str = "auto") -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop a bot runs on: ``uvloop`` (``auto`` when it is installed), else asyncio's (``None``).

    Why uvloop: the bot's share of a decision is mostly gRPC's and the event loop's own work, and uvloop
    trims the loop's part (docs/performance.md; ``bench/protocol.py --uvloop`` measures it). It is optional
    (the ``uvloop`` extra; no Windows build), so ``auto`` falls back to asyncio without it. The same choice
    as the arena's (``arena.protocol.loops``).

    :raises SystemExit: for ``uvloop`` when it is not installed.
    """
    try:
        return loops.loop_factory(loop)
    except ConfigError:
        raise SystemExit(f"--loop {loop}: uvloop is not installed (the 'uvloop' extra)") from None


def run(bot_class: type[Bot], argv: Sequence[str] | None = None) -> None:
    """Command-line entry point of a bot: ``--address`` (what the arena's ``{address}`` gives: ``unix:PATH``
    in the sandbox, ``HOST:PORT`` without), or ``--host`` (default 127.0.0.1) and ``--port`` (0 = any free).
    """
    parser = argparse.ArgumentParser(description=f"Run the {bot_class.name} bot as a euchre-arena player.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks a free one (default)")
    parser.add_argument(
        "--address", default=None, help="HOST:PORT or unix:PATH to listen on (overrides --host and --port)"
    )
    parser.add_argument("--log-level", default="WARNING", help="logging level (default WARNING)")
    parser.add_argument(
        "--loop",
        choices=loops.CHOICES,
        default="auto",
        help="event loop: uvloop when installed (auto, the default; the 'uvloop' extra), or asyncio's own",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format=f"%(asctime)s {bot_class.name} %(levelname)s %(message)s",
    )
    try:
        with asyncio.Runner(loop_factory=loop_factory(args.loop)) as runner:
            runner.run(serve(bot_class, args.host, args.port, address=args.address))
    except OSError as exc:
        print(f"{bot_class.name}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


__all__ = ["Bot", "GameInfo", "GameResult", "create_server", "loop_factory", "run", "serve", "to_action"]
