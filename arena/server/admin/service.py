"""The organiser's actions on the field, each followed by what it changes on the ladder: an entrant
disabled or enabled, a version checked again (its status back to queued, then its check's verdict)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from arena.server.db.models import User, Version, VersionStatus
from arena.stats.collusion import describe, flag_heading
from arena.stats.rating import RatedGame

if TYPE_CHECKING:  # the server is handed in by its page: no runtime import of the wiring, which imports this
    from arena.server.wiring import Server


async def set_disabled(server: Server, user_id: int, disabled: bool) -> None:
    """:raises Refused: 404, no such entrant."""
    server.accounts.set_disabled(user_id, disabled)
    await server.field_changed()


async def recheck(server: Server, version_id: int) -> None:
    """:raises Refused: 404, no such version."""
    server.submissions.get(version_id)
    server.submissions.set_status(version_id, VersionStatus.QUEUED)
    server.checks.put(version_id)
    await server.field_changed()


def pairs(server: Server) -> dict[str, Any]:
    """The collusion check as the organiser's page shows it: the flagged pairs in the leaderboard's words
    (``flag_heading``, ``describe``), each seat named as the pages name it (the entrant and its version),
    and what was tested. Only the organiser sees it: a flag is for the organiser to judge before anyone is
    accused (as the report leaves it out of its ``--public`` copy).

    For a worker thread, never the event loop: it reads every game the board has replayed, under the
    board's lock (``Board.every_game``), which a look of the board's keeper holds for as long as the look
    takes; on the loop, the ladder's games and every page would wait that long too."""
    games: list[RatedGame] = server.board.every_game()
    result = server.board.collusion(games)
    with server.db.session() as s:
        found = s.execute(select(Version.id, Version.number, User.id, User.name).join(User)).all()
    labels = {f"v{vid}": f"{name} v{number}" for vid, number, _, name in found}
    labels |= {f"u{uid}": name for _, _, uid, name in found}
    named = replace(
        result,
        pairs=tuple(replace(p, a=labels.get(p.a, p.a), b=labels.get(p.b, p.b)) for p in result.pairs),
    )
    untestable = sorted({p.why for p in named.pairs if not p.testable})
    return {
        "heading": flag_heading(named) if named.flagged else "",
        "flagged": [describe(p, named) for p in named.flagged],
        "tested": named.testable,
        "pairs": len(named.pairs),
        "games": named.games,
        "why": "; ".join(untestable) if untestable else "fewer than two entrants have played",
    }
