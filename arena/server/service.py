"""One competition server: its directory, database, keys and the parts that run inside it.

``arena serve`` builds a :class:`Server` and runs it under uvicorn: the web app, the check queue and the
ladder share one process and one event loop (the ladder's tables are the arena's asyncio tables; pages are
short database reads). The competition's directory, ``results/NAME/`` (0700), holds the SQLite database,
the secret deal key (``deal.key``), the session-signing key (``session.key``), the submissions and the
logs; one server at a time may use it (the event lock of ``arena run``), or, on PostgreSQL, several server
processes at once, which share the lock and agree through the database (``arena.server.multi``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

from arena.errors import ConfigError
from arena.event.deals import new_key, read_key_file, write_key_file
from arena.results import outdir
from arena.sandbox import SandboxMode, bubblewrap_problem
from arena.server.accounts import Accounts
from arena.server.board import Board
from arena.server.cache import PageCache
from arena.server.checks import CheckQueue
from arena.server.config import CompetitionConfig, Runtime
from arena.server.db import Database, open_database
from arena.server.finals import Finals
from arena.server.ladder import Ladder
from arena.server.matches import UnratedGames
from arena.server.multi import CheckClaims, Role, deal_key, url_is_shared
from arena.server.submissions import Submissions, node_problem

SESSION_KEY = "session.key"


def _session_key(directory: Path) -> bytes:
    """The key that signs session cookies: made once, kept private beside the deal key."""
    path = directory / SESSION_KEY
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"cannot read the session key {str(path)!r}: {exc} (delete it: sessions restart)"
        ) from None


def check_sandbox(config: CompetitionConfig) -> None:
    """Submitted bots are untrusted: without bubblewrap the server refuses to check them, unless the
    competition says ``sandbox = "none"`` (a trusted class on a machine without bubblewrap). A runtime
    offered must be able to run.

    :raises ConfigError: bubblewrap is asked for and cannot run here, or node is offered and missing.
    """
    if config.sandbox is SandboxMode.BUBBLEWRAP and (problem := bubblewrap_problem()) is not None:
        raise ConfigError(f"cannot sandbox the submitted bots: {problem}")
    if Runtime.NODE in config.submissions.runtimes and (problem := node_problem()) is not None:
        raise ConfigError(f"submissions.runtimes offers node, but {problem}")


class Server:
    """The competition's parts, wired (see the module's docstring)."""

    def __init__(self, config: CompetitionConfig, base_url: str, role: Role = Role.ALL) -> None:
        check_sandbox(config)
        self.config = config
        self.base_url = base_url
        self.role = role
        many = url_is_shared(config.database_url)  # several processes on one database: arena.server.multi
        if role is not Role.ALL and not many:
            raise ConfigError(
                f"--role {role.value} needs a PostgreSQL database shared by several arena serve processes; "
                "on SQLite one process serves everything (the default, --role all)"
            )
        outdir.prepare(config.data_dir)
        self.lock = outdir.EventLock(config.data_dir)
        self.lock.acquire(shared=many)
        try:
            self.db: Database = open_database(config.database_url)
        except BaseException:
            self.lock.release()
            raise
        if many:
            try:
                key = deal_key(self.db, config.data_dir)
            except BaseException:
                self.db.close()
                self.lock.release()
                raise
        else:
            found = read_key_file(config.data_dir)
            if found is None:
                found = new_key()
                write_key_file(config.data_dir, found)
            key = found
        self.session_key = _session_key(config.data_dir)
        self.accounts = Accounts(self.db, config)
        self.submissions = Submissions(self.db, config)
        self.board = Board(self.db, config)
        self.board.refresh(force=True)
        claims = CheckClaims(self.db)  # this process's advisory locks: checks, plans, its log directory
        slot = claims.slot() if role.plays else None
        self.ladder = Ladder(config, self.db, self.submissions, self.board, key, slot)
        self.unrated = UnratedGames(config, self.db, self.submissions, self.board, self.ladder, key, claims)
        self.ladder.spare = self.unrated.offer
        self.finals = Finals(config, self.submissions, self.ladder, claims)
        self.checks = CheckQueue(config, self.submissions, self._verdict, claims)
        self.pages = PageCache()
        self.started_at = 0.0

    def _verdict(self) -> None:
        self.unrated.activations()  # a newer version became active: its match against the one before
        self.ladder.changed.set()
        self.board.refresh(force=True)
        self.pages.clear()

    def field_changed(self) -> None:
        """An entrant was enabled, disabled or chose another version: the ladder re-reads its field."""
        self._verdict()

    def close(self) -> None:
        """Let go of the database and the directory's lock (after the web app stopped, or never started)."""
        self.checks.claims.close()
        self.db.close()
        self.lock.release()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The check queue and the ladder, for as long as the web app serves (its lifespan)."""
        tasks = []
        if self.role.plays:  # a web process leaves checks, games and finals to others (arena.server.multi)
            tasks = [
                asyncio.create_task(self.checks.run(), name="checks"),
                asyncio.create_task(self.ladder.run(), name="ladder"),
                asyncio.create_task(self.finals.run(), name="finals"),
            ]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.close()
