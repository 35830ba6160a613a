"""A production window's prefix-cache counters: cached and queried prompt tokens

Revision ID: 20261207_cachecnt
Revises: 20261207_harness
Create Date: 2026-12-07 10:00:00

Issue 50: the server's own prefix-cache counters (vLLM prefix_cache_hits / _queries, SGLang
cached_tokens / prompt_tokens) increase over a window; their ratio is the cached share of input
measured by the server. Null for windows stored before, and for live pulls.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261207_cachecnt"
down_revision: str | Sequence[str] | None = "20261207_harness"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("production_window", sa.Column("cached_tokens", sa.Float(), nullable=True))
    op.add_column("production_window", sa.Column("queried_tokens", sa.Float(), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE production_window DROP COLUMN queried_tokens")
    op.execute("ALTER TABLE production_window DROP COLUMN cached_tokens")
