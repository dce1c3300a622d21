"""Where results go and how they are read back: the stored values (``record``, a leaf), the one place that
talks to SQLite and turns its errors into ``StoreError`` (``database``), the writes and resume of an event
(``store``), the typed read model that every reader uses (``queries``), the output directory's lock and
modes (``outdir``), and the organiser's listings and replays of a stored event (``listings``, ``replay``).
Nothing here knows the rules or gRPC.
"""
