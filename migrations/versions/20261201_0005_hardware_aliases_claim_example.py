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
down_revision: str | Sequence[str] | None = "20261201_0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("hardware") as batch:
        batch.add_column(sa.Column("aliases", sa.JSON(), nullable=True))
    with op.batch_alter_table("vendor_claim") as batch:
        batch.add_column(
            sa.Column("example", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # Rows an older seed stored under labels that were not true: a running server seeds only
    # an empty database, so fix them here (`paretoscope seed` adds the new aliases and GPUs).
    op.execute(
        "UPDATE sweep SET source_kind = 'demo' "
        "WHERE source_tool = 'seed_data/make_demo.py' AND source_kind = 'measured'"
    )
    op.execute("UPDATE vendor_claim SET example = TRUE WHERE vendor LIKE 'Worked example (%'")
    op.execute(
        "UPDATE pricing_profile SET kind = 'ownership' "
        "WHERE key LIKE 'ix-%' AND tier IN ('costh', 'costn') AND kind = 'rental'"
    )


def downgrade() -> None:
    # The older schema knows no "demo" kind and no all-in ownership profiles.
    op.execute("UPDATE sweep SET source_kind = 'measured' WHERE source_kind = 'demo'")
    op.execute(
        "UPDATE pricing_profile SET kind = 'rental' "
        "WHERE kind = 'ownership' AND capex_usd IS NULL AND usd_per_gpu_hour IS NOT NULL"
    )
    with op.batch_alter_table("vendor_claim") as batch:
        batch.drop_column("example")
    with op.batch_alter_table("hardware") as batch:
        batch.drop_column("aliases")
