"""The command line's side of the JSON API (`arena submit`, `arena status`), on the standard library alone:
so an entrant's machine needs nothing beyond the arena to submit from a terminal."""

from __future__ import annotations

import json
import secrets
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, ConfigError


class ClientError(ArenaError):
    """The server refused or could not be reached; the message is the server's own when it gave one."""


class BadRequest(ClientError, ConfigError):
    """The server refused what was sent (400, 413: a bad note, an unsafe archive, a runtime not offered):
    the sender's input, so its exit code is that of bad input (2), not of a refusal (1)."""


def _call(server: str, token: str, path: str, body: bytes | None = None, content_type: str = "") -> Any:
    request = urllib.request.Request(server.rstrip("/") + path, data=body, method="POST" if body else "GET")
    request.add_header("Authorization", f"Bearer {token}")
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read())["error"]
        except (ValueError, KeyError, TypeError):
            message = exc.reason
        refused = BadRequest if exc.code in (400, 413) else ClientError
        raise refused(f"the server refused ({exc.code}): {message}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise ClientError(f"cannot reach {server}: {getattr(exc, 'reason', exc)}") from None


def submit(server: str, token: str, path: Path, runtime: str, note: str = "") -> dict[str, Any]:
    """Upload ``path`` as a new version with its ``note`` (the server checks it, as the upload form's);
    returns the version as the API describes it.

    :raises ConfigError: the file cannot be read. :raises ClientError: the server refused.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    boundary = secrets.token_hex(16)
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="runtime"\r\n\r\n{runtime}\r\n'.encode(),
        f'--{boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\n{note}\r\n'.encode(),
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode(),
        data,
        f"\r\n--{boundary}--\r\n".encode(),
    ]
    reply: dict[str, Any] = _call(
        server, token, "/api/submit", b"".join(parts), f"multipart/form-data; boundary={boundary}"
    )
    return reply


def wait_verdict(server: str, token: str, version_id: int, timeout_s: float = 600) -> dict[str, Any]:
    """The version once its check has finished (polled every second)."""
    deadline = time.monotonic() + timeout_s
    while True:
        version: dict[str, Any] = _call(server, token, f"/api/versions/{version_id}")
        if version["status"] in ("passed", "failed") or time.monotonic() > deadline:
            return version
        time.sleep(1)


def status(server: str, token: str) -> dict[str, Any]:
    reply: dict[str, Any] = _call(server, token, "/api/status")
    return reply
