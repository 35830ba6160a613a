"""SLO attainment read off a point's latency histograms (issue 51): the share of requests under
each limit, exact when the limit is a bucket bound and only BOUNDED when it falls between two
(app.domain.prom_histogram.attainment), and the share under every limit at once, bounded by
Fréchet because separate histograms do not say which requests missed which limit.

The MLCommons endpoints client writes a histogram per metric (`<metric>_histogram_ms` in a
point's extra fields: cumulative counts per upper bound in ms, the last bound +Inf). A share is
of the issued requests: failed ones (the point's num_failed) are misses at every limit.

Never a point value: a bounded share is [lower, upper], and the verdict against the attainment
target is pass only when even the lower bound meets it, fail when even the upper misses it,
else unknown (borderline).

Pure math: standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.domain.numbers import finite_number
from app.domain.point import Metric
from app.domain.prom_histogram import (
    Attainment,
    HistogramError,
    Verdict,
    attainment,
    histogram_of,
    joint_bounds,
    verdict,
)

METRICS: tuple[str, ...] = ("ttft", "tpot", "e2el")
MAX_BUCKETS = 10_000  # as the importer bounds them


def histogram_key(metric: str) -> str:
    """Where a point's extra fields keep a metric's histogram: `ttft_histogram_ms`."""
    return f"{metric}_histogram_ms"


@dataclass(frozen=True)
class LimitShare:
    """The share of issued requests whose `metric` is at most `limit_ms`: [lower, upper]."""

    metric: Metric
    limit_ms: float
    lower: float
    upper: float

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


@dataclass(frozen=True)
class HistogramAttainment:
    """Every limited metric's share, and the share meeting every limit at once, as bounds."""

    limits: tuple[LimitShare, ...]
    lower: float
    upper: float
    target: float
    verdict: Verdict
    issued: float  # requests the shares are of (observed + failed)


def point_histograms(extra: Mapping[str, Any]) -> dict[str, tuple[list[float], list[float]]]:
    """{metric: (bounds in ms, cumulative counts)} of the histograms in a point's extra fields
    (a bound stored as null or "Infinity" is +Inf); a malformed one is left out."""
    out: dict[str, tuple[list[float], list[float]]] = {}
    for metric in METRICS:
        found = extra.get(histogram_key(metric))
        if not isinstance(found, Mapping):
            continue
        bounds, counts = found.get("bounds_ms"), found.get("counts")
        if not isinstance(bounds, list) or not isinstance(counts, list):
            continue
        if not 0 < len(bounds) == len(counts) <= MAX_BUCKETS + 1:
            continue
        read_bounds = [_bound(b) for b in bounds]
        read_counts = [finite_number(c, text=False) for c in counts]
        if any(b is None for b in read_bounds) or any(c is None for c in read_counts):
            continue
        out[metric] = ([float(b or 0) for b in read_bounds], [float(c or 0) for c in read_counts])
    return out


def _bound(value: Any) -> float | None:
    if value is None or (isinstance(value, str) and value.lower() in ("inf", "+inf", "infinity")):
        return math.inf
    if isinstance(value, float) and math.isinf(value) and value > 0:
        return math.inf
    return finite_number(value, text=False)


def histogram_attainment(
    histograms: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    limits: Sequence[tuple[Metric, float]],
    target: float,
    failed: int | None = None,
) -> HistogramAttainment | None:
    """The bounds at these (metric, limit in ms) pairs; None unless every limited metric has a
    histogram with observations (a limit without one cannot be read off buckets)."""
    if not limits:
        return None
    shares: list[LimitShare] = []
    parts: list[Attainment] = []
    issued = 0.0
    for metric, limit_ms in limits:
        found = histograms.get(metric)
        if found is None:
            return None
        try:
            hist = histogram_of(dict(zip(found[0], found[1], strict=True)), metric)
            share = attainment(hist, limit_ms)
        except HistogramError:
            return None
        issued = max(issued, hist.total + (failed or 0))
        scale = hist.total / issued if issued else 0.0
        scaled = Attainment(limit_ms, share.lower * scale, share.upper * scale)
        parts.append(scaled)
        shares.append(LimitShare(metric, limit_ms, scaled.lower, scaled.upper))
    lower, upper = joint_bounds(parts)
    return HistogramAttainment(
        tuple(shares), lower, upper, target, verdict(lower, upper, target), issued
    )


def bounds_text(lower: float, upper: float) -> str:
    """'between 98.65 % and 99.35 %', or 'exactly 98.65 %' on a bucket bound."""
    if lower == upper:
        return f"exactly {lower * 100:.2f} %"
    return f"between {lower * 100:.2f} % and {upper * 100:.2f} %"
