"""The load clients of ``bench/server.py --load``: each load process (``python bench/server_load.py JOB``,
started by ``load_processes``) runs some of the clients, in a process of its own at the default priority,
and reports their latencies as JSON. Apart from the bench's own process so that what the clients
measure is the server, not the bench waiting for a core (docs/server.md, "The goals measured with the
clients apart")."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from typing import Any
from urllib.parse import urlsplit


class Http:
    """A browser's keep-alive connection, at a fraction of an HTTP library's CPU: HTTP/1.1 GETs on one
    socket, with the cookies the server set. The clients stand in for a class's browsers, which run on
    other machines; on the bench's 2 cores their own CPU is taken from the ladder's bots, so the less of it
    the more the bench measures the server (an HTTP library's clients cost several times as much: the
    figures are in docs/server.md, "With clients as light as a browser elsewhere"). Reconnects when the
    server closed the connection (its keep-alive ran out) before a request; a failure during one is the
    caller's to count."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.cookies: dict[str, str] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
        """The status and headers (lower-cased names) of a GET of ``path``; the body read and dropped."""
        if self.writer is None or self.reader is None or self.reader.at_eof():
            self.close()
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        lines = [f"GET {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        found: dict[str, str] = {}
        for line in head[1:]:
            if ":" not in line:
                continue
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key.strip()] = rest.split(";", 1)[0]
            found[name] = value
        if found.get("transfer-encoding", "").lower() == "chunked":
            while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
                await self.reader.readexactly(size + 2)
            await self.reader.readuntil(b"\r\n")  # no trailers are sent
        elif status not in (204, 304):
            await self.reader.readexactly(int(found.get("content-length", "0")))
        if found.get("connection", "").lower() == "close":
            self.close()
        return status, found

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def _load(
    url: str,
    clients: int,
    requests: int,
    games: int,
    interval: float,
    pages: str,
    until: float | None,
    offset: int = 0,
    conditional: bool = False,
    ready: Any = None,
) -> dict[str, list[float]]:
    """``clients`` clients (``Http``), each ``requests`` GETs (or as many as fit before ``until``, a monotonic
    time): the leaderboard and a stored game in turn (``pages`` "both") or the leaderboard alone
    ("leaderboard"), one every ``interval`` seconds (the clients' starts spread over the first interval).

    Each client is made, and its connection opened by a first request (its cookie, and the first rendering
    of the page's template), before the load begins and untimed: a polling client pays it once. With
    ``ready`` (an awaitable giving ``until``, ``load_client``) that is before this process says it is
    ready: making 25 clients took seconds of a loaded core, which fell inside the loaded spell."""
    times: dict[str, list[float]] = {"leaderboard": [], "game": []}
    dropped: list[str] = []  # connections the server closed under a request (its keep-alive ran out)
    unchanged = [0]  # answers 304: the page held was still the page (--conditional)
    https = [Http(url) for _ in range(clients)]
    for http in https:
        assert (await http.get("/"))[0] == 200
    if ready is not None:
        until = await ready
    cpu = time.process_time()

    async def one(c: int, http: Http) -> None:
        tags: dict[str, str] = {}
        await asyncio.sleep(interval * c / clients)
        c += offset  # this process's clients among all (``load_processes``): their games differ
        start = time.monotonic()
        r = 0
        while (r < requests) if until is None else (time.monotonic() < until):
            if interval:
                await asyncio.sleep(max(0.0, start + r * interval - time.monotonic()))
                if until is not None and time.monotonic() >= until:
                    break
            kind = "leaderboard" if pages == "leaderboard" or (c + r) % 2 == 0 else "game"
            path = "/" if kind == "leaderboard" else f"/games/g{1 + (c * requests + r) % games:06d}"
            began = time.monotonic()
            # as a browser's fetch asks again for what it holds: with its tag (--conditional)
            held = {"If-None-Match": tags[path]} if conditional and path in tags else {}
            try:
                status, headers = await http.get(path, held)
            except (OSError, asyncio.IncompleteReadError) as exc:  # counted and said, not fatal
                dropped.append(f"{type(exc).__name__}: {exc}")
                http.close()
                continue
            times[kind].append(time.monotonic() - began)
            assert status in ((200, 304) if held else (200,)), (path, status)
            if "etag" in headers:
                tags[path] = headers["etag"]
            unchanged[0] += status == 304
            r += 1

    try:
        await asyncio.gather(*(one(c, http) for c, http in enumerate(https)))
    finally:
        for http in https:
            http.close()
    if dropped:
        print(
            f"{len(dropped)} requests dropped by the server (and asked again), e.g. {dropped[0]}",
            file=sys.stderr,
        )
    found = {kind: values for kind, values in times.items() if values}
    found["unchanged"] = [float(unchanged[0])]
    found["cpu"] = [time.process_time() - cpu]  # this process's CPU while it asked
    return found


def normal_priority() -> None:
    """In a child before it runs (``preexec_fn``): the default priority, whatever the bench's own ``nice``
    (raising it back needs root or CAP_SYS_NICE; without them the child keeps the bench's)."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, 0)


def load_processes(jobs: list[dict[str, Any]]) -> list[subprocess.Popen[str]]:
    """A load process of its own (``load_client``) for each job, at the default priority
    (``normal_priority``), none in the bench's: what the clients measure is the server, not the bench
    waiting for a core. Each has made its clients and opened their connections when this returns: none of
    that is in the loaded spell."""
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, json.dumps(job)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=normal_priority,
        )
        for job in jobs
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return procs


def load_client() -> None:
    """``python bench/server_load.py JSON``: one load process (``bench/server.py``'s ``under_load``). Makes
    its clients and opens their connections, says ``ready``, reads the wall-clock time the load ends on
    stdin, and writes its latencies, niceness and CPU time as JSON on stdout."""
    job = json.loads(sys.argv[1])

    async def ready() -> float | None:
        print("ready", flush=True)
        line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        until = json.loads(line)
        return None if until is None else time.monotonic() + until - time.time()

    async def run() -> dict[str, list[float]]:
        return await _load(job["url"], job["clients"], job["requests"], job["games"], job["interval"],
                           job["pages"], None, job["offset"], job["conditional"], ready())  # fmt: skip

    times = asyncio.run(run())
    print(json.dumps({"times": times, "nice": os.getpriority(os.PRIO_PROCESS, 0)}))


if __name__ == "__main__":
    load_client()
