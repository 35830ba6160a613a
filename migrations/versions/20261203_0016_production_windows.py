"""deployments and their production windows (Prometheus serving metrics, issue #36)

Revision ID: 20261203_0016
Revises: 20261202_0014
Create Date: 2026-12-03 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "20261203_0016"
down_revision: str | Sequence[str] | None = "20261202_0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deployment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=300), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("hardware", sa.String(length=100), nullable=True),
        sa.Column("num_gpus", sa.Integer(), nullable=True),
        sa.Column("engine", sa.String(length=100), nullable=True),
        sa.Column("engine_version", sa.String(length=100), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deployment")),
        sa.UniqueConstraint("name", name=op.f("uq_deployment_name")),
    )
    op.create_table(
        "production_window",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.Integer(), nullable=False),
        sa.Column("start_s", sa.Float(), nullable=False),
        sa.Column("end_s", sa.Float(), nullable=False),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("selector", sa.String(length=500), nullable=False),
        sa.Column("requests", sa.Float(), nullable=False),
        sa.Column("output_tokens", sa.Float(), nullable=False),
        sa.Column("prompt_tokens", sa.Float(), nullable=True),
        sa.Column("num_gpus", sa.Integer(), nullable=True),
        sa.Column("concurrency", sa.Float(), nullable=True),
        sa.Column("histograms", sa.JSON(), nullable=False),
        sa.Column("notes", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["deployment_id"],
            ["deployment.id"],
            name=op.f("fk_production_window_deployment_id_deployment"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_production_window")),
        sa.UniqueConstraint(
            "deployment_id", "start_s", "end_s", name="uq_production_window_deployment_id_span"
        ),
    )


def downgrade() -> None:
    op.drop_table("production_window")
    op.drop_table("deployment")
