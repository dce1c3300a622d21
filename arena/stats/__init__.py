"""Statistics of stored games, as pure functions that take plain sequences of games and return values:
TrueSkill ratings (``rating``), the order and how sure it is (``confidence``), the leaderboard that joins
them (``leaderboard``) and its words (``wording``), the ladder's TrueSkill order and its ranges
(``skill``), the SPRT of ``arena match`` (``sprt``), and latency percentiles (``latency``). No
I/O, no gRPC, no clocks: the same function answers the terminal, the JSON and the report.
"""
