"""The sealed final: a frozen field run by the conductor's ``run_event`` in its own event directory.

``service`` freezes, runs and resumes it (``Finals``); ``views`` its pages and report; ``api`` its state
and order as JSON (``arena leaderboard --json``'s).
"""
