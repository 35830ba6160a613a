"""Alembic migrations create exactly the models' schema, and run down and up again."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect

from app.store.migrate import downgrade_to_base, upgrade_to_head
from app.store.models import Base


def test_upgrade_head_matches_the_models(engine: Engine) -> None:
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_downgrade_then_upgrade_round_trips(database_url: str, engine: Engine) -> None:
    downgrade_to_base(database_url)
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    upgrade_to_head(database_url)
    assert set(Base.metadata.tables) <= set(inspect(engine).get_table_names())
