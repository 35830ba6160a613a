"""GPUs per node in the hardware catalog; speculative-decoding draft model and token count on sweeps

Revision ID: 20261203_0017
Revises: 20261203_0016
Create Date: 2026-12-03 10:40:00

Issue 37: throughput per node needs the catalog's GPUs per node; a sweep keeps the draft model
and number of speculative tokens its file reports (acceptance and prefix-cache figures are per
point, in the point block).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261203_0017"
down_revision: str | Sequence[str] | None = "20261203_0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (no batch copy), so the tables keep the triggers of 0011 and 0012.
    op.add_column("hardware", sa.Column("gpus_per_node", sa.Integer(), nullable=True))
    op.add_column("sweep", sa.Column("draft_model", sa.String(length=200), nullable=True))
    op.add_column("sweep", sa.Column("num_spec_tokens", sa.Integer(), nullable=True))


def downgrade() -> None:
    # SQLite 3.35+ and Postgres both drop a column in place (a batch copy would lose triggers).
    for table, column in (
        ("sweep", "num_spec_tokens"),
        ("sweep", "draft_model"),
        ("hardware", "gpus_per_node"),
    ):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
