"""per-game log spans on game_seats; a bot's description and a version's note

Revision ID: 0002
Revises: 0001

Adds only nullable columns, or columns with a server default (an empty text), so that a database written
by revision 0001 is upgraded in place with its rows kept: its old games simply have no log span (their
page says so), and its entrants and versions an empty description and note.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

LOG_COLUMNS = ("log_inode", "log_start", "log_end_inode", "log_end")


def upgrade() -> None:
    with op.batch_alter_table("game_seats", schema=None) as batch_op:
        for name in LOG_COLUMNS:
            batch_op.add_column(sa.Column(name, sa.BigInteger(), nullable=True))
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("description", sa.String(length=500), server_default="", nullable=False)
        )
    with op.batch_alter_table("versions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("note", sa.String(length=120), server_default="", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("versions", schema=None) as batch_op:
        batch_op.drop_column("note")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("description")
    with op.batch_alter_table("game_seats", schema=None) as batch_op:
        for name in reversed(LOG_COLUMNS):
            batch_op.drop_column(name)
