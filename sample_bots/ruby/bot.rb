#!/usr/bin/env ruby
# ruby-first: a euchre-arena bot (protocol v1) in Ruby on Debian's ruby-grpc that plays the first legal
# action. Generate the protocol's code once, then run (see docs/bot-authors.md):
#   grpc_tools_ruby_protoc -I../../proto --ruby_out=gen --grpc_out=gen arena/protocol/v1/player.proto
#   ruby bot.rb --address unix:PATH | HOST:PORT   (the arena's {address}; default 127.0.0.1:0, a free port)
$LOAD_PATH.unshift(File.join(__dir__, 'gen'))
require 'grpc'
require 'grpc/health/checker'
require 'arena/protocol/v1/player_services_pb'

V1 = Euchre::Arena::V1

class PlayerService < V1::Player::Service
  # Handshake: the arena checks protocol_version and seats us only at tables of the listed variants.
  def hello(_request, _call)
    V1::HelloResponse.new(protocol_version: 1, name: 'ruby-first', author: 'euchre-arena', version: '1',
                          variants: %i[VARIANT_CALL_ACE VARIANT_FIVE_HANDED VARIANT_CLASSIC])
  end

  # One stream per seat per game, on a thread of the server's pool: read the arena's messages and answer
  # each decision request exactly once (game_start, game_over and the events need no answer).
  def play_game(messages)
    Enumerator.new do |replies|
      messages.each do |message|
        next unless message.body == :decision_request

        request = message.decision_request
        decision = V1::Decision.new(decision_id: request.decision_id, action: request.legal_actions[0])
        replies << V1::BotMessage.new(decision: decision)
      end
    end
  end
end

address = '127.0.0.1:0'
ARGV.each_cons(2) { |flag, value| address = value if flag == '--address' }
# Each open stream holds a pool thread; the sandbox allows 256 processes and threads in all.
server = GRPC::RpcServer.new(pool_size: 64)
port = server.add_http2_port(address, :this_port_is_insecure)
server.handle(PlayerService)
# The arena waits for grpc.health.v1.Health/Check to answer SERVING: register the health service yourself.
health = Grpc::Health::Checker.new
health.add_status('', Grpc::Health::V1::HealthCheckResponse::ServingStatus::SERVING)
server.handle(health)
shown = address.start_with?('unix:') ? address : "#{address[0...address.rindex(':')]}:#{port}"
puts "ruby-first listening on #{shown}"
$stdout.flush
%w[TERM INT].each { |signal| Signal.trap(signal) { Thread.new { server.stop } } }
server.run_till_terminated
