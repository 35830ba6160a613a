"""A sweep's scenario and trace dataset (issue 49: agentic sessions)

Revision ID: 20261206_sessions
Revises: 20261206_cached
Create Date: 2026-12-06 07:30:00

Multi-turn runs: a sweep states what kind of traffic it measured (fixed-seq-len,
chat-multiturn, agentic-coding, ...) and the trace it replayed, so comparisons set like against
like. A request's session and turn live in the sample blocks (Parquet), which need no migration.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261206_sessions"
down_revision: str | Sequence[str] | None = "20261206_cached"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (no batch copy), so the table keeps the triggers of 0011 and 0012.
    op.add_column("sweep", sa.Column("scenario", sa.String(length=100), nullable=True))
    op.add_column("sweep", sa.Column("trace_dataset", sa.String(length=200), nullable=True))


def downgrade() -> None:
    # SQLite 3.35+ and Postgres both drop a column in place (a batch copy would lose triggers).
    for column in ("trace_dataset", "scenario"):
        op.execute(f"ALTER TABLE sweep DROP COLUMN {column}")
