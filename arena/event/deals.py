"""Secret deals: every deal of an event depends on its public seed *and* a per-event secret key.

Before this, a game's deal seed was ``game_seed(event_seed, block)``: a bot that knew the event seed (the
config, ``/proc`` of the arena, or the default of 1) and its ``game_id`` rebuilt every hand at its table.
Now the seed the engine deals from is BLAKE2b keyed with a 32-byte key from the OS's random source over
(domain, public game seed). The schedule, the seating and the public seeds are unchanged (so duplicate
blocks still share their deals), and the engine stays pure: it still receives an ``int``.

The key lives in ``OUTPUT/deal.key`` (hex, mode 0600), never in ``event.sqlite``: the database only holds a
keyed check value that tells a resumed event whether the key file is the one it was dealt with, and from
which nothing about the key can be learned. ``deal_key`` in the config fixes the key, for published,
reproducible experiments; the organiser may publish the key once the event is over (``cat OUTPUT/deal.key``).

Events stored by an arena older than this module have no check value: they keep being dealt from the
public seed alone (``key=None``), so that resuming them finishes the same event, and replaying them works.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError, StoreError
from arena.userfiles import KEY_LIMIT, read_user_text

KEY_FILE = "deal.key"
KEY_BYTES = 32  # 256 bits drawn for every event; a fixed key needs at least MIN_KEY_BYTES
MIN_KEY_BYTES = 16
MAX_KEY_BYTES = 64  # BLAKE2b's longest key
DEAL_SEED_DOMAIN = b"euchre-arena/deal-seed/v1"
CHECK_DOMAIN = b"euchre-arena/deal-key-check/v1"
_HEX = re.compile(r"^[0-9a-fA-F]+$")


def parse_key(text: object, where: str = "deal_key") -> bytes:
    """A key written as hex (config, ``--deal-key``, the key file).

    :raises ConfigError: not a string of hex digits, an odd count, or shorter than 128 bits / longer than 512.
    """
    lo, hi = 2 * MIN_KEY_BYTES, 2 * MAX_KEY_BYTES
    hint = f"expected {lo}..{hi} hex digits (e.g. python3 -c 'import secrets; print(secrets.token_hex(32))')"
    if not isinstance(text, str):
        raise ConfigError(f"{where}={text!r}: {hint}")
    value = text.strip()
    if not _HEX.match(value) or len(value) % 2 or not lo <= len(value) <= hi:
        shown = value if len(value) <= 20 else value[:8] + "..."  # never echo a whole (nearly valid) key
        raise ConfigError(f"{where}={shown!r} ({len(value)} characters): {hint}")
    return bytes.fromhex(value)


def new_key() -> bytes:
    """A fresh event key from the OS's random source."""
    return secrets.token_bytes(KEY_BYTES)


def deal_seed(key: bytes | None, public_seed: int) -> int:
    """The seed the engine deals the game (or duplicate block) with public seed ``public_seed`` from.

    A 256-bit integer, so that even a bot that sees some of its deals cannot search the seed space;
    ``key=None`` is the behaviour of events stored before secret deals existed (the public seed itself).
    """
    if key is None:
        return public_seed
    digest = hashlib.blake2b(
        DEAL_SEED_DOMAIN + b":" + str(public_seed).encode(), key=key, digest_size=32
    ).digest()
    return int.from_bytes(digest, "big")


def key_check(key: bytes) -> str:
    """A value stored in the database to recognise the event's key without revealing it (a keyed hash
    of a constant: finding the key from it is as hard as guessing the key)."""
    return hashlib.blake2b(CHECK_DOMAIN, key=key, digest_size=16).hexdigest()


def key_path(directory: Path) -> Path:
    return directory / KEY_FILE


def write_key_file(directory: Path, key: bytes) -> None:
    """Write the key file readable by the owner only, atomically (a crash leaves the old file or the new
    one, never half a key)."""
    path = key_path(directory)
    temporary = path.with_name(f".{KEY_FILE}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            if os.write(fd, (key.hex() + "\n").encode()) != 2 * len(key) + 1:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
        os.chmod(path, 0o600)
    except OSError as exc:  # a full disk, most likely: no game is played without the key on disk
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise StoreError(f"cannot write the event's deal key {str(path)!r}: {exc.strerror or exc}") from None


def read_key_file(directory: Path) -> bytes | None:
    """The stored key, or None when there is no key file.

    :raises ConfigError: the file cannot be read or does not hold a key.
    """
    path = key_path(directory)
    if not os.path.lexists(path):
        return None
    text = read_user_text(path, "the event's deal key", KEY_LIMIT)  # a regular file of a few bytes
    try:
        key = parse_key(text, where=str(path))
    except ConfigError as exc:
        raise ConfigError(f"{exc} (the key file is damaged: restore it from a backup)") from None
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)  # tighten a file copied in with looser permissions
    return key


@dataclass(frozen=True, slots=True)
class EventKey:
    """The key an event is dealt with (None: an event from before secret deals) and the check value to
    store, when it changed."""

    key: bytes | None
    check: str | None


def resolve_key(
    directory: Path,
    configured: bytes | None,
    stored_check: str | None,
    event_exists: bool,
    games_stored: int,
) -> EventKey:
    """Find (or make) the key of the event in ``directory``, refusing anything that would change its deals.

    * a new event: the configured key or a fresh one, written to the key file (replacing a stale one);
    * an event from before secret deals (stored, no check value): no key, and a configured key is refused;
    * a resumed event: the key file's key, which must match the stored check value and the configured key.
      A lost or damaged key file is an error once games are stored (the rest of the event could not be
      dealt as it was begun); with none stored, nothing was dealt yet, so a new key is as good as the old.

    :raises ConfigError: with one line saying what is wrong and what to do.
    """
    where = str(key_path(directory))
    if not event_exists:
        key = configured if configured is not None else new_key()
        write_key_file(directory, key)
        return EventKey(key, key_check(key))
    if stored_check is None:
        if configured is not None:
            raise ConfigError(
                f"{str(directory)!r} holds an event begun by an older arena, dealt without a deal key: "
                "remove deal_key to resume it, or use another output directory"
            )
        return EventKey(None, None)
    if configured is not None and key_check(configured) != stored_check:
        raise ConfigError(
            f"deal_key differs from the key {str(directory)!r} was dealt with, so this is a different event: "
            "use another output directory, or remove deal_key to resume with the stored key"
        )
    try:
        found = read_key_file(directory)
    except ConfigError:
        if games_stored:
            raise
        found = None
    if found is not None and key_check(found) != stored_check:
        if games_stored:
            raise ConfigError(
                f"{where} is not the key this event was dealt with ({games_stored} games stored): restore "
                "the original file, or use another output directory"
            )
        found = None
    if found is not None:
        return EventKey(found, None)
    if configured is not None:  # the lost file is restored from the config, which matches the stored check
        write_key_file(directory, configured)
        return EventKey(configured, None)
    if games_stored:
        raise ConfigError(
            f"{where} is missing but {games_stored} games of this event are stored: the remaining games "
            "cannot be dealt without it; restore the file, or use another output directory"
        )
    key = new_key()  # nothing dealt yet: a new key changes nothing anybody has seen
    write_key_file(directory, key)
    return EventKey(key, key_check(key))
