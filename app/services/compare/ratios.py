"""Compare glue: analysed sweeps in, ratio curves, headlines and cost ratios out (SLO
sensitivity is `compare.sensitivity`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from app.domain.accounting import ROLE_MODES
from app.domain.compare import (
    Frontier,
    RatioCurve,
    headline_points,
    range_ends_at,
    ratio_curve,
    values_at,
)
from app.domain.covariates import Caveat, warnings
from app.domain.estimate import load_order
from app.domain.likeness import Likeness, between, scenario_refusal
from app.services.analysis import Params, SweepAnalysis
from app.services.prices import Price
from app.services.readoff.price_columns import PriceColumn
from app.services.readoff.units_shown import gpus_per_unit


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
