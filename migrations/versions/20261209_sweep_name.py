"""An index on the sweep's name

Revision ID: 20261209_name
Revises: 20261208_values
Create Date: 2026-12-09 09:00:00

Issue 49: the name is hashed, so only a stored sweep of an upload's name can hold its content.
A large upload looks for one before it stores its sweeps ahead of their hash
(app.store.sweep_save), and a new sweep with request samples looks for sweeps of its name stored
under the older digests (app.store.sample_digest_formats): one index lookup each, not a scan of
every sweep.
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261209_name"
down_revision: str | Sequence[str] | None = "20261208_values"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(op.f("ix_sweep_name"), "sweep", ["name"])


def downgrade() -> None:
    op.drop_index(op.f("ix_sweep_name"), table_name="sweep")
