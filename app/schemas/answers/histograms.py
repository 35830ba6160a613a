"""SLO attainment read off latency histograms (issue 51), as /api/readoff and a sweep's JSON
answer it: bounds, never one value."""

from __future__ import annotations

from app.domain.checks import Status
from app.domain.point import Metric
from app.schemas.answers.common import Answer


class HistogramLimitShare(Answer):
    """The share of issued requests under one limit, read off its histogram: [low, high]."""

    metric: Metric
    limit_ms: float
    share_low: float
    share_high: float
    exact: bool  # the limit is a bucket bound: low == high
    text: str  # "between 98.65 % and 99.35 %" or "exactly 98.65 %"


class HistogramAttainmentOut(Answer):
    """SLO attainment read off a point's latency histograms (MLCommons endpoints): the share
    under every limit at once, bounded; never one value (issue 51)."""

    point_id: int
    attainment_low: float
    attainment_high: float
    text: str
    target: float
    verdict: Status  # pass: even the low end meets the target; fail: even the high misses it
    issued: float
    limits: list[HistogramLimitShare]
    rule: str


class HistogramLimit(Answer):
    metric: Metric
    limit_ms: float


class SweepHistogramRow(HistogramAttainmentOut):
    position: int


class SweepHistogramAttainment(Answer):
    """A sweep page's attainment bounds at the default SLO preset (`slo` names it)."""

    slo: str
    limits: list[HistogramLimit]
    target: float
    points: list[SweepHistogramRow]
    rule: str
