"""An SLO and the verdict of one measured point against it (pass, fail or unknown).

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from app.domain.metrics import format_number, interactivity_tok_s_user
from app.domain.point import METRIC_LABELS, METRICS, Metric, PointMetrics
from app.domain.request_goodput import RequestStats

Percentile = Literal["p50", "p90", "p95", "p99"]
Status = Literal["pass", "fail", "unknown"]
PERCENTILE_VALUES: tuple[Percentile, ...] = ("p50", "p90", "p95", "p99")


@dataclass(frozen=True)
class Slo:
    """Latency limits in ms (None = not checked), their percentile, and an attainment target."""

    ttft_ms: float | None = None
    tpot_ms: float | None = None
    e2el_ms: float | None = None
    percentile: Percentile = "p90"
    attainment: float = 0.9

    def __post_init__(self) -> None:
        for metric, limit in self.limits():
            if math.isnan(limit) or limit < 0:
                raise ValueError(f"{METRIC_LABELS[metric]} limit must be ≥ 0 ms, got {limit}")
        if self.percentile not in PERCENTILE_VALUES:
            raise ValueError(f"percentile must be one of {PERCENTILE_VALUES}")
        if not 0.0 < self.attainment <= 1.0:
            raise ValueError(f"attainment target must be in (0, 1], got {self.attainment}")

    @classmethod
    def from_min_tok_s_user(
        cls,
        min_tok_s_user: float,
        *,
        ttft_ms: float | None = None,
        e2el_ms: float | None = None,
        percentile: Percentile = "p90",
        attainment: float = 0.9,
    ) -> Slo:
        """SLO whose TPOT limit is 1000 / min tok/s/user ms; the minimum must be > 0."""
        if not min_tok_s_user > 0:
            raise ValueError("minimum tok/s/user must be > 0")
        return cls(ttft_ms, 1000.0 / min_tok_s_user, e2el_ms, percentile, attainment)

    @property
    def min_tok_s_user(self) -> float | None:
        """Interactivity implied by the TPOT limit, 1000 / TPOT in tok/s/user; None if unlimited."""
        return interactivity_tok_s_user(self.tpot_ms)

    def limits(self) -> tuple[tuple[Metric, float], ...]:
        """The set limits as (metric, ms) pairs in TTFT, TPOT, E2EL order."""
        return self._limits

    @cached_property
    def _limits(self) -> tuple[tuple[Metric, float], ...]:
        # Read once per point of every read-off: computed once per SLO.
        values = (self.ttft_ms, self.tpot_ms, self.e2el_ms)
        return tuple((m, v) for m, v in zip(METRICS, values, strict=True) if v is not None)

    def describe(self) -> str:
        """Human summary, e.g. 'p90 TTFT ≤ 200 ms, p90 TPOT ≤ 50 ms'; 'no limits' if none set."""
        parts = [
            f"{self.percentile} {METRIC_LABELS[m]} ≤ {format_number(v)} ms"
            for m, v in self.limits()
        ]
        return ", ".join(parts) if parts else "no limits"


@dataclass(frozen=True)
class Check:
    """One limit checked at one point: value and limit in ms, pass/fail/unknown."""

    metric: Metric
    stat: Percentile
    value_ms: float | None
    limit_ms: float
    status: Status

    def describe(self) -> str:
        """E.g. 'p90 TTFT 260 ms > 200 ms' or 'p90 TPOT not measured'."""
        name = f"{self.stat} {METRIC_LABELS[self.metric]}"
        if self.value_ms is None:
            return f"{name} not measured"
        op = "≤" if self.status == "pass" else ">"
        return f"{name} {format_number(self.value_ms)} ms {op} {format_number(self.limit_ms)} ms"


@dataclass(frozen=True)
class Verdict:
    """Whether one point meets the SLO; `reason` names metric, value and limit.

    The checks and the reason are built on demand from the point and the SLO: read-offs over
    thousands of points only explain the few anyone shows.
    """

    point_id: int
    status: Status
    requests: RequestStats | None = None
    note: str | None = None  # a reason that is not a list of checks (per-request, unknown)
    point: PointMetrics | None = field(default=None, repr=False, compare=False)
    slo: Slo | None = field(default=None, repr=False, compare=False)

    @property
    def checks(self) -> tuple[Check, ...]:
        if self.point is None or self.slo is None:
            return ()
        return tuple(_check(self.point, self.slo, m, limit) for m, limit in self.slo.limits())

    @property
    def reason(self) -> str:
        if self.note is not None:
            return self.note
        if self.status == "pass":
            return "; ".join(c.describe() for c in self.checks) or "no limits set"
        fails = [c.describe() for c in self.checks if c.status == "fail"]
        unknowns = [c.describe() for c in self.checks if c.status == "unknown"]
        return "; ".join(fails + unknowns)

    @property
    def attainment(self) -> float | None:
        """Share of issued requests that were good (per-request mode only)."""
        return self.requests.attainment if self.requests else None


def point_verdict(point: PointMetrics, slo: Slo) -> Verdict:
    """Check each limit at the SLO percentile (equality passes); missing = unknown, never pass."""
    failed = unknown = False
    for metric, limit in slo.limits():
        value = point.latency(metric).get(slo.percentile)
        if value is None:
            unknown = True
        elif value > limit:
            failed = True
    overall: Status = "fail" if failed else "unknown" if unknown else "pass"
    return Verdict(point.point_id, overall, point=point, slo=slo)


def _check(point: PointMetrics, slo: Slo, metric: Metric, limit: float) -> Check:
    value = point.latency(metric).get(slo.percentile)
    status: Status = "unknown" if value is None else "pass" if value <= limit else "fail"
    return Check(metric, slo.percentile, value, limit, status)
