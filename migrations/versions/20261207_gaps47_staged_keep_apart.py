"""A staged upload remembers whether its files are kept apart

Revision ID: 20261207_gaps47
Revises: 20261206_grouping
Create Date: 2026-12-07 10:00:00

Issue 47: `POST /api/uploads` takes `keep_apart` as `POST /api/sweeps` does; the preview and the
save of the staged files group them as chosen when they were staged.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261207_gaps47"
down_revision: str | Sequence[str] | None = "20261206_grouping"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "staged_upload",
        sa.Column("keep_apart", sa.Boolean(), server_default=sa.false(), nullable=False),
    )


def downgrade() -> None:
    # SQLite 3.35+ and Postgres both drop a column in place.
    op.execute("ALTER TABLE staged_upload DROP COLUMN keep_apart")
