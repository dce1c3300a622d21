"""The server's database: opened by URL, migrated to the newest schema at every start.

Any database SQLAlchemy 2 speaks works (``database = "postgresql+psycopg://..."`` with its driver
installed); the default is one SQLite file, ``results/NAME/server.sqlite``, created private (0600) like an
event's results, in WAL mode so that `arena invite` can write while the server runs. Alembic's migrations
(``migrations/versions``) are applied with ``upgrade head`` before the server serves anything, so an older
database is brought up to date in place; a newer one (written by a later arena) is refused.

SQLAlchemy's errors become ``StoreError`` here and in :func:`guarded`, the one place that calls it for
the server, so the CLI prints one line for a locked, damaged or foreign database.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from arena.errors import ConfigError, StoreError
from arena.results.outdir import create_private

MIGRATIONS = Path(__file__).with_name("migrations")


class ServerDatabase:
    """An engine and its session factory: ``with db.session() as s:`` is one transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._factory = sessionmaker(engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction: committed at the end of the block, rolled back if it raises."""
        where = f"the database {self.engine.url.render_as_string(hide_password=True)!r}"
        with guarded(where), self._factory() as session, session.begin():
            yield session

    def close(self) -> None:
        self.engine.dispose()


@contextmanager
def guarded(where: str) -> Iterator[None]:
    """Turn SQLAlchemy's errors raised inside into one ``StoreError`` naming ``where``."""
    try:
        yield
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        raise StoreError(f"{where}: {reason}") from None


HEAD = "0006"
"""The newest schema revision (``migrations/versions``; a test holds it to alembic's head): a database at
it is opened without importing alembic, which was a tenth of the server's start."""


def _alembic(engine: Engine, connection: Any) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def open_database(url: str) -> ServerDatabase:
    """Open (creating an SQLite file if needed) and migrate the database at ``url``.

    :raises ConfigError: the URL cannot be understood, or names a driver that is not installed.
    :raises StoreError: the database cannot be opened or migrated, or was written by a newer arena.
    """
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        raise ConfigError(
            "database: not a database URL (it is not repeated here: it may hold a password); expected "
            "one such as sqlite:///results/NAME/server.sqlite or postgresql+psycopg://USER:PASSWORD@HOST/DB"
        ) from None
    shown = parsed.render_as_string(hide_password=True)  # never print a password the config holds
    sqlite = parsed.get_backend_name() == "sqlite"
    if sqlite and parsed.database:
        path = Path(parsed.database)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            create_private(path)
        except OSError as exc:
            raise StoreError(f"cannot create the database {str(path)!r}: {exc.strerror}") from None
    try:
        engine = create_engine(url, connect_args={"timeout": 30} if sqlite else {})
    except (ArgumentError, ImportError) as exc:
        raise ConfigError(f"database={shown!r}: {exc}") from None
    if sqlite:
        event.listen(engine, "connect", _sqlite_pragmas)
    with guarded(f"the database {shown!r}"):
        _upgrade(engine)
    return ServerDatabase(engine)


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def at_head(connection: Any) -> bool:
    """Whether the database's schema is at ``HEAD`` already (nothing to migrate)."""
    if not inspect(connection).has_table("alembic_version"):
        return False
    return [r[0] for r in connection.execute(text("SELECT version_num FROM alembic_version"))] == [HEAD]


def _upgrade(engine: Engine) -> None:
    """``alembic upgrade head``, after refusing a database whose revision this arena does not know; nothing
    (and no alembic) when the database is at ``HEAD``."""
    with engine.begin() as connection:
        if at_head(connection):
            return
        from alembic import command
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory

        config = _alembic(engine, connection)
        script = ScriptDirectory.from_config(config)
        current = MigrationContext.configure(connection).get_current_revision()
        if current is not None and current not in {r.revision for r in script.walk_revisions()}:
            raise StoreError(
                f"the database is at schema revision {current!r}, which this arena does not know: "
                "it was written by a newer euchre-arena"
            )
        command.upgrade(config, "head")
