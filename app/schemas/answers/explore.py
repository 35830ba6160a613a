"""Explore's JSON twin and the series picker."""

from __future__ import annotations

from app.schemas.answers.common import Answer, Named, PlotlyFigure
from app.schemas.answers.readoff import BandOut, PriceColumnOut, ReadoffRow, SloOut


class WorkGroupOut(Answer):
    key: str
    label: str
    sweeps: int


class Leaders(Answer):
    """The frontier leaders chosen when no sweep was named; `frontier_points` maps a sweep id
    (as text) to its frontier points."""

    chosen: list[int]
    dropped: list[int]
    frontier_points: dict[str, int]
    truncated: bool
    group: WorkGroupOut | None
    groups: list[WorkGroupOut]
    needs_group: bool
    include_demo: bool
    excluded: list[Named]
    ranked_per: str  # GPU, decode GPU, prefill GPU, node or kW: what frontier tok/s is per


class PickerSweep(Answer):
    id: int
    name: str
    model: str | None
    hardware: str
    num_gpus: int
    engine: str | None
    precision: str | None


class PickerGroup(Answer):
    model: str | None
    hardware: str
    label: str
    sweeps: list[PickerSweep]


class PickerOut(Answer):
    q: str | None
    total: int
    listed: int
    limit: int
    narrowed: bool
    selected: list[PickerSweep]
    groups: list[PickerGroup]


class PickerAnswer(Answer):
    """The selection (capped, naming what was dropped) and the matches of the search."""

    query: str
    selected: list[int]
    max_series: int
    dropped: list[Named]
    leaders: Leaders | None
    picker: PickerOut | None


class AnswerStrip(Answer):
    """The answer strip above the chart: its sweeps in order, the first few shown."""

    order: list[int]
    shown_first: int


class ExploreAnswer(Answer):
    query: str
    candidates: list[Named]
    selected: list[int]
    max_series: int
    dropped: list[Named]
    leaders: Leaders | None
    picker: PickerOut | None
    slo: SloOut
    price_columns: list[PriceColumnOut]
    results: list[ReadoffRow]
    answer: AnswerStrip
    figure: PlotlyFigure
    bands: list[BandOut] | None
    sensitivity: PlotlyFigure | None
