"""A visitor's session read for each page: a spectator's id (no session) is answered from memory after its
first page, so the pages a class polls cost the event loop the ladder shares no database read (issue 41,
item 8); a logged-in visitor's session is read every time (a logout or a disabled account shows at once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event, select

from arena.server.accounts.service import Accounts
from arena.server.db.database import open_database
from arena.server.db.models import User
from arena.server.settings import parse_competition


def test_a_spectator_s_id_is_read_once_a_logged_in_visitor_s_every_time(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 's.sqlite'}")
    accounts = Accounts(db, parse_competition({"name": "s", "game": {"variant": "five-handed"}}), b"k" * 32)
    statements: list[str] = []

    def counted(*args: Any) -> None:
        statements.append(args[2])

    event.listen(db.engine, "before_cursor_execute", counted)
    spectator = "an-id-with-no-session"
    assert accounts.session_user(spectator) is None
    read = len(statements)
    assert read > 0
    for _ in range(5):
        assert accounts.session_user(spectator) is None
    assert len(statements) == read, statements[read:]  # answered from memory

    accounts.organiser_link()  # makes the organiser, the one user of a fresh competition
    with db.session() as s:
        user = s.scalars(select(User.id)).one()
    token = accounts.new_session(user)  # a login: always a new id, never one seen without a session
    assert accounts.session_user(token) is not None
    before = len(statements)
    assert accounts.session_user(token) is not None
    assert len(statements) > before  # read again: it may have ended meanwhile
    accounts.end_session(token)
    assert accounts.session_user(token) is None
    db.close()
