"""The rules of ``arena.server.access`` on their own (each page's test proves them against a real server):
who may enter bots, and an entrant's private things."""

from __future__ import annotations

import pytest

from arena.server import access
from arena.server.access import Viewer
from arena.server.db.models import ORGANISER
from arena.server.errors import Refused

SPECTATOR = Viewer()
ALICE = Viewer(2, "alice", "entrant")
ORGANISER_VIEWER = Viewer(1, "organiser", ORGANISER)


def test_only_an_entrant_enters_bots() -> None:
    """Uploads, matches and challenges ask this one rule: the organiser runs the ladder it would play on."""
    assert access.require_entrant(ALICE) == 2
    with pytest.raises(Refused) as spectator:
        access.require_entrant(SPECTATOR)
    assert spectator.value.status == 401
    with pytest.raises(Refused) as organiser:
        access.require_entrant(ORGANISER_VIEWER)
    assert organiser.value.status == 403 and "does not enter bots" in organiser.value.message


def test_an_entrant_s_private_things_are_its_own_and_the_organiser_s() -> None:
    access.require_owner(ALICE, 2, "log")
    access.require_owner(ORGANISER_VIEWER, 2, "log")
    for other in (SPECTATOR, Viewer(3, "bob", "entrant")):
        with pytest.raises(Refused) as refused:
            access.require_owner(other, 2, "log")
        assert refused.value.status == 404  # as for a log that does not exist: no id is confirmed
        assert not access.may_see_private(other, 2)
