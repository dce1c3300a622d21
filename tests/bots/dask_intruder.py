"""Another local user tries the arena's Dask cluster: ``python tests/bots/dask_intruder.py PORT ...``.

Run as a user other than the arena's (the test uses uid 65534), with the ports the cluster listens on
(on an ordinary machine ``/proc/net/tcp`` lists them to anyone). On each port it tries what Dask allows a
client: join as a client over plain TCP and over TLS with a certificate of its own, and run code in the
workers (``Client.run``); where that is refused, ask the server who it is (``identity``, which any Dask
server answers, and after which ``run`` on a worker is one message away). A port that speaks HTTP (each
Dask server has one, in plain HTTP) is asked for the pages where Dask shows the workers' logs, call stacks
and addresses. Prints one JSON line per try: ``{"uid", "port", "how", "result"}``, with ``result``
starting ``refused`` when nothing answered.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import types


def _import_dask() -> None:
    """Where ``/proc/meminfo`` is closed to other users, ``distributed`` cannot be imported as is; an
    intruder patches that over."""
    import psutil

    try:
        psutil.virtual_memory()
    except OSError:
        psutil.virtual_memory = lambda: types.SimpleNamespace(total=1 << 30, available=1 << 30)  # type: ignore[assignment]


async def attempt(port: int, how: str) -> str:
    from distributed import Client, Security
    from distributed.core import rpc

    security = Security.temporary() if how == "tls, own certificate" else Security()
    address = f"{'tls' if security.require_encryption else 'tcp'}://127.0.0.1:{port}"
    try:
        client = await asyncio.wait_for(
            Client(address, asynchronous=True, timeout="5s", security=security), 15
        )
        try:
            ran = await asyncio.wait_for(client.run(os.getuid), 15)
            return f"RAN CODE in the workers: uid {ran}"
        finally:
            await client.close()
    except BaseException as exc:  # every failure is a result to report
        joined = f"{type(exc).__name__}: {str(exc)[:120]}"
    server = rpc(address, connection_args=security.get_connection_args("client"), timeout=5)
    try:
        who = await asyncio.wait_for(server.identity(), 15)
        return f"ANSWERED identity: {str(who)[:120]}"
    except BaseException as exc:
        return f"refused (as a client: {joined}; identity: {type(exc).__name__}: {str(exc)[:120]})"
    finally:
        await server.close_rpc()


PAGES = ("/info/main/workers.html", "/info/main/logs.html", "/json/identity.json", "/health", "/metrics")


async def http_pages(port: int) -> dict[str, str] | None:
    """The status line of each of ``PAGES`` on ``port``, or None when the port does not speak HTTP."""
    answers: dict[str, str] = {}
    for page in PAGES:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
            writer.write(f"GET {page} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode())
            await writer.drain()
            line = (await asyncio.wait_for(reader.readline(), 3)).decode("latin-1").strip()
            writer.close()
        except (OSError, TimeoutError):
            return None
        if not line.startswith("HTTP/"):
            return None
        answers[page] = line
    return answers


async def main(ports: list[int]) -> None:
    for port in ports:
        pages = await http_pages(port)
        if pages is not None:
            shown = {page: line for page, line in pages.items() if " 404 " not in f"{line} "}
            result = f"ANSWERED over HTTP: {shown}" if shown else "refused (HTTP: 404 for every page)"
            print(json.dumps({"uid": os.getuid(), "port": port, "how": "http", "result": result}), flush=True)
            continue
        for how in ("plain tcp", "tls, own certificate"):
            result = await attempt(port, how)
            print(json.dumps({"uid": os.getuid(), "port": port, "how": how, "result": result}), flush=True)


if __name__ == "__main__":
    _import_dask()
    asyncio.run(main([int(p) for p in sys.argv[1:]]))
