"""Compare and SLO-sensitivity glue: analysed sweeps in, ratio curves and sensitivity series out."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal

import polars as pl

from app.domain.accounting import ROLE_MODES, per_total_gpu
from app.domain.compare import (
    Frontier,
    RatioCurve,
    headline_points,
    range_ends_at,
    ratio_curve,
    values_at,
)
from app.domain.cost import usd_per_mtok
from app.domain.covariates import Caveat, warnings
from app.domain.estimate import load_order
from app.domain.likeness import Likeness, between, scenario_refusal
from app.domain.numbers import fmt_load
from app.domain.point import METRIC_LABELS, METRICS, Metric
from app.domain.sensitivity import (
    SensitivityStep,
    percentile_limits,
    point_values,
    request_buckets,
    request_limits,
    request_sensitivity,
    sensitivity,
    with_limit,
)
from app.domain.verdict import Percentile
from app.services.analysis import Params, SweepAnalysis
from app.services.prices import Price
from app.services.readoff.price_columns import PriceColumn
from app.services.readoff.units_shown import gpus_per_unit
from app.services.sweeps import point_splits
from app.services.sweeps.memo import check_values, keep, recall, remember


@dataclass(frozen=True)
class Headline:
    x_tok_s_user: float
    throughput_ratio: float | None
    cost_ratios: tuple[float | None, ...]  # one per price group
    at_range_end: tuple[str, ...] = ()  # names of the systems whose measured range ends here


@dataclass(frozen=True)
class Pair:
    """A system (a) against the baseline (b)."""

    a: SweepAnalysis
    b: SweepAnalysis
    curve: RatioCurve
    cost_curves: tuple[tuple[float | None, ...], ...]  # per price group, per curve point
    headlines: tuple[Headline, ...]
    slo_ratio: float | None  # a's goodput ÷ b's goodput at the current SLO
    slo_cost_ratios: tuple[float | None, ...]
    # Systems whose goodput sits at their heaviest measured load: the sweep may stop before
    # the SLO binds, so the goodput (and the ratio) is a bound, not the system's capacity.
    slo_at_range_end: tuple[str, ...] = ()
    curve_ends: tuple[tuple[str, ...], ...] = ()  # per curve point, as Headline.at_range_end
    # What differs between A and B (model, hardware, GPUs, precision, ISL/OSL, workload, source).
    likeness: Likeness = field(default_factory=lambda: Likeness(()))
    # Per price group, why a cost ratio is unknown: a system without its own GPU's price
    cost_reasons: tuple[str | None, ...] = ()
    # Split at equal GPUs, speculative method, acceptance or prefix-cache hits that differ.
    caveats: tuple[Caveat, ...] = ()
    # Why no ratio is given: the two measured different scenarios (issue 49), not asked to.
    refused: str | None = None


def frontier_of(result: SweepAnalysis) -> Frontier:
    xs = tuple(float(result.xs[i] or 0.0) for i in result.frontier)
    ys = tuple(float(result.ys[i] or 0.0) for i in result.frontier)
    return Frontier(xs, ys)


def pairs(
    results: list[SweepAnalysis],
    groups: list[PriceColumn],
    params: Params,
    allow_different: bool = False,
) -> list[Pair]:
    """Every sweep after the first against the first (the baseline); a pair of different
    scenarios gives no ratio unless `allow_different`, and says why."""
    if len(results) < 2:
        return []
    base = results[0]
    found = [_pair(a, base, groups, params) for a in results[1:]]
    return found if allow_different else [_refused(p) for p in found]


def _refused(pair: Pair) -> Pair:
    why = scenario_refusal(pair.likeness)
    if why is None:
        return pair
    return replace(
        pair,
        curve=RatioCurve((), None, why),
        cost_curves=tuple(() for _ in pair.cost_curves),
        headlines=(),
        slo_ratio=None,
        slo_cost_ratios=tuple(None for _ in pair.slo_cost_ratios),
        curve_ends=(),
        refused=why,
    )


def _pair(a: SweepAnalysis, b: SweepAnalysis, groups: list[PriceColumn], params: Params) -> Pair:
    fa, fb = frontier_of(a), frontier_of(b)
    curve = ratio_curve(fa, fb, params.interpolation)
    hw_a, hw_b = str(a.meta.hardware), str(b.meta.hardware)
    # Per accounting unit-hour, as the frontiers are per unit (the same per GPU-hour).
    units = (gpus_per_unit(a), gpus_per_unit(b))
    hourly = [_hourly(g.for_hardware(hw_a), g.for_hardware(hw_b), units) for g in groups]
    cost_curves = tuple(
        tuple(None if h is None else p.cost_ratio(*h) for p in curve.points) for h in hourly
    )
    headlines = _headlines(a, b, (fa, fb), curve, hourly, params)
    ga, gb = a.readoff.goodput_tok_s_per_gpu, b.readoff.goodput_tok_s_per_gpu
    slo_ratio = ga / gb if ga and gb else None
    slo_costs = _cost_ratios(hourly, ga, gb)
    varying = [str(r.meta.name) for r in (a, b) if _split_varies(r)]
    if varying:
        # Counted per decode or prefill GPU, each point has its own GPUs per unit: the curve's
        # costs would take the sweep's. Only the SLO's stays, read per total GPU-hour.
        at_slo = [_hourly(g.for_hardware(hw_a), g.for_hardware(hw_b)) for g in groups]
        ta, tb = a.goodput_tok_s_per_total_gpu, b.goodput_tok_s_per_total_gpu
        slo_costs = _cost_ratios(at_slo, ta, tb)
        cost_curves = tuple(tuple(None for _ in curve.points) for _ in hourly)
        headlines = [replace(h, cost_ratios=tuple(None for _ in hourly)) for h in headlines]
    slo_ends = tuple(str(r.meta.name) for r in (a, b) if _goodput_at_heaviest_load(r))
    curve_ends = tuple(
        range_ends_at(fa, fb, p.x_tok_s_user, str(a.meta.name), str(b.meta.name))
        for p in curve.points
    )
    return Pair(
        a,
        b,
        curve,
        cost_curves,
        tuple(headlines),
        slo_ratio,
        slo_costs,
        slo_ends,
        curve_ends,
        between(a.meta.as_dict(), b.meta.as_dict()),
        _cost_reasons(groups, a, b, varying),
        tuple(warnings(a.covariates, b.covariates) if a.covariates and b.covariates else ()),
    )


def _headlines(
    a: SweepAnalysis,
    b: SweepAnalysis,
    frontiers: tuple[Frontier, Frontier],
    curve: RatioCurve,
    hourly: list[tuple[float, float] | None],
    params: Params,
) -> list[Headline]:
    """The ratio and each price group's cost ratio at the headline interactivities."""
    fa, fb = frontiers
    headlines = []
    for x in headline_points(curve.shared_range):
        pair = values_at(fa, fb, x, params.interpolation)
        ratio = None if pair is None else pair[0] / pair[1]
        costs = tuple(
            None if pair is None or h is None else (h[0] / pair[0]) / (h[1] / pair[1])
            for h in hourly
        )
        ends = range_ends_at(fa, fb, x, str(a.meta.name), str(b.meta.name))
        headlines.append(Headline(x, ratio, costs, ends))
    return headlines


def _cost_ratios(
    hourly: list[tuple[float, float] | None], ga: float | None, gb: float | None
) -> tuple[float | None, ...]:
    """Each price group's $/Mtok ratio of a to b at goodputs ga and gb (None: not priced)."""
    return tuple(
        None if h is None or not ga or not gb else (h[0] / ga) / (h[1] / gb) for h in hourly
    )


def _cost_reasons(
    groups: list[PriceColumn], a: SweepAnalysis, b: SweepAnalysis, varying: list[str]
) -> tuple[str | None, ...]:
    """Why each price group gives no cost ratio; every group's, when a split varies."""
    reasons = tuple(_cost_reason(g, a, b) for g in groups)
    if varying:
        why = (
            f"{' and '.join(varying)}: the prefill:decode split changes along the sweep, so "
            "$/Mtok ratios are given only at the SLO (per total GPU-hour)"
        )
        reasons = tuple(r or why for r in reasons)
    return reasons


def _cost_reason(group: PriceColumn, a: SweepAnalysis, b: SweepAnalysis) -> str | None:
    """Why the group gives no cost ratio for the pair: a system without its own GPU's price."""
    whys = []
    for result in (a, b):
        why = group.missing(str(result.meta.hardware or ""))
        if why is not None:
            whys.append(f"{result.meta.name}: {why}")
    return "; ".join(whys) or None


def _split_varies(result: SweepAnalysis) -> bool:
    """Counted per decode or prefill GPU, with a split that changes along the sweep."""
    return (
        bool(result.point_splits)
        and result.units is not None
        and (result.units.accounting in ROLE_MODES)
    )


def _goodput_at_heaviest_load(result: SweepAnalysis) -> bool:
    """Whether the operating point is the sweep's heaviest measured load (and not its only)."""
    op = result.readoff.operating_point
    order = load_order(result.points)
    if op is None or len(order) < 2:
        return False
    return result.points[order[-1]].point_id == op.point_id


def _hourly(
    pa: Price | None, pb: Price | None, units: tuple[float, float] = (1.0, 1.0)
) -> tuple[float, float] | None:
    """Each system's cost per useful unit-hour (GPU-hour × GPUs per unit), when both have a
    price."""
    if pa is None or pb is None:
        return None
    ua, ub = units
    return pa.usd_per_gpu_hour / pa.utilization * ua, pb.usd_per_gpu_hour / pb.utilization * ub


@dataclass(frozen=True)
class SensitivitySeries:
    result: SweepAnalysis
    steps: tuple[SensitivityStep, ...]
    costs: tuple[float | None, ...]  # $/Mtok per step under the first applicable price


Mode = Literal["percentile", "requests"]


def sensitivity_series(
    results: list[SweepAnalysis],
    params: Params,
    metric: Metric,
    group: PriceColumn | None,
    samples: pl.DataFrame | None,
) -> list[SensitivitySeries]:
    """Goodput (and $/Mtok) of each sweep as the `metric` limit tightens, others held."""
    if params.mode == "requests" and samples is not None:
        limits = _request_limits(results, samples, metric)
    else:
        limits = _percentile_limits(results, metric, params.slo.stat(metric))
    by_request = None
    if params.mode == "requests" and samples is not None:
        by_request = _request_steps(results, params, metric, limits, samples)
    out = []
    for i, result in enumerate(results):

        def steps_of(result: SweepAnalysis = result) -> list[SensitivityStep]:
            return sensitivity(
                result.points,
                params.slo,
                metric,
                limits,
                params.basis,
                params.stat,
                sample_stats=result.sample_stats,
                axes=(result.xs, result.ys),
                columns=partial(value_column, result),
            )

        if by_request is not None:
            steps = by_request[i]
        elif not result.sample_stats:
            # Stored points alone: the same limits read the same steps (kept per sweep).
            steps = remember(result.derived, _steps_key(result, params, metric, limits), steps_of)
        else:
            steps = steps_of()
        price = group.for_hardware(str(result.meta.hardware)) if group else None
        costs = tuple(
            None
            if price is None
            else usd_per_mtok(
                price.usd_per_gpu_hour,
                per_total_gpu(
                    s.goodput_tok_s_per_gpu,
                    result.meta.num_gpus,
                    point_splits.at_load(result.units, result.points, s.concurrency, s.request_rate)
                    if result.point_splits
                    else result.units,
                ),
                price.utilization,
            )
            for s in steps
        )
        out.append(SensitivitySeries(result, tuple(steps), costs))
    return out


def _percentile_limits(
    results: list[SweepAnalysis], metric: Metric, stat: Percentile
) -> list[float]:
    """The limits to step through: every value of the metric at its percentile in the selected
    sweeps. From stored statistics alone they depend on those sweeps only: kept with the first
    for the next SLO asked (a set of every point's value, 40k for 20 sweeps × 2,048)."""

    def limits() -> list[float]:
        columns = [value_column(r, metric, stat) for r in results]
        return percentile_limits([r.points for r in results], metric, stat, columns=columns)

    if not results or any(r.sample_stats for r in results):
        return limits()
    chosen = tuple((r.meta.id, r.meta.content_hash) for r in results)
    return remember(results[0].derived, ("percentile limits", metric, stat, chosen), limits)


def _request_limits(
    results: list[SweepAnalysis], samples: pl.DataFrame, metric: Metric
) -> list[float]:
    """The limits to step through: quantiles of the selected sweeps' requests (`samples`), which
    depend on those sweeps alone, so they are kept with the first for the next SLO asked (a
    sort of every request, ~0.1 s at 2M)."""
    if not results:
        return request_limits(samples, metric)
    chosen = tuple((r.meta.id, r.meta.content_hash) for r in results)
    key = ("request limits", metric, chosen)
    return remember(results[0].derived, key, lambda: request_limits(samples, metric))


def _request_steps(
    results: list[SweepAnalysis],
    params: Params,
    metric: Metric,
    limits: list[float],
    samples: pl.DataFrame,
) -> list[list[SensitivityStep]]:
    """Per-request steps of every sweep: one polars pass over all selected sweeps' requests and
    one over their buckets, unless each sweep kept its steps for these limits. A sweep's steps
    follow from its own points and requests and the limits, so a view shown again (the same
    SLO, another axis or price) reads them back."""
    keys = [_steps_key(r, params, metric, limits) for r in results]
    kept: list[list[SensitivityStep] | None]
    kept = [recall(r.derived, key) for r, key in zip(results, keys, strict=True)]
    if all(steps is not None for steps in kept):
        return [steps for steps in kept if steps is not None]
    buckets = request_buckets(samples, params.slo, metric, limits)
    sweeps = [(r.points, r.xs) for r in results]
    computed = request_sensitivity(sweeps, params.slo, limits, params.basis, buckets)
    return [
        keep(r.derived, key, steps) for r, key, steps in zip(results, keys, computed, strict=True)
    ]


def _steps_key(
    result: SweepAnalysis, params: Params, metric: Metric, limits: list[float]
) -> tuple[Any, ...]:
    """Where a sweep keeps its sensitivity steps for these limits (its GPU count: editable).

    Steps vary the `metric` limit and hold the others, so they follow from the SLO with that
    limit at any value (both modes judge each step at `with_limit(slo, metric, step)`): the key
    holds it at the loosest step, and a new SLO that moves only the varied limit reads them back.
    """
    slo = with_limit(params.slo, metric, max(limits)) if limits else params.slo
    return ("sensitivity", result.meta.num_gpus, slo, params.mode, params.basis, params.stat,
            metric, tuple(limits))  # fmt: skip


def value_column(result: SweepAnalysis, metric: Metric, stat: Percentile) -> list[float | None]:
    """The values a check of (metric, stat) compares at each point. Stored statistics never
    change, so without sample-derived values they are remembered per process per sweep."""
    if result.sample_stats:
        return point_values(result.points, metric, stat, result.sample_stats)
    return check_values(result.derived, result.points, metric, stat)


def sensitivity_percentile(params: Params, metric: str) -> str:
    """The statistic the varied limit is read at: its own percentile, or per-request."""
    if params.mode == "requests":
        return "per-request"
    for m in METRICS:
        if m == metric:
            return params.slo.stat(m)
    return params.slo.percentile


def sensitivity_empty_reason(
    series: list[SensitivitySeries], params: Params, metric: str
) -> str | None:
    """Why the sensitivity chart has nothing to draw, or None when it has a goodput somewhere."""
    if any(st.goodput_tok_s_per_gpu is not None for s in series for st in s.steps):
        return None
    label = METRIC_LABELS.get(metric, metric.upper())  # type: ignore[call-overload]
    if not series:
        return "no sweep selected"
    if not any(s.steps for s in series):
        if params.mode == "requests":
            return f"no request samples: per-request {label} limits need per-request data"
        stat = sensitivity_percentile(params, metric)
        return (
            f"no point has a {stat} {label}, stored or from request samples: choose a "
            f"percentile the files report (e.g. p50 or p99) or upload per-request data"
        )
    others = [
        f"{p} {METRIC_LABELS[m]} ≤ {fmt_load(v, 'ms')}"
        for m, p, v in params.slo.checked()
        if m != metric
    ]
    held = f" under the other limits ({', '.join(others)})" if others else ""
    return (
        f"no sweep meets the SLO at any {label} limit{held}: those points fail or are unknown; "
        "see the read-off table for each sweep's reason"
    )
