"""The player protocol: generated messages (``arena.protocol.v1``) and their conversion (``convert``).

``proto/arena/protocol/v1/player.proto`` is the contract; ``python proto/generate.py`` regenerates the code.
"""

PROTOCOL_VERSION = 1
SERVICE_NAME = "euchre.arena.v1.Player"
