"""Deliberately broken bots for the fault tests: ``python tests/bots/chaos.py --mode MODE --port P``.

Each mode misbehaves in one way a real entrant might. The well-behaved part of every mode plays the first
legal action, so the only surprise in a game is the one being tested.

modes:
  slow            sleeps 0.6 s on every decision from the 3rd on (past a short deadline)
  crash           exits the whole process at its 3rd decision
  crash_first     exits the whole process at its 1st decision, every time it is started
  crash_once      exits at its 1st decision the first time it is started (--state FILE remembers), then
                  plays perfectly
  illegal         plays a card it does not hold whenever it must play a card
  raises          raises an exception in act() at its 2nd decision (the SDK turns it into an error status)
  garbage         replies with an action whose card is not a card
  wrong_message   replies with an empty BotMessage (no decision)
  wrong_id        replies with a decision id nobody asked for
  stale_id        from its 2nd decision, replies with the id of its previous decision
  stale_flood     after its first reply, sends thousands of replies carrying that (past) decision id
  early           answers each decision twice: once properly, once with the next id, before it is asked
  huge            replies with a 200 kB action
  flood           sends hundreds of unsolicited decisions after its first reply
  close_early     ends its stream after its 2nd decision
  wrong_version   says protocol version 2 in the handshake
  crash_hello     exits the whole process when the arena says Hello (as a bot whose protobuf runtime cannot
                  read the request does)
  one_stream      a fine player that serves one game stream at a time (the others wait for it to end)
  margin          a fine player that replies after sleeping until --reply-ms into each decision
  ignore_sigterm  a fine player that ignores SIGTERM (must be SIGKILLed)
  fork            a fine player that forks a long-lived child process
  slow_start      waits 3 s before serving
  never_start     never serves at all
  hog             tries to allocate 3 GB at its 2nd decision (run it with a memory limit)
  spin            burns CPU forever at its 2nd decision (run it with a CPU-time limit)
  fine            plays the first legal action (the control)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.bot import Bot, PlayerServicer, create_server
from arena.engine import Action, View
from arena.engine.actions import ActionKind
from arena.engine.cards import CARDS
from arena.engine.config import deck_of
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.v1 import player_pb2_grpc as pb_grpc


class FirstLegal(Bot):
    name = "chaos"
    decisions = 0
    mode = "fine"
    state = ""
    reply_ms = 0

    async def act(self, view: View) -> Action:
        FirstLegal.decisions += 1
        count = FirstLegal.decisions
        mode = self.mode
        if mode == "slow" and count >= 3:
            await asyncio.sleep(0.6)
        elif (mode == "crash" and count >= 3) or mode == "crash_first":
            os._exit(3)
        elif mode == "crash_once" and not os.path.exists(self.state):
            with open(self.state, "w") as marker:
                marker.write("crashed once\n")
            os._exit(3)
        elif mode == "margin":
            await asyncio.sleep(self.reply_ms / 1000)
        elif mode == "raises" and count >= 2:
            raise RuntimeError("chaos: raising on purpose")
        elif mode == "hog" and count >= 2:
            hoard = bytearray(3 * 1024**3)  # beyond the memory limit the test sets
            return view.legal_actions[len(hoard) % len(view.legal_actions)]
        elif mode == "spin" and count >= 2:
            while True:  # burns CPU until the CPU-time limit kills the process
                pass
        elif mode == "illegal" and view.legal_actions[0].kind is ActionKind.PLAY:
            held = {c.id for c in view.hand or ()}
            return Action(ActionKind.PLAY, card=next(CARDS[c] for c in deck_of(view.config) if c not in held))
        return view.legal_actions[0]


class RawServicer(PlayerServicer):
    """Protocol-level misbehaviour the SDK would never produce."""

    def __init__(self, mode: str) -> None:
        super().__init__(FirstLegal)
        self.mode = mode
        self.one_at_a_time = asyncio.Lock()

    async def Hello(self, request: pb.HelloRequest, context: grpc.aio.ServicerContext) -> pb.HelloResponse:
        if self.mode == "crash_hello":
            os._exit(3)
        reply = await super().Hello(request, context)
        if self.mode == "wrong_version":
            reply.protocol_version = 2
        return reply

    async def PlayGame(
        self, request_iterator: AsyncIterator[pb.ArenaMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.BotMessage]:
        if self.mode == "one_stream":
            async with self.one_at_a_time:
                async for reply in self._play(request_iterator):
                    yield reply
            return
        async for reply in self._play(request_iterator):
            yield reply

    async def _play(self, request_iterator: AsyncIterator[pb.ArenaMessage]) -> AsyncIterator[pb.BotMessage]:
        answered = 0
        previous = 0
        async for message in request_iterator:
            if message.WhichOneof("body") != "decision_request":
                continue
            request = message.decision_request
            answered += 1
            reply = pb.BotMessage(
                decision=pb.Decision(decision_id=request.decision_id, action=request.legal_actions[0])
            )
            mode = self.mode
            if mode == "garbage" and answered >= 2:
                reply.decision.action.card = "ZZ"
                reply.decision.action.kind = pb.ACTION_KIND_PLAY
            elif mode == "wrong_message" and answered >= 2:
                reply = pb.BotMessage()
            elif mode == "wrong_id" and answered >= 2:
                reply.decision.decision_id = request.decision_id + 1000
            elif mode == "stale_id" and answered >= 2:
                reply.decision.decision_id = previous
            elif mode == "huge" and answered >= 2:
                reply.decision.action.card = "X" * 200_000
            elif mode == "close_early" and answered >= 3:
                return
            previous = request.decision_id
            yield reply
            if mode == "early":
                yield pb.BotMessage(
                    decision=pb.Decision(decision_id=request.decision_id + 1, action=request.legal_actions[0])
                )
            if mode == "stale_flood" and answered == 1:
                for _ in range(20_000):
                    yield pb.BotMessage(
                        decision=pb.Decision(decision_id=request.decision_id, action=request.legal_actions[0])
                    )
            if mode == "flood" and answered == 1:
                for i in range(500):
                    yield pb.BotMessage(
                        decision=pb.Decision(decision_id=10_000 + i, action=request.legal_actions[0])
                    )


RAW_MODES = (
    "garbage",
    "crash_hello",
    "wrong_message",
    "wrong_id",
    "stale_id",
    "stale_flood",
    "early",
    "huge",
    "flood",
    "close_early",
    "wrong_version",
    "one_stream",
)


async def serve(mode: str, port: int) -> None:
    if mode == "never_start":
        await asyncio.sleep(3600)
    if mode == "slow_start":
        await asyncio.sleep(3)
    if mode == "fork":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    FirstLegal.mode = mode
    if mode in RAW_MODES:
        server = grpc.aio.server()
        pb_grpc.add_PlayerServicer_to_server(RawServicer(mode), server)
        checker = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(checker, server)
        bound = server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        await checker.set("", health_pb2.HealthCheckResponse.SERVING)
    else:
        server, bound, _ = await create_server(FirstLegal, f"127.0.0.1:{port}")
    print(f"chaos-{mode} listening on 127.0.0.1:{bound}", flush=True)
    stop = asyncio.Event()
    if mode == "ignore_sigterm":
        signal.signal(signal.SIGTERM, lambda *_: print("ignoring SIGTERM", flush=True))
    else:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await server.stop(0.5)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="fine")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--state", default="", help="crash_once: a file that says it has crashed already")
    parser.add_argument("--reply-ms", type=int, default=0, help="margin: when to reply")
    args = parser.parse_args()
    FirstLegal.state = args.state
    FirstLegal.reply_ms = args.reply_ms
    started = time.monotonic()
    try:
        asyncio.run(serve(args.mode, args.port))
    finally:
        print(f"chaos-{args.mode} ran {time.monotonic() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
