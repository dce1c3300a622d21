"""a person's seat relayed through the database, so any process of a server serves its page

Revision ID: 0006
Revises: 0005

Two new tables (``person_seats``: the state the play page polls, written by the process that plays the
game; ``person_moves``: the page's moves, taken by that process), so a database of an earlier revision is
upgraded in place with its rows kept.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "person_seats",
        sa.Column("plan_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("judge", sa.Text(), nullable=False),
        sa.Column("deadline_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["plan_id"], ["unrated_matches.id"]),
        sa.PrimaryKeyConstraint("plan_id"),
    )
    op.create_table(
        "person_moves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("plan_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("decision", sa.Integer(), nullable=True),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["plan_id"], ["unrated_matches.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_person_moves_plan", "person_moves", ["plan_id", "status"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_person_moves_plan", table_name="person_moves")
    op.drop_table("person_moves")
    op.drop_table("person_seats")
