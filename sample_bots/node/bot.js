#!/usr/bin/env node
// node-random: a euchre-arena bot (protocol v1) that plays a uniformly random legal action.
// Usage: node bot.js [--address unix:PATH | --address HOST:PORT | --port P [--host H]]
//   (the arena's {address}; port 0, the default, picks any free port)
'use strict';

const path = require('node:path');
const { parseArgs } = require('node:util');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { HealthImplementation, protoPath: HEALTH_PROTO } = require('grpc-health-check');
const { ReflectionService } = require('@grpc/reflection');

const NAME = 'node-random';
// ARENA_PROTO: where the competition server puts the protocol for an uploaded bot.js (docs/server.md).
const PROTO = process.env.ARENA_PROTO || path.join(__dirname, '../../proto/arena/protocol/v1/player.proto');

const definition = protoLoader.loadSync([PROTO, HEALTH_PROTO], {
  keepCase: true, // field names exactly as in the .proto: decision_id, legal_actions, ...
  enums: String, // enum values as their names, e.g. 'ACTION_KIND_PLAY', 'TRUMP_HEARTS'
  defaults: true, // unset scalars and lists appear as '', 0, false, [] instead of undefined
  oneofs: true, // a message's oneof name tells which member is set: message.body === 'decision_request'
});
const { Player } = grpc.loadPackageDefinition(definition).euchre.arena.v1;

// Handshake: the arena checks protocol_version and seats us only at tables of the listed variants.
function hello(call, callback) {
  callback(null, {
    protocol_version: 1,
    name: NAME,
    author: 'euchre-arena',
    version: '1',
    variants: ['VARIANT_CALL_ACE', 'VARIANT_FIVE_HANDED', 'VARIANT_CLASSIC'],
  });
}

// One stream per seat per game. Exactly one reply per decision request; game_start, game_over and the
// events riding on every message need no answer (the request's `view` already says everything we may know).
function playGame(call) {
  call.on('data', (message) => {
    if (message.body !== 'decision_request') return;
    const { decision_id, legal_actions } = message.decision_request;
    const action = legal_actions[Math.floor(Math.random() * legal_actions.length)];
    call.write({ decision: { decision_id, action } });
  });
  call.on('end', () => call.end()); // the arena closed its side after game_over: close ours
  call.on('error', (err) => console.error(`${NAME}: stream error: ${err.message}`));
}

const { values: args } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '0' },
    address: { type: 'string', default: '' }, // what the arena's {address} gives: unix:PATH in its sandbox
  },
});
const where = args.address || `${args.host}:${args.port}`;
const server = new grpc.Server();
server.addService(Player.service, { Hello: hello, PlayGame: playGame });
// The arena's launcher deems a bot ready once the standard gRPC health check answers SERVING.
new HealthImplementation({ '': 'SERVING', 'euchre.arena.v1.Player': 'SERVING' }).addToServer(server);
// Server reflection (grpc.reflection.v1 and v1alpha) lets grpcurl and other tools list and call the bot.
new ReflectionService(definition).addToServer(server);
server.bindAsync(where, grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error(`${NAME}: cannot listen on ${where}: ${err.message}`);
    process.exit(1);
  }
  const shown = where.startsWith('unix:') ? where : `${where.slice(0, where.lastIndexOf(':'))}:${port}`;
  console.log(`${NAME} listening on ${shown}`); // a launcher reads the port from this line
});

// Stop on SIGTERM/SIGINT: let games in flight finish for up to 2 s, then cut them off.
function stop() {
  server.tryShutdown(() => process.exit(0));
  setTimeout(() => {
    server.forceShutdown();
    process.exit(0);
  }, 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
