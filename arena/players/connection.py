"""The channel to one bot process: the handshake, the game-stream call, and gRPC's failures as bot faults.

Why apart from the seat's stream (``arena.players.remote``): one channel serves every game a bot plays, and
outlives them (``arena.players.endpoint`` swaps it when a launched bot restarts), while a stream belongs to
one seat of one game. Everything gRPC reports about a call also ends up here, in ``error_from_status``, so
that the rest of the arena deals in ``BotError`` and never in status codes.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from arena import __version__
from arena.errors import (
    BotCrashed,
    BotError,
    BotStatusError,
    BotTimeout,
    OversizedMessage,
    ProtocolMismatch,
)
from arena.protocol import PROTOCOL_VERSION, SERVICE_NAME, convert
from arena.protocol.v1 import player_pb2 as pb
from arena.protocol.v1 import player_pb2_grpc as pb_grpc

MAX_REPLY_BYTES = 64 * 1024
"""A bot's message larger than this is a fault (``oversized``); a real reply is a few dozen bytes."""


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """What a bot said about itself in the handshake."""

    name: str
    author: str
    version: str
    protocol_version: int
    variants: tuple[str, ...]


class BotConnection:
    """A channel to one bot process, shared by all the games that bot plays."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.channel = grpc.aio.insecure_channel(
            address,
            options=[
                ("grpc.max_receive_message_length", MAX_REPLY_BYTES),
                ("grpc.max_send_message_length", 4 * 1024 * 1024),
                ("grpc.enable_retries", 0),
            ],
        )
        self.stub = pb_grpc.PlayerStub(self.channel)
        # The game stream sends bytes the arena encoded itself (``wire.RequestEncoder``: most of each
        # request repeats the previous one), so this multicallable has no request serializer.
        self.play_game = self.channel.stream_stream(
            f"/{SERVICE_NAME}/PlayGame", response_deserializer=pb.BotMessage.FromString
        )

    async def hello(self, timeout_s: float = 5.0) -> BotIdentity:
        """Handshake.

        :raises ProtocolMismatch: the bot speaks another protocol version.
        :raises BotError: the bot cannot be reached or answers with an error.
        """
        try:
            reply = await self.stub.Hello(convert.hello_request(__version__), timeout=timeout_s)
        except grpc.aio.AioRpcError as exc:
            raise error_from_status(exc, f"Hello to {self.address}") from None
        if reply.protocol_version != PROTOCOL_VERSION:
            raise ProtocolMismatch(
                f"bot at {self.address} speaks protocol version {reply.protocol_version}, "
                f"the arena speaks {PROTOCOL_VERSION}"
            )
        variants = tuple(v.value for v in convert.variants_from_pb(reply.variants))
        return BotIdentity(reply.name, reply.author, reply.version, reply.protocol_version, variants)

    async def close(self) -> None:
        await self.channel.close(grace=None)


def error_from_status(exc: grpc.aio.AioRpcError, context: str) -> BotError:
    """The one place where gRPC status codes become bot faults."""
    code, detail = exc.code(), exc.details() or ""
    text = f"{context}: {code.name} {detail}".strip()
    if code == grpc.StatusCode.UNAVAILABLE:
        return BotCrashed(text)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return OversizedMessage(text)
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return BotTimeout(text)
    if code == grpc.StatusCode.CANCELLED and "Socket closed" in detail:
        return BotCrashed(text)
    if code == grpc.StatusCode.INTERNAL and detail == "Internal error from Core":
        return BotCrashed(text)  # how gRPC reports a stream whose connection died under it
    return BotStatusError(text)
