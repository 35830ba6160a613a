"""Run Alembic migrations programmatically (used by `serve`, `db upgrade` and the tests)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.settings import PROJECT_ROOT
from app.store import versions
from app.store.db import make_engine, make_sessionmaker, session_scope


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    # ConfigParser interpolation treats % specially (URL-encoded passwords).
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade_to_head(database_url: str) -> None:
    """The newest schema, with the version rows that caches check (app.store.versions) given
    back if someone deleted them."""
    command.upgrade(alembic_config(database_url), "head")
    engine = make_engine(database_url, pool_size=1)
    try:
        with session_scope(make_sessionmaker(engine)) as session:
            versions.restore_missing(session)
    finally:
        engine.dispose()


def downgrade_to_base(database_url: str) -> None:
    command.downgrade(alembic_config(database_url), "base")
