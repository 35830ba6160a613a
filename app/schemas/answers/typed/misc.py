"""The TypedDicts of app.schemas.answers.misc: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    pass


class HealthDict(TypedDict):
    """app.schemas.answers.misc.Health"""

    status: Literal["ok", "unavailable"]
    database: NotRequired[Literal["unreachable", "schema_not_at_head"] | None]
    revision: NotRequired[str | None]


class DefinitionOutDict(TypedDict):
    """app.schemas.answers.misc.DefinitionOut"""

    id: str
    title: str
    formula: str
    text: str


class DefinitionsDict(TypedDict):
    """app.schemas.answers.misc.Definitions"""

    definitions: list[DefinitionOutDict]
