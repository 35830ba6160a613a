"""The TypedDicts of app.schemas.answers.explore: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.common import NamedDict, PlotlyFigureDict
    from app.schemas.answers.typed.readoff import (
        BandOutDict,
        PriceColumnOutDict,
        ReadoffRowDict,
        SloOutDict,
    )


class WorkGroupOutDict(TypedDict):
    """app.schemas.answers.explore.WorkGroupOut"""

    key: str
    label: str
    sweeps: int


class LeadersDict(TypedDict):
    """app.schemas.answers.explore.Leaders"""

    chosen: list[int]
    dropped: list[int]
    frontier_points: dict[str, int]
    truncated: bool
    group: WorkGroupOutDict | None
    groups: list[WorkGroupOutDict]
    needs_group: bool
    include_demo: bool
    excluded: list[NamedDict]
    ranked_per: str


class PickerSweepDict(TypedDict):
    """app.schemas.answers.explore.PickerSweep"""

    id: int
    name: str
    model: str | None
    hardware: str
    num_gpus: int
    engine: str | None
    precision: str | None


class PickerGroupDict(TypedDict):
    """app.schemas.answers.explore.PickerGroup"""

    model: str | None
    hardware: str
    label: str
    sweeps: list[PickerSweepDict]


class PickerOutDict(TypedDict):
    """app.schemas.answers.explore.PickerOut"""

    q: str | None
    total: int
    listed: int
    limit: int
    narrowed: bool
    selected: list[PickerSweepDict]
    groups: list[PickerGroupDict]


class PickerAnswerDict(TypedDict):
    """app.schemas.answers.explore.PickerAnswer"""

    query: str
    selected: list[int]
    max_series: int
    dropped: list[NamedDict]
    leaders: LeadersDict | None
    picker: PickerOutDict | None


class AnswerStripDict(TypedDict):
    """app.schemas.answers.explore.AnswerStrip"""

    order: list[int]
    shown_first: int


class ExploreAnswerDict(TypedDict):
    """app.schemas.answers.explore.ExploreAnswer"""

    query: str
    candidates: list[NamedDict]
    selected: list[int]
    max_series: int
    dropped: list[NamedDict]
    leaders: LeadersDict | None
    picker: PickerOutDict | None
    slo: SloOutDict
    price_columns: list[PriceColumnOutDict]
    results: list[ReadoffRowDict]
    answer: AnswerStripDict
    figure: PlotlyFigureDict
    bands: list[BandOutDict] | None
    sensitivity: PlotlyFigureDict | None
