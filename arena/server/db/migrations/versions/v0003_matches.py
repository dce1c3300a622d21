"""unrated games: a version's SPRT match against another, and challenges

Revision ID: 0003
Revises: 0002

Two new tables and nothing changed in the others, so a database of revision 0002 is upgraded in place and
the ladder's games, ratings and board stay exactly as they were.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "unrated_matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("baseline_id", sa.Integer(), nullable=True),
        sa.Column("field", sa.Text(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("budget", sa.Integer(), nullable=False),
        sa.Column("settings", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("unrated_matches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_unrated_matches_user_id"), ["user_id"], unique=False)
    op.create_table(
        "unrated_games",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("seats", sa.Text(), nullable=False),
        sa.Column("scores", sa.Text(), nullable=False),
        sa.Column("ranks", sa.Text(), nullable=False),
        sa.Column("forfeited", sa.Text(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["unrated_matches.id"]),
        sa.PrimaryKeyConstraint("match_id", "idx"),
    )


def downgrade() -> None:
    op.drop_table("unrated_games")
    with op.batch_alter_table("unrated_matches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_unrated_matches_user_id"))
    op.drop_table("unrated_matches")
