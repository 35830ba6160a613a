"""One SLO limit checked at one point: the percentile it reads (the file's stored statistic,
else the point's request samples, bounded by the stored ones) and its pass, fail or unknown.

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from app.domain.failures import Failed, failed_of
from app.domain.numbers import fmt_count, fmt_load, fmt_pair
from app.domain.point import METRIC_LABELS, Metric, PointMetrics, Stat

# A percentile is written "p<percent>", e.g. "p90" or "p99.9"; any from p50 to p99.9 may be asked.
Percentile = str
Status = Literal["pass", "fail", "unknown"]
# What a table and the JSON say: "borderline" when the attainment interval straddles the target.
ShownStatus = Literal["pass", "borderline", "fail", "unknown"]
# "bound": the samples' value contradicts a stored percentile, which then only bounds it.
Source = Literal["stored", "samples", "bound"]
STORED_PERCENTILES: tuple[Percentile, ...] = ("p50", "p90", "p95", "p99")
# The percentiles a file can store, as the statistic names of LatencyStats.
STORED_STATS: dict[Percentile, Stat] = {"p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
# What the forms offer; the API accepts any percentile in [p50, p99.9].
PERCENTILE_CHOICES: tuple[Percentile, ...] = ("p50", "p75", "p90", "p95", "p99", "p99.9")
PERCENTILE_PATTERN = r"^p(50|[5-9][0-9])(\.[0-9])?$"
# What a reader is told about a bad percentile (the pattern above is for the schema, not people).
PERCENTILE_WORDS = "percentiles go from p50 to p99.9, e.g. p99"
_PERCENTILE_RE = re.compile(PERCENTILE_PATTERN)


def percentile_percent(percentile: Percentile) -> float:
    """The percent of "p90" (90.0) or "p99.9" (99.9); ValueError outside p50 … p99.9."""
    if not isinstance(percentile, str) or not _PERCENTILE_RE.match(percentile):
        raise ValueError(f"{PERCENTILE_WORDS}; got {percentile!r}")
    return float(percentile[1:])


@dataclass(frozen=True)
class SampleValue:
    """A percentile computed from a point's request samples, and how many requests it is over."""

    value_ms: float | None
    count: int
    undefined: int = 0  # TPOT: successful one-token requests, which have none (left out)


# Per point: (metric, percentile) → the value from its request samples.
SamplePercentiles = Mapping[tuple[Metric, Percentile], SampleValue]


@dataclass(frozen=True)
class Bound:
    """A sample-derived percentile that contradicts one the file stores (a percentile never
    falls as the percentile rises): the stored one wins and only bounds the asked one.

    `at_least`: the samples give less than a stored lower percentile (value ≥ stored_ms);
    else they give more than a stored higher one (value ≤ stored_ms)."""

    stored: Percentile
    stored_ms: float
    sample_ms: float
    at_least: bool

    def judge(self, limit: float) -> Status:
        """fail when even the bound breaks the limit, pass when even it meets it, else unknown."""
        if self.at_least:
            return "fail" if self.stored_ms > limit else "unknown"
        return "pass" if self.stored_ms <= limit else "unknown"


@dataclass(frozen=True)
class Check:
    """One limit checked at one point: value and limit in ms, pass/fail/unknown.

    `source` says where the value came from: the file's stored statistic or the point's request
    samples (`n_samples` of them); `stored` lists the percentiles the file has for this metric;
    `bound` is set when the samples contradict a stored percentile (see Bound); `undefined`
    counts the successful one-token requests a TPOT from samples leaves out.
    """

    metric: Metric
    stat: Percentile
    value_ms: float | None
    limit_ms: float
    status: Status
    source: Source | None = None
    n_samples: int | None = None
    stored: tuple[Percentile, ...] = ()
    bound: Bound | None = None
    undefined: int = 0
    # Set when the point's failed share alone breaks this percentile (see app.domain.failures).
    failed: Failed | None = None

    def describe(self) -> str:
        """E.g. 'p90 TTFT 260 ms > 200 ms', '… (from 120 request samples)' or why unknown."""
        name = f"{self.stat} {METRIC_LABELS[self.metric]}"
        if self.failed is not None:
            return f"{name} cannot be met: {self.failed.limit_text(self.stat, _pct(self.stat))}"
        if self.bound is not None:
            return self._describe_bound(name, self.bound)
        if self.value_ms is None:
            return f"{name} not measured: {self.how_to_get()}"
        op = "≤" if self.status == "pass" else ">"
        value, limit = fmt_pair(self.value_ms, self.limit_ms, "ms")
        text = f"{name} {value} {op} {limit}"
        if self.source == "samples":
            text += f" (from {fmt_count(self.n_samples, 'request sample')}{self._left_out()})"
        return text

    def _left_out(self) -> str:
        if not self.undefined:
            return ""
        return f"; {fmt_count(self.undefined, 'one-token request')} without a TPOT left out"

    def _describe_bound(self, name: str, bound: Bound) -> str:
        stored, sample = fmt_pair(bound.stored_ms, bound.sample_ms, "ms")
        limit = fmt_load(self.limit_ms, "ms")
        side = "below" if bound.at_least else "above"
        clash = (
            f"the request samples give {sample}, {side} the file's own {bound.stored} of "
            f"{stored}, so they are not used"
        )
        sign = "≥" if bound.at_least else "≤"
        if self.status == "unknown":
            says = f"the file's {bound.stored} only says {name} {sign} {stored}"
            return f"{name} unknown: {clash}; {says}"
        op = ">" if self.status == "fail" else "≤"
        return f"{name} {sign} {stored} (the file's {bound.stored}) {op} {limit}; {clash}"

    def how_to_get(self) -> str:
        """What would answer a missing statistic: another percentile, or per-request data."""
        label = METRIC_LABELS[self.metric]
        if self.n_samples == 0:
            if self.undefined:
                return (
                    f"every successful request sample has one output token "
                    f"({fmt_count(self.undefined, 'request')}), and a one-token request has no "
                    "TPOT"
                )
            return f"no successful request sample has a {label}"
        if self.stored:
            return (
                f"the file has {label} at {', '.join(self.stored)}; check one of those, "
                "or upload per-request data"
            )
        return f"the file has no {label} percentile; upload per-request data"


def check_limit(
    point: PointMetrics,
    metric: Metric,
    stat: Percentile,
    limit: float,
    samples: SamplePercentiles | None = None,
) -> Check:
    """One limit at one point, with where its value came from."""
    value, source, count, bound = checked_value(point, metric, stat, samples)
    if bound is not None:
        status = bound.judge(limit)
    else:
        status = "unknown" if value is None else "pass" if value <= limit else "fail"
    stored: tuple[Percentile, ...] = ()
    if value is None and bound is None:  # only an unknown check says which percentiles it has
        stored = tuple(p for p, _ in point.latency(metric).stored())
    found = samples.get((metric, stat)) if samples is not None and source != "stored" else None
    undefined = found.undefined if found is not None else 0
    failed = too_many_failed(point, stat)
    if failed is not None:
        status = "fail"
    return Check(
        metric, stat, value, limit, status, source, count, stored, bound, undefined, failed
    )


INVALID_RUN = Failed(1, 1, invalid=True)


def too_many_failed(point: PointMetrics, stat: Percentile) -> Failed | None:
    """The point's failures when their share exceeds 1 − p for this percentile: then no
    latency can meet the limit (a failed request misses every limit). A run its harness ruled
    INVALID fails every limit."""
    if point.invalid:
        return INVALID_RUN
    failed = failed_of(point)
    return failed if failed is not None and failed.exceeds(_pct(stat)) else None


def _pct(stat: Percentile) -> float:
    return percentile_percent(stat)


def stored_value(point: PointMetrics, metric: Metric, stat: Percentile) -> float | None:
    """The file's own statistic, None when it did not store this percentile."""
    return point.latency(metric).percentile(stat)


def value_ms(
    point: PointMetrics, metric: Metric, stat: Percentile, samples: SamplePercentiles | None
) -> float | None:
    """The value a check of this limit compares: stored statistic, else the samples' percentile;
    None where neither is known or the samples contradict the stored percentiles (a bound
    only, see Bound)."""
    value, _, _, bound = checked_value(point, metric, stat, samples)
    return None if bound is not None else value


def checked_value(
    point: PointMetrics, metric: Metric, stat: Percentile, samples: SamplePercentiles | None
) -> tuple[float | None, Source | None, int | None, Bound | None]:
    """The stored statistic where it exists, else the request samples' percentile, unless that
    falls below a stored lower percentile or above a stored higher one: then the stored
    neighbour, as a bound (value None)."""
    stats = point.latency(metric)
    stored = stats.percentile(stat)
    if stored is not None:
        return stored, "stored", None, None
    if samples is not None:
        found = samples.get((metric, stat))
        if found is not None:
            if found.value_ms is None:
                return None, None, found.count, None
            bound = _contradiction(stats.stored(), stat, found.value_ms)
            if bound is not None:
                return None, "bound", found.count, bound
            return found.value_ms, "samples", found.count, None
    return None, None, None, None


def _contradiction(
    stored: Sequence[tuple[Percentile, float]], stat: Percentile, sample_ms: float
) -> Bound | None:
    """The stored percentile a sample value contradicts: the highest-valued lower one it falls
    below, else the lowest-valued higher one it exceeds; None when the order holds."""
    q = percentile_percent(stat)
    lower = [(v, p) for p, v in stored if float(p[1:]) < q]
    higher = [(v, p) for p, v in stored if float(p[1:]) > q]
    if lower:
        floor_ms, floor = max(lower)
        if sample_ms < floor_ms:
            return Bound(floor, floor_ms, sample_ms, at_least=True)
    if higher:
        ceiling_ms, ceiling = min(higher)
        if sample_ms > ceiling_ms:
            return Bound(ceiling, ceiling_ms, sample_ms, at_least=False)
    return None
