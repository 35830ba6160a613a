"""SLO presets: a percentile per limit (TTFT, TPOT, E2EL), falling back to `percentile`.

Revision ID: 20261201_0004
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261201_0004"
# The lead re-chains revisions at merge (brief: after "20261130_0001"); here the head is "0001".
down_revision: str | None = "20261201_0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("slo_preset", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ttft_percentile", sa.String(length=10), nullable=True))
        batch_op.add_column(sa.Column("tpot_percentile", sa.String(length=10), nullable=True))
        batch_op.add_column(sa.Column("e2el_percentile", sa.String(length=10), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("slo_preset", schema=None) as batch_op:
        batch_op.drop_column("e2el_percentile")
        batch_op.drop_column("tpot_percentile")
        batch_op.drop_column("ttft_percentile")
