"""Running events: the tournament conductor (schedule, store, ratings, resume, ``--until-settled``),
``arena match`` (an A/B test stopped by an SPRT) and ``arena check-bot`` (a rehearsal against one bot).

A conductor asks an executor (``arena.executor``) to play each game and gets back the finished game as the
store keeps it; it never knows where the game ran. It is the only writer of the results store.
"""
