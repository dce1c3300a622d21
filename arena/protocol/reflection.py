"""gRPC server reflection for bots, under both names clients ask for: ``grpc.reflection.v1`` and ``v1alpha``.

Why this module: ``grpcio-reflection`` ships only the ``v1alpha`` service, while newer tools (grpcurl,
Postman, grpcui, buf curl) ask for ``grpc.reflection.v1`` first and some get UNIMPLEMENTED without it. The two
versions are the same protocol: ``grpc/reflection/v1/reflection.proto`` is a copy of the ``v1alpha`` file
with its package renamed, every message and field number unchanged. So one ``v1alpha`` servicer answers
both, its messages travel unchanged on the wire of either, and the ``v1`` file descriptor is derived here
from the ``v1alpha`` one (renamed) and added to the default pool, so that reflection can also describe the
``v1`` service itself.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection as v1alpha
from grpc_reflection.v1alpha import reflection_pb2 as alpha_pb2
from grpc_reflection.v1alpha import reflection_pb2_grpc as alpha_pb2_grpc

V1ALPHA_SERVICE_NAME: str = v1alpha.SERVICE_NAME
V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"
_ALPHA_PREFIX = ".grpc.reflection.v1alpha."
_V1_PREFIX = ".grpc.reflection.v1."


def v1_file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """``grpc/reflection/v1/reflection.proto`` as a descriptor: the ``v1alpha`` file, renamed."""
    file = descriptor_pb2.FileDescriptorProto()
    alpha_pb2.DESCRIPTOR.CopyToProto(file)
    file.name = V1_FILE
    file.package = "grpc.reflection.v1"
    file.options.Clear()
    file.options.java_package = "io.grpc.reflection.v1"
    file.options.java_outer_classname = "ServerReflectionProto"
    file.options.java_multiple_files = True
    file.options.go_package = "google.golang.org/grpc/reflection/grpc_reflection_v1"
    for message in file.message_type:
        for field in message.field:
            if field.type_name.startswith(_ALPHA_PREFIX):
                field.type_name = _V1_PREFIX + field.type_name[len(_ALPHA_PREFIX) :]
    for service in file.service:
        for method in service.method:
            method.input_type = _V1_PREFIX + method.input_type[len(_ALPHA_PREFIX) :]
            method.output_type = _V1_PREFIX + method.output_type[len(_ALPHA_PREFIX) :]
    return file


def _register_v1_file(pool: descriptor_pool.DescriptorPool) -> None:
    """Add the ``v1`` file to ``pool`` unless it is there (a later grpcio-reflection may bring its own)."""
    try:
        pool.FindFileByName(V1_FILE)
    except KeyError:
        pool.Add(v1_file_descriptor())


def enable_server_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection ``v1`` and ``v1alpha`` on ``server``; both list ``service_names`` and themselves."""
    _register_v1_file(descriptor_pool.Default())
    names = (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    servicer = v1alpha.aio.ReflectionServicer(names)
    alpha_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1_handler = grpc.method_handlers_generic_handler(
        V1_SERVICE_NAME,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=alpha_pb2.ServerReflectionRequest.FromString,
                response_serializer=alpha_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((v1_handler,))


__all__ = ["V1ALPHA_SERVICE_NAME", "V1_SERVICE_NAME", "enable_server_reflection", "v1_file_descriptor"]
