"""The live tables: games in flight, watched move by move.

``service`` each game's snapshots and watchers (``LiveTables``); ``views`` the list, a game's page and its
server-sent events.
"""
