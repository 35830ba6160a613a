"""Shapes several answers share: the base every answer model extends, a Plotly figure, an
interval's keys, a sweep named by id, and a difference between two systems."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from app.domain.intervals import Method
from app.domain.likeness import Kind


class Answer(BaseModel):
    """Every key is declared: an answer carrying an undocumented key fails its model."""

    model_config = ConfigDict(extra="forbid")


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
