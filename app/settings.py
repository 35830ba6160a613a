"""Settings from the environment (PARETOSCOPE_*); every field has a laptop-friendly default."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PARETOSCOPE_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default=f"sqlite:///{PROJECT_ROOT / 'data' / 'paretoscope.db'}",
        description="SQLAlchemy URL: SQLite by default; postgresql+psycopg://user@host/db.",
    )
    host: str = Field(default="127.0.0.1", description="Address `paretoscope serve` binds to.")
    port: int = Field(default=8000, description="Port `paretoscope serve` listens on.")
    max_upload_mb: float = Field(
        default=50, description="Largest accepted upload, in MB (all files)."
    )
    write_token: str | None = Field(
        default=None,
        description="When set, every write needs it: `Authorization: Bearer <token>` on the API, "
        "the token field on forms.",
    )
    threads: int = Field(
        default=16,
        ge=1,
        le=512,
        description="Threads per worker for parsing and database work; also the size of each "
        "worker's database connection pool.",
    )
    seed_on_start: bool = Field(
        default=True, description="Seed catalogs and demo sweeps when the database is empty."
    )

    @field_validator("database_url")
    @classmethod
    def _normalise_postgres_scheme(cls, value: str) -> str:
        # Heroku-style URLs name no driver; we ship psycopg 3.
        for prefix in ("postgres://", "postgresql://"):
            if value.startswith(prefix):
                return "postgresql+psycopg://" + value[len(prefix) :]
        return value

    @field_validator("write_token")
    @classmethod
    def _empty_token_is_none(cls, value: str | None) -> str | None:
        return value or None

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)


@lru_cache
def get_settings() -> Settings:
    return Settings()
