"""Text that every database can store: no NUL byte (Postgres refuses it; SQLite keeps it), no
lone surrogate (neither can encode it)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, field_validator

from app.domain.bounds import text_problem


class StorableText(BaseModel):
    """Base for input shapes: any text field holding a NUL byte is refused, naming the field."""

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        for text in value if isinstance(value, list) else [value]:
            problem = text_problem(text) if isinstance(text, str) else None
            if problem:
                raise ValueError(problem)
        return value
