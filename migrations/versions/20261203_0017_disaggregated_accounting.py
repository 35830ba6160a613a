"""GPUs per node in the hardware catalog; speculative-decoding draft model and token count on sweeps

Revision ID: 20261203_0017
Revises: 20261202_0014
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
down_revision: str | Sequence[str] | None = "20261202_0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("hardware") as batch:
        batch.add_column(sa.Column("gpus_per_node", sa.Integer(), nullable=True))
    with op.batch_alter_table("sweep") as batch:
        batch.add_column(sa.Column("draft_model", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("num_spec_tokens", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sweep") as batch:
        batch.drop_column("num_spec_tokens")
        batch.drop_column("draft_model")
    with op.batch_alter_table("hardware") as batch:
        batch.drop_column("gpus_per_node")
