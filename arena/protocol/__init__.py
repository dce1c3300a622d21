"""The player protocol: generated messages (``arena.protocol.v1``), engine values ⇄ messages (``convert``,
where every message the arena and the SDK send is built), the arena's request bytes (``wire``), and the SDK's
lazy view and act threads (``lazyview``, ``threads``).

``proto/arena/protocol/v1/player.proto`` is the contract; ``python proto/generate.py`` regenerates the code.
"""

PROTOCOL_VERSION = 1
SERVICE_NAME = "euchre.arena.v1.Player"
