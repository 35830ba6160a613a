"""sample blocks: Postgres stores them out of line without trying to compress them again

Revision ID: 20261201_0009
Revises: 20261201_0008
Create Date: 2026-12-01 13:55:00

A block is zstd-compressed Parquet already; TOAST's default (EXTENDED) runs pglz over every
block before keeping it as is, a fifth of a 2M-request import. EXTERNAL stores it out of line
uncompressed. New rows only: stored blocks stay as they are (they read the same either way).
SQLite has no such setting.
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261201_0009"
down_revision: str | Sequence[str] | None = "20261201_0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE sample_block ALTER COLUMN data SET STORAGE EXTERNAL")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE sample_block ALTER COLUMN data SET STORAGE EXTENDED")
