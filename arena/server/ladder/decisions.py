"""Every decision of a stored ladder game, rebuilt as the exact request its seat received, for its owner.

A student whose bot failed on the ladder takes the decision home (``arena ask``, docs/bot-authors.md): the
game's stored hands are played again through the engine by ``arena.conductor.requests``, which rebuilds
each request with the table's own view, events and encoder, so a request holds only what its seat could
see. The table named the game ``L`` + the hex of its public seed (``Ladder.play``), and told the bots that
name and the ladder's seat names (``v12``, ``house-1``); the rebuilt bytes carry the same, while each
decision is shown under the game's stored id (``g000012``). The server keeps no decision times, so with a
time bank (``[faults] time_bank_ms``) a request's bank is the one it would be had no reply been late, and
the decision says it is not exact.

Who may take one is ``access``'s rule for an entrant's private things: the seat's owner and the organiser
(a house bot's seats: the organiser); anybody else gets the 404 of a page that does not exist.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from arena.conductor.requests import Decision, Timing, game_decisions
from arena.errors import FaultKind
from arena.results.record import Fault
from arena.server import access
from arena.server.errors import not_found
from arena.server.ladder.games import GameDetail
from arena.server.settings import CompetitionConfig


@dataclass(frozen=True, slots=True)
class SeatDecisions:
    """A game's decisions with, per seat, the owner of its version (None: a house bot)."""

    detail: GameDetail
    decisions: tuple[Decision, ...]
    owners: tuple[int | None, ...]

    def may_ask(self, viewer: access.Viewer, seat: int) -> bool:
        """Whether ``viewer`` may take this seat's requests: its owner or the organiser."""
        owner = self.owners[seat]
        return viewer.organiser or (owner is not None and access.may_see_private(viewer, owner))

    def mine(self, viewer: access.Viewer) -> set[int]:
        return {s for s in range(len(self.owners)) if self.may_ask(viewer, s)}

    def find(self, viewer: access.Viewer, decision_id: int) -> Decision:
        """The decision numbered ``decision_id``, if ``viewer`` may take it.

        :raises Refused: 404 when there is none, or it is another's (``access``'s rule).
        """
        for d in self.decisions:
            if d.decision_id == decision_id and self.may_ask(viewer, d.seat):
                return d
        raise not_found("decision")


def may_ask_any(detail: GameDetail, viewer: access.Viewer) -> bool:
    """Whether ``viewer`` may take some seat's requests of the game (without replaying it)."""
    owners = [s.user_id for s in detail.game.seats]
    return viewer.organiser or any(o is not None and access.may_see_private(viewer, o) for o in owners)


def timing_of(config: CompetitionConfig) -> Timing:
    """The figures of ``[faults]`` the ladder's tables play under (``Ladder.play``)."""
    f = config.faults
    return Timing(f.decision_ms, f.time_bank_ms, f.max_faults_per_game)


def seat_decisions(detail: GameDetail, config: CompetitionConfig) -> SeatDecisions:
    """Every decision of the stored game ``detail`` (see the module).

    :raises StoreError: its hands do not replay (a damaged record).
    """
    game = detail.game
    names = tuple(s.name for s in game.seats)
    faults = [
        Fault(names[f["seat"]], game.id, f["seat"], f["hand_index"], f["decision_id"], FaultKind(f["kind"]),
              f["detail"], f["elapsed_ms"], f["substitute"])
        for f in detail.faults
    ]  # fmt: skip
    timing = timing_of(config)
    table_id = f"L{detail.public_seed:x}"
    rebuilt = game_decisions(table_id, names, detail.hands, faults, timing)
    exact = timing.time_bank_ms == 0
    decisions = tuple(dataclasses.replace(d, game_id=game.id, exact=d.exact and exact) for d in rebuilt)
    return SeatDecisions(detail, decisions, tuple(s.user_id for s in game.seats))


def per_action(decisions: tuple[Decision, ...], hands: int) -> list[list[int]]:
    """For the replay: per hand, the decision number of each action that was asked of its seat (0: played
    for a forfeited seat by the autopilot, asked of nobody). Sized by the actions the decisions name."""
    out: list[list[int]] = [[] for _ in range(hands)]
    for d in decisions:
        row = out[d.hand_index]
        row.extend([0] * (d.action_index + 1 - len(row)))
        row[d.action_index] = d.decision_id
    return out
