"""Inside a sandbox: ``python -m arena.sandbox.relay --socket PATH --port P -- COMMAND...``.

A sandboxed bot has a network namespace of its own, so the arena cannot reach a TCP port it listens on.
Bots started with ``{address}`` listen on the Unix socket the arena connects to and need nothing more; for
a bot that can only take a TCP port (``{port}``), this process runs inside the sandbox next to it, starts
it, and copies bytes between the Unix socket and ``127.0.0.1:P`` of the sandbox's own loopback. It exits
with the bot's status when the bot exits.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    """Copy one direction until end of stream. Blocking calls in a thread: gRPC keeps one connection per
    channel, so there are only a few, and a blocking copy costs far less per message than an event loop."""
    try:
        while data := source.recv(262144):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


def _connect(client: socket.socket, port: int) -> None:
    try:
        upstream = socket.create_connection(("127.0.0.1", port))
    except OSError:
        client.close()  # the bot is not listening yet: the arena's health check will try again
        return
    upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threads = [
        threading.Thread(target=_pipe, args=(client, upstream), daemon=True),
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    client.close()
    upstream.close()


def _accept(server: socket.socket, port: int) -> None:
    while True:
        try:
            client, _ = server.accept()
        except OSError:
            return
        threading.Thread(target=_connect, args=(client, port), daemon=True).start()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.sandbox.relay")
    parser.add_argument("--socket", required=True, help="Unix socket the arena connects to")
    parser.add_argument("--port", type=int, required=True, help="TCP port the bot listens on")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no bot command given")
    bot = subprocess.Popen(command)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(args.socket)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(args.socket)
    server.listen(16)
    threading.Thread(target=_accept, args=(server, args.port), daemon=True).start()
    code = bot.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
