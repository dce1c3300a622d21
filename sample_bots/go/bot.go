// go-first: a euchre-arena bot (protocol v1) in Go on Debian's grpc-go that plays the first legal action.
// Build: make (see Makefile and docs/bot-authors.md). Run: ./bot --address unix:PATH | HOST:PORT
//   (the arena's {address}; the default 127.0.0.1:0 picks a free port and prints it)
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"

	arenav1 "arena/protocol/v1"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
)

// player serves the Player service; embedding the generated Unimplemented server is what protoc-gen-go-grpc
// asks of every implementation (a method the .proto adds later then answers Unimplemented).
type player struct {
	arenav1.UnimplementedPlayerServer
}

// Hello is the handshake: the arena checks protocol_version and seats us only at tables of the listed
// variants.
func (player) Hello(context.Context, *arenav1.HelloRequest) (*arenav1.HelloResponse, error) {
	return &arenav1.HelloResponse{
		ProtocolVersion: 1,
		Name:            "go-first",
		Author:          "euchre-arena",
		Version:         "1",
		Variants: []arenav1.Variant{
			arenav1.Variant_VARIANT_CALL_ACE, arenav1.Variant_VARIANT_FIVE_HANDED, arenav1.Variant_VARIANT_CLASSIC,
		},
	}, nil
}

// PlayGame serves one stream per seat per game (grpc-go runs each in a goroutine of its own). Exactly one
// reply per decision request; game_start, game_over and the events need no answer (the view says all).
func (player) PlayGame(stream arenav1.Player_PlayGameServer) error {
	for {
		message, err := stream.Recv()
		if err == io.EOF {
			return nil // the arena closed its side after game_over: returning closes ours
		}
		if err != nil {
			return err
		}
		request := message.GetDecisionRequest()
		if request == nil {
			continue
		}
		reply := &arenav1.BotMessage{Body: &arenav1.BotMessage_Decision{Decision: &arenav1.Decision{
			DecisionId: request.DecisionId,
			Action:     request.LegalActions[0], // the legal actions are never empty
		}}}
		if err := stream.Send(reply); err != nil {
			return err
		}
	}
}

// listen takes the arena's {address}: Go's net.Listen wants the network apart, so "unix:PATH" becomes
// ("unix", PATH) and "HOST:PORT" ("tcp", HOST:PORT).
func listen(address string) (net.Listener, error) {
	if path := strings.TrimPrefix(address, "unix:"); path != address {
		return net.Listen("unix", path)
	}
	return net.Listen("tcp", address)
}

func main() {
	address := flag.String("address", "127.0.0.1:0", "where to listen: unix:PATH or HOST:PORT")
	flag.Parse()
	listener, err := listen(*address)
	if err != nil {
		log.Fatalf("go-first: cannot listen on %s: %v", *address, err)
	}
	server := grpc.NewServer()
	arenav1.RegisterPlayerServer(server, player{})
	// The arena waits for grpc.health.v1.Health/Check to answer SERVING: register the health service.
	// health.NewServer() answers SERVING for "" (the server as a whole) from the start.
	healthpb.RegisterHealthServer(server, health.NewServer())
	reflection.Register(server) // optional: lets grpcurl list and call the services
	shown := listener.Addr().String()
	if listener.Addr().Network() == "unix" {
		shown = "unix:" + shown
	}
	fmt.Printf("go-first listening on %s\n", shown)
	os.Stdout.Sync()
	if err := server.Serve(listener); err != nil {
		log.Fatalf("go-first: %v", err)
	}
}
