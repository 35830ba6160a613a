"""sweep_version: a token that every change to the sweeps renews

Revision ID: 20261202_0012
Revises: 20261202_0011
Create Date: 2026-12-02 05:00:00

Explore's page is the same for the same address while no sweep, tag or catalog row changes. As
catalog_version does for the catalog (0011), triggers on `sweep` and `sweep_tag` give
`sweep_version` a new random token in the transaction of any change, whoever makes it, so a
process can keep a page it rendered and check two rows before answering with it
(app.web.page_cache). Points and request samples need no trigger: they are written and deleted
only with their sweep (a stored sweep's content never changes; its hash names it), whose row
the same statement or transaction changes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261202_0012"
down_revision: str | Sequence[str] | None = "20261202_0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SWEEP_TABLES = ("sweep", "sweep_tag")
SQLITE_EVENTS = ("insert", "update", "delete")  # SQLite triggers fire per row, one per event
NEW_TOKEN = {
    "postgresql": "gen_random_uuid()::text",
    "sqlite": "lower(hex(randomblob(16)))",
}


def upgrade() -> None:
    op.create_table(
        "sweep_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sweep_version")),
    )
    dialect = op.get_bind().dialect.name
    new_token = NEW_TOKEN[dialect]
    op.execute(f"INSERT INTO sweep_version (id, token) VALUES (1, {new_token})")
    renew = f"UPDATE sweep_version SET token = {new_token} WHERE id = 1"
    if dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION renew_sweep_token() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN {renew}; RETURN NULL; END $$"
        )
        for table in SWEEP_TABLES:
            op.execute(
                f"CREATE TRIGGER {table}_renews_sweep_token "
                f"AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION renew_sweep_token()"
            )
    else:
        for table in SWEEP_TABLES:
            for event in SQLITE_EVENTS:
                op.execute(
                    f"CREATE TRIGGER {table}_{event}_renews_sweep_token "
                    f"AFTER {event.upper()} ON {table} BEGIN {renew}; END"
                )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in SWEEP_TABLES:
            op.execute(f"DROP TRIGGER {table}_renews_sweep_token ON {table}")
        op.execute("DROP FUNCTION renew_sweep_token()")
    else:
        for table in SWEEP_TABLES:
            for event in SQLITE_EVENTS:
                op.execute(f"DROP TRIGGER {table}_{event}_renews_sweep_token")
    op.drop_table("sweep_version")
