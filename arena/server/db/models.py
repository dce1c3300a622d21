"""The server's tables, declared once (SQLAlchemy 2's typed declarative mapping).

The Alembic migrations in ``migrations/versions`` create exactly these; ``tests/server/test_cli.py``
compares the two, so a column added here without a migration fails the suite. Times are UTC seconds since
the epoch (floats): SQLite has no time zone type, and every reader does arithmetic on them.

Secrets are never stored in the clear: a session id, an invitation, a login link and an API token are kept
as their SHA-256 (``token_hash``), so a stolen copy of the database opens no account.
"""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import LargeBinary

ORGANISER = "organiser"  # the role of the one user who runs the competition (``users.role``); else entrant
DESCRIPTION_MAX = 500  # characters of a bot's description
NOTE_MAX = 120  # characters of a version's note


class VersionStatus(StrEnum):
    """Where a version's check is: ``queued`` -> ``checking`` -> ``passed`` or ``failed`` (a recheck puts it
    back to ``queued``). Stored as these strings in ``versions.status`` (so no migration), and a ``StrEnum``
    so that the pages and the API show and compare the same words."""

    QUEUED = "queued"
    CHECKING = "checking"
    PASSED = "passed"
    FAILED = "failed"


class Base(DeclarativeBase):
    pass


class User(Base):
    """A person: the organiser or an entrant (a spectator has no row)."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    email: Mapped[str] = mapped_column(String(200), default="")
    role: Mapped[str] = mapped_column(String(16))  # "organiser" | "entrant"
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[float] = mapped_column(Float)
    # the bot's description, shown on the entrant's page and the leaderboard (revision 0002)
    description: Mapped[str] = mapped_column(String(DESCRIPTION_MAX), default="", server_default="")


class Link(Base):
    """A single-use link: an invitation (creates an entrant) or a login link (sets a user's password)."""

    __tablename__ = "links"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16))  # "invite" | "login"
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    name: Mapped[str] = mapped_column(String(64), default="")
    email: Mapped[str] = mapped_column(String(200), default="")
    expires_at: Mapped[float] = mapped_column(Float)
    used_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class Session(Base):
    """A logged-in browser; the cookie holds the id, signed, the table its hash."""

    __tablename__ = "sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[float] = mapped_column(Float)


class ApiToken(Base):
    """A token for `arena submit` / `arena status` (the JSON API)."""

    __tablename__ = "api_tokens"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[float] = mapped_column(Float)


class Version(Base):
    """One upload of an entrant: v1, v2, ...; its check and whether it is the one on the ladder."""

    __tablename__ = "versions"
    __table_args__ = (UniqueConstraint("user_id", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    runtime: Mapped[str] = mapped_column(String(16))
    filename: Mapped[str] = mapped_column(String(200))
    size: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16), default=VersionStatus.QUEUED.value)  # a VersionStatus
    active: Mapped[bool] = mapped_column(Boolean, default=False)
    report: Mapped[str] = mapped_column(Text, default="{}")  # the check's findings, JSON
    checked_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    inherit_from: Mapped[int | None] = mapped_column(Integer, nullable=True)  # a predecessor's rating
    note: Mapped[str] = mapped_column(String(NOTE_MAX), default="", server_default="")  # given on upload


class Game(Base):
    """One finished ladder game, stored in one transaction with its seats, hands and faults."""

    __tablename__ = "games"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, unique=True)
    public_seed: Mapped[int] = mapped_column(BigInteger)
    result: Mapped[str] = mapped_column(Text)  # the table's result (GameRecord.result), JSON
    rated: Mapped[bool] = mapped_column(Boolean, default=True)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float)


class GameSeat(Base):
    __tablename__ = "game_seats"
    __table_args__ = (Index("ix_game_seats_version", "version_id"),)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    version_id: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: a house bot
    name: Mapped[str] = mapped_column(String(64))  # the ladder name: "v12" or "house-1"
    score: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    forfeited: Mapped[bool] = mapped_column(Boolean)
    faults: Mapped[int] = mapped_column(Integer)
    maker_hands: Mapped[int] = mapped_column(Integer)
    maker_made: Mapped[int] = mapped_column(Integer)
    # Where this game's stderr lies in the version's ladder log (revision 0002,
    # ``arena.server.ladder.gamelogs``): the log file's inode and size when the game began and when it ended
    # (a rotation changes the inode). None: a house bot, a game stored before 0002, or a log the ladder could
    # not see (another machine).
    log_inode: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    log_start: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    log_end_inode: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    log_end: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class WorkerLog(Base):
    """A version's stderr during one game played on a Dask worker, as the worker read it and sent it back
    (revision 0005, ``arena.server.ladder.gamelogs``): the worker's files are not this machine's, and the
    worker may be gone. Capped per seat as the page shows it; only the newest games' of each version are
    kept."""

    __tablename__ = "worker_logs"
    __table_args__ = (Index("ix_worker_logs_version", "version_id"),)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    version_id: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)  # the span's newest bytes
    after: Mapped[bytes] = mapped_column(LargeBinary)  # what followed the span when the worker read it
    notes: Mapped[str] = mapped_column(Text)  # JSON list: rotated, cut, overlapping (``logspan.Span``)


class Hand(Base):
    __tablename__ = "hands"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    hand_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    record: Mapped[str] = mapped_column(Text)  # the v1 hand record, JSON (docs/hand-record.md)


class GameFault(Base):
    __tablename__ = "faults"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    hand_index: Mapped[int] = mapped_column(Integer)
    decision_id: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    detail: Mapped[str] = mapped_column(Text)
    elapsed_ms: Mapped[float] = mapped_column(Float)
    substitute: Mapped[str] = mapped_column(String(32))


class Setting(Base):
    """Small server state that must survive a restart (the ladder paused or not)."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class UnratedMatch(Base):
    """A version's SPRT match against another (``kind`` "sprt") or an entrant's challenge ("challenge"):
    unrated games, kept apart from ``games`` so that no rating, board or ladder list can ever read them
    (revision 0003, ``arena.server.matches.service``)."""

    __tablename__ = "unrated_matches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # "sprt" | "challenge"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)  # who asked
    version_id: Mapped[int] = mapped_column(Integer)  # the candidate, or the challenger's version
    baseline_id: Mapped[int | None] = mapped_column(Integer, nullable=True)  # an SPRT's baseline
    field: Mapped[str] = mapped_column(Text)  # JSON: the seat names of the field, or the opponents
    seed: Mapped[int] = mapped_column(BigInteger)  # the public seed of its deals (with the secret key)
    budget: Mapped[int] = mapped_column(Integer)  # deals (an SPRT) or games (a challenge)
    settings: Mapped[str] = mapped_column(Text, default="{}")  # JSON: the SPRT's settings when asked
    status: Mapped[str] = mapped_column(String(16), default="running")  # running | done
    result: Mapped[str] = mapped_column(Text, default="{}")  # JSON: the decision when done
    created_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class UnratedGame(Base):
    """One finished unrated game: its place in its match's schedule (``idx``) and its result."""

    __tablename__ = "unrated_games"
    match_id: Mapped[int] = mapped_column(ForeignKey("unrated_matches.id"), primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    seats: Mapped[str] = mapped_column(Text)  # JSON: the executor's names, "s12" or "house-1"
    scores: Mapped[str] = mapped_column(Text)  # JSON, by seat
    ranks: Mapped[str] = mapped_column(Text)  # JSON, by seat
    forfeited: Mapped[str] = mapped_column(Text, default="[]")  # JSON: the names that forfeited
    hands: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean, default=True)  # False: void (a forfeit, "void" policy)
    created_at: Mapped[float] = mapped_column(Float)


class PersonSeat(Base):
    """What a person's play page polls (``arena.play.feed.seat_state``), written by the process that plays
    the game at each change, so that any process of the server answers the page (revision 0006,
    ``arena.server.matches.relay``). ``judge`` is what a move is checked against before it is queued (the
    legal actions, the hand, the suit led); ``deadline_at`` the wall-clock end of the pending decision."""

    __tablename__ = "person_seats"
    plan_id: Mapped[int] = mapped_column(ForeignKey("unrated_matches.id"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(Text)  # JSON: the page's state
    judge: Mapped[str] = mapped_column(Text)  # JSON: {"legal", "hand", "led", "phase"} or {}
    deadline_at: Mapped[float] = mapped_column(Float)  # time.time() when the decision goes to the autopilot


class PersonMove(Base):
    """A move (or ``back``: the person takes the seat back) posted to any process, taken in order by the
    process that plays the game, which judges it again with the engine and writes the outcome (``status``
    200, or the refusal's status and ``reason``; None: not taken yet)."""

    __tablename__ = "person_moves"
    __table_args__ = (Index("ix_person_moves_plan", "plan_id", "status"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    plan_id: Mapped[int] = mapped_column(ForeignKey("unrated_matches.id"))
    kind: Mapped[str] = mapped_column(String(8))  # "move" | "back"
    action: Mapped[str] = mapped_column(String(40))
    decision: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
