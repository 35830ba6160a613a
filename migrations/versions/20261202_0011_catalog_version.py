"""catalog_version: a token that every change to a catalog table renews

Revision ID: 20261202_0011
Revises: 20261201_0010
Create Date: 2026-12-02 02:00:00

Explore reads the catalog (SLO presets, model specs, pricing profiles, vendor claims, all-in
power) on every request: five queries whose answer only changes when someone edits it. A trigger
on each catalog table gives `catalog_version` a new random token in the changing transaction,
whoever changes it (the app, a seed, psql), so a process keeps what it read and checks one row
(app.store.catalog_cache). Random, not a counter: a database made again from scratch never
repeats a token some process still keeps.

A migration that rebuilds a catalog table on SQLite (batch mode copies it) drops its triggers:
tests/test_catalog_cache.py checks that every catalog table has them at head.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261202_0011"
down_revision: str | Sequence[str] | None = "20261201_0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CATALOG_TABLES = ("hardware", "model_spec", "pricing_profile", "slo_preset", "vendor_claim")
SQLITE_EVENTS = ("insert", "update", "delete")  # SQLite triggers fire per row, one per event
NEW_TOKEN = {
    "postgresql": "gen_random_uuid()::text",
    "sqlite": "lower(hex(randomblob(16)))",
}


def upgrade() -> None:
    op.create_table(
        "catalog_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_catalog_version")),
    )
    dialect = op.get_bind().dialect.name
    new_token = NEW_TOKEN[dialect]
    op.execute(f"INSERT INTO catalog_version (id, token) VALUES (1, {new_token})")
    renew = f"UPDATE catalog_version SET token = {new_token} WHERE id = 1"
    if dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION renew_catalog_token() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN {renew}; RETURN NULL; END $$"
        )
        for table in CATALOG_TABLES:
            op.execute(
                f"CREATE TRIGGER {table}_renews_catalog_token "
                f"AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION renew_catalog_token()"
            )
    else:
        for table in CATALOG_TABLES:
            for event in SQLITE_EVENTS:
                op.execute(
                    f"CREATE TRIGGER {table}_{event}_renews_catalog_token "
                    f"AFTER {event.upper()} ON {table} BEGIN {renew}; END"
                )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in CATALOG_TABLES:
            op.execute(f"DROP TRIGGER {table}_renews_catalog_token ON {table}")
        op.execute("DROP FUNCTION renew_catalog_token()")
    else:
        for table in CATALOG_TABLES:
            for event in SQLITE_EVENTS:
                op.execute(f"DROP TRIGGER {table}_{event}_renews_catalog_token")
    op.drop_table("catalog_version")
