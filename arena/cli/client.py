"""The command line's side of the JSON API (`arena submit`, `arena status`), on the standard library alone:
so an entrant's machine needs nothing beyond the arena to submit from a terminal."""

from __future__ import annotations

import http.client
import json
import secrets
import time
import urllib.parse
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, ConfigError


class ClientError(ArenaError):
    """The server refused or could not be reached; the message is the server's own when it gave one."""


class BadRequest(ClientError, ConfigError):
    """The server refused what was sent (any 4xx: a bad note, an unsafe archive, a runtime not offered, too
    large, too many uploads): the sender's to change, so its exit code is that of bad input (2)."""


def _call(server: str, token: str, path: str, body: bytes | None = None, content_type: str = "") -> Any:
    """One API call. The server may refuse an upload before reading it (413: too large) and close the
    connection while the body is still being sent: its answer is read all the same, so the entrant sees the
    server's reason rather than "Broken pipe"."""
    url = urllib.parse.urlsplit(server.rstrip("/") + path)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise BadRequest(f"--server {server!r}: expected a URL such as http://127.0.0.1:8000")
    kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    connection = kind(url.hostname, url.port, timeout=60)
    headers = {"Authorization": f"Bearer {token}"}
    if content_type:
        headers["Content-Type"] = content_type
    cut_short = False
    try:
        try:
            connection.request("POST" if body else "GET", url.path, body=body, headers=headers)
        except (BrokenPipeError, ConnectionResetError):
            cut_short = True  # the server answered before the whole body was sent: read that answer
        reply = connection.getresponse()
        data = reply.read()
    except (OSError, http.client.HTTPException) as exc:
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        if cut_short:
            why += " (the server closed the connection during the upload: is it larger than it accepts?)"
        raise ClientError(f"cannot reach {server}: {why}") from None
    finally:
        connection.close()
    if reply.status >= 400:
        try:
            message = json.loads(data)["error"]
        except (ValueError, KeyError, TypeError):
            message = reply.reason
        refused = BadRequest if reply.status < 500 else ClientError  # a refusal is the sender's input
        raise refused(f"the server refused ({reply.status}): {message}")
    try:
        return json.loads(data)
    except ValueError:
        raise ClientError(f"{server} did not answer as the arena's server does (not JSON)") from None


def submit(server: str, token: str, path: Path, runtime: str, note: str = "") -> dict[str, Any]:
    """Upload ``path`` as a new version with its ``note`` (the server checks it, as the upload form's);
    returns the version as the API describes it.

    :raises ConfigError: the file cannot be read. :raises ClientError: the server refused.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    limit_kb = status(server, token).get("limits", {}).get("max_upload_kb")
    if isinstance(limit_kb, int) and len(data) > limit_kb * 1024:
        raise BadRequest(
            f"{str(path)!r} has {len(data) / 1024:,.0f} KB; this server accepts uploads of at most "
            f"{limit_kb:,} KB (its [submissions] max_upload_kb): archive it (tar.gz) or ask the organiser"
        )
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
