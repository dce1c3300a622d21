"""Alembic's entry point for the server's database: the connection is handed in by
``arena.server.db.database`` (``attributes["connection"]``), so migrations run on the server's own engine, at
start-up."""

from __future__ import annotations

from alembic import context

from arena.server.db.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
