"""The server's database: SQLite by default, or PostgreSQL shared by several processes.

``models`` the tables (and their vocabulary: ``VersionStatus``, ``ORGANISER``); ``database`` the engine,
sessions and migrations (``ServerDatabase``, ``open_database``); ``multi`` what several processes on one
PostgreSQL database agree through it (roles, advisory locks, the deal key); ``migrations/`` Alembic's
revisions, applied at start.
"""
