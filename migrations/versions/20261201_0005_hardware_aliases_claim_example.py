"""hardware aliases and the worked-example flag of claims

Revision ID: 20261201_0005
Revises: 0001
Create Date: 2026-12-01 06:20:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261201_0005"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("hardware") as batch:
        batch.add_column(sa.Column("aliases", sa.JSON(), nullable=True))
    with op.batch_alter_table("vendor_claim") as batch:
        batch.add_column(
            sa.Column("example", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("vendor_claim") as batch:
        batch.drop_column("example")
    with op.batch_alter_table("hardware") as batch:
        batch.drop_column("aliases")
