"""Shapes several answers share: the base every answer model extends, a Plotly figure, an
interval's keys, a sweep named by id, and a difference between two systems."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from app.domain.intervals import Method
from app.domain.likeness import Kind
from app.domain.sweep_fields import SWEEP_COLUMNS


class Answer(BaseModel):
    """Every key is declared: an answer carrying an undocumented key fails its model."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


@dataclass(frozen=True)
class Without:
    """An answer model's keys but `keys`, as one builder writes them for another to complete:
    tools/answer_types.py writes its TypedDict (`<name>Dict`) from the model, so the keys are
    still declared once."""

    name: str
    model: type[Answer]
    keys: tuple[str, ...]


# A sweep field's kind as JSON carries it: a date is YYYY-MM-DD text.
_JSON_TYPES: dict[str, Any] = {"str": str, "int": int, "date": str}


def sweep_field_types(*, stored: bool) -> dict[str, Any]:
    """The sweep fields' keys and types, from their one definition (app.domain.sweep_fields),
    for an answer model's annotations: as stored (`sweep` as `name`; null only where the store
    may keep none), or as a staged upload gives them (`sweep`; any may be null)."""
    types: dict[str, Any] = {}
    for c in SWEEP_COLUMNS:
        kind = _JSON_TYPES[c.kind]
        if stored:
            types["name" if c.name == "sweep" else c.name] = kind | None if c.stored_null else kind
        else:
            types[c.name] = kind | None
    return types


class PlotlyFigure(Answer):
    """A Plotly figure spec (plotly.js's own schema says the rest: traces, layout and config),
    with `notes`: sentences the page shows beside the chart (e.g. limits drawn off the axes)."""

    data: list[dict[str, Any]]
    layout: dict[str, Any]
    config: dict[str, Any] | None = None
    notes: list[str] | None = None


class Named(Answer):
    """A sweep by id and name (e.g. one dropped from a selection, with what it was)."""

    id: int
    name: str


class CiFields(Answer):
    """An interval's keys: null ends with the reason when there is none."""

    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: Method | None
    ci_reason: str | None


class FigureInterval(Answer):
    """A figure and its interval."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: Method | None
    ci_reason: str | None


class Difference(Answer):
    """One difference between the systems compared (or a shared demo/mock source, stated)."""

    field: str
    label: str
    kind: Kind
    values: list[str]
    differs: bool
    text: str
