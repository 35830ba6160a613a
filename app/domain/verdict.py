"""An SLO and the verdict of one measured point against it (pass, fail or unknown).

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property

from app.domain.checks import PERCENTILE_CHOICES as PERCENTILE_CHOICES
from app.domain.checks import PERCENTILE_PATTERN as PERCENTILE_PATTERN
from app.domain.checks import STORED_PERCENTILES as STORED_PERCENTILES
from app.domain.checks import STORED_STATS, checked_value, too_many_failed
from app.domain.checks import Bound as Bound
from app.domain.checks import Check as Check
from app.domain.checks import Percentile as Percentile
from app.domain.checks import SamplePercentiles as SamplePercentiles
from app.domain.checks import SampleValue as SampleValue
from app.domain.checks import ShownStatus as ShownStatus
from app.domain.checks import Source as Source
from app.domain.checks import Status as Status
from app.domain.checks import check_limit as check_limit
from app.domain.checks import percentile_percent as percentile_percent
from app.domain.checks import stored_value as stored_value
from app.domain.checks import value_ms as value_ms
from app.domain.metrics import interactivity_tok_s_user
from app.domain.numbers import fmt_count, fmt_load, fmt_number, fmt_pair
from app.domain.point import METRIC_LABELS, METRICS, Metric, PointMetrics
from app.domain.request_goodput import RequestStats


@dataclass(frozen=True)
class Slo:
    """Latency limits in ms (None = not checked), each at its percentile, and an attainment target.

    `percentile` is the default for every limit; `ttft_percentile`, `tpot_percentile` and
    `e2el_percentile` override it per limit (e.g. p99 TTFT with p50 TPOT).
    """

    ttft_ms: float | None = None
    tpot_ms: float | None = None
    e2el_ms: float | None = None
    percentile: Percentile = "p90"
    attainment: float = 0.9
    ttft_percentile: Percentile | None = None
    tpot_percentile: Percentile | None = None
    e2el_percentile: Percentile | None = None

    def __post_init__(self) -> None:
        for metric, limit in self.limits():
            if math.isnan(limit) or limit < 0:
                raise ValueError(f"{METRIC_LABELS[metric]} limit must be ≥ 0 ms, got {limit}")
        for p in (
            self.percentile,
            self.ttft_percentile,
            self.tpot_percentile,
            self.e2el_percentile,
        ):
            if p is not None:
                percentile_percent(p)
        if not 0.0 < self.attainment <= 1.0:
            raise ValueError(f"attainment target must be in (0, 1], got {self.attainment}")

    @property
    def min_tok_s_user(self) -> float | None:
        """Interactivity implied by the TPOT limit, 1000 / TPOT in tok/s/user; None if unlimited."""
        return interactivity_tok_s_user(self.tpot_ms)

    def stat(self, metric: Metric) -> Percentile:
        """The percentile this metric's limit is checked at (its own, else the default)."""
        own = {
            "ttft": self.ttft_percentile,
            "tpot": self.tpot_percentile,
            "e2el": self.e2el_percentile,
        }[metric]
        return own or self.percentile

    def limits(self) -> tuple[tuple[Metric, float], ...]:
        """The set limits as (metric, ms) pairs in TTFT, TPOT, E2EL order."""
        return self._limits

    @cached_property
    def _limits(self) -> tuple[tuple[Metric, float], ...]:
        # Read once per point of every read-off: computed once per SLO.
        values = (self.ttft_ms, self.tpot_ms, self.e2el_ms)
        return tuple((m, v) for m, v in zip(METRICS, values, strict=True) if v is not None)

    def checked(self) -> tuple[tuple[Metric, Percentile, float], ...]:
        """The set limits as (metric, percentile, ms) triples in TTFT, TPOT, E2EL order."""
        return self._checked

    @cached_property
    def _checked(self) -> tuple[tuple[Metric, Percentile, float], ...]:
        return tuple((m, self.stat(m), v) for m, v in self.limits())

    def quantiles(self) -> list[float]:
        """Each set limit's percentile as a share, e.g. [0.99, 0.5] for p99 TTFT and p50 TPOT."""
        return [percentile_percent(p) / 100 for _, p, _ in self.checked()]

    def describe(self, per_request: bool = False) -> str:
        """Human summary, e.g. 'p99 TTFT ≤ 2,000 ms, p50 TPOT ≤ 20 ms'; 'no limits' if none set.

        Per-request mode checks every request against the limits, so no percentile is named.
        """
        parts = [
            f"{'' if per_request else p + ' '}{METRIC_LABELS[m]} ≤ {fmt_load(v, 'ms')}"
            for m, p, v in self.checked()
        ]
        return ", ".join(parts) if parts else "no limits"


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
    samples: SamplePercentiles | None = field(default=None, repr=False, compare=False)
    # Per-request mode: the attainment's interval (low, high) and whether it holds the target.
    attainment_ci: tuple[float, float] | None = None
    borderline: bool = False
    # Repeated runs at this point's load that disagree on the SLO: (runs meeting it, runs).
    # The load is then borderline, never a pass (app.domain.run_agreement).
    runs: tuple[int, int] | None = None

    @property
    def shown_status(self) -> ShownStatus:
        """pass / fail as measured, "borderline" when the interval straddles the target."""
        if self.borderline and self.status != "unknown":
            return "borderline"
        return self.status

    @property
    def checks(self) -> tuple[Check, ...]:
        if self.point is None or self.slo is None:
            return ()
        return tuple(
            check_limit(self.point, m, p, limit, self.samples) for m, p, limit in self.slo.checked()
        )

    @property
    def reason(self) -> str:
        if self.runs is None:
            return self._own_reason()
        # Each run's own checks, met or not: which run missed, and by how much.
        own = (
            self._own_reason()
            if self.note is not None or self.requests is not None
            else "; ".join(c.describe() for c in self.checks)
        )
        return f"{runs_text(*self.runs)} at this load" + (f"; this run: {own}" if own else "")

    def _own_reason(self) -> str:
        if self.note is not None:
            return self.note
        if self.requests is not None and self.slo is not None:
            return attainment_reason(self.requests, self.slo.attainment)
        if self.status == "pass":
            return "; ".join(c.describe() for c in self.checks) or "no limits set"
        fails = [c.describe() for c in self.checks if c.status == "fail"]
        unknowns = [c.describe() for c in self.checks if c.status == "unknown"]
        return "; ".join(fails + unknowns)

    @property
    def attainment(self) -> float | None:
        """Share of issued requests that were good (per-request mode only)."""
        return self.requests.attainment if self.requests else None


def runs_text(meeting: int, runs: int) -> str:
    """ "1 of 2 runs meets the SLO"."""
    verb = "meets" if meeting == 1 else "meet"
    return f"{fmt_number(meeting)} of {fmt_number(runs)} runs {verb} the SLO"


# Every field's default, for `_judged`.
_VERDICT_DEFAULTS = {f.name: f.default for f in fields(Verdict) if f.default is not MISSING}


def _judged(
    point: PointMetrics, status: Status, slo: Slo, samples: SamplePercentiles | None = None
) -> Verdict:
    """`Verdict(point.point_id, status, point=point, slo=slo, samples=samples)`, made without
    the frozen dataclass's __init__ (a guarded setattr per field): a read-off makes one per
    point on every new SLO, and this costs less than half. Frozen all the same afterwards."""
    verdict = object.__new__(Verdict)
    verdict.__dict__.update(
        _VERDICT_DEFAULTS,
        point_id=point.point_id,
        status=status,
        point=point,
        slo=slo,
        samples=samples,
    )
    return verdict


def attainment_verdict(
    point_id: int,
    status: Status,
    stats: RequestStats,
    slo: Slo,
    ci: tuple[float, float],
    borderline: bool,
) -> Verdict:
    """A per-request verdict, `Verdict(point_id, status, requests=stats, slo=slo,
    attainment_ci=ci, borderline=borderline)`, made as `_judged` makes one."""
    verdict = object.__new__(Verdict)
    verdict.__dict__.update(
        _VERDICT_DEFAULTS,
        point_id=point_id,
        status=status,
        requests=stats,
        slo=slo,
        attainment_ci=ci,
        borderline=borderline,
    )
    return verdict


def attainment_reason(stats: RequestStats, target: float) -> str:
    """A per-request verdict in words: attainment against the target, with its counts."""
    passed = stats.attainment >= target
    got, wanted = fmt_pair(stats.attainment * 100, target * 100, "%")
    return (
        f"attainment {got} {'≥' if passed else '<'} {wanted} "
        f"({fmt_number(stats.good)} of {fmt_count(stats.issued, 'request')} good)"
    )


def point_verdict(
    point: PointMetrics, slo: Slo, samples: SamplePercentiles | None = None
) -> Verdict:
    """Check each limit at its percentile (equality passes): the stored statistic where the file
    has it, else the point's request samples; neither = unknown, never pass. A sample value that
    contradicts a stored percentile is not used: the stored one bounds it (see Bound). A
    point whose failed share exceeds 1 − p fails a p-th percentile limit (app.domain.failures)."""
    failed = unknown = False
    failures = bool(point.num_failed) or point.invalid
    for metric, stat, limit in slo.checked():
        # Hot path (every point of every read-off): the stored statistic first, inline.
        name = STORED_STATS.get(stat)
        stats = point.latency(metric)
        value = stats.get(name) if name is not None else stats.percentile(stat)
        status: Status | None = None
        if value is None and samples is not None:
            value, _, _, bound = checked_value(point, metric, stat, samples)
            if bound is not None:
                status = bound.judge(limit)
        if status is None:
            status = "unknown" if value is None else "fail" if value > limit else "pass"
        if failures and too_many_failed(point, stat) is not None:
            status = "fail"  # a failed request misses every limit (app.domain.failures)
        if status == "unknown":
            unknown = True
        elif status == "fail":
            failed = True
    overall: Status = "fail" if failed else "unknown" if unknown else "pass"
    return _judged(point, overall, slo, samples)


# The values a percentile-mode check compares, per point, for a (metric, percentile): stored,
# else from request samples (see sensitivity.point_values). Callers that see the same points
# again keep them and hand them in.
Columns = Callable[[Metric, Percentile], Sequence[float | None]]


def column_verdicts(
    points: Sequence[PointMetrics], slo: Slo, columns: Columns
) -> tuple[Verdict, ...]:
    """`point_verdict` of every point (no samples), judged from the `columns` of values the
    checks compare: a comparison per limit per point, not a lookup of each stored statistic."""
    checks = [(columns(metric, stat), limit, stat) for metric, stat, limit in slo.checked()]
    verdicts = []
    for index, point in enumerate(points):
        failed = unknown = False
        for column, limit, stat in checks:
            value = column[index]
            if (point.num_failed or point.invalid) and too_many_failed(point, stat) is not None:
                failed = True
            elif value is None:
                unknown = True
            elif value > limit:
                failed = True
        overall: Status = "fail" if failed else "unknown" if unknown else "pass"
        verdicts.append(_judged(point, overall, slo))
    return tuple(verdicts)
