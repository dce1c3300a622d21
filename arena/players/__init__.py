"""The arena's side of a seat: remote gRPC bots, in-process bots, and managed bot processes."""
