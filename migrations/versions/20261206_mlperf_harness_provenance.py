"""Harness provenance on sweeps: harness, its version, independent or vendor

Revision ID: 20261206_mlperf
Revises: 20261206_public
Create Date: 2026-12-06 07:50:00

Issue 51: every sweep records the harness that made its numbers and whether that harness ran
independently of the vendor (MLPerf, InferenceX, the user's own run) or is the vendor's own.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261206_mlperf"
down_revision: str | Sequence[str] | None = "20261206_public"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (no batch copy), so the sweep table keeps the triggers of 0011 and 0012.
    op.add_column("sweep", sa.Column("harness", sa.String(length=100), nullable=True))
    op.add_column("sweep", sa.Column("harness_version", sa.String(length=100), nullable=True))
    op.add_column("sweep", sa.Column("provenance", sa.String(length=20), nullable=True))


def downgrade() -> None:
    for column in ("provenance", "harness_version", "harness"):
        op.execute(f"ALTER TABLE sweep DROP COLUMN {column}")
