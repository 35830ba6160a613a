"""SLO attainment read off the latency histograms a file kept (issue 51), as the read-off
answers it: per point with histograms, the share of requests under each limit and under every
limit at once, always as bounds ([lower, upper]; equal only on a bucket bound), never as a
single value, with the verdict those bounds allow against the attainment target."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from app.domain.histogram_attainment import histogram_attainment
from app.domain.point import PointMetrics
from app.domain.verdict import Slo
from app.schemas.answers.typed.histograms import HistogramAttainmentOutDict
from app.services.analysis import SweepAnalysis
from app.services.sweeps.histogram_readoff import attainment_json


class HistogramField(TypedDict, total=False):
    """The read-off row's `histogram_attainment`, there only for a sweep that kept histograms."""

    histogram_attainment: list[HistogramAttainmentOutDict]


def point_rows(points: Iterable[PointMetrics], slo: Slo) -> list[HistogramAttainmentOutDict]:
    """Each point with histograms for every limited metric, read at the SLO's limits."""
    rows: list[HistogramAttainmentOutDict] = []
    for point in points:
        if not point.histograms:
            continue
        found = histogram_attainment(
            point.histograms, list(slo.limits()), slo.attainment, point.num_failed
        )
        if found is not None:
            rows.append(attainment_json(point.point_id, found))
    return rows


def result_json(result: SweepAnalysis, slo: Slo) -> HistogramField:
    """{"histogram_attainment": [...]} for a sweep whose points kept histograms, else {}: the
    answers of sweeps without any stay as small as before."""
    rows = point_rows(result.points, slo)
    return {"histogram_attainment": rows} if rows else {}
