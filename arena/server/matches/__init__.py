"""Unrated games in the tables' spare capacity: a version's SPRT match against another of its entrant's,
and challenges.

``service`` asks, stores and plays them (``UnratedGames``); ``plans`` which game comes at each place of a
plan and what its games say; ``views`` and ``api`` their pages and JSON.
"""
