"""The continuous ladder and what it stores.

``service`` the matchmaker and its tables (``Ladder``); ``ratings`` the board (TrueSkill over the stored
games, ordered by mu − 3σ and worded as an event's board is, ``Board``); ``games`` the stored games as the
pages read them; ``gamelogs`` a version's stderr during one game (a span of its log file, or the span a
Dask worker sent, kept in the database); ``export`` the ladder's games as ``hands.jsonl`` and
``games.csv``; ``views`` the leaderboard, an entrant's page, a game, its logs; ``api`` the leaderboard and
one game's log as JSON.
"""
