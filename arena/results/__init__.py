"""Where results go and how they are read back: the stored values (``record``, a leaf), the SQLite store
(``store``: writes and resume), the output directory's lock and modes (``outdir``), and the organiser's
listings and replays of a stored event (``listings``, ``replay``). Nothing here knows the rules or gRPC.
"""
