"""Where a seat finds its bot's current connection: a fixed one, or a launched bot's that survives restarts.

Why this seam: a seat must not care whether its bot was launched by the arena (and may be restarted) or
runs at an address the arena was given. When a launched bot dies, every table that seats it finds out on its
own (its stream breaks, or its next decision finds the bot down). The restart must happen once, not once per
table, and must not pull the channel from under a table that is still using it (which would abort the
whole event with ``Channel is closed``). So ``RestartingEndpoint`` restarts the process behind a lock, hands
out the new connection to seats that ask for it, and closes an old channel only when the last seat holding
it lets go.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from arena.errors import BotCrashed, BotError
from arena.players.connection import BotConnection
from arena.players.process import ManagedBot

SUSPECT_WAIT_S = 1.0
"""After a stream broke as a crash does, how long to wait for the process to be seen exiting before
trusting that it is still alive (the shim reaps the bot and exits a moment after its sockets close)."""


class Endpoint:
    """Where a seat finds its bot's current connection.

    The base class is one fixed connection (a bot the arena did not launch, or a test): it is never "down",
    because the arena cannot tell a dead address from a hung one, so every failed decision is a fault.
    ``RestartingEndpoint`` adds restarts of a launched bot. Seats ``acquire`` the connection they use and
    ``release`` it when done, so a restart never closes a channel a table still holds.
    """

    def __init__(self, connection: BotConnection) -> None:
        self.connection = connection

    @property
    def generation(self) -> int:
        """Which start of the bot's process ``connection`` reaches (changes on every restart)."""
        return 0

    def down(self) -> bool:
        """True while the bot's process is known to be gone or restarting."""
        return False

    def acquire(self) -> tuple[BotConnection, int]:
        return self.connection, self.generation

    def release(self, connection: BotConnection) -> None:
        return None

    def restart_soon(self) -> None:
        """Start bringing a down bot back, without waiting for it."""

    async def revive(self, suspect: bool = False) -> None:
        """Wait until the bot is up again (restarting it if need be).

        :param suspect: a stream to the current process just broke as a crash does; the process may not
            have been seen to exit yet, so give it a moment before trusting that it is alive.
        :raises BotError: the bot could not be restarted.
        """

    async def close(self) -> None:
        await self.connection.close()


class RestartingEndpoint(Endpoint):
    """The current connection to a launched bot, with restart on demand (after the bot's back-off)."""

    def __init__(self, bot: ManagedBot, connection: BotConnection) -> None:
        super().__init__(connection)
        self.bot = bot
        self._generation = bot.starts
        self._holders: dict[BotConnection, int] = {connection: 0}
        self._restart: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._retry_at = 0.0
        self._last_error: BotError | None = None
        self._closing: set[asyncio.Task[None]] = set()

    @property
    def generation(self) -> int:
        return self._generation

    def down(self) -> bool:
        restarting = self._restart is not None and not self._restart.done()
        return restarting or not self.bot.alive()

    def acquire(self) -> tuple[BotConnection, int]:
        self._holders[self.connection] = self._holders.get(self.connection, 0) + 1
        return self.connection, self._generation

    def release(self, connection: BotConnection) -> None:
        left = self._holders.get(connection, 0) - 1
        if left > 0 or connection is self.connection:
            self._holders[connection] = max(0, left)
            return
        self._holders.pop(connection, None)
        self._close_later(connection)

    def _close_later(self, connection: BotConnection) -> None:
        task = asyncio.get_running_loop().create_task(connection.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def restart_soon(self) -> None:
        if self._restart is None or self._restart.done():
            self._restart = asyncio.get_running_loop().create_task(self._restart_now())
            # A failed restart is reported to whoever waits for it; nobody may be waiting.
            self._restart.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def revive(self, suspect: bool = False) -> None:
        if suspect:
            deadline = time.monotonic() + SUSPECT_WAIT_S
            while self.bot.alive() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        if not self.down():
            return
        self.restart_soon()
        assert self._restart is not None
        await asyncio.shield(self._restart)

    async def _restart_now(self) -> None:
        async with self._lock:
            if self.bot.alive():
                return
            if self._last_error is not None and time.monotonic() < self._retry_at:
                raise BotCrashed(f"{self.bot.name} is down and its last restart failed: {self._last_error}")
            try:
                await self.bot.ensure_running()
            except (BotError, OSError) as exc:
                error = exc if isinstance(exc, BotError) else BotCrashed(f"{self.bot.name}: {exc}")
                self._last_error = error
                self._retry_at = time.monotonic() + self.bot.backoff.delay_s(max(1, self.bot.crashes))
                raise error from None
            self._last_error = None
            old = self.connection
            self.connection = BotConnection(self.bot.address)
            self._holders[self.connection] = 0
            self._generation = self.bot.starts
            if not self._holders.get(old):
                self._holders.pop(old, None)
                self._close_later(old)

    async def close(self) -> None:
        """Close every connection (the event is over: no table holds one any more)."""
        if self._restart is not None and not self._restart.done():
            self._restart.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._restart
        await asyncio.gather(*(c.close() for c in self._holders), *self._closing, return_exceptions=True)
        self._holders.clear()
