"""euchre-arena: a tournament harness where bots play five-handed Euchre over gRPC."""

__version__ = "0.1.0"
