"""A failed (or any) decision of one's own bot, offered for ``arena ask``: its page and its download.

The ladder's games (``arena.server.ladder.decisions``) and a version's check
(``arena.server.submissions.checks``) both rebuild their decisions with ``arena.conductor.requests``; what
their pages share is here: the page beside a violation or a replay's decision, which shows what the seat was
asked and what the game played, offers the request as a download in the form ``arena ask`` reads
(``arena.conductor.ask.export``: that one decision, or the seat's whole hand), and gives the command lines
that send it to the author's own bot, launched as the server launches it or started under a debugger.
Whoever reaches these has passed ``access``'s rule for an entrant's private things (the caller checks).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

from starlette.requests import Request
from starlette.responses import Response

from arena.conductor import ask as asking
from arena.conductor.requests import Decision
from arena.server.errors import not_found
from arena.server.web.site import Visit, Web

DEBUG_ADDRESS = "127.0.0.1:50051"  # the address the page suggests for a bot started by hand


def chosen(decisions: Sequence[Decision], decision: Decision, whole_hand: bool) -> list[Decision]:
    """The one decision, or its seat's decisions of its hand in order (``arena ask --whole-hand``)."""
    if not whole_hand:
        return [decision]
    return [d for d in decisions if d.seat == decision.seat and d.hand_index == decision.hand_index]


def filename(decision: Decision, whole_hand: bool) -> str:
    """The download's name: what the page's command lines name."""
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in decision.game_id)
    if whole_hand:
        return f"{safe}-hand-{decision.hand_index + 1}-seat-{decision.seat}.json"
    return f"{safe}-decision-{decision.decision_id}.json"


def download(decisions: Sequence[Decision], decision: Decision, whole_hand: bool) -> Response:
    """The export ``arena ask FILE`` reads, as an attachment."""
    document = asking.export(chosen(decisions, decision, whole_hand))
    name = filename(decision, whole_hand)
    return Response(
        json.dumps(document, indent=1) + "\n",
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
    )


def page(
    web: Web,
    request: Request,
    visit: Visit,
    decisions: Sequence[Decision],
    decision: Decision,
    *,
    title: str,
    back: tuple[str, str],
    export_url: str,
    launch: str | None,
) -> Response:
    """The decision's page (see the module). ``launch``: how ``arena ask --command`` starts the bot from
    its own directory (None: a house bot, which has no upload)."""
    one, hand = filename(decision, False), filename(decision, True)
    commands = []
    if launch is not None:
        commands.append(
            ("launched as the server launches it (in the sandbox), from your bot's directory",
             f"arena ask {one} --command {shlex.quote(launch)}")
        )  # fmt: skip
        commands.append(
            (
                "the same without the sandbox",
                f"arena ask {one} --command {shlex.quote(launch)} --sandbox none",
            )
        )
    commands.append(
        (f"to your bot started by hand (e.g. under a debugger) on {DEBUG_ADDRESS}; --wait-s 0 waits for ever",
         f"arena ask {one} --address {DEBUG_ADDRESS} --wait-s 0")
    )  # fmt: skip
    commands.append(
        ("the seat's whole hand, in order, on one stream", f"arena ask {hand} --address {DEBUG_ADDRESS}")
    )
    return web.page(
        request,
        visit,
        "decision.html",
        title=title,
        d=decision,
        back=back,
        export_url=export_url,
        hand_count=len(chosen(decisions, decision, True)),
        commands=commands,
        request_text=asking.request_text(decision),
    )


def find(decisions: Sequence[Decision], decision_id: int) -> Decision:
    """:raises Refused: 404, no decision of that number."""
    for d in decisions:
        if d.decision_id == decision_id:
            return d
    raise not_found("decision")
