"""euchre-arena: a tournament harness where bots play five-handed Euchre over gRPC."""

import os as _os

# gRPC's fork support (on by default) runs handlers around every fork() of a process that uses gRPC. When
# gRPC's threads are busy as the fork happens, the child can crash before it execs (uvloop's spawn is a
# plain fork; docs/performance.md has the figures and the test that starts 200 such children). The arena
# and bots start children that exec at once and never use gRPC themselves, which is all that fork support
# is for, so it is turned off here, before anything of ours imports grpc; the environment's setting wins.
_os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")

__version__ = "0.1.0"
