"""A throwaway PostgreSQL server for the tests that run the competition server on it (docs/server.md).

One per test session, started with Debian's own programs (``pg_ctl`` on PATH, ``initdb`` and ``postgres``
beside it): a fresh cluster in a private temporary directory, listening on a free loopback port only, with
a random password (scram-sha-256), fsync off (a test's data need not survive a power cut). As root, the
cluster belongs to the ``postgres`` user (PostgreSQL refuses to run as root), through ``runuser``.
Each test module gets a database of its own. ``.ci/run`` installs the package; where it is missing the
tests are skipped with the reason (``needs_postgres`` in tests/conftest.py).
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def _bindir() -> Path | None:
    pg_ctl = shutil.which("pg_ctl")
    if pg_ctl is None:
        return None
    bindir = Path(os.path.realpath(pg_ctl)).parent
    return bindir if (bindir / "initdb").exists() and (bindir / "postgres").exists() else None


def postgres_problem() -> str | None:
    """Why no PostgreSQL server can be started here, or None."""
    if _bindir() is None:
        return (
            "needs PostgreSQL's server programs (pg_ctl on PATH, initdb beside it): apt-get install "
            "postgresql, and put /usr/lib/postgresql/*/bin on PATH"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "needs the psycopg driver: pip install -e '.[test]'"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return (
                "as root, needs the user 'postgres' to run PostgreSQL (apt-get install postgresql makes it)"
            )
        if shutil.which("runuser") is None:
            return "as root, needs runuser (util-linux) to start PostgreSQL as the user 'postgres'"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Postgres:
    """A PostgreSQL cluster of our own; ``url(name)`` creates a database and gives its SQLAlchemy URL."""

    user = "arena"

    def __init__(self) -> None:
        bindir = _bindir()
        assert bindir is not None, postgres_problem()
        self.bindir = bindir
        self.base = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.password = secrets.token_hex(16)
        self.port = _free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "postgres", "--"]
            entry = pwd.getpwnam("postgres")
            os.chown(self.base, entry.pw_uid, entry.pw_gid)
        self.data = self.base / "data"
        self.socket_dir = self.base / "socket"
        pwfile = self.base / "password"
        self._run(["mkdir", "-m", "0700", str(self.data), str(self.socket_dir)])
        self._run(["sh", "-c", f"umask 077 && printf %s {self.password} > {pwfile}"])
        initdb = [str(bindir / "initdb"), "-D", str(self.data), "-U", self.user, f"--pwfile={pwfile}"]
        self._run([*initdb, "-A", "scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C"])
        options = f"-h 127.0.0.1 -p {self.port} -k {self.socket_dir} -F -c max_connections=200"
        pg_ctl = [str(bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.base / "log")]
        self._run([*pg_ctl, "-o", options, "-w", "-t", "120", "start"])

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run([*self._as, *argv], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = self.base / "log"
            tail = log.read_text()[-2000:] if log.exists() and not self._as else ""
            raise AssertionError(f"{argv[0]} failed: {done.stdout}{done.stderr}{tail}")

    def url(self, database: str) -> str:
        """A new, empty database ``database`` (dropped first if a former run left it)."""
        import psycopg

        with psycopg.connect(self._dsn("postgres"), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{database}"')
            connection.execute(f'CREATE DATABASE "{database}"')
        return f"postgresql+psycopg://{self.user}:{self.password}@127.0.0.1:{self.port}/{database}"

    def _dsn(self, database: str) -> str:
        return f"host=127.0.0.1 port={self.port} user={self.user} password={self.password} dbname={database}"

    def stop(self) -> None:
        self._run([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        shutil.rmtree(self.base, ignore_errors=True)
