"""Text that every database can store: no NUL byte (Postgres refuses it; SQLite keeps it)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, field_validator


class StorableText(BaseModel):
    """Base for input shapes: any text field holding a NUL byte is refused, naming the field."""

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("contains a NUL byte")
        if isinstance(value, list) and any(isinstance(v, str) and "\x00" in v for v in value):
            raise ValueError("contains a NUL byte")
        return value
