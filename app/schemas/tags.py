"""Request bodies that set sweep tags (the rules a tag follows are in app.domain.tags)."""

from __future__ import annotations

from pydantic import ConfigDict, Field, model_validator

from app.schemas.text import StorableText


class TagsBody(StorableText):
    """`{"tag": "nightly"}` or `{"tags": ["baseline:main", "nightly"]}`."""

    model_config = ConfigDict(extra="forbid")

    tag: str | None = Field(default=None, max_length=200)
    tags: list[str] | None = Field(default=None, max_length=100)

    @model_validator(mode="after")
    def _some(self) -> TagsBody:
        if self.tag is None and self.tags is None:
            raise ValueError("give `tag` or `tags`")
        if any(len(t) > 200 for t in self.tags or []):
            raise ValueError("tags: a tag is at most 64 characters")
        return self

    def values(self) -> list[str]:
        return [*([self.tag] if self.tag is not None else []), *(self.tags or [])]
