"""Health and the metric definitions."""

from __future__ import annotations

from typing import Literal

from app.schemas.answers.common import Answer


class Health(Answer):
    status: Literal["ok", "unavailable"]
    database: Literal["unreachable", "schema_not_at_head"] | None = None
    revision: str | None = None  # the revision found when it is not this version's newest


class DefinitionOut(Answer):
    id: str
    title: str
    formula: str
    text: str


class Definitions(Answer):
    definitions: list[DefinitionOut]
