"""staged uploads: files kept between the upload page's preview and its confirm

Revision ID: 20261201_0008
Revises: 20261201_0006
Create Date: 2026-12-01 10:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261201_0008"
down_revision: str | Sequence[str] | None = "20261201_0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "staged_upload",
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("created_at_s", sa.BigInteger(), nullable=False),
        sa.Column("expires_at_s", sa.BigInteger(), nullable=False),
        sa.Column("total_bytes", sa.BigInteger(), nullable=False),
        sa.Column("files", sa.JSON(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("token", name=op.f("pk_staged_upload")),
    )
    with op.batch_alter_table("staged_upload") as batch:
        batch.create_index(batch.f("ix_staged_upload_expires_at_s"), ["expires_at_s"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("staged_upload") as batch:
        batch.drop_index(batch.f("ix_staged_upload_expires_at_s"))
    op.drop_table("staged_upload")
