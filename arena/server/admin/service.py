"""The organiser's actions on the field, each followed by what it changes on the ladder: an entrant
disabled or enabled, a version checked again (its status back to queued, then its check's verdict)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.server.db.models import VersionStatus

if TYPE_CHECKING:  # the server is handed in by its page: no runtime import of the wiring, which imports this
    from arena.server.wiring import Server


def set_disabled(server: Server, user_id: int, disabled: bool) -> None:
    """:raises Refused: 404, no such entrant."""
    server.accounts.set_disabled(user_id, disabled)
    server.field_changed()


def recheck(server: Server, version_id: int) -> None:
    """:raises Refused: 404, no such version."""
    server.submissions.get(version_id)
    server.submissions.set_status(version_id, VersionStatus.QUEUED)
    server.checks.put(version_id)
    server.field_changed()
