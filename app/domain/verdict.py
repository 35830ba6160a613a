"""An SLO and the verdict of one measured point against it (pass, fail or unknown).

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property
from typing import Literal

from app.domain.metrics import interactivity_tok_s_user
from app.domain.numbers import fmt_count, fmt_load, fmt_number, fmt_pair
from app.domain.point import METRIC_LABELS, METRICS, Metric, PointMetrics, Stat
from app.domain.request_goodput import RequestStats

# A percentile is written "p<percent>", e.g. "p90" or "p99.9"; any from p50 to p99.9 may be asked.
Percentile = str
Status = Literal["pass", "fail", "unknown"]
# What a table and the JSON say: "borderline" when the attainment interval straddles the target.
ShownStatus = Literal["pass", "borderline", "fail", "unknown"]
# "bound": the samples' value contradicts a stored percentile, which then only bounds it.
Source = Literal["stored", "samples", "bound"]
STORED_PERCENTILES: tuple[Percentile, ...] = ("p50", "p90", "p95", "p99")
# The percentiles a file can store, as the statistic names of LatencyStats.
_STORED: dict[Percentile, Stat] = {"p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
# What the forms offer; the API accepts any percentile in [p50, p99.9].
PERCENTILE_CHOICES: tuple[Percentile, ...] = ("p50", "p75", "p90", "p95", "p99", "p99.9")
PERCENTILE_PATTERN = r"^p(50|[5-9][0-9])(\.[0-9])?$"
_PERCENTILE_RE = re.compile(PERCENTILE_PATTERN)


def percentile_percent(percentile: Percentile) -> float:
    """The percent of "p90" (90.0) or "p99.9" (99.9); ValueError outside p50 … p99.9."""
    if not isinstance(percentile, str) or not _PERCENTILE_RE.match(percentile):
        raise ValueError(f"percentile must be p50 … p99.9 (e.g. p75, p99.9), got {percentile!r}")
    return float(percentile[1:])


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

    def describe(self) -> str:
        """E.g. 'p90 TTFT 260 ms > 200 ms', '… (from 120 request samples)' or why unknown."""
        name = f"{self.stat} {METRIC_LABELS[self.metric]}"
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
    contradicts a stored percentile is not used: the stored one bounds it (see Bound)."""
    failed = unknown = False
    for metric, stat, limit in slo.checked():
        # Hot path (every point of every read-off): the stored statistic first, inline.
        name = _STORED.get(stat)
        stats = point.latency(metric)
        value = stats.get(name) if name is not None else stats.percentile(stat)
        status: Status | None = None
        if value is None and samples is not None:
            value, _, _, bound = _value(point, metric, stat, samples)
            if bound is not None:
                status = bound.judge(limit)
        if status is None:
            status = "unknown" if value is None else "fail" if value > limit else "pass"
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
    checks = [(columns(metric, stat), limit) for metric, stat, limit in slo.checked()]
    verdicts = []
    for index, point in enumerate(points):
        failed = unknown = False
        for column, limit in checks:
            value = column[index]
            if value is None:
                unknown = True
            elif value > limit:
                failed = True
        overall: Status = "fail" if failed else "unknown" if unknown else "pass"
        verdicts.append(_judged(point, overall, slo))
    return tuple(verdicts)


def check_limit(
    point: PointMetrics,
    metric: Metric,
    stat: Percentile,
    limit: float,
    samples: SamplePercentiles | None = None,
) -> Check:
    """One limit at one point, with where its value came from."""
    value, source, count, bound = _value(point, metric, stat, samples)
    if bound is not None:
        status = bound.judge(limit)
    else:
        status = "unknown" if value is None else "pass" if value <= limit else "fail"
    stored: tuple[Percentile, ...] = ()
    if value is None and bound is None:  # only an unknown check says which percentiles it has
        stored = tuple(p for p, _ in point.latency(metric).stored())
    found = samples.get((metric, stat)) if samples is not None and source != "stored" else None
    undefined = found.undefined if found is not None else 0
    return Check(metric, stat, value, limit, status, source, count, stored, bound, undefined)


def stored_value(point: PointMetrics, metric: Metric, stat: Percentile) -> float | None:
    """The file's own statistic, None when it did not store this percentile."""
    return point.latency(metric).percentile(stat)


def value_ms(
    point: PointMetrics, metric: Metric, stat: Percentile, samples: SamplePercentiles | None
) -> float | None:
    """The value a check of this limit compares: stored statistic, else the samples' percentile;
    None where neither is known or the samples contradict the stored percentiles (a bound
    only, see Bound)."""
    value, _, _, bound = _value(point, metric, stat, samples)
    return None if bound is not None else value


def _value(
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
