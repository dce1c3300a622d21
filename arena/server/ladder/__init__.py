"""The continuous ladder and what it stores.

``service`` the matchmaker and its tables (``Ladder``); ``ratings`` the board (TrueSkill over the stored
games, ``Board``); ``games`` the stored games as the pages read them; ``gamelogs`` where one game's stderr
lies in a version's log; ``workerlogs`` the same spans kept in the database for games played on Dask
workers; ``export`` the ladder's games as ``hands.jsonl`` and ``games.csv``; ``views`` the leaderboard, an
entrant's page, a game, its logs; ``api`` the leaderboard and one game's log as JSON.
"""
