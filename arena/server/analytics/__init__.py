"""An entrant's analytics over its stored games: the rating after each game and by day, head-to-head,
the report's figures per variant and seat, a filtered list of games, and a search of its own logs.

``service`` the figures (``Summaries``, kept up to date incrementally); ``views`` the pages; ``api`` their
JSON.
"""
