"""The TypedDicts of app.schemas.answers.histograms: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypedDict

if TYPE_CHECKING:
    pass


class HistogramLimitShareDict(TypedDict):
    """app.schemas.answers.histograms.HistogramLimitShare"""

    metric: Literal["ttft", "tpot", "e2el"]
    limit_ms: float
    share_low: float
    share_high: float
    exact: bool
    text: str


class HistogramAttainmentOutDict(TypedDict):
    """app.schemas.answers.histograms.HistogramAttainmentOut"""

    point_id: int
    attainment_low: float
    attainment_high: float
    text: str
    target: float
    verdict: Literal["pass", "fail", "unknown"]
    issued: float
    limits: list[HistogramLimitShareDict]
    rule: str


class HistogramLimitDict(TypedDict):
    """app.schemas.answers.histograms.HistogramLimit"""

    metric: Literal["ttft", "tpot", "e2el"]
    limit_ms: float


class SweepHistogramRowDict(HistogramAttainmentOutDict):
    """app.schemas.answers.histograms.SweepHistogramRow"""

    position: int


class SweepHistogramAttainmentDict(TypedDict):
    """app.schemas.answers.histograms.SweepHistogramAttainment"""

    slo: str
    limits: list[HistogramLimitDict]
    target: float
    points: list[SweepHistogramRowDict]
    rule: str
