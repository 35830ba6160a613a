"""Harness provenance on vendor claims: who measured the number, independent or vendor

Revision ID: 20261207_harness
Revises: 20261207_gaps47
Create Date: 2026-12-07 10:20:00

Issue 51: a claim records whether its number comes from an independent harness (MLPerf,
InferenceX, the user's own run) or from the vendor's own setup, and which harness it was.
Existing claims get null: not stated.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261207_harness"
down_revision: str | Sequence[str] | None = "20261207_gaps47"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (no batch copy), so the table keeps any trigger set on it.
    op.add_column("vendor_claim", sa.Column("harness", sa.String(length=100), nullable=True))
    op.add_column("vendor_claim", sa.Column("provenance", sa.String(length=20), nullable=True))


def downgrade() -> None:
    for column in ("provenance", "harness"):
        op.execute(f"ALTER TABLE vendor_claim DROP COLUMN {column}")
