"""Entrants' versions: storing an upload as v1, v2, ..., the per-entrant rate limit, the active version.

Each version lives in its own directory, ``results/NAME/submissions/USER/vN``, unpacked there by
:mod:`arena.server.submissions.unpack` and never changed afterwards; that directory is all its sandbox shows
of the host besides the system and the SDK. A version is ``queued`` until its check runs, then ``passed`` or
``failed``. Only a passed version can be active, and each entrant has at most one active version: the one
on the ladder. A newly passed version becomes active by itself (what an entrant uploading a fix expects);
the entrant may go back to any other passed version.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import func, select, update

from arena.server.accounts.service import check_text
from arena.server.db.database import ServerDatabase
from arena.server.db.models import NOTE_MAX, User, Version, VersionStatus
from arena.server.errors import Refused, not_found
from arena.server.settings import CompetitionConfig, NewVersion, Runtime
from arena.server.submissions.unpack import ENTRY, Limits, unpack

SUBMISSIONS = "submissions"
KEPT = "kept"
"""The check report's key for the games a violation was found in, packed (gzipped JSON, base64:
``checks.keep_failed``); they hold every seat's cards, so the API's report leaves them out."""
RATE_WINDOW_S = 3600.0


@dataclass(frozen=True, slots=True)
class VersionView:
    """A version as the pages and the API show it."""

    id: int
    user_id: int
    user: str
    number: int
    runtime: str
    filename: str
    size: int
    created_at: float
    status: VersionStatus
    active: bool
    report: dict[str, Any]
    note: str = ""

    @property
    def label(self) -> str:
        return f"v{self.number}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "entrant": self.user,
            "version": self.label,
            "runtime": self.runtime,
            "filename": self.filename,
            "size": self.size,
            "created_at": self.created_at,
            "status": self.status,
            "active": self.active,
            "note": self.note,
            "check": {k: v for k, v in self.report.items() if k != KEPT},
        }


def view(version: Version, user: str) -> VersionView:
    return VersionView(
        version.id,
        version.user_id,
        user,
        version.number,
        version.runtime,
        version.filename,
        version.size,
        version.created_at,
        VersionStatus(version.status),
        version.active,
        json.loads(version.report or "{}"),
        version.note or "",
    )


NODE_PACKAGES = Path(__file__).resolve().parents[3] / "sample_bots" / "node" / "node_modules"
"""The organiser's Node.js packages (``npm ci`` in sample_bots/node): visible read-only in every sandbox,
as the sample bots are, so a ``node`` version needs no packages of its own."""
PROTO = Path(__file__).resolve().parents[3] / "proto" / "arena" / "protocol" / "v1" / "player.proto"


def node_problem() -> str | None:
    """Why the ``node`` runtime cannot run here, or None."""
    if shutil.which("node") is None:
        return "the node runtime needs node on PATH (apt-get install nodejs npm)"
    if not (NODE_PACKAGES / "@grpc" / "grpc-js").is_dir():
        return f"the node runtime needs the organiser's packages: run `npm ci` in {NODE_PACKAGES.parent}"
    return None


def launch_command(runtime: Runtime, directory: Path) -> str:
    """How a version is started, as an entrant's ``command`` (``{address}`` filled in by the launcher)."""
    entry = shlex.quote(str(directory / ENTRY[runtime]))
    if runtime is Runtime.PYTHON:
        return f"{shlex.quote(sys.executable)} {entry} --address {{address}}"
    if runtime is Runtime.NODE:
        # env sets the two paths with or without the sandbox (which clears the environment first)
        paths = f"NODE_PATH={shlex.quote(str(NODE_PACKAGES))} ARENA_PROTO={shlex.quote(str(PROTO))}"
        return f"/usr/bin/env {paths} node {entry} --address {{address}}"
    if runtime is Runtime.EXECUTABLE_PORT:  # a TCP port inside the sandbox, relayed to the arena's socket
        return f"{entry} --port {{port}}"
    return f"{entry} --address {{address}}"


ASK_COMMAND = {
    Runtime.PYTHON: "{python} bot.py --address {address}",
    Runtime.EXECUTABLE: "./run --address {address}",
    Runtime.EXECUTABLE_PORT: "./run --port {port}",
    Runtime.NODE: "node bot.js --address {address}",
}
"""How ``arena ask --command`` starts a runtime's bot from the directory of its files, as the server does
(``launch_command``), for the command line a failed decision's page shows."""


class Submissions:
    """Versions of one competition (see the module's docstring)."""

    def __init__(self, db: ServerDatabase, config: CompetitionConfig) -> None:
        self.db = db
        self.config = config
        self.root = config.data_dir / SUBMISSIONS
        spec = config.submissions
        self.limits = Limits(spec.max_upload_kb * 1024, spec.max_files, spec.max_unpacked_kb * 1024)

    def directory(self, version: VersionView | Version) -> Path:
        return self.directory_of(version.user_id, version.number)

    def directory_of(self, user_id: int, number: int) -> Path:
        """Where an entrant's version ``number`` was unpacked (and runs from)."""
        return (self.root / str(user_id) / f"v{number}").resolve()

    def add(self, user: User, filename: str, data: bytes, runtime_name: str, note: str = "") -> VersionView:
        """Store an upload as the entrant's next version, queued for its check, with its ``note``.

        :raises Refused: 400 a runtime the competition does not offer, a bad note or an unsafe archive;
            413 too large; 429 the entrant's uploads this hour are used up.
        """
        note = check_text(note, NOTE_MAX, "a version's note")
        try:
            runtime = Runtime(runtime_name)
        except ValueError:
            runtime = None
        if runtime is None or runtime not in self.config.submissions.runtimes:
            offered = ", ".join(str(r) for r in self.config.submissions.runtimes)
            raise Refused(400, f"runtime {runtime_name!r} is not offered here; choose one of {offered}")
        now = time.time()
        per_hour = self.config.submissions.per_hour
        with self.db.session() as s:
            recent = s.scalar(
                select(func.count()).where(
                    Version.user_id == user.id, Version.created_at > now - RATE_WINDOW_S
                )
            )
            if (recent or 0) >= per_hour:
                raise Refused(
                    429, f"at most {per_hour} uploads an hour: try again later", int(RATE_WINDOW_S / 4)
                )
            number = (s.scalar(select(func.max(Version.number)).where(Version.user_id == user.id)) or 0) + 1
        directory = (self.root / str(user.id) / f"v{number}").resolve()
        if directory.exists():  # left by an upload that crashed before its row was stored
            shutil.rmtree(directory)
        unpack(data, filename, directory, runtime, self.limits)
        predecessor = self.active_of(user.id)
        with self.db.session() as s:
            version = Version(
                user_id=user.id,
                number=number,
                runtime=str(runtime),
                filename=Path(filename).name[:200] or "upload",
                size=len(data),
                created_at=now,
                status=VersionStatus.QUEUED,
                note=note,
                inherit_from=(
                    predecessor.id
                    if predecessor and self.config.ladder.new_version is NewVersion.INHERIT
                    else None
                ),
            )
            s.add(version)
        return view(version, user.name)

    def get(self, version_id: int) -> VersionView:
        """:raises Refused: 404."""
        with self.db.session() as s:
            row = s.get(Version, version_id)
            user = s.get(User, row.user_id) if row is not None else None
        if row is None or user is None:
            raise not_found("version")
        return view(row, user.name)

    def of_user(self, user_id: int) -> list[VersionView]:
        with self.db.session() as s:
            user = s.get(User, user_id)
            rows = s.scalars(
                select(Version).where(Version.user_id == user_id).order_by(Version.number.desc())
            )
            return [view(v, user.name if user else "?") for v in rows]

    def active_of(self, user_id: int) -> VersionView | None:
        with self.db.session() as s:
            row = s.scalars(select(Version).where(Version.user_id == user_id, Version.active)).first()
            user = s.get(User, user_id)
        return view(row, user.name) if row is not None and user is not None else None

    def pending(self) -> list[int]:
        """Versions whose check has not finished (queued, or interrupted by a stop): checked at start."""
        with self.db.session() as s:
            ids = s.scalars(
                select(Version.id)
                .where(Version.status.in_((VersionStatus.QUEUED, VersionStatus.CHECKING)))
                .order_by(Version.id)
            )
            return list(ids)

    def set_status(
        self, version_id: int, status: VersionStatus, report: dict[str, Any] | None = None
    ) -> None:
        """Record a check's progress or verdict; a newly passed version becomes its entrant's active one."""
        with self.db.session() as s:
            row = s.get(Version, version_id)
            if row is None:
                return
            row.status = status.value
            if report is not None:
                row.report = json.dumps(report)
                row.checked_at = time.time()
            if status is VersionStatus.PASSED:
                s.execute(update(Version).where(Version.user_id == row.user_id).values(active=False))
                row.active = True
            elif status is VersionStatus.FAILED:
                row.active = False

    def activate(self, user_id: int, version_id: int) -> None:
        """Make one of the entrant's passed versions the active one.

        :raises Refused: 404 not the entrant's version; 400 a version that has not passed its check.
        """
        with self.db.session() as s:
            row = s.get(Version, version_id)
            if row is None or row.user_id != user_id:
                raise not_found("version")
            if row.status != VersionStatus.PASSED:
                raise Refused(400, f"v{row.number} has not passed its check, so it cannot play on the ladder")
            s.execute(update(Version).where(Version.user_id == user_id).values(active=False))
            row.active = True

    def active_field(self) -> list[tuple[VersionView, Path]]:
        """Every active version of an enabled entrant, with its directory: the ladder's field."""
        with self.db.session() as s:
            rows = s.execute(
                select(Version, User)
                .join(User, User.id == Version.user_id)
                .where(Version.active, ~User.disabled)
            ).all()
        return [(view(v, u.name), self.directory(v)) for v, u in rows]
