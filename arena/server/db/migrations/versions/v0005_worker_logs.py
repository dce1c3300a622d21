"""the bots' stderr per game when the ladder plays on Dask workers

Revision ID: 0005
Revises: 0003

One new table (``worker_logs``), so a database of an earlier revision is upgraded in place with its rows
kept: its games played on workers simply have no log (their page says so, as before).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "worker_logs",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("after", sa.LargeBinary(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_worker_logs_version", "worker_logs", ["version_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_worker_logs_version", table_name="worker_logs")
    op.drop_table("worker_logs")
