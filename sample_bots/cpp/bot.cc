// cpp-first: a euchre-arena bot (protocol v1) in C++ on Debian's grpc++ that plays the first legal action.
// Build: make (see Makefile and docs/bot-authors.md). Run: ./bot --address unix:PATH | HOST:PORT
//   (the arena's {address}; the default 127.0.0.1:0 picks a free port and prints it)
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "arena/protocol/v1/player.grpc.pb.h"

namespace v1 = euchre::arena::v1;

class PlayerService final : public v1::Player::Service {
  // Handshake: the arena checks protocol_version and seats us only at tables of the listed variants.
  grpc::Status Hello(grpc::ServerContext*, const v1::HelloRequest*, v1::HelloResponse* reply) override {
    reply->set_protocol_version(1);
    reply->set_name("cpp-first");
    reply->set_author("euchre-arena");
    reply->set_version("1");
    reply->add_variants(v1::VARIANT_CALL_ACE);
    reply->add_variants(v1::VARIANT_FIVE_HANDED);
    reply->add_variants(v1::VARIANT_CLASSIC);
    return grpc::Status::OK;
  }

  // One stream per seat per game; the sync server runs each on a thread of its pool. Exactly one reply per
  // decision request; game_start, game_over and the events need no answer (the view says everything).
  grpc::Status PlayGame(grpc::ServerContext*,
                        grpc::ServerReaderWriter<v1::BotMessage, v1::ArenaMessage>* stream) override {
    v1::ArenaMessage message;
    while (stream->Read(&message)) {
      if (!message.has_decision_request()) continue;
      const v1::DecisionRequest& request = message.decision_request();
      v1::BotMessage reply;
      v1::Decision* decision = reply.mutable_decision();
      decision->set_decision_id(request.decision_id());
      *decision->mutable_action() = request.legal_actions(0);  // the legal actions are never empty
      if (!stream->Write(reply)) break;
    }
    return grpc::Status::OK;  // the arena closed its side after game_over: returning closes ours
  }
};

int main(int argc, char** argv) {
  std::string address = "127.0.0.1:0";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--address") == 0) address = argv[i + 1];
  }
  // The arena waits for grpc.health.v1.Health/Check to answer SERVING: grpc++ serves it only when asked.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();  // optional: lets grpcurl list the services
  PlayerService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  // A sync server spends a thread per open stream; the sandbox allows 256 processes and threads in all.
  grpc::ResourceQuota quota("cpp-first");
  quota.SetMaxThreads(128);
  builder.SetResourceQuota(quota);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    std::cerr << "cpp-first: cannot listen on " << address << std::endl;
    return 1;
  }
  if (address.rfind("unix:", 0) == 0) {
    std::cout << "cpp-first listening on " << address << std::endl;
  } else {
    std::cout << "cpp-first listening on " << address.substr(0, address.rfind(':')) << ":" << port << std::endl;
  }
  server->Wait();
  return 0;
}
