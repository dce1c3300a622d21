"""What an event is: its configuration, its secret deals, its schedule, the fault policy, and one table's
game (the referee). The conductor (``arena.conductor``) runs events out of these; the executors
(``arena.executor``) play their tables.
"""
