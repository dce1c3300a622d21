"""Sample bots of distinct strength: ``random``, ``rules`` and ``montecarlo`` (Python), and ``node/``.

Run one with ``python -m sample_bots.NAME --port P``; copy one to start your own.
"""
