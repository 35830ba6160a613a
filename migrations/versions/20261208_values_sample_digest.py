"""A sweep's request samples digested as typed values: the stored ones marked as CSV-digested

Revision ID: 20261208_values
Revises: 20261207_cachecnt
Create Date: 2026-12-08 09:00:00

Issue 49: an upload of a million requests spent a third of its CPU writing the samples as CSV
text to hash them. Their digest (app.ingest.sample_digest) now hashes their typed values
(format 2). A sweep stored before with request samples keeps its content hash, made of format-1
digests, and is marked so (`sample_digest` 1): an upload that does not find its content under
format 2 tries format 1 against the marked sweeps of its name, and moves a sweep it finds to
format 2. A sweep without samples hashes the same either way (2).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261208_values"
down_revision: str | Sequence[str] | None = "20261207_cachecnt"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (no batch copy), so the table keeps the triggers set on it.
    op.add_column(
        "sweep", sa.Column("sample_digest", sa.Integer(), nullable=False, server_default="2")
    )
    op.execute(
        "UPDATE sweep SET sample_digest = 1 "
        "WHERE EXISTS (SELECT 1 FROM sample_block WHERE sample_block.sweep_id = sweep.id)"
    )


def downgrade() -> None:
    # A sweep hashed with format 2 keeps that hash: an upload under the older code then stores
    # its file again as a new sweep rather than finding it.
    op.execute("ALTER TABLE sweep DROP COLUMN sample_digest")
