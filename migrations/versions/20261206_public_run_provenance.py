"""The run that measured a sweep: its CI run id, run URL and container image

Revision ID: 20261206_public
Revises: 20261203_0017
Create Date: 2026-12-06 07:30:00

Issue 51: the public InferenceX record re-runs one configuration nightly; each dated run is a
sweep, named and grouped by its date and run id, and keeps the image and the run's URL.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261206_public"
down_revision: str | Sequence[str] | None = "20261203_0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = (("run_id", 40), ("run_url", 500), ("image", 300))


def upgrade() -> None:
    # Plain ALTER TABLE (no batch copy), so the sweep table keeps the triggers of 0012.
    for name, length in COLUMNS:
        op.add_column("sweep", sa.Column(name, sa.String(length=length), nullable=True))


def downgrade() -> None:
    # SQLite 3.35+ and Postgres both drop a column in place (a batch copy would lose triggers).
    for name, _ in reversed(COLUMNS):
        op.execute(f"ALTER TABLE sweep DROP COLUMN {name}")
