"""API prices by token class on pricing profiles; active parameters per phase on model specs

Revision ID: 20261206_cached
Revises: 20261206_mlperf
Create Date: 2026-12-06 07:30:00

Issue 50: a price set may carry $/Mtok per token class beside its $/GPU-hour; the read-off
prices a sweep's measured token mix with them. A model spec may give its active parameters
per token in prefill and in decode apart (the roofline and the claim audit use each phase's own).
Nullable: a profile or spec without them has none.
Cached input tokens per request live in the sample blocks (an optional Parquet column), and per
point in the point block's extra fields: neither needs a schema change.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261206_cached"
down_revision: str | Sequence[str] | None = "20261206_mlperf"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = (
    ("pricing_profile", "usd_per_mtok_input"),
    ("pricing_profile", "usd_per_mtok_cached_input"),
    ("pricing_profile", "usd_per_mtok_output"),
    # A model's active parameters per phase where prefill and decode differ.
    ("model_spec", "prefill_active_params_b"),
    ("model_spec", "decode_active_params_b"),
)


def upgrade() -> None:
    # Plain ALTER TABLE (no batch copy), so the tables keep any trigger of earlier revisions.
    for table, column in COLUMNS:
        op.add_column(table, sa.Column(column, sa.Float(), nullable=True))


def downgrade() -> None:
    # SQLite 3.35+ and Postgres both drop a column in place.
    for table, column in reversed(COLUMNS):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
