"""API prices by token class on pricing profiles (uncached input, cached input, output)

Revision ID: 20261206_cached
Revises: 20261203_0017
Create Date: 2026-12-06 07:30:00

Issue 50: a price set may carry $/Mtok per token class beside its $/GPU-hour; the read-off
prices a sweep's measured token mix with them. Nullable: a profile without them has none.
Cached input tokens per request live in the sample blocks (an optional Parquet column), and per
point in the point block's extra fields: neither needs a schema change.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261206_cached"
down_revision: str | Sequence[str] | None = "20261203_0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("usd_per_mtok_input", "usd_per_mtok_cached_input", "usd_per_mtok_output")


def upgrade() -> None:
    # Plain ALTER TABLE (no batch copy), so the table keeps any trigger of earlier revisions.
    for column in COLUMNS:
        op.add_column("pricing_profile", sa.Column(column, sa.Float(), nullable=True))


def downgrade() -> None:
    # SQLite 3.35+ and Postgres both drop a column in place.
    for column in reversed(COLUMNS):
        op.execute(f"ALTER TABLE pricing_profile DROP COLUMN {column}")
