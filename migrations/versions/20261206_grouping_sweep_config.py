"""A sweep's config: what sets it apart from its siblings (swept settings, parallelism layout)

Revision ID: 20261206_grouping
Revises: 20261206_sessions
Create Date: 2026-12-06 07:30:00

Issues 47 and 51: a `vllm bench sweep` configuration (`max_num_seqs=8`) or an InferenceX
parallelism layout (`tp=8 ep=8 dp_attention=true`) names the sweep and is kept as a field.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261206_grouping"
down_revision: str | Sequence[str] | None = "20261206_sessions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (no batch copy), so the table keeps the triggers of 0011 and 0012.
    op.add_column("sweep", sa.Column("config", sa.String(length=500), nullable=True))


def downgrade() -> None:
    # SQLite 3.35+ and Postgres both drop a column in place (a batch copy would lose triggers).
    op.execute("ALTER TABLE sweep DROP COLUMN config")
