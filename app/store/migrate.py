"""Run Alembic migrations programmatically (used by `serve`, `db upgrade` and the tests)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.settings import PROJECT_ROOT


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    # ConfigParser interpolation treats % specially (URL-encoded passwords).
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade_to_head(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")


def downgrade_to_base(database_url: str) -> None:
    command.downgrade(alembic_config(database_url), "base")
