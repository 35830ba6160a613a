"""The TypedDicts of app.schemas.answers.common: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    pass


class PlotlyFigureDict(TypedDict):
    """app.schemas.answers.common.PlotlyFigure"""

    data: list[dict[str, Any]]
    layout: dict[str, Any]
    config: NotRequired[dict[str, Any] | None]
    notes: NotRequired[list[str] | None]


class NamedDict(TypedDict):
    """app.schemas.answers.common.Named"""

    id: int
    name: str


class CiFieldsDict(TypedDict):
    """app.schemas.answers.common.CiFields"""

    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )
    ci_reason: str | None


class FigureIntervalDict(TypedDict):
    """app.schemas.answers.common.FigureInterval"""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )
    ci_reason: str | None


class DifferenceDict(TypedDict):
    """app.schemas.answers.common.Difference"""

    field: str
    label: str
    kind: Literal["served", "system", "source"]
    values: list[str]
    differs: bool
    text: str
