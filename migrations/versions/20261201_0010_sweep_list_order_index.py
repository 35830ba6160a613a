"""sweep: an index in the sweep list's order (newest first)

Revision ID: 20261201_0010
Revises: 20261201_0009
Create Date: 2026-12-01 17:40:00

The list pages by created_at, then id, newest first: without an index each page sorted every
stored sweep (3 ms at 10,000 on Postgres, and growing); with it a page reads its 50 rows.
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261201_0010"
down_revision: str | Sequence[str] | None = "20261201_0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("sweep", schema=None) as batch_op:
        batch_op.create_index("ix_sweep_created_at_id", ["created_at", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("sweep", schema=None) as batch_op:
        batch_op.drop_index("ix_sweep_created_at_id")
