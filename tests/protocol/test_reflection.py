"""A bot built with the SDK serves gRPC server reflection as ``grpc.reflection.v1`` and ``v1alpha``.

The client here is what a reflection-``v1`` tool (grpcurl, Postman, buf curl) does on the wire: it calls
``/grpc.reflection.v1.ServerReflection/ServerReflectionInfo``. Its messages are ``grpcio-reflection``'s
``v1alpha`` classes, which encode exactly as ``v1`` (the two .proto files differ only in their package);
``test_v1_descriptor_matches_the_real_v1_proto`` checks that claim against the real ``v1`` file where one
is at hand. Everything runs on loopback.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2 as rpb

from arena.bot import create_server
from arena.protocol.reflection import V1_SERVICE_NAME, v1_file_descriptor
from sample_bots.random import RandomBot
from tests.helpers import ROOT, V1_METHOD, V1ALPHA_METHOD, ask

REAL_V1_PROTO = ROOT / "sample_bots/node/node_modules/@grpc/reflection/build/proto/grpc/reflection/v1"
EXPECTED = {
    "euchre.arena.v1.Player",
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
}


async def _with_sdk_bot(work) -> object:  # type: ignore[no-untyped-def]
    server, port, _ = await create_server(RandomBot, "127.0.0.1:0")
    try:
        return await work(f"127.0.0.1:{port}")
    finally:
        await server.stop(None)


@pytest.mark.parametrize("method", [V1_METHOD, V1ALPHA_METHOD], ids=["v1", "v1alpha"])
def test_reflection_client_lists_the_services_of_an_sdk_bot(method: str) -> None:
    async def work(address: str) -> list:
        return await ask(address, [rpb.ServerReflectionRequest(list_services="")], method)

    (reply,) = asyncio.run(_with_sdk_bot(work))  # type: ignore[misc]
    assert {s.name for s in reply.list_services_response.service} == EXPECTED


def test_v1_reflection_describes_the_player_service_and_itself() -> None:
    async def work(address: str) -> list:
        return await ask(
            address,
            [
                rpb.ServerReflectionRequest(file_containing_symbol="euchre.arena.v1.Player"),
                rpb.ServerReflectionRequest(file_containing_symbol=V1_SERVICE_NAME),
            ],
        )

    player, own = asyncio.run(_with_sdk_bot(work))  # type: ignore[misc]
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(b)
        for b in player.file_descriptor_response.file_descriptor_proto
    ]
    assert [(f.name, f.package) for f in files] == [("arena/protocol/v1/player.proto", "euchre.arena.v1")]
    assert [s.name for s in files[0].service] == ["Player"]
    (reflection_file,) = [
        descriptor_pb2.FileDescriptorProto.FromString(b)
        for b in own.file_descriptor_response.file_descriptor_proto
    ]
    assert reflection_file.package == "grpc.reflection.v1"
    method = reflection_file.service[0].method[0]
    assert (method.input_type, method.output_type) == (
        ".grpc.reflection.v1.ServerReflectionRequest",
        ".grpc.reflection.v1.ServerReflectionResponse",
    )


@pytest.mark.needs_node  # the real v1 reflection.proto comes with the Node bot's packages
def test_v1_descriptor_matches_the_real_v1_proto(tmp_path: Path) -> None:
    """The derived ``v1`` file has the messages, fields and numbers of gRPC's own ``v1`` reflection.proto."""
    protoc = pytest.importorskip("grpc_tools.protoc")
    out = tmp_path / "v1.pb"
    proto_root = REAL_V1_PROTO.parents[2]
    assert (
        protoc.main(
            [
                "protoc",
                f"-I{proto_root}",
                f"--descriptor_set_out={out}",
                "grpc/reflection/v1/reflection.proto",
            ]
        )
        == 0
    )
    (real,) = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    ours = v1_file_descriptor()

    def shape(file: descriptor_pb2.FileDescriptorProto) -> object:
        messages = {
            m.name: [(f.name, f.number, f.type, f.label, f.type_name, f.oneof_index) for f in m.field]
            for m in file.message_type
        }
        services = [(s.name, [(x.name, x.input_type, x.output_type) for x in s.method]) for s in file.service]
        return file.package, messages, services

    assert shape(ours) == shape(real)


@pytest.mark.needs_node
def test_node_reflection_proto_copy_is_where_the_test_looks() -> None:
    """Guards the test above from failing for a moved file rather than a changed descriptor."""
    assert (REAL_V1_PROTO / "reflection.proto").is_file()
