"""People: the organiser, entrants, their passwords, links, sessions, API tokens and login throttling.

* Passwords are hashed with argon2id (argon2-cffi's defaults, the OWASP-recommended memory-hard hash);
  hashing runs in a worker thread so a login does not stall the ladder's event loop.
* Every secret handed out (session id, invitation, login link, API token) is 256 bits from the OS's random
  source, and only its SHA-256 is stored (``arena.server.db.models``).
* A login makes a *new* session (the id a browser had before is never promoted): no session fixation.
* Failed logins are throttled without letting anyone lock anyone out, as OWASP's "Slow down online guessing
  attacks with device cookies" describes. A browser that has logged in to an account before holds a
  *device cookie* for it (the account's name and a random nonce, signed with the server's key): its logins
  are counted per device, so only that browser's own failures can make it wait. Every other client is
  *untrusted*: its failures are counted per account and per address, and past the limit untrusted logins to
  that account (or from that address) wait out a window, correct password or not, so guessing costs hours,
  not seconds, while everyone who logged in before still gets in. The organiser, and anyone who never
  logged in from this browser, can always get a fresh one-time login link from the server's machine
  (``arena login-link``).
* The organiser's first login link, printed at start, is derived from the server's key and the link's row,
  so every start and every process prints the same link until it is used.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import secrets
import time
import unicodedata
from collections import OrderedDict, defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session as DbSession

from arena.server.db.database import ServerDatabase
from arena.server.db.models import DESCRIPTION_MAX, ORGANISER, ApiToken, Link, Session, User
from arena.server.errors import Refused
from arena.server.settings import CompetitionConfig, Signup

ENTRANT = "entrant"
MIN_PASSWORD = 10
THROTTLE_WINDOW_S = 15 * 60
PER_ADDRESS_FACTOR = 10  # an address may fail this many times an account's limit (a classroom shares one)
DEVICE_DAYS = 365
ANONYMOUS_KEPT = 10_000  # visitors' ids known to have no session, kept so their next page reads nothing

_hasher = PasswordHasher()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: str) -> str:
    """A display name: 1-40 printable characters, trimmed. Anything printable is allowed (pages escape
    it); control and format characters are not, since they can make one name look like another.

    :raises Refused: 400 otherwise.
    """
    name = name.strip()
    if not 1 <= len(name) <= 40 or any(unicodedata.category(c)[0] == "C" for c in name):
        raise Refused(400, "a name has 1 to 40 printable characters")
    return name


def check_text(value: str, limit: int, what: str, lines: bool = False) -> str:
    """A description or a note: trimmed, at most ``limit`` characters, printable (``lines``: newlines
    allowed too). Pages escape it; control and format characters are refused, as in names, because they
    can make one text look like another.

    :raises Refused: 400 saying which rule it breaks.
    """
    value = value.strip().replace("\r\n", "\n")
    if len(value) > limit:
        raise Refused(400, f"{what} has at most {limit} characters; this one has {len(value)}")
    allowed = {"\n"} if lines else set()
    if any(unicodedata.category(c)[0] == "C" and c not in allowed for c in value):
        raise Refused(
            400, f"{what} may hold only printable characters" + (" and line breaks" if lines else "")
        )
    return value


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD or len(password) > 1000:
        raise Refused(400, f"a password has at least {MIN_PASSWORD} characters")
    return password


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_hasher.hash, password)


async def verify_password(stored: str | None, password: str) -> bool:
    if stored is None:
        await asyncio.to_thread(_hasher.hash, password)  # the same time as a real check: no user probing
        return False
    try:
        return await asyncio.to_thread(_hasher.verify, stored, password)
    except (VerificationError, InvalidHashError):
        return False


class Throttle:
    """Failed attempts per key in a sliding window; ``limit`` failures and the key must wait."""

    def __init__(self, limit: int, window_s: float = THROTTLE_WINDOW_S) -> None:
        self.limit = limit
        self.window_s = window_s
        self._failures: dict[str, deque[float]] = defaultdict(deque)

    def wait_s(self, key: str, now: float) -> int:
        """Seconds ``key`` must still wait (0: it may try)."""
        failures = self._failures[key]
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        if len(failures) < self.limit:
            return 0
        return max(1, int(failures[0] + self.window_s - now))

    def failed(self, key: str, now: float) -> None:
        self._failures[key].append(now)


class Devices:
    """Device cookies: proof that a browser logged in to an account before (see the module's docstring).

    One cookie per account a browser has logged in to, so a shared classroom computer keeps each student's;
    its value is the account's name, a nonce and their HMAC under the server's key, so it cannot be made
    for another account, and a stolen one only lets its thief be throttled per device."""

    def __init__(self, key: bytes) -> None:
        self.key = key

    @staticmethod
    def cookie_name(name: str) -> str:
        return "arena_device_" + hashlib.sha256(name.encode()).hexdigest()[:16]

    def _sign(self, body: str) -> str:
        return hmac.new(self.key, ("device:" + body).encode(), hashlib.sha256).hexdigest()[:40]

    def issue(self, name: str) -> str:
        """A new cookie value for ``name`` (issued at every successful login, as OWASP describes)."""
        body = base64.urlsafe_b64encode(name.encode()).decode() + "." + secrets.token_urlsafe(16)
        return f"{body}.{self._sign(body)}"

    def nonce(self, value: str | None, name: str) -> str | None:
        """The device's nonce when ``value`` is a genuine cookie of ``name``; None otherwise."""
        if not value or not self.key:
            return None
        encoded, _, rest = value.partition(".")
        nonce, _, signature = rest.partition(".")
        try:
            owner = base64.urlsafe_b64decode(encoded.encode()).decode()
        except (ValueError, UnicodeDecodeError):
            return None
        body = f"{encoded}.{nonce}"
        if owner != name or not nonce or not hmac.compare_digest(signature, self._sign(body)):
            return None
        return nonce


@dataclass(frozen=True, slots=True)
class Invitation:
    name: str
    email: str
    token: str


class Accounts:
    """The people of one competition (see the module's docstring)."""

    def __init__(self, db: ServerDatabase, config: CompetitionConfig, key: bytes = b"") -> None:
        self.db = db
        self.config = config
        self.key = key  # the server's key: device cookies and the organiser's stable first link
        self.devices = Devices(key)
        self.untrusted = Throttle(config.people.login_attempts)  # per account, clients without its cookie
        self.per_address = Throttle(config.people.login_attempts * PER_ADDRESS_FACTOR)  # per address
        self.per_device = Throttle(config.people.login_attempts)  # per device cookie
        self._anonymous: OrderedDict[str, None] = OrderedDict()  # ids with no session (``session_user``)

    # --- links: invitations and the organiser's login link ---------------------------------------------

    def _link(self, kind: str, name: str, email: str = "", user_id: int | None = None) -> str:
        token = new_token()
        with self.db.session() as s:
            s.add(
                Link(
                    token_hash=token_hash(token),
                    kind=kind,
                    user_id=user_id,
                    name=name,
                    email=email,
                    expires_at=time.time() + self.config.people.invite_days * 86400,
                )
            )
        return token

    def organiser_link(self) -> str | None:
        """At start: create the organiser if there is none, and while the organiser has no password, its
        one-time login link; None once a password is set. The link is derived from the server's key and
        its row, so every start and every process (on one database) prints the same one until it is used
        or expires; only then is a new one made."""
        with self.db.session() as s:
            organiser = s.scalars(select(User).where(User.role == ORGANISER)).first()
            if organiser is None:
                organiser = User(name=ORGANISER, role=ORGANISER, created_at=time.time())
                s.add(organiser)
                s.flush()
            elif organiser.password_hash is not None:
                return None
            user_id = organiser.id
            now = time.time()
            for link in s.scalars(
                select(Link).where(Link.user_id == user_id, Link.kind == "login", Link.used_at.is_(None))
            ):
                token = self._derived(link.id)
                if link.expires_at > now and link.token_hash == token_hash(token):
                    return token
            link = Link(
                token_hash="pending:" + new_token()[:48],
                kind="login",
                user_id=user_id,
                name=ORGANISER,
                expires_at=now + self.config.people.invite_days * 86400,
            )
            s.add(link)
            s.flush()
            token = self._derived(link.id)
            link.token_hash = token_hash(token)
        return token

    def _derived(self, link_id: int) -> str:
        if not self.key:
            raise RuntimeError("the organiser's link needs the server's key")
        digest = hmac.new(self.key, f"organiser-link:{link_id}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def login_link(self, name: str) -> str:
        """A fresh one-time link that sets a new password for the account ``name`` (the organiser's by
        default in ``arena login-link``): how someone who cannot log in gets back in, from the server's
        machine. Earlier links stay valid until used or expired.

        :raises Refused: 404 no such account.
        """
        with self.db.session() as s:
            user = s.scalars(select(User).where(User.name == name)).first()
            if user is None:
                raise Refused(404, f"no account is named {name!r}")
            user_id = user.id
        return self._link("login", name, user_id=user_id)

    def invite(self, rows: Sequence[tuple[str, str]]) -> list[Invitation]:
        """One single-use invitation per (name, e-mail); inviting a name again replaces its open link.

        :raises Refused: a bad name, a name used twice in ``rows``, or one that already has an account.
        """
        names = [check_name(n) for n, _ in rows]
        for name in names:
            if names.count(name) > 1:
                raise Refused(400, f"the name {name!r} is listed more than once")
        with self.db.session() as s:
            taken = set(s.scalars(select(User.name).where(User.name.in_(names))))
            if taken:
                raise Refused(400, f"already entrants: {', '.join(sorted(taken))}")
            s.execute(delete(Link).where(Link.kind == "invite", Link.name.in_(names), Link.used_at.is_(None)))
        return [Invitation(n, e, self._link("invite", n, e)) for n, (_, e) in zip(names, rows, strict=True)]

    def open_link(self, token: str) -> Link:
        """The unused, unexpired link ``token`` names.

        :raises Refused: 404 for a link that never existed, was used, or has expired (one answer for all).
        """
        with self.db.session() as s:
            link = s.scalars(select(Link).where(Link.token_hash == token_hash(token))).first()
        if link is None or link.used_at is not None or link.expires_at < time.time():
            raise Refused(404, "this link is not valid: it was used already, has expired, or never existed")
        return link

    async def follow_link(self, token: str, password: str, name: str | None = None) -> User:
        """Use a link once: an invitation creates its entrant (named as invited), a login link sets the
        password of its user. Returns the user, to be logged in.

        :raises Refused: the link is not valid, the password too short, or the name taken meanwhile.
        """
        link = self.open_link(token)
        hashed = await hash_password(check_password(password))
        with self.db.session() as s:
            fresh = s.get(Link, link.id)
            if fresh is None or fresh.used_at is not None:
                raise Refused(404, "this link is not valid: it was used already")
            fresh.used_at = time.time()
            if link.kind == "login" and link.user_id is not None:
                user = s.get(User, link.user_id)
                if user is None:
                    raise Refused(404, "this link's account no longer exists")
                user.password_hash = hashed
            else:
                user = self._new_entrant(s, name or link.name, link.email, hashed)
        return user

    async def sign_up(self, name: str, password: str) -> User:
        """Open sign-up, when the competition allows it.

        :raises Refused: 403 when sign-up is by invitation; 400 for a bad or taken name or password.
        """
        if self.config.people.signup is not Signup.OPEN:
            raise Refused(403, "this competition is by invitation only: ask the organiser for a link")
        hashed = await hash_password(check_password(password))
        with self.db.session() as s:
            return self._new_entrant(s, check_name(name), "", hashed)

    def _new_entrant(self, s: DbSession, name: str, email: str, hashed: str) -> User:
        if s.scalars(select(User).where(User.name == name)).first() is not None:
            raise Refused(400, f"the name {name!r} is taken")
        user = User(name=name, email=email, role=ENTRANT, password_hash=hashed, created_at=time.time())
        s.add(user)
        s.flush()
        return user

    # --- logging in ----------------------------------------------------------------------------------

    async def login(self, name: str, password: str, address: str, device: str | None = None) -> User:
        """The user whose name and password these are. ``device`` is the browser's device cookie for
        ``name``, if it sent one: a genuine one is throttled on its own failures only.

        :raises Refused: 429 while this client must wait; 401 for a wrong name or password (one message
            for both); 403 for a disabled account.
        """
        now = time.time()
        nonce = self.devices.nonce(device, name)
        if nonce is not None:
            wait = self.per_device.wait_s(nonce, now)
        else:
            wait = max(self.untrusted.wait_s(name, now), self.per_address.wait_s(address, now))
        if wait:
            raise Refused(429, f"too many failed logins: try again in {wait // 60 + 1} minutes", wait)
        with self.db.session() as s:
            user = s.scalars(select(User).where(User.name == name)).first()
        if not await verify_password(user.password_hash if user else None, password) or user is None:
            if nonce is not None:
                self.per_device.failed(nonce, now)
            else:
                self.untrusted.failed(name, now)
                self.per_address.failed(address, now)
            raise Refused(401, "wrong name or password")
        if user.disabled:
            raise Refused(403, "this account is disabled: ask the organiser")
        return user

    def new_session(self, user_id: int) -> str:
        token = new_token()
        with self.db.session() as s:
            s.add(Session(token_hash=token_hash(token), user_id=user_id, created_at=time.time()))
        return token

    def end_session(self, token: str) -> None:
        with self.db.session() as s:
            s.execute(delete(Session).where(Session.token_hash == token_hash(token)))

    def session_user(self, token: str) -> User | None:
        """The user of a session id, or None (no such session, or the account was disabled since).

        An id found without a session is remembered (the last ``ANONYMOUS_KEPT``) and answered without
        the database next time: a spectator's every page would otherwise cost a query on the loop the
        ladder shares. That is safe because an id never gains a session: logging in always issues a new
        one (``new_session``), on every process, and a session ended stays ended.
        """
        if token in self._anonymous:
            self._anonymous.move_to_end(token)
            return None
        with self.db.session() as s:
            row = s.get(Session, token_hash(token))
            user = s.get(User, row.user_id) if row is not None else None
        if row is None:
            self._anonymous[token] = None
            while len(self._anonymous) > ANONYMOUS_KEPT:
                self._anonymous.popitem(last=False)
        return user if user is not None and not user.disabled else None

    def new_api_token(self, user_id: int) -> str:
        """A fresh API token for `arena submit` / `arena status`; the user's older tokens stop working."""
        token = new_token()
        with self.db.session() as s:
            s.execute(delete(ApiToken).where(ApiToken.user_id == user_id))
            s.add(ApiToken(token_hash=token_hash(token), user_id=user_id, created_at=time.time()))
        return token

    def api_user(self, token: str) -> User | None:
        with self.db.session() as s:
            row = s.get(ApiToken, token_hash(token))
            user = s.get(User, row.user_id) if row is not None else None
        return user if user is not None and not user.disabled else None

    def user(self, user_id: int) -> User | None:
        with self.db.session() as s:
            return s.get(User, user_id)

    def entrant(self, user_id: int) -> User | None:
        """An entrant by id (None also for the organiser, who has no entrant's page)."""
        user = self.user(user_id)
        return user if user is not None and user.role == ENTRANT else None

    def set_description(self, user_id: int, text: str) -> str:
        """An entrant describes its bot (shown on its page and the leaderboard); the stored text.

        :raises Refused: 400 too long or not printable (``submissions.check_text``), 404 not an entrant.
        """
        text = check_text(text, DESCRIPTION_MAX, "a description", lines=True)
        with self.db.session() as s:
            user = s.get(User, user_id)
            if user is None or user.role != ENTRANT:
                raise Refused(404, "no such entrant")
            user.description = text
        return text

    def entrants(self) -> list[User]:
        with self.db.session() as s:
            return list(s.scalars(select(User).where(User.role == ENTRANT).order_by(User.name)))

    def set_disabled(self, user_id: int, disabled: bool) -> User:
        """:raises Refused: 404 no such entrant (the organiser cannot be disabled)."""
        with self.db.session() as s:
            user = s.get(User, user_id)
            if user is None or user.role != ENTRANT:
                raise Refused(404, "no such entrant")
            user.disabled = disabled
            if disabled:
                s.execute(delete(Session).where(Session.user_id == user_id))
        return user
