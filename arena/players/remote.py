"""A seat played by a bot over gRPC: one stream per seat per game, with deadlines and fault detection.

Every way a remote bot can fail ends up as one ``BotError`` subclass raised from ``decide``: no reply in
time, a reply that does not decode, an error status, a message over the size limit, a closed stream, a dead
process, or a flood of unsolicited messages. A reply the busy arena itself heard too late is
``HarnessLate`` instead, which is not a ``BotError`` and is never charged to the bot. The stream is read by
one background task into a queue, so a timed-out read never cancels the call and a late reply to an
earlier decision is recognised and dropped.
If a stream dies mid-game, the next decision reopens it (``GameStart.resumed``): the request carries the
full view, so the bot can carry on.

The channel under the stream, and the one mapping of gRPC status codes to faults, are
``arena.players.connection``'s; where a seat finds its bot's current channel is ``arena.players.endpoint``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence

import grpc

from arena.engine.news import News
from arena.engine.views import View
from arena.errors import (
    BotCrashed,
    BotError,
    BotStatusError,
    BotTimeout,
    HarnessLate,
    MalformedAction,
    NotationError,
    StreamClosed,
)
from arena.gameinfo import GameInfo, GameResult
from arena.players.base import DecisionTiming, Player, Reply
from arena.players.connection import BotConnection, error_from_status
from arena.players.endpoint import Endpoint
from arena.players.loopwatch import LoopWatch
from arena.protocol import convert, wire
from arena.protocol.v1 import player_pb2 as pb

MAX_UNSOLICITED = 32
"""Messages a bot may send in one stream that are not the answer to the open decision (late replies to
timed-out decisions included) before the stream is cut off as a flood."""
DRAIN_TURNS = 10
"""Most extra loop turns a timed-out decision waits while gRPC holds completed reads the loop has not
handled (under constant traffic that socket may never go quiet)."""
WRITE_TIMEOUT_S = 5.0
"""A bot that stops reading its stream blocks our writes; after this long the stream counts as dead."""

_CLOSED = object()
_TIMEOUT = object()


class _Flag:
    """Set by a guard timer that fired, so the failure it caused is told apart from any other."""

    __slots__ = ("set",)

    def __init__(self) -> None:
        self.set = False


def _cancel_blocked(call: grpc.aio.StreamStreamCall, flag: _Flag) -> None:
    flag.set = True
    call.cancel()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class RemotePlayer(Player):
    """One seat of one game, played by the bot behind ``connection``."""

    def __init__(
        self, connection: BotConnection | Endpoint, name: str, watch: LoopWatch | None = None
    ) -> None:
        self.endpoint = connection if isinstance(connection, Endpoint) else Endpoint(connection)
        self._held: BotConnection | None = None  # the connection this seat's streams use (acquired)
        self._generation = -1  # the bot start ``connection`` reaches
        self._charged = -1  # the bot start whose crash this game has already been charged a fault for
        self.name = name
        self.watch = watch or LoopWatch.for_running_loop()
        self._info: GameInfo | None = None
        self._call: grpc.aio.StreamStreamCall | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiter: tuple[int, asyncio.Future[object]] | None = None  # the decision awaiting its reply
        self._write_pending = False
        self._failure: BotError | None = None
        self._pending: list[bytes] = []  # events not yet sent, encoded (``wire.event_bytes``)
        self._encoder = wire.RequestEncoder()
        self._last_id = 0
        self._asked = 0  # the decision id whose request is being or has been written on this stream
        self._expired: set[int] = set()  # decisions that timed out: one late reply each is tolerated
        self._unsolicited = 0
        self._read_late = False  # the open decision's reply was found only by draining the transport
        self._timer_late_ms = 0.0  # how late the loop ran the open decision's deadline
        # The open decision's reply future, call and deadline (``time.monotonic()``), for the seat's timer.
        self._deadline: tuple[asyncio.Future[object], grpc.aio.StreamStreamCall, float] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    @property
    def connection(self) -> BotConnection:
        """The connection this seat uses (or will use next)."""
        return self._held or self.endpoint.connection

    # ------------------------------------------------------------------ stream lifecycle

    async def start(self, info: GameInfo, news: Sequence[News]) -> None:
        self._info = info
        self.queue_news(news)
        if self.endpoint.down():  # a game that starts while the bot restarts waits for it: nothing was asked
            await self.endpoint.revive()
        await self._open(resumed=False)

    def _use_current_connection(self) -> BotConnection:
        """Hold the endpoint's current connection (letting go of an older one)."""
        if self._held is not None and self._generation == self.endpoint.generation:
            return self._held
        old = self._held
        self._held, self._generation = self.endpoint.acquire()
        if old is not None:
            self.endpoint.release(old)
        return self._held

    async def _reconnect(self) -> None:
        """Reopen a broken stream for the next decision (``GameStart.resumed``).

        A crash costs each game that asks the bot to act while it is down one ``crashed`` fault: the first
        decision that finds it down is that fault (and sets the restart going); the game's later decisions
        wait for the restart instead of piling up faults for the same crash. A dying process may end the
        game's stream first (``stream_closed``, charged in ``decide``): that is the game's fault for it.
        """
        endpoint = self.endpoint
        paid = (  # this game paid for the crash of the process its stream was on, which is still current
            isinstance(self._failure, BotCrashed)
            and self._charged >= self._generation
            and self._generation == endpoint.generation
        )
        if endpoint.down() and self._charged < endpoint.generation:
            self._charged = endpoint.generation
            endpoint.restart_soon()
            raise BotCrashed(f"{self.name} is down (its process exited); the arena is restarting it")
        if paid or endpoint.down():
            await endpoint.revive(suspect=paid)
        await self._open(resumed=True)

    async def _open(self, resumed: bool) -> None:
        info = self._info
        assert info is not None
        await self._drop_call()
        self._failure = None
        self._unsolicited = 0
        self._asked = 0
        self._expired.clear()
        connection = self._use_current_connection()
        try:
            self._call = connection.play_game()
        except (grpc.aio.UsageError, RuntimeError) as exc:  # the channel was closed under us
            self._fail(BotCrashed(f"{self.name}: cannot open a stream to {connection.address}: {exc!r}"))
            raise self._failure from None  # type: ignore[misc]
        self._reader = asyncio.create_task(self._read(self._call))
        await self._write(self._with_pending(convert.game_start(info, resumed)))

    async def _read(self, call: grpc.aio.StreamStreamCall) -> None:
        """Hand the answer to the open decision to it; everything else counts towards the flood limit.

        A reply is accepted only for a request already being written (``_asked``): an id the arena has not
        asked yet, or one already answered, is ``malformed_reply`` for the open decision. One late reply per
        timed-out decision is dropped without a fault (the timeout was the fault), but still counts as
        unsolicited, so no kind of message can be sent without limit.
        """
        try:
            while True:
                message = await call.read()
                if message is grpc.aio.EOF:
                    self._fail(StreamClosed(f"{self.name} closed its stream before the game ended"))
                    return
                waiter = self._waiter
                open_id = waiter[0] if waiter is not None and not waiter[1].done() else 0
                is_decision = message.WhichOneof("body") == "decision"
                got = message.decision.decision_id if is_decision else 0
                if open_id and open_id == self._asked and (not is_decision or got not in self._expired):
                    assert waiter is not None
                    waiter[1].set_result(message)  # decide() judges it: right id, decodable action
                    if is_decision and got == open_id:
                        continue
                elif is_decision and got in self._expired:
                    self._expired.discard(got)  # the late reply to a timed-out decision
                self._unsolicited += 1
                if self._unsolicited > MAX_UNSOLICITED:
                    self._fail(
                        MalformedAction(
                            f"{self.name} sent more than {MAX_UNSOLICITED} messages nobody asked for"
                        )
                    )
                    call.cancel()
                    return
        except grpc.aio.AioRpcError as exc:
            self._fail(error_from_status(exc, f"stream of {self.name}"))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # pragma: no cover - defensive: never let a reader die silently
            self._fail(BotStatusError(f"stream of {self.name} failed: {exc!r}"))
        finally:
            waiter = self._waiter
            if waiter is not None and not waiter[1].done():
                waiter[1].set_result(_CLOSED)

    def _fail(self, error: BotError) -> None:
        if self._failure is None:
            self._failure = error

    async def _write(self, message: bytes) -> None:
        call = self._call
        if call is None or self._failure is not None:
            raise self._failure or StreamClosed(f"{self.name}: no open stream")
        # The bound is a timer that cancels the call, not ``asyncio.wait_for`` (a task per write: a share
        # of a stream's cost worth measuring, paid twice per seat per game).
        blocked = _Flag()
        guard = asyncio.get_running_loop().call_later(WRITE_TIMEOUT_S, _cancel_blocked, call, blocked)
        try:
            await call.write(message)
        except (
            grpc.aio.AioRpcError,
            asyncio.InvalidStateError,
            grpc.aio.UsageError,
            asyncio.CancelledError,
        ) as exc:
            if blocked.set:
                self._fail(
                    BotTimeout(f"{self.name} stopped reading its stream (write blocked {WRITE_TIMEOUT_S}s)")
                )
            elif isinstance(exc, asyncio.CancelledError):
                raise
            elif isinstance(exc, grpc.aio.AioRpcError):
                self._fail(error_from_status(exc, f"stream of {self.name}"))
            else:
                await asyncio.sleep(0)  # let the reader record why the stream ended
                self._fail(StreamClosed(f"stream of {self.name} is closed: {exc!r}"))
            raise self._failure from None  # type: ignore[misc]
        finally:
            guard.cancel()
        if blocked.set:  # the write went through as the guard cancelled the call: the stream is gone
            self._fail(
                BotTimeout(f"{self.name} stopped reading its stream (write blocked {WRITE_TIMEOUT_S}s)")
            )
            raise self._failure  # type: ignore[misc]

    def queue_news(self, news: Sequence[News]) -> None:
        self._pending.extend([wire.event_bytes(e) for e in news])

    def _take_pending(self) -> list[bytes]:
        pending, self._pending = self._pending, []
        return pending

    def _with_pending(self, message: pb.ArenaMessage) -> bytes:
        """``message`` encoded, with the queued events (a repeated field: encodings concatenate)."""
        return b"".join((*self._take_pending(), message.SerializeToString()))

    # ------------------------------------------------------------------ decisions

    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        try:
            return await self._decide(view, decision_id, timing)
        except (BotCrashed, StreamClosed):
            # this game has paid for this crash: a process that dies may end a stream either way
            # (tests/players/test_remote_charges.py)
            self._charged = max(self._charged, self._generation)
            raise

    async def _decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        if self._failure is not None or self._call is None:
            await self._reconnect()
        call = self._call
        assert call is not None
        request = self._encoder.encode(
            view, decision_id, timing.time_ms, timing.bank_ms, self._take_pending()
        )
        loop = asyncio.get_running_loop()
        reply: asyncio.Future[object] = loop.create_future()
        self._waiter = (decision_id, reply)
        # The deadline covers the whole decision, a write that blocks because the bot stopped reading
        # included (expiring cancels the call). It is checked by one timer per seat that outlives the
        # decisions (``_arm``): a decision answered in time leaves it armed, so most decisions create and
        # cancel no timer at all.
        limit_s = (timing.time_ms + timing.bank_ms) / 1000
        sent = time.monotonic()
        self._read_late = False
        self._timer_late_ms = 0.0
        self._deadline = (reply, call, sent + limit_s)
        self._arm(loop, sent + limit_s)
        try:
            try:
                self._write_pending = True
                self._asked = decision_id
                await call.write(request)
                self._write_pending = False
            except (
                grpc.aio.AioRpcError,
                asyncio.InvalidStateError,
                grpc.aio.UsageError,
                asyncio.CancelledError,
            ) as exc:
                if reply.done() and reply.result() is _TIMEOUT:
                    self._expired.add(decision_id)
                    raise self._timeout(sent, timing, "and stopped reading its stream") from None
                if isinstance(exc, asyncio.CancelledError):
                    raise
                await asyncio.sleep(0)  # let the reader record why the stream ended
                self._fail(
                    error_from_status(exc, f"stream of {self.name}")
                    if isinstance(exc, grpc.aio.AioRpcError)
                    else StreamClosed(f"stream of {self.name} is closed: {exc!r}")
                )
                raise self._failure from None  # type: ignore[misc]
            message = await reply
        finally:
            self._deadline = None
            self._waiter = None
            self._write_pending = False
            self._last_id = max(self._last_id, decision_id)
        if message is _TIMEOUT:
            self._expired.add(decision_id)
            raise self._timeout(sent, timing)
        if message is _CLOSED:
            raise self._failure or StreamClosed(f"{self.name}: stream ended")
        assert isinstance(message, pb.BotMessage)
        if message.WhichOneof("body") != "decision":
            raise MalformedAction(f"{self.name} sent {message.WhichOneof('body')!r} instead of a decision")
        got = message.decision.decision_id
        if got != decision_id:
            when = "a decision not asked yet" if got > decision_id else "an earlier decision"
            raise MalformedAction(
                f"{self.name} answered decision {got} ({when}), the arena asked {decision_id}"
            )
        if self._read_late:
            waited_ms = (time.monotonic() - sent) * 1000
            raise HarnessLate(
                f"{self.name}'s reply had reached the arena's transport when its {timing.time_ms} ms were "
                f"up, but the busy arena read it only after {waited_ms:.0f} ms"
            )
        try:
            action = convert.action_from_pb(message.decision.action)
        except NotationError as exc:
            raise MalformedAction(f"{self.name} sent a malformed action: {exc}") from None
        elapsed_ms = (time.monotonic() - sent) * 1000
        return Reply(action, elapsed_ms, max(0.0, elapsed_ms - timing.time_ms))

    def _arm(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        """Make sure the seat's timer fires no later than ``deadline`` (a ``time.monotonic()`` value).

        A timer armed for a later time is moved; one armed for an earlier time (an earlier decision's
        deadline) is kept: when it fires, ``_on_timer`` re-arms it for the open decision's deadline.
        """
        timer = self._timer
        if timer is not None:
            if self._timer_at <= deadline:
                return
            timer.cancel()
        self._timer_at = deadline
        self._timer = loop.call_at(loop.time() + (deadline - time.monotonic()), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        deadline = self._deadline
        if deadline is None or deadline[0].done():
            return  # no decision open: the timer is armed again by the next one
        reply, call, at = deadline
        if time.monotonic() < at:
            self._arm(asyncio.get_running_loop(), at)  # armed for an earlier decision: wait for this one
            return
        self._expire(reply, call, at)

    def _expire(
        self, reply: asyncio.Future[object], call: grpc.aio.StreamStreamCall, deadline: float
    ) -> None:
        """The decision's time is up. A reply the reader has not yet handed over still gets one more turn
        of the loop (the loop may have read it in this very turn), then it is a timeout, unless gRPC's
        transport holds completed reads the busy loop has not handled: then a reply may be among them,
        the loop gets a few more turns, and a reply found that way is the harness's fault (it reached the
        arena, the arena read it late), never the bot's."""
        loop = asyncio.get_running_loop()
        self._timer_late_ms = max(0.0, (time.monotonic() - deadline) * 1000)

        def settle(turn: int, grace: int) -> None:
            if reply.done():
                return
            if turn < DRAIN_TURNS:
                if self.watch.transport_pending():
                    self._read_late = True
                    loop.call_soon(settle, turn + 1, 2)  # handled next turn, read by the reader after that
                    return
                if grace:
                    loop.call_soon(settle, turn + 1, grace - 1)
                    return
            reply.set_result(_TIMEOUT)
            if self._write_pending:  # the bot stopped reading: the stream is no use any more
                call.cancel()

        loop.call_soon(settle, 0, 0)

    def _timeout(self, sent: float, timing: DecisionTiming, more: str = "") -> BotTimeout | HarnessLate:
        elapsed_ms = (time.monotonic() - sent) * 1000
        lag_ms = max(self.watch.max_lag_ms(since=sent), self._timer_late_ms)
        text = (
            f"{self.name} did not answer within {timing.time_ms} ms (+{timing.bank_ms} ms bank){more and ' '}"
            f"{more}; waited {elapsed_ms:.0f} ms"
        )
        if lag_ms > max(50.0, 0.2 * timing.time_ms):
            return HarnessLate(f"{text}, but the arena's event loop lagged {lag_ms:.0f} ms")
        return BotTimeout(text)

    # ------------------------------------------------------------------ end

    async def finish(self, final: GameResult) -> None:
        if self._call is None or self._failure is not None:
            return
        call, reader = self._call, self._reader
        loop = asyncio.get_running_loop()
        blocked = _Flag()
        try:
            await self._write(self._with_pending(convert.game_over(final)))
            guard = loop.call_later(WRITE_TIMEOUT_S, _cancel_blocked, call, blocked)
            try:
                await call.done_writing()
            finally:
                guard.cancel()
            if reader is not None and not reader.done():
                # Let the bot end the stream (it has then read GameOver) for up to 0.5 s: a future and a
                # timer, cheaper than ``wait_for(shield(reader))`` (a task and a future per seat per game).
                ended: asyncio.Future[None] = loop.create_future()
                reader.add_done_callback(lambda _: _settle(ended))
                guard = loop.call_later(0.5, _settle, ended)
                try:
                    await ended
                finally:
                    guard.cancel()
        except (
            BotError,
            grpc.aio.AioRpcError,
            asyncio.InvalidStateError,
            grpc.aio.UsageError,
            asyncio.CancelledError,
        ) as exc:
            if isinstance(exc, asyncio.CancelledError) and not blocked.set:
                raise
            # the game is over; a bot that fumbles the goodbye loses nothing

    async def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        await self._drop_call()
        held, self._held = self._held, None
        if held is not None:
            self.endpoint.release(held)

    async def _drop_call(self) -> None:
        call, reader = self._call, self._reader
        self._call = self._reader = None
        if call is not None:
            call.cancel()
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
