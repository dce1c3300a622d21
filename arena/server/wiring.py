"""One competition server: its directory, database, keys and the parts that run inside it.

``arena serve`` builds a :class:`Server` and runs it under uvicorn: the web app, the check queue and the
ladder share one process and one event loop (the ladder's tables are the arena's asyncio tables; pages are
short database reads). The competition's directory, ``results/NAME/`` (0700), holds the SQLite database,
the secret deal key (``deal.key``), the session-signing key (``session.key``), the submissions and the
logs; one server at a time may use it (the event lock of ``arena run``), or, on PostgreSQL, several server
processes at once, which share the lock and agree through the database (``arena.server.db.multi``).

``Server`` wires every domain's service into one (it imports them; no service imports it at run time), and
holds the little work that spans services: an upload stored and its check queued, a description shown at once,
a game's log read for its owner, the ladder's line of state. The web is handed a ``Server``
(``arena.server.app``) and calls it; the server reaches the web only through ``on_change``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from arena.errors import ConfigError, StoreError
from arena.event.deals import new_key, read_key_file, write_key_file
from arena.results import outdir
from arena.sandbox import SandboxMode, bubblewrap_problem
from arena.server import access
from arena.server.accounts.service import Accounts
from arena.server.analytics.service import Summaries
from arena.server.db.database import ServerDatabase, open_database
from arena.server.db.multi import CheckClaims, Role, deal_key, url_is_shared
from arena.server.errors import Refused, not_found
from arena.server.finals.service import Finals
from arena.server.ladder import gamelogs
from arena.server.ladder.games import Games, SeatLog
from arena.server.ladder.ratings import REFRESH_S, Board
from arena.server.ladder.service import Ladder
from arena.server.matches.people import PersonGames
from arena.server.matches.service import UnratedGames
from arena.server.settings import CompetitionConfig, Runtime
from arena.server.submissions.checks import CheckQueue, public_texts
from arena.server.submissions.service import Submissions, node_problem
from arena.userfiles import KEY_LIMIT, read_user_text

SESSION_KEY = "session.key"
log = logging.getLogger("arena.server")


def _session_key(directory: Path) -> bytes:
    """The key that signs session cookies: made once, kept private beside the deal key."""
    path = directory / SESSION_KEY
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
    try:
        return bytes.fromhex(read_user_text(path, "session key", KEY_LIMIT).strip())  # a regular file, small
    except ConfigError as exc:
        raise ConfigError(f"{exc} (delete it: sessions restart)") from None
    except ValueError as exc:
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

    def __init__(
        self, config: CompetitionConfig, base_url: str, role: Role = Role.ALL, board_later: bool = False
    ) -> None:
        """``board_later``: the board's first look (a replay, or a resume from its snapshot) is left to
        :meth:`start`, which makes it beside the ladder's bots' launch (``arena serve``)."""
        check_sandbox(config)
        self.config = config
        self.base_url = base_url
        self.role = role
        many = url_is_shared(config.database_url)  # several processes on one database: arena.server.db.multi
        if role is not Role.ALL and not many:
            raise ConfigError(
                f"--role {role.value} needs a PostgreSQL database shared by several arena serve processes; "
                "on SQLite one process serves everything (the default, --role all)"
            )
        outdir.prepare(config.data_dir)
        self.lock = outdir.EventLock(config.data_dir)
        self.lock.acquire(shared=many)
        try:
            self.db: ServerDatabase = open_database(config.database_url)
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
        self.stopping = asyncio.Event()
        """Set when SIGINT or SIGTERM asks the server to stop (:meth:`stop_waiting`): what waits on a
        client (a person's long poll) answers at once."""
        self.session_key = _session_key(config.data_dir)
        self.accounts = Accounts(self.db, config, self.session_key)
        self.submissions = Submissions(self.db, config)
        self.board = Board(self.db, config)
        self._board_later = board_later
        if not board_later:
            self.board.refresh(force=True)
        claims = CheckClaims(self.db)  # this process's advisory locks: checks, plans, its log directory
        slot = claims.slot() if role.plays else None
        self.ladder = Ladder(config, self.db, self.submissions, self.board, key, slot)
        self.people = PersonGames(config, self.db, self.submissions, self.ladder, key)
        self.unrated = UnratedGames(
            config, self.db, self.submissions, self.board, self.ladder, key, claims, self.people
        )
        self.finals = Finals(config, self.submissions, self.ladder, claims)
        self.checks = CheckQueue(config, self.submissions, self._verdict, claims)
        self.ladder.checks = self.checks.idle  # the ladder waits for them (arena.server.submissions.checks)
        self.games = Games(self.db)
        self.summaries = Summaries(self.db, config.game.variant)
        self._listeners: list[Callable[[], None]] = []
        self.started_at = 0.0

    async def start(self) -> None:
        """Before serving: the ladder's executor (a Dask cluster joined or started) and its field's bots
        launched, and meanwhile, in a thread, the board's first look (``board_later``): the two were most
        of the time from a restart to the first game counted (docs/server.md, Speed).

        :raises ConfigError: the executor cannot start (``Ladder.start``).
        """
        parts = []
        if self._board_later:
            parts.append(asyncio.to_thread(self.board.refresh, True))
        if self.role.plays:  # a web process starts no executor (arena.server.db.multi)
            parts.append(self.ladder.start(launch=True))
        outcomes = await asyncio.gather(*parts, return_exceptions=True)  # both end before either is said
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome

    def on_change(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` whenever what the public pages show changed beyond their time to live (a
        verdict, the field, a description): the web's page cache is emptied so (``arena.server.web``)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()

    async def _verdict(self) -> None:
        """A verdict or a change of the field: shown on the board before the caller goes on. The board's
        look runs in a worker thread: it waits for a look in progress, which can take seconds over a large
        ladder (the first after a restart replays every stored game), and the loop serves pages meanwhile."""
        self.unrated.activations()  # a newer version became active: its match against the one before
        self.ladder.changed.set()
        await asyncio.to_thread(self.board.refresh, True)
        self._changed()

    async def field_changed(self) -> None:
        """An entrant was enabled, disabled or chose another version: the ladder re-reads its field."""
        await self._verdict()

    def ladder_state(self) -> dict[str, object]:
        """The ladder's line on the leaderboard and the organiser's page."""
        ladder = self.ladder
        return {
            "paused": ladder.paused,
            "field": len(ladder.field),
            "in_flight": ladder.in_flight,
            "games": self.board.games,
            "queue": self.checks.size,
        }

    def submit_version(self, user_id: int, filename: str, data: bytes, runtime: str, note: str) -> int:
        """Store an uploaded version and queue its check; the version's id.

        :raises Refused: 401 the user is gone, and what ``Submissions.add`` and the check queue refuse.
        """
        user = self.accounts.user(user_id)
        if user is None:
            raise Refused(401, "log in first")
        version = self.submissions.add(user, filename, data, runtime, note)
        self.checks.put(version.id)
        return version.id

    def describe(self, user_id: int, text: str) -> None:
        """Set an entrant's description (checked by the accounts), shown at once on the board's pages.

        :raises Refused: 400, too long or not text.
        """
        self.board.describe(user_id, self.accounts.set_description(user_id, text))
        self._changed()

    def game_log(
        self, game_id: str, version_id: int, viewer: access.Viewer
    ) -> tuple[SeatLog, gamelogs.GameLog]:
        """One version's stderr during one game, for its owner and the organiser: the seat and the span
        (from whichever process's log file holds it, or a worker's stored copy: ``gamelogs.game_log``), as
        an entrant may read it: no path of the server's machine (``public_text``, as for a check's reason).

        :raises Refused: 404, no such game, the version did not play it, or not the viewer's (one answer).
        """
        found = self.games.seat_log(game_id, version_id)
        if found is None:
            raise not_found("log")
        access.require_owner(viewer, found.user_id, "log")
        path = self.ladder.log_path(version_id, found.values["log_inode"])
        span = gamelogs.game_log(self.db, path, game_id, version_id, found.values)
        data_dir, upload = self.config.data_dir, self.submissions.directory_of(found.user_id, found.number)
        text, after = public_texts((span.text, span.after), data_dir, upload)
        return found, dataclasses.replace(span, text=text, after=after)

    def stop_waiting(self) -> None:
        """The server was asked to stop: answer every request that waits on something yet to happen (a
        person's long poll, a live table's stream), since the web server stops only once every request in
        flight has ended, and those would otherwise hold the stop up for their whole wait, or for ever.
        Called on the event loop."""
        self.stopping.set()
        self.ladder.live.end_streams()

    def close(self) -> None:
        """Let go of the database and the directory's lock (after the web app stopped, or never started);
        the board's ratings are kept for the next start first (``arena.server.ladder.ratings``)."""
        self.board.save()
        self.checks.claims.close()
        self.db.close()
        self.lock.release()

    async def keep_board(self) -> None:
        """The board's looks at the games stored (by this process's ladder or another's), each when due
        (``Board.due_in``), each computed in a worker thread and shown on the loop (``Board.publish``).

        Not on the event loop: a look over the games of a few seconds took 0.05 to 0.5 s of it on the
        loaded 2-core machine, and every page and every move of the ladder's games waited meanwhile. Not
        from a page: a spectator's request never computes the statistics, however many arrive; it shows the
        board of the last look (docs/server.md, "Thirty clients polling the leaderboard")."""
        while True:
            await asyncio.sleep(self.board.due_in())
            try:
                self.board.publish(await asyncio.to_thread(self.board.look))
            except StoreError as exc:  # the database busy or gone a moment: the pages show the last board
                log.warning("the leaderboard was not updated: %s", exc)
                await asyncio.sleep(REFRESH_S)
            except Exception:  # a bug: said, not a board frozen in silence
                log.exception("the leaderboard's keeper stopped")
                raise

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The check queue and the ladder, for as long as the web app serves (its lifespan), and the
        board's keeper (every process: a web process shows the others' games)."""
        tasks = [asyncio.create_task(self.keep_board(), name="board")]
        if self.role.plays:  # a web process leaves checks, games and finals to others (arena.server.db.multi)
            tasks += [
                asyncio.create_task(self.checks.run(), name="checks"),
                asyncio.create_task(self.ladder.run(self.unrated.offer), name="ladder"),
                asyncio.create_task(self.finals.run(), name="finals"),
            ]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.close()
