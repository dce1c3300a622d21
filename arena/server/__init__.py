"""The competition server (``arena serve``): entrants submit bots on a web page, get a verdict in seconds,
and climb a live ladder. docs/server.md is the organiser's walk-through; docs/architecture.md the map.

``config`` the competition's TOML; ``models``/``db``/``migrations`` its database; ``accounts`` people,
sessions and tokens; ``access`` who may see what; ``unpack``/``submissions`` uploads and versions;
``checks`` the check queue; ``ladder`` the matchmaker and its tables; ``board``/``games`` the read side;
``web``/``pages``/``api``/``app`` the HTTP layer; ``service`` the wiring; ``client`` `arena submit`'s side.
"""
