"""A latency histogram's bucket deltas: percentiles as Prometheus's histogram_quantile reads
them, and SLO attainment with bounds when a limit is not a bucket boundary.

Pure: standard library only. Bounds are in ms (engines export seconds; ×1000 on the way in).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from app.domain.metrics import frechet_bounds
from app.domain.numbers import fmt_number

Verdict = Literal["pass", "fail", "unknown"]
QUANTILE_RULE = (
    "histogram_quantile's rule: linear interpolation inside the bucket that holds the rank "
    "(the first bucket starts at 0); a rank in the +Inf bucket reads the highest finite bound"
)


class HistogramError(ValueError):
    """The buckets cannot be read as a histogram; the message says why."""


@dataclass(frozen=True)
class Histogram:
    """Cumulative counts per upper bound (ms), ascending, the last bound +Inf."""

    bounds_ms: tuple[float, ...]
    counts: tuple[float, ...]
    sum_ms: float | None = None  # the _sum series' increase: the exact mean is sum ÷ count

    @property
    def total(self) -> float:
        return self.counts[-1]

    @property
    def mean_ms(self) -> float | None:
        """The exact mean (_sum ÷ _count), not read off buckets; None without a _sum."""
        if self.sum_ms is None or self.total <= 0:
            return None
        return self.sum_ms / self.total


@dataclass(frozen=True)
class Quantile:
    """A percentile read off the buckets: the estimate and the bucket it lies in."""

    value_ms: float | None
    bucket_ms: tuple[float, float] | None  # (lower, upper]; upper may be inf
    reason: str | None = None


@dataclass(frozen=True)
class Attainment:
    """Share of observations ≤ the limit: exact when the limit is a bound, else [lower, upper]."""

    limit_ms: float
    lower: float
    upper: float

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


def histogram_of(
    buckets: Mapping[float, float], what: str, sum_ms: float | None = None
) -> Histogram:
    """A histogram from {upper bound in ms: cumulative count}; refuses with the reason."""
    if not buckets:
        raise HistogramError(f"{what}: no buckets")
    if math.inf not in buckets:
        raise HistogramError(f'{what}: the le="+Inf" bucket is missing')
    if len(buckets) < 2:
        raise HistogramError(f"{what}: only the +Inf bucket; percentiles need two or more")
    bounds = tuple(sorted(buckets))
    counts = tuple(buckets[b] for b in bounds)
    for i in range(1, len(counts)):
        if counts[i] < counts[i - 1]:
            raise HistogramError(
                f"{what}: bucket le={fmt_number(bounds[i] / 1000)} counts fewer than the one "
                "below it (buckets are cumulative)"
            )
    if any(c < 0 or not math.isfinite(c) for c in counts):
        raise HistogramError(f"{what}: a bucket count is negative or not finite")
    if sum_ms is not None and (not math.isfinite(sum_ms) or sum_ms < 0):
        raise HistogramError(f"{what}: the _sum is negative or not finite")
    return Histogram(bounds, counts, sum_ms)


def quantile(hist: Histogram, q: float) -> Quantile:
    """The q-quantile (0 < q ≤ 1) by histogram_quantile's rule (QUANTILE_RULE)."""
    if not 0.0 < q <= 1.0:
        raise ValueError(f"quantile must be in (0, 1], got {q}")
    total = hist.total
    if total <= 0:
        return Quantile(None, None, "no observations in the window")
    rank = q * total
    bounds, counts = hist.bounds_ms, hist.counts
    finite = len(bounds) - 1
    b = next((i for i in range(finite) if counts[i] >= rank), finite)
    if b == finite:
        top = bounds[finite - 1]
        return Quantile(top, (top, math.inf))
    upper = bounds[b]
    lower = 0.0 if b == 0 else bounds[b - 1]
    if b == 0 and upper <= 0:
        return Quantile(upper, (upper, upper))
    below = 0.0 if b == 0 else counts[b - 1]
    inside = counts[b] - below
    return Quantile(lower + (upper - lower) * (rank - below) / inside, (lower, upper))


def attainment(hist: Histogram, limit_ms: float) -> Attainment:
    """Share of observations ≤ limit_ms: a bucket boundary gives it exactly; between two
    boundaries it is the interval from the one below to the one above."""
    total = hist.total
    if total <= 0:
        raise HistogramError("no observations in the window")
    below = 0.0
    for bound, count in zip(hist.bounds_ms, hist.counts, strict=True):
        if bound == limit_ms:
            share = count / total
            return Attainment(limit_ms, share, share)
        if bound > limit_ms:
            return Attainment(limit_ms, below / total, count / total)
        below = count
    return Attainment(limit_ms, 1.0, 1.0)  # unreachable: the last bound is +Inf


def verdict(lower: float, upper: float, target: float) -> Verdict:
    """pass when even the lower bound meets the target, fail when the upper bound misses it,
    unknown (borderline) when the bounds straddle it."""
    if lower >= target:
        return "pass"
    if upper < target:
        return "fail"
    return "unknown"


def joint_bounds(parts: Sequence[Attainment]) -> tuple[float, float]:
    """Bounds on the share meeting every limit at once. Separate histograms do not say which
    requests missed which limit, so only the Fréchet bounds hold: [Σ lower − (K−1), min upper]."""
    if not parts:
        return (1.0, 1.0)
    lower, _ = frechet_bounds([p.lower for p in parts])
    _, upper = frechet_bounds([p.upper for p in parts])
    return (lower, upper)
