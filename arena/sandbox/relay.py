"""Inside a sandbox: ``python -m arena.sandbox.relay --socket PATH --port P -- COMMAND...``.

A sandboxed bot has a network namespace of its own, so the arena cannot reach a TCP port it listens on.
Bots started with ``{address}`` listen on the Unix socket the arena connects to and need nothing more; for
a bot that can only take a TCP port (``{port}``), this process runs inside the sandbox next to it, starts
it, and copies bytes between the Unix socket and ``127.0.0.1:P`` of the sandbox's own loopback. It exits
with the bot's status when the bot exits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def _serve(socket_path: str, port: int, command: Sequence[str]) -> int:
    bot = await asyncio.create_subprocess_exec(*command)

    async def connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()  # the bot is not listening yet: the arena's health check will try again
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    with contextlib.suppress(FileNotFoundError):
        os.unlink(socket_path)
    server = await asyncio.start_unix_server(connect, socket_path)
    async with server:
        return await bot.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.sandbox.relay")
    parser.add_argument("--socket", required=True, help="Unix socket the arena connects to")
    parser.add_argument("--port", type=int, required=True, help="TCP port the bot listens on")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no bot command given")
    code = asyncio.run(_serve(args.socket, args.port, command))
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
