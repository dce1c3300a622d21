// java-first: a euchre-arena bot (protocol v1) in Java on Debian's grpc-java that plays the first legal
// action. Build: make (see Makefile and docs/bot-authors.md). Run: java -jar bot.jar --port PORT (the
// arena's {port}; the default 0 picks a free port and prints it). Debian's grpc-java has no Unix-socket transport (Netty's
// native epoll library is not packaged), so the bot listens on TCP: in the sandbox, on the bot's own
// loopback, where the arena reaches it through a relay.

import euchre.arena.v1.PlayerOuterClass.ArenaMessage;
import euchre.arena.v1.PlayerOuterClass.BotMessage;
import euchre.arena.v1.PlayerOuterClass.Decision;
import euchre.arena.v1.PlayerOuterClass.DecisionRequest;
import euchre.arena.v1.PlayerOuterClass.HelloRequest;
import euchre.arena.v1.PlayerOuterClass.HelloResponse;
import euchre.arena.v1.PlayerGrpc;
import euchre.arena.v1.PlayerOuterClass.Variant;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public final class Bot {
  static final class PlayerService extends PlayerGrpc.PlayerImplBase {
    // Handshake: the arena checks protocol_version and seats us only at tables of the listed variants.
    @Override
    public void hello(HelloRequest request, StreamObserver<HelloResponse> reply) {
      reply.onNext(
          HelloResponse.newBuilder()
              .setProtocolVersion(1)
              .setName("java-first")
              .setAuthor("euchre-arena")
              .setVersion("1")
              .addVariants(Variant.VARIANT_CALL_ACE)
              .addVariants(Variant.VARIANT_FIVE_HANDED)
              .addVariants(Variant.VARIANT_CLASSIC)
              .build());
      reply.onCompleted();
    }

    // One stream per seat per game. Exactly one reply per decision request; game_start, game_over and
    // the events need no answer (the view says everything).
    @Override
    public StreamObserver<ArenaMessage> playGame(StreamObserver<BotMessage> replies) {
      return new StreamObserver<ArenaMessage>() {
        @Override
        public void onNext(ArenaMessage message) {
          if (!message.hasDecisionRequest()) return;
          DecisionRequest request = message.getDecisionRequest();
          Decision decision =
              Decision.newBuilder()
                  .setDecisionId(request.getDecisionId())
                  .setAction(request.getLegalActions(0)) // the legal actions are never empty
                  .build();
          synchronized (replies) { // a StreamObserver is not thread-safe
            replies.onNext(BotMessage.newBuilder().setDecision(decision).build());
          }
        }

        @Override
        public void onError(Throwable error) {}

        @Override
        public void onCompleted() { // the arena closed its side after game_over: close ours
          synchronized (replies) {
            replies.onCompleted();
          }
        }
      };
    }
  }

  /**
   * grpc.health.v1.Health/Check answering SERVING, which the arena waits for. grpc-java's
   * HealthStatusManager is in grpc-services, which Debian does not package, so the service is written
   * out here: it ignores the request (whose only field is the service name) and answers the encoded
   * HealthCheckResponse{status: SERVING}, field 1 = 1, which is the two bytes 0x08 0x01.
   */
  static ServerServiceDefinition health() {
    MethodDescriptor.Marshaller<byte[]> bytes =
        new MethodDescriptor.Marshaller<byte[]>() {
          @Override
          public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
          }

          @Override
          public byte[] parse(InputStream stream) {
            try {
              return stream.readAllBytes();
            } catch (IOException e) {
              throw new RuntimeException(e);
            }
          }
        };
    MethodDescriptor<byte[], byte[]> check =
        MethodDescriptor.<byte[], byte[]>newBuilder(bytes, bytes)
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("grpc.health.v1.Health/Check")
            .build();
    byte[] serving = {0x08, 0x01};
    return ServerServiceDefinition.builder("grpc.health.v1.Health")
        .addMethod(
            check,
            ServerCalls.asyncUnaryCall(
                (request, reply) -> {
                  reply.onNext(serving);
                  reply.onCompleted();
                }))
        .build();
  }

  public static void main(String[] args) throws Exception {
    int port = 0;
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("--port")) port = Integer.parseInt(args[i + 1]);
    }
    // Every stream runs its callbacks on this pool; the sandbox allows 256 processes and threads in all,
    // and grpc-java's default pool grows without bound, so cap it well below.
    ExecutorService pool = Executors.newFixedThreadPool(32);
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
            .executor(pool)
            .addService(new PlayerService())
            .addService(health())
            .build()
            .start();
    System.out.println("java-first listening on 127.0.0.1:" + server.getPort());
    System.out.flush();
    server.awaitTermination();
  }
}
