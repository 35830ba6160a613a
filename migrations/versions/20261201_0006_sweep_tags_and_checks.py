"""sweep tags and the checks `paretoscope check` ran

Revision ID: 20261201_0006
Revises: 20261201_0005
Create Date: 2026-12-01 10:20:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261201_0006"
down_revision: str | Sequence[str] | None = "20261201_0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sweep_tag",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sweep_id", sa.Integer(), nullable=False),
        sa.Column("tag", sa.String(length=64), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["sweep_id"],
            ["sweep.id"],
            name=op.f("fk_sweep_tag_sweep_id_sweep"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sweep_tag")),
        sa.UniqueConstraint("sweep_id", "tag", name="uq_sweep_tag_sweep_id_tag"),
    )
    op.create_index("ix_sweep_tag_tag", "sweep_tag", ["tag"], unique=False)
    op.create_table(
        "sweep_check",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("candidate_id", sa.Integer(), nullable=False),
        sa.Column("baseline_id", sa.Integer(), nullable=False),
        sa.Column("candidate_ref", sa.String(length=300), nullable=False),
        sa.Column("baseline_ref", sa.String(length=300), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("verdict", sa.String(length=20), nullable=False),
        sa.Column("headline", sa.String(length=500), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["candidate_id"],
            ["sweep.id"],
            name=op.f("fk_sweep_check_candidate_id_sweep"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["baseline_id"],
            ["sweep.id"],
            name=op.f("fk_sweep_check_baseline_id_sweep"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sweep_check")),
    )
    op.create_index("ix_sweep_check_candidate_id", "sweep_check", ["candidate_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_sweep_check_candidate_id", table_name="sweep_check")
    op.drop_table("sweep_check")
    op.drop_index("ix_sweep_tag_tag", table_name="sweep_tag")
    op.drop_table("sweep_tag")
